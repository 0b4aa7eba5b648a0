package admintest

import (
	"context"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

func noAction(context.Context, map[string]any, ActionContext) (any, error) { return nil, nil }

// TestConfigErrors: a name in Options that names nothing fails New with
// an error naming the key, the field and the closest valid name.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	guilds := func(cfg ResourceConfig) map[string]*Resource {
		return map[string]*Resource{"guilds": DefineResource((*testGuild)(nil), cfg)}
	}
	members := map[string][]Relation{"guilds": {{Name: "members", Target: "members", Kind: Many, FK: "guild_id"}}}
	tests := []struct {
		name string
		opts Options
		want []string // substrings of the error
	}{
		{"list column", Options{Resources: guilds(ResourceConfig{List: ListConfig{Columns: []string{"id", "nmae"}}})},
			[]string{`resource "guilds"`, "List.Columns", `"nmae"`, `closest: "name"`}},
		{"form field by Go name", Options{Resources: guilds(ResourceConfig{Form: FormConfig{Fields: []string{"OwnerID"}}})},
			[]string{`resource "guilds"`, "Form.Fields", `"OwnerID"`, `SQL column names: "owner_id"`}},
		{"show field", Options{Resources: guilds(ResourceConfig{Show: ShowConfig{Fields: []string{"nme"}}})},
			[]string{"Show.Fields", `closest: "name"`}},
		{"search", Options{Resources: guilds(ResourceConfig{Search: []string{"nam"}})},
			[]string{"Search", `closest: "name"`}},
		{"default sort", Options{Resources: guilds(ResourceConfig{List: ListConfig{DefaultSort: Sort{Field: "nam"}}})},
			[]string{"List.DefaultSort.Field", `closest: "name"`}},
		{"default sort order", Options{Resources: guilds(ResourceConfig{List: ListConfig{DefaultSort: Sort{Field: "name", Order: "down"}}})},
			[]string{"List.DefaultSort.Order", `"down"`}},
		{"columns key", Options{Resources: guilds(ResourceConfig{Columns: map[string]ColumnConfig{"onwer_id": {Label: "Owner"}}})},
			[]string{`Columns["onwer_id"]`, `closest: "owner_id"`}},
		{"hidden column listed", Options{Resources: guilds(ResourceConfig{Columns: map[string]ColumnConfig{"owner_id": {Hidden: true}},
			List: ListConfig{Columns: []string{"name", "owner_id"}}})},
			[]string{"List.Columns", `"owner_id" is hidden`}},
		{"link to unknown resource", Options{Resources: guilds(ResourceConfig{Columns: map[string]ColumnConfig{"owner_id": {LinkTo: &LinkTo{Resource: "user"}}}})},
			[]string{`Columns["owner_id"].LinkTo.Resource`, `"user"`, `closest: "users"`}},
		{"link label column", Options{Resources: guilds(ResourceConfig{Columns: map[string]ColumnConfig{"owner_id": {LinkTo: &LinkTo{Resource: "users", LabelColumn: "emial"}}}})},
			[]string{"LinkTo.LabelColumn", `closest: "email"`}},
		{"relation config", Options{Relations: members, Tables: tablesWith(map[string]any{"members": (*testMember)(nil)}),
			Resources: guilds(ResourceConfig{Relations: map[string]RelationConfig{"membrs": {Label: "Crew"}}})},
			[]string{`Relations["membrs"]`, `closest: "members"`}},
		{"duplicate action", Options{Resources: guilds(ResourceConfig{Actions: []Action{{Name: "a", Handler: noAction}, {Name: "a", Handler: noAction}}})},
			[]string{`resource "guilds"`, `Actions["a"]`, "two actions"}},
		{"LoadRows on a per-row action", Options{Resources: guilds(ResourceConfig{Actions: []Action{{Name: "a", PerRow: true, LoadRows: true, Handler: noAction}}})},
			[]string{`Actions["a"].LoadRows`}},
		{"model differs from Tables", Options{Tables: tablesWith(map[string]any{"guilds": (*testMember)(nil)}), Resources: guilds(ResourceConfig{})},
			[]string{`Resources["guilds"]`, "*admintest.testGuild", "*admintest.testMember"}},
		{"nil model", Options{Resources: map[string]*Resource{"guilds": DefineResource(nil, ResourceConfig{})}},
			[]string{`Resources["guilds"]`, "needs the table's Bun model"}},
		{"user column", Options{Tables: map[string]any{"users": (*testPlayer)(nil)}, UserColumns: UserColumns{PasswordHash: "pwhash"}},
			[]string{"UserColumns.PasswordHash", `"pwhash"`, `closest: "pw_hash"`}},
		{"relation target", Options{Resources: guilds(ResourceConfig{}), Relations: map[string][]Relation{"guilds": {{Name: "owner", Target: "user", Kind: One, FK: "owner_id"}}}},
			[]string{`"guilds"`, `relation "owner"`, `unknown target "user"`, `closest: "users"`}},
		{"relation column", Options{Resources: guilds(ResourceConfig{}), Relations: map[string][]Relation{"guilds": {{Name: "owner", Target: "users", Kind: One, FK: "ownr_id"}}}},
			[]string{`relation "owner"`, `"ownr_id"`, `closest: "owner_id"`}},
		{"cookie name with a separator", Options{Session: SessionOptions{CookieName: "ops;session"}},
			[]string{"Session.CookieName", `"ops;session"`, "not a valid cookie name"}},
		{"cookie name with a space", Options{Session: SessionOptions{CookieName: "ops session"}},
			[]string{"Session.CookieName", "not a valid cookie name"}},
		{"relations key", Options{Resources: guilds(ResourceConfig{}), Relations: map[string][]Relation{"guild": {{Name: "owner", Target: "users", Kind: One, FK: "owner_id"}}}},
			[]string{`unknown table "guild"`, `closest: "guilds"`}},
	}
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.opts.Secret, tt.opts.PasswordHasher = testSecret, testHasher
				a, err := New(db, tt.opts)
				if err == nil {
					a.Close()
					t.Fatalf("New = nil error; want one with %q", tt.want)
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("New = %v; want it to contain %s", err, w)
					}
				}
			})
		}
	})
}

