package admin

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// testGenerated has a column the database computes.
type testGenerated struct {
	bun.BaseModel `bun:"table:generated_rows,alias:gr"`

	ID      int64  `bun:"id,pk,autoincrement"`
	Name    string `bun:"name,notnull"`
	NameLen *int64 `bun:"name_len"`
}

// TestGeneratedColumnsReadOnly creates a table with a generated column by
// each database's own DDL: the catalog (PRAGMA table_xinfo on SQLite,
// pg_attribute on PostgreSQL) marks it read-only, a write to it is a 400
// naming it, and a create without it gets the computed value.
func TestGeneratedColumnsReadOnly(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ddl := `CREATE TABLE generated_rows (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
			name_len INTEGER GENERATED ALWAYS AS (length(name)) STORED)`
		if db.Dialect().Name() == dialect.PG {
			ddl = `CREATE TABLE generated_rows (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL,
				name_len int GENERATED ALWAYS AS (length(name)) STORED)`
		}
		if _, err := db.ExecContext(context.Background(), ddl); err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"generated": (*testGenerated)(nil)})})
		c, _ := e.bootstrap()
		var cat []struct {
			Name    string `json:"name"`
			Columns []struct {
				Name     string `json:"name"`
				ReadOnly bool   `json:"readOnly"`
				Required bool   `json:"required"`
			} `json:"columns"`
		}
		if err := json.Unmarshal(c.do("GET", "/admin-api", nil).want(t, 200).raw, &cat); err != nil {
			t.Fatal(err)
		}
		for _, res := range cat {
			if res.Name != "generated" {
				continue
			}
			for _, col := range res.Columns {
				if want := col.Name == "name_len" || (col.Name == "id" && db.Dialect().Name() == dialect.PG); col.ReadOnly != want {
					t.Errorf("catalog %s readOnly = %v; want %v", col.Name, col.ReadOnly, want)
				}
				if want := col.Name == "name"; col.Required != want {
					t.Errorf("catalog %s required = %v; want %v", col.Name, col.Required, want)
				}
			}
		}
		r := c.do("POST", "/admin-api/generated", map[string]any{"name": "abc", "name_len": 9}).want(t, 400, "read_only")
		if f, _ := r.body["fields"].(map[string]any); f["name_len"] == nil {
			t.Errorf("write to a generated column: %s; want fields naming name_len", r.raw)
		}
		created := c.do("POST", "/admin-api/generated", map[string]any{"name": "abcd"}).want(t, 201)
		if created.body["name_len"] != float64(4) {
			t.Errorf("created row = %s; want name_len 4 computed by the database", created.raw)
		}
		r = c.do("POST", "/admin-api/generated", map[string]any{})
		if r.StatusCode != 400 {
			t.Errorf("create without the required name = %d %s; want 400", r.StatusCode, r.raw)
		}
	})
}
