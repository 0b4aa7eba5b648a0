package schematest

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	admin "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/schema"
)

// col is the expected shape of one column: name, data type and flags
// ("pk", "notnull", "default", "auto").
type col struct {
	name  string
	dt    schema.DataType
	flags string
}

func TestInspectBuiltins(t *testing.T) {
	tests := []struct {
		key   string
		table string
		pk    []string
		cols  []col
	}{
		{"users", "game_users", []string{"id"}, []col{
			{"id", schema.String, "pk notnull"},
			{"email", schema.String, "notnull"},
			{"display_name", schema.String, ""},
			{"password_hash", schema.String, ""},
			{"ban", schema.JSON, ""},
			{"token_version", schema.Integer, "notnull"},
			{"created_at", schema.Datetime, "notnull"},
		}},
		{"configs", "game_configs", []string{"key"}, []col{
			{"key", schema.String, "pk notnull"},
			{"value", schema.JSON, ""},
			{"updated_at", schema.Datetime, "notnull"},
		}},
		{"leaderboards", "game_leaderboards", []string{"id"}, []col{
			{"id", schema.String, "pk notnull"},
			{"name", schema.String, "notnull"},
			{"sort_order", schema.String, "notnull"},
			{"created_at", schema.Datetime, "notnull"},
		}},
		{"analyticsEvents", "game_analytics_events", []string{"id"}, []col{
			{"id", schema.Integer, "pk notnull default auto"},
			{"user_id", schema.String, ""},
			{"name", schema.String, "notnull"},
			{"payload", schema.JSON, ""},
			{"created_at", schema.Datetime, "notnull"},
		}},
		{"cloudSaves", "game_cloud_saves", []string{"user_id", "slot"}, []col{
			{"user_id", schema.String, "pk notnull"},
			{"slot", schema.String, "pk notnull"},
			{"data", schema.JSON, ""},
			{"version", schema.Integer, "notnull"},
			{"updated_at", schema.Datetime, "notnull"},
		}},
		{"leaderboardEntries", "game_leaderboard_entries", []string{"leaderboard_id", "user_id"}, []col{
			{"leaderboard_id", schema.String, "pk notnull"},
			{"user_id", schema.String, "pk notnull"},
			{"score", schema.Integer, "notnull"},
			{"metadata", schema.JSON, ""},
			{"updated_at", schema.Datetime, "notnull"},
		}},
		{"roles", "game_roles", []string{"user_id"}, []col{
			{"user_id", schema.String, "pk notnull"},
			{"role", schema.String, "notnull"},
			{"scopes", schema.JSON, "notnull"},
			{"updated_at", schema.Datetime, "notnull"},
		}},
		{"userNotes", "game_user_notes", []string{"id"}, []col{
			{"id", schema.Integer, "pk notnull default auto"},
			{"user_id", schema.String, "notnull"},
			{"author_id", schema.String, ""},
			{"body", schema.String, "notnull"},
			{"created_at", schema.Datetime, "notnull"},
		}},
		{"adminAudit", "game_admin_audit", []string{"id"}, []col{
			{"id", schema.Integer, "pk notnull default auto"},
			{"created_at", schema.Datetime, "notnull"},
			{"operator_id", schema.String, ""},
			{"action", schema.String, "notnull"},
			{"resource", schema.String, "notnull"},
			{"target_id", schema.String, ""},
			{"payload", schema.JSON, ""},
		}},
	}
	builtins := admin.BuiltinTables()
	if len(builtins) != len(tests) {
		t.Fatalf("BuiltinTables() has %d tables; the test covers %d", len(builtins), len(tests))
	}
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		for _, tt := range tests {
			t.Run(tt.key, func(t *testing.T) {
				tb, err := schema.Inspect(db, tt.key, builtins[tt.key])
				if err != nil {
					t.Fatalf("Inspect(%q) error: %v", tt.key, err)
				}
				if tb.Name != tt.table || tb.Key != tt.key {
					t.Errorf("Inspect(%q) = table %q key %q; want %q %q", tt.key, tb.Name, tb.Key, tt.table, tt.key)
				}
				if got := tb.PKNames(); !slices.Equal(got, tt.pk) {
					t.Errorf("Inspect(%q).PK = %v; want %v", tt.key, got, tt.pk)
				}
				var got []col
				for _, c := range tb.Columns {
					got = append(got, col{c.Name, c.DataType, flags(c)})
					if c.SQLType == "" || c.Field == nil || c.Label == "" {
						t.Errorf("Inspect(%q) column %q: SQLType %q, Field %v, Label %q; want all set", tt.key, c.Name, c.SQLType, c.Field, c.Label)
					}
					if tb.ByName[c.Name] != c {
						t.Errorf("Inspect(%q).ByName[%q] is not the column", tt.key, c.Name)
					}
				}
				if !slices.Equal(got, tt.cols) {
					t.Errorf("Inspect(%q) columns =\n%v\nwant\n%v", tt.key, got, tt.cols)
				}
			})
		}
	})
}