// TestResourceWithoutTablesEntry: DefineResource's model is the table's
// model, so a Resource alone adds the table, and MigrationSQL agrees.
func TestResourceWithoutTablesEntry(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testGuild)(nil))
		opts := Options{Tables: map[string]any{"users": (*User)(nil)}, Resources: map[string]*Resource{
			"guilds":    DefineResource((*testGuild)(nil), ResourceConfig{Label: "Clans"}),
			"userNotes": DefineResource((*UserNote)(nil), ResourceConfig{}),
		}}
		e := newEnv(t, db, opts)
		c, id := e.bootstrap()
		c.do("POST", "/admin-api/guilds", map[string]any{"name": "Red", "owner_id": id}).want(t, 201)
		got, _ := c.list(t, "/admin-api/guilds", nil)
		if len(got) != 1 || got[0]["name"] != "Red" {
			t.Fatalf("GET /guilds = %v; want the guild", got)
		}
		c.do("POST", "/admin-api/userNotes", map[string]any{"user_id": id, "body": "hi"}).want(t, 201)
		stmts, err := MigrationSQL(db.Dialect(), opts)
		if err != nil {
			t.Fatal(err)
		}
		q := `"`
		if db.Dialect().Name() == dialect.MySQL {
			q = "`" // MySQL quotes identifiers with backticks
		}
		if all := strings.Join(stmts, "\n"); !strings.Contains(all, q+"game_user_notes"+q) || strings.Contains(all, q+"guilds"+q) {
			t.Fatalf("MigrationSQL with a userNotes Resource and no Tables entry:\n%s", all)
		}
	})
}
