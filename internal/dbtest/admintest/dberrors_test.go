package admintest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

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
