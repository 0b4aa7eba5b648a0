package rows

import (
	"errors"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/errbody"
)

// TestReferenceMessageSaysBothSides: when the database does not say which
// side of a foreign key failed, the answer says both.
func TestReferenceMessageSaysBothSides(t *testing.T) {
	t.Parallel()
	if ErrReference.Message != "the referenced row does not exist, or other rows refer to this one" {
		t.Errorf("errReference = %q; want the message that says both sides", ErrReference.Message)
	}
	if err := DBError(errors.New("FOREIGN KEY constraint failed")); !errors.Is(err, ErrReference) {
		t.Errorf("SQLite's foreign key failure = %v; want errReference", err)
	}
}

// TestNotNullMessageNamesColumn: SQLite's "NOT NULL constraint failed:
// t.c (1299)" must name c, not "c (1299".
func TestNotNullMessageNamesColumn(t *testing.T) {
	t.Parallel()
	tests := []struct{ msg, want string }{
		{"NOT NULL constraint failed: game_roles.scopes (1299)", "scopes"},
		{"NOT NULL constraint failed: game_roles.scopes", "scopes"},
		{"constraint failed: NOT NULL constraint failed: t.name (1299)", "name"},
		{"NOT NULL constraint failed: name", "name"},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			err := DBError(errors.New(tt.msg))
			if !strings.Contains(err.Error(), `"`+tt.want+`"`) {
				t.Errorf("dbError(%q) = %v; want it to name %q", tt.msg, err, tt.want)
			}
		})
	}
}

// dbError quotes back only a column name it matched, whatever follows it.
func TestDBErrorNotNullColumn(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"NOT NULL constraint failed: game_roles.scopes (1299)": `column "scopes" cannot be null`,
		"constraint failed: NOT NULL constraint failed: t.qty": `column "qty" cannot be null`,
		"NOT NULL constraint failed: name":                     `column "name" cannot be null`,
		"sqlite: NOT NULL constraint failed":                   "a column that cannot be null was null",
		"NOT NULL constraint failed: (1299)":                   "a column that cannot be null was null",
	} {
		var ae *errbody.Error
		if !errors.As(DBError(errors.New(msg)), &ae) || ae.Code != "missing_value" || ae.Message != want {
			t.Errorf("dbError(%q) = %v; want missing_value %q", msg, ae, want)
		}
	}
}
