package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// testGadget is a custom table with a column of every data type.
type testGadget struct {
	bun.BaseModel `bun:"table:gadgets,alias:g"`

	ID      int64          `bun:"id,pk,autoincrement"`
	Name    string         `bun:"name,notnull,unique"`
	Qty     int64          `bun:"qty,notnull,default:7"`
	Price   float64        `bun:"price,notnull,default:0"`
	Active  bool           `bun:"active,notnull,default:false"`
	SeenAt  *time.Time     `bun:"seen_at"`
	Meta    map[string]any `bun:"meta"`
	Note    *string        `bun:"note"`
	OwnerID *string        `bun:"owner_id"`
	Secret  *string        `bun:"secret"`
}

// testMember belongs to a guild through a Bun rel: tag.
type testMember struct {
	bun.BaseModel `bun:"table:members,alias:m"`

	ID      int64      `bun:"id,pk,autoincrement"`
	GuildID int64      `bun:"guild_id,notnull"`
	Title   string     `bun:"title,notnull"`
	Guild   *testGuild `bun:"rel:belongs-to,join:guild_id=id"`
}

// createTables creates custom tables, as a game's migrations would.
func createTables(t *testing.T, db *bun.DB, models ...any) {
	t.Helper()
	for _, m := range models {
		if _, err := db.NewCreateTable().Model(m).IfNotExists().Exec(context.Background()); err != nil {
			t.Fatalf("create table %T: %v", m, err)
		}
	}
}

// tablesWith is BuiltinTables plus extra.
func tablesWith(extra map[string]any) map[string]any {
	tables := BuiltinTables()
	for k, v := range extra {
		tables[k] = v
	}
	return tables
}

// insert writes rows straight to the database, bypassing the panel.
func insert(t *testing.T, db *bun.DB, rows any) {
	t.Helper()
	if _, err := db.NewInsert().Model(rows).Exec(context.Background()); err != nil {
		t.Fatalf("insert %T: %v", rows, err)
	}
}

// count is the number of rows of a table.
func count(t *testing.T, db *bun.DB, model any) int {
	t.Helper()
	n, err := db.NewSelect().Model(model).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// crew is one signed-in client per role: an admin, a mod with scopes, a
// mod without any, a plain user and an anonymous client.
type crew struct {
	admin, modScoped, modBare, user, anon   *client
	adminID, modScopedID, modBareID, userID string
}

func (e *env) crew(scopes ...string) crew {
	e.t.Helper()
	ctx := context.Background()
	var c crew
	c.admin, c.adminID = e.bootstrap()
	c.modScopedID = e.user("mod@example.com", "mod password")
	for _, s := range scopes {
		if err := e.admin.Moderation().AssignMod(ctx, c.modScopedID, s); err != nil {
			e.t.Fatal(err)
		}
	}
	c.modBareID = e.user("bare@example.com", "mod password")
	if err := e.admin.Moderation().SetRole(ctx, c.modBareID, RoleMod); err != nil {
		e.t.Fatal(err)
	}
	c.userID = e.user("user@example.com", "user password")
	c.modScoped = e.login("mod@example.com", "mod password")
	c.modBare = e.login("bare@example.com", "mod password")
	c.user = e.login("user@example.com", "user password")
	c.anon = e.client()
	return c
}

// list is a GET of path with query q, answered 200, as rows.
func (c *client) list(t *testing.T, path string, q url.Values) ([]map[string]any, *resp) {
	t.Helper()
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	r := c.do("GET", path, nil).want(t, 200)
	return rows(t, r), r
}

// rows decodes an array body.
func rows(t *testing.T, r *resp) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal(r.raw, &out); err != nil {
		t.Fatalf("%s %s body = %s; want an array: %v", r.Request.Method, r.Request.URL, r.raw, err)
	}
	return out
}

// column returns one column of rows, formatted with %v.
func column(rows []map[string]any, name string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r[name])
	}
	return out
}

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
		switch db.Dialect().Name() {
		case dialect.PG:
			ddl = `CREATE TABLE generated_rows (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL,
				name_len int GENERATED ALWAYS AS (length(name)) STORED)`
		case dialect.MySQL:
			ddl = "CREATE TABLE generated_rows (id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(255) NOT NULL, " +
				"name_len INT GENERATED ALWAYS AS (CHAR_LENGTH(name)) STORED)"
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