func flags(c *schema.Column) string {
	var f []string
	if c.Primary {
		f = append(f, "pk")
	}
	if c.NotNull {
		f = append(f, "notnull")
	}
	if c.HasDefault {
		f = append(f, "default")
	}
	if c.AutoIncrement {
		f = append(f, "auto")
	}
	return strings.Join(f, " ")
}

func TestMarkDefaultAndLookup(t *testing.T) {
	db := testdb.SQLite(t)
	tb, err := schema.Inspect(db, "users", (*admin.User)(nil))
	if err != nil {
		t.Fatal(err)
	}
	if tb.ByName["id"].HasDefault {
		t.Fatalf("users.id HasDefault before MarkDefault")
	}
	if err := tb.MarkDefault("id"); err != nil {
		t.Fatalf("MarkDefault(id) = %v", err)
	}
	if !tb.ByName["id"].HasDefault {
		t.Errorf("users.id HasDefault = false after MarkDefault")
	}
	if err := tb.MarkDefault("ID"); err == nil {
		t.Errorf("MarkDefault(ID) = nil; want an error (SQL names only)")
	}
	for _, name := range []string{"display_name", "DisplayName"} {
		c, ok := tb.Lookup(name)
		if !ok || c.Name != "display_name" {
			t.Errorf("Lookup(%q) = %v, %v; want display_name", name, c, ok)
		}
	}
	if c, ok := tb.Lookup("displayName"); ok {
		t.Errorf("Lookup(displayName) = %v; want not found", c.Name)
	}
	if tb.ByName["display_name"].Label != "Display Name" {
		t.Errorf("display_name label = %q", tb.ByName["display_name"].Label)
	}
}

func TestInspectErrors(t *testing.T) {
	type noPK struct {
		bun.BaseModel `bun:"table:t_nopk"`
		Name          string
	}
	db := testdb.SQLite(t)
	for _, m := range []any{nil, 42} {
		if tb, err := schema.Inspect(db, "x", m); err == nil || !strings.HasPrefix(err.Error(), "schema: ") {
			t.Errorf("Inspect(%T) = %v, %v; want a schema: error", m, tb, err)
		}
	}
	// A table without a primary key (an append-only log) is read-only.
	tb, err := schema.Inspect(db, "x", (*noPK)(nil))
	if err != nil || len(tb.PK) != 0 || !strings.Contains(tb.NotWritable, "no primary key") {
		t.Errorf("Inspect(noPK) = %+v, %v; want a table without key, not writable", tb, err)
	}
}

type relOwner struct {
	bun.BaseModel `bun:"table:t_owners"`
	ID            int64       `bun:"id,pk,autoincrement"`
	Name          string      `bun:"name"`
	Pets          []*relPet   `bun:"rel:has-many,join:id=owner_id"`
	Profile       *relProfile `bun:"rel:has-one,join:id=owner_id"`
}

type relPet struct {
	bun.BaseModel `bun:"table:t_pets"`
	ID            int64     `bun:"id,pk,autoincrement"`
	OwnerID       int64     `bun:"owner_id"`
	VetID         string    `bun:"vet_id"`
	Owner         *relOwner `bun:"rel:belongs-to,join:owner_id=id"`
}

type relProfile struct {
	bun.BaseModel `bun:"table:t_profiles"`
	ID            int64  `bun:"id,pk,autoincrement"`
	OwnerID       int64  `bun:"owner_id"`
	Bio           string `bun:"bio"`
}

type relVet struct {
	bun.BaseModel `bun:"table:t_vets"`
	Clinic        string `bun:"clinic,pk"`
	Num           int    `bun:"num,pk"`
}

