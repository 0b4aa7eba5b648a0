package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// ticket is a game's table keyed by a uuid the database makes when the
// client gives none.
type ticket struct {
	bun.BaseModel `bun:"table:tickets,alias:tk"`

	ID   string  `bun:"id,pk,type:uuid"`
	Note *string `bun:"note"`
}

// TestOpenAPIColumnTypes: on the typed columns of a game (arrays, jsonb,
// the users' ban, the audit payload) every type list of the document
// names each type once, as JSON Schema 2020-12 wants; a database array is
// an array of its elements, not any JSON; and a column is readOnly in the
// document exactly when the catalog says so: a uuid key with a database
// default may be given on create, and is.
func TestOpenAPIColumnTypes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		createTyped(t, db)
		tickets := map[dialect.Name]string{
			dialect.SQLite: `CREATE TABLE tickets (id TEXT PRIMARY KEY DEFAULT (lower(hex(randomblob(16)))), note TEXT)`,
			dialect.PG:     `CREATE TABLE tickets (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), note text)`,
			dialect.MySQL:  `CREATE TABLE tickets (id UUID PRIMARY KEY DEFAULT UUID(), note TEXT)`,
		}[db.Dialect().Name()]
		if _, err := db.ExecContext(ctx, tickets); err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"typed": (*testTyped)(nil), "tickets": (*ticket)(nil)})})
		c, _ := e.bootstrap()
		api := openAPIDoc(t, c)
		// Rows as the database holds them, a two-dimensional array among
		// them (shown as its stored text; elsewhere than PostgreSQL also
		// an object, an array of another element type), answer as the
		// document says, property by property.
		stored := `INSERT INTO typed_rows (tags, scores, ids) VALUES ('["a",null]', '[[1,2],[3,4]]', NULL), ('[]', '[1,null]', '["0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3d"]'),
			('[1,true]', '{"a":1}', '[{"id":1}]')`
		if db.Dialect().Name() == dialect.PG {
			stored = `INSERT INTO typed_rows (tags, scores, ids) VALUES ('{a,NULL}', '{{1,2},{3,4}}', NULL), ('{}', '{1,NULL}', '{0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3d}')`
		}
		must(db.ExecContext(ctx, stored))
		props := api.Components.Schemas["Typed"].Value.Properties
		for _, row := range rows(t, c.do("GET", "/admin-api/typed", nil).want(t, 200)) {
			invalid, _ := row["_invalid"].(map[string]any)
			if _, text := row["scores"].(string); fmt.Sprint(row["id"]) == "1" && (!text || invalid["scores"] == nil) {
				t.Errorf("row 1 scores = %v, _invalid = %v; want the two-dimensional array's stored text, flagged", row["scores"], row["_invalid"])
			}
			for col, v := range row {
				if p := props[col]; p != nil && p.Value != nil {
					if err := p.Value.VisitJSON(v); err != nil {
						t.Errorf("typed.%s = %v does not fit its schema: %v", col, v, err)
					}
				}
			}
		}
		var doc map[string]any
		if err := json.Unmarshal(c.do("GET", "/admin-api/_openapi.json", nil).want(t, 200).raw, &doc); err != nil {
			t.Fatal(err)
		}
		checkTypeLists(t, "#", doc)

		schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
		prop := func(schema, col string) map[string]any {
			t.Helper()
			s, _ := schemas[schema].(map[string]any)
			props, _ := s["properties"].(map[string]any)
			p, ok := props[col].(map[string]any)
			if !ok {
				t.Fatalf("%s has no property %s: %v", schema, col, s)
			}
			return p
		}
		for _, tt := range []struct {
			schema, col string
			types       []string // the property's types, as a list
			items       string   // a type its items take; "" for no items
		}{
			{"Typed", "tags", []string{"array", "string"}, "string"},
			{"Typed", "scores", []string{"array", "string", "null"}, "number"},
			{"Typed", "ids", []string{"array", "string", "null"}, "string"},
			{"Typed", "doc", []string{"object", "array", "string", "number", "boolean", "null"}, ""},
			{"Users", "ban", []string{"object", "array", "string", "number", "boolean", "null"}, ""},
			{"AdminAudit", "payload", []string{"object", "array", "string", "number", "boolean", "null"}, ""},
		} {
			p := prop(tt.schema, tt.col)
			got := typeList(p["type"])
			if tt.col == "tags" {
				// NOT NULL on PostgreSQL, a nullable slice on SQLite.
				got = slices.DeleteFunc(got, func(s string) bool { return s == "null" })
			}
			if !slices.Equal(got, tt.types) {
				t.Errorf("%s.%s type = %v; want %v", tt.schema, tt.col, p["type"], tt.types)
			}
			items, _ := p["items"].(map[string]any)
			if tt.items != "" && (items == nil || !slices.Contains(typeList(items["type"]), tt.items) || !slices.Contains(typeList(items["type"]), "null")) {
				t.Errorf("%s.%s items = %v; want %s or null", tt.schema, tt.col, p["items"], tt.items)
			}
		}

		// readOnly as the catalog says, column by column.
		var cat []struct {
			Name    string
			Columns []struct {
				Name     string
				ReadOnly bool
				Masked   bool
			}
		}
		if err := json.Unmarshal(c.do("GET", "/admin-api", nil).want(t, 200).raw, &cat); err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, res := range cat {
			for _, col := range res.Columns {
				if got := prop(schemaNameOf(res.Name), col.Name)["readOnly"] == true; got != col.ReadOnly {
					t.Errorf("%s.%s: readOnly %v in the document, %v in the catalog", res.Name, col.Name, got, col.ReadOnly)
				}
				checked++
			}
		}
		if checked == 0 {
			t.Fatal("the catalog has no columns")
		}
		if prop("Tickets", "id")["readOnly"] == true {
			t.Errorf("Tickets.id = %v; want a key the client may give", prop("Tickets", "id"))
		}
		const given = "0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3d"
		if r := c.do("POST", "/admin-api/tickets", map[string]any{"id": given, "note": "given"}).want(t, 201); r.body["id"] != given {
			t.Errorf("POST tickets with id %s = %s; want that id", given, r.raw)
		}
		if r := c.do("POST", "/admin-api/tickets", map[string]any{"note": "made"}).want(t, 201); r.body["id"] == "" || r.body["id"] == given {
			t.Errorf("POST tickets without id = %s; want the database's id", r.raw)
		}
	})
}

// checkTypeLists fails t for every type list under v (at path) that
// names a type twice.
func checkTypeLists(t *testing.T, path string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if list, ok := x.([]any); ok && k == "type" {
				seen := map[any]bool{}
				for _, ty := range list {
					if seen[ty] {
						t.Errorf("%s/type = %v; want each type once", path, list)
					}
					seen[ty] = true
				}
			}
			checkTypeLists(t, path+"/"+k, x)
		}
	case []any:
		for i, x := range v {
			checkTypeLists(t, fmt.Sprintf("%s/%d", path, i), x)
		}
	}
}

// typeList is a schema's type as a list.
func typeList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

// schemaNameOf is the document's schema name of a resource key:
// "adminAudit" gives "AdminAudit".
func schemaNameOf(key string) string {
	if key == "" {
		return key
	}
	return strings.ToUpper(key[:1]) + key[1:]
}
