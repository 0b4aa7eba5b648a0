package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestPGForeignKeyMessage: a foreign key violation says which side
// failed, naming the column or the referring table, never the key.
func TestPGForeignKeyMessage(t *testing.T) {
	t.Parallel()
	for detail, want := range map[string]string{
		`Key (owner_id)=(0193aaaa-0000-7000-8000-000000000000) is not present in table "players".`: `column "owner_id": the referenced row does not exist`,
		`Key (id)=(42) is still referenced from table "guilds".`:                                   `rows of "guilds" still refer to this row`,
		`Key (a, b)=(1, 2) is not present in table "t".`:                                           `column "a, b": the referenced row does not exist`,
		``:                      "", // another wording: errReference's message, which says both
		`Schlüssel (x)=(1) ...`: "",
	} {
		if got, _, ok := pgForeignKeyMessage(detail); got != want || ok != (want != "") {
			t.Errorf("pgForeignKeyMessage(%q) = %q, %v; want %q", detail, got, ok, want)
		}
	}
	if errReference.Message != "the referenced row does not exist, or other rows refer to this one" {
		t.Errorf("errReference = %q; want the message that says both sides", errReference.Message)
	}
}

type fkParent struct {
	bun.BaseModel `bun:"table:fk_parents"`
	ID            int64  `bun:"id,pk"`
	Name          string `bun:"name"`
}

type fkChild struct {
	bun.BaseModel `bun:"table:fk_children"`
	ID            int64 `bun:"id,pk"`
	ParentID      int64 `bun:"parent_id,notnull"`
}

// TestForeignKeyMessages: on both databases a create naming a missing row
// and a delete of a row others refer to say which it was.
func TestForeignKeyMessages(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		for _, ddl := range []string{
			`CREATE TABLE fk_parents (id BIGINT PRIMARY KEY, name TEXT)`,
			`CREATE TABLE fk_children (id BIGINT PRIMARY KEY, parent_id BIGINT NOT NULL REFERENCES fk_parents (id))`,
		} {
			if _, err := db.ExecContext(ctx, ddl); err != nil {
				t.Fatal(err)
			}
		}
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"parents": (*fkParent)(nil), "children": (*fkChild)(nil)})})
		c, _ := e.bootstrap()
		c.do("POST", "/admin-api/parents", map[string]any{"id": 1, "name": "p"}).want(t, 201)
		orphan := c.do("POST", "/admin-api/children", map[string]any{"id": 1, "parent_id": 2}).want(t, 400, "invalid_reference")
		if msg := fmt.Sprint(orphan.body["error"]); !strings.Contains(msg, "does not exist") || strings.Contains(msg, "refer to") {
			t.Errorf("create of an orphan: %q; want it to say the referenced row does not exist, only", msg)
		}
		c.do("POST", "/admin-api/children", map[string]any{"id": 2, "parent_id": 1}).want(t, 201)
		del := c.do("DELETE", "/admin-api/parents/1", nil).want(t, 400, "invalid_reference")
		if msg := fmt.Sprint(del.body["error"]); !strings.Contains(msg, "refer to this row") || strings.Contains(msg, "does not exist") {
			t.Errorf("delete of a referenced row: %q; want it to say other rows refer to it, only", msg)
		}
		if n := count(t, db, (*fkParent)(nil)); n != 1 {
			t.Errorf("parents = %d after the refused delete; want 1", n)
		}
	})
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
			if got := sqliteNotNullColumn(tt.msg); got != tt.want {
				t.Errorf("sqliteNotNullColumn(%q) = %q; want %q", tt.msg, got, tt.want)
			}
			err := dbError(errors.New(tt.msg))
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
		var ae *APIError
		if !errors.As(dbError(errors.New(msg)), &ae) || ae.Code != "missing_value" || ae.Message != want {
			t.Errorf("dbError(%q) = %v; want missing_value %q", msg, ae, want)
		}
	}
}