func inspectAll(t *testing.T, db *bun.DB, models map[string]any) map[string]*schema.Table {
	t.Helper()
	tables := make(map[string]*schema.Table)
	for key, m := range models {
		tb, err := schema.Inspect(db, key, m)
		if err != nil {
			t.Fatalf("Inspect(%q): %v", key, err)
		}
		tables[key] = tb
	}
	return tables
}

func TestLinkTags(t *testing.T) {
	db := testdb.SQLite(t)
	tables := inspectAll(t, db, map[string]any{
		"owners": (*relOwner)(nil), "pets": (*relPet)(nil), "profiles": (*relProfile)(nil),
	})
	if err := schema.Link(tables, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string][]schema.Relation{
		"owners": {
			{Name: "pets", Target: "pets", Kind: schema.Many, FK: "owner_id", Ref: "id"},
			{Name: "profile", Target: "profiles", Kind: schema.Many, FK: "owner_id", Ref: "id"},
		},
		"pets":     {{Name: "owner", Target: "owners", Kind: schema.One, FK: "owner_id", Ref: "id"}},
		"profiles": nil,
	}
	for key, w := range want {
		if got := tables[key].Relations; !slices.Equal(got, w) {
			t.Errorf("Link: %s.Relations = %+v; want %+v", key, got, w)
		}
	}

	// Without the owners table, the tag relations to it are dropped.
	delete(tables, "owners")
	if err := schema.Link(tables, nil); err != nil {
		t.Fatal(err)
	}
	if got := tables["pets"].Relations; len(got) != 0 {
		t.Errorf("Link without owners: pets.Relations = %+v; want none", got)
	}
}

func TestLinkDeclared(t *testing.T) {
	db := testdb.SQLite(t)
	models := admin.BuiltinTables()
	models["vets"] = (*relVet)(nil)
	models["pets"] = (*relPet)(nil)
	tables := inspectAll(t, db, models)
	declared := map[string][]schema.Relation{
		"users": {
			{Name: "cloudSaves", Target: "cloudSaves", Kind: schema.Many, FK: "user_id"},
			{Name: "notes", Target: "userNotes", Kind: schema.Many, FK: "UserID"},
		},
		"userNotes":  {{Name: "author", Target: "users", Kind: schema.One, FK: "AuthorID"}},
		"adminAudit": {{Name: "operator", Target: "users", Kind: schema.One, FK: "operator_id"}},
		// Composite-key target: skipped without an error.
		"pets": {{Name: "vet", Target: "vets", Kind: schema.One, FK: "vet_id"}},
	}
	if err := schema.Link(tables, declared); err != nil {
		t.Fatal(err)
	}
	want := map[string][]schema.Relation{
		"users": {
			{Name: "cloudSaves", Target: "cloudSaves", Kind: schema.Many, FK: "user_id", Ref: "id"},
			{Name: "notes", Target: "userNotes", Kind: schema.Many, FK: "user_id", Ref: "id"},
		},
		"userNotes":  {{Name: "author", Target: "users", Kind: schema.One, FK: "author_id", Ref: "id"}},
		"adminAudit": {{Name: "operator", Target: "users", Kind: schema.One, FK: "operator_id", Ref: "id"}},
		"pets":       nil, // pets' tag relation targets owners, which is not a table here
	}
	for key, w := range want {
		if got := tables[key].Relations; !slices.Equal(got, w) {
			t.Errorf("Link: %s.Relations = %+v; want %+v", key, got, w)
		}
	}
	if r, ok := tables["users"].Relation("notes"); !ok || r.Target != "userNotes" {
		t.Errorf("Relation(notes) = %+v, %v", r, ok)
	}

	bad := []struct {
		name string
		decl map[string][]schema.Relation
	}{
		{"unknown table", map[string][]schema.Relation{"nope": {{Name: "a", Target: "users", Kind: schema.One, FK: "id"}}}},
		{"unknown target", map[string][]schema.Relation{"userNotes": {{Name: "a", Target: "nope", Kind: schema.One, FK: "author_id"}}}},
		{"unknown fk", map[string][]schema.Relation{"userNotes": {{Name: "a", Target: "users", Kind: schema.One, FK: "authorId"}}}},
		{"fk on wrong side", map[string][]schema.Relation{"users": {{Name: "a", Target: "userNotes", Kind: schema.Many, FK: "email"}}}},
		{"bad kind", map[string][]schema.Relation{"userNotes": {{Name: "a", Target: "users", Kind: "some", FK: "author_id"}}}},
		{"no name", map[string][]schema.Relation{"userNotes": {{Target: "users", Kind: schema.One, FK: "author_id"}}}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if err := schema.Link(tables, tt.decl); err == nil || !strings.HasPrefix(err.Error(), "schema: ") {
				t.Errorf("Link(%v) = %v; want a schema: error", tt.decl, err)
			}
		})
	}
}

