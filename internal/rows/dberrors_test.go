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

// TestDBErrorUniqueAndNotWritable: a unique violation is a 409 naming the
// column (SQLite's "t.col", PostgreSQL's detail) or else PostgreSQL's
// constraint, never the value; a write the database refuses on a view or
// an unwritable relation (0A000, 55000, SQLite's view) is a 400 read_only.
func TestDBErrorUniqueAndNotWritable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err          error
		status       int
		code, word   string
		field, noVal string
	}{
		{errors.New("constraint failed: UNIQUE constraint failed: handle_players.handle (2067)"), 409, "conflict", `"handle"`, "handle", ""},
		{pgErr{'C': "23505", 'D': "Key (handle)=(Ann) already exists.", 'n': "handle_players_handle_key"}, 409, "conflict", `"handle"`, "handle", "Ann"},
		{pgErr{'C': "23505", 'D': "Key (lower(handle))=(ann) already exists.", 'n': "players_handle_ci"}, 409, "conflict", `"players_handle_ci"`, "", "ann"},
		{pgErr{'C': "0A000", 'M': "cannot insert into view \"ranked\""}, 400, "read_only", "view", "", ""},
		{pgErr{'C': "55000", 'M': "cannot delete from view"}, 400, "read_only", "view", "", ""},
		{errors.New("cannot modify ranked because it is a view"), 400, "read_only", "view", "", ""},
	} {
		var ae *errbody.Error
		if !errors.As(DBError(tt.err), &ae) || ae.Status != tt.status || ae.Code != tt.code || !strings.Contains(ae.Message, tt.word) {
			t.Errorf("DBError(%v) = %+v; want %d %s saying %s", tt.err, ae, tt.status, tt.code, tt.word)
			continue
		}
		if tt.field != "" && ae.Fields[tt.field] == "" {
			t.Errorf("DBError(%v) fields = %v; want %s", tt.err, ae.Fields, tt.field)
		}
		if tt.noVal != "" && strings.Contains(ae.Message, tt.noVal) {
			t.Errorf("DBError(%v) = %q quotes the value", tt.err, ae.Message)
		}
	}
}

// pgErr is a PostgreSQL error response as drivers expose it.
type pgErr map[byte]string

func (e pgErr) Field(k byte) string { return e[k] }
func (e pgErr) Error() string       { return e['M'] }

// TestDBErrorCheckNamesConstraint: a check's refusal is a 400 whose
// message names the check as the database did (ColumnFields then names
// the columns it reads, from the catalog); one that names none says so.
func TestDBErrorCheckNamesConstraint(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{pgErr{'C': "23514", 'n': "qty_positive", 'M': `new row for relation "stock" violates check constraint "qty_positive"`}, `breaks the check constraint "qty_positive"`},
		{errors.New("constraint failed: CHECK constraint failed: qty > 0 (275)"), `breaks the check constraint "qty > 0"`},
		{errors.New("CHECK constraint failed"), "a value breaks a check constraint"},
	} {
		var ae *errbody.Error
		if !errors.As(DBError(tt.err), &ae) || ae.Status != 400 || ae.Code != "invalid_value" || ae.Message != tt.want || ae.Cause == nil {
			t.Errorf("DBError(%v) = %+v; want 400 invalid_value %q with its cause", tt.err, ae, tt.want)
		}
	}
}

func TestMySQLCastType(t *testing.T) {
	for typ, want := range map[string]string{"int(11)": "SIGNED", "bigint(20) unsigned": "UNSIGNED", "decimal(10,2)": "DECIMAL(10,2)",
		"varchar(32)": "CHAR(32)", "datetime(6)": "DATETIME(6)", "double": "DOUBLE", "date": "DATE"} {
		if got, ok := mysqlCastType(typ); !ok || got != want {
			t.Errorf("mysqlCastType(%q) = %q, %v; want %q", typ, got, ok, want)
		}
	}
	if _, ok := mysqlCastType("json"); ok {
		t.Error("mysqlCastType(json) names a type")
	}
}