func TestDataTypes(t *testing.T) {
	type custom struct {
		bun.BaseModel `bun:"table:t_types"`
		ID            int32            `bun:"id,pk"`
		U             uint16           `bun:"u"`
		F             float32          `bun:"f"`
		B             *bool            `bun:"b"`
		T             *testing.T       `bun:"-"`
		Raw           []byte           `bun:"raw"`
		Tags          []string         `bun:"tags"`
		Doc           string           `bun:"doc,type:jsonb"`
		Meta          struct{ A int }  `bun:"meta"`
		Name          *string          `bun:"name,default:'x'"`
		Kind          reflect.Kind     `bun:"kind"`
		Counts        map[string]int64 `bun:"counts"`
	}
	db := testdb.SQLite(t)
	tb, err := schema.Inspect(db, "types", (*custom)(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]schema.DataType{
		"id": schema.Integer, "u": schema.Integer, "f": schema.Number, "b": schema.Boolean,
		"raw": schema.Bytes, "tags": schema.JSON, "doc": schema.JSON, "meta": schema.JSON,
		"name": schema.String, "kind": schema.Integer, "counts": schema.JSON,
	}
	for name, dt := range want {
		if got := tb.ByName[name].DataType; got != dt {
			t.Errorf("DataType(%s) = %q; want %q", name, got, dt)
		}
	}
	if !tb.ByName["name"].HasDefault {
		t.Errorf("name with default: tag has HasDefault = false")
	}
}

type relMatch struct {
	bun.BaseModel `bun:"table:t_matches"`
	ID            int64 `bun:"id,pk,autoincrement"`
	WinnerID      int64 `bun:"winner_id"`
	LoserID       int64 `bun:"loser_id"`
	RefereeID     int64 `bun:"referee_id"`
}

// TestInverses: each One relation of an accepted table gives its target a
// Many over the same column, named after the table, then after the table
// and the column; a Many that exists already over that column is kept.
func TestInverses(t *testing.T) {
	db := testdb.SQLite(t)
	tables := inspectAll(t, db, map[string]any{
		"owners": (*relOwner)(nil), "pets": (*relPet)(nil), "matches": (*relMatch)(nil),
	})
	declared := map[string][]schema.Relation{
		"matches": {
			{Name: "winner", Target: "owners", Kind: schema.One, FK: "winner_id"},
			{Name: "loser", Target: "owners", Kind: schema.One, FK: "loser_id"},
			{Name: "referee", Target: "owners", Kind: schema.One, FK: "referee_id"},
		},
		// "matchesByRefereeId" is taken by a relation to another table.
		"owners": {{Name: "matchesByRefereeId", Target: "pets", Kind: schema.Many, FK: "owner_id"}},
	}
	if err := schema.Link(tables, declared); err != nil {
		t.Fatal(err)
	}
	schema.Inverses(tables, func(string) bool { return true })
	var got []string
	for _, r := range tables["owners"].Relations {
		got = append(got, r.Name+":"+r.Target+":"+string(r.Kind)+":"+r.FK)
	}
	// pets.owner has its Many (the rel: tag "pets"); winner takes
	// "matches", loser "matchesByLoserId", referee none (both taken).
	want := []string{
		"pets:pets:many:owner_id",
		"matchesByRefereeId:pets:many:owner_id",
		"matches:matches:many:winner_id",
		"matchesByLoserId:matches:many:loser_id",
	}
	if !slices.Equal(got, want) {
		t.Errorf("owners relations = %v; want %v", got, want)
	}

	// A table from does not accept gives no tab.
	if err := schema.Link(tables, declared); err != nil {
		t.Fatal(err)
	}
	schema.Inverses(tables, func(key string) bool { return key != "matches" })
	if n := len(tables["owners"].Relations); n != 2 {
		t.Errorf("owners relations without matches' inverses = %+v; want the two declared", tables["owners"].Relations)
	}
}
