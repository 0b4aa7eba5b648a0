package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// fieldsGuild has players, each with a large save document.
type fieldsGuild struct {
	bun.BaseModel `bun:"table:fguilds,alias:fg"`

	ID   int64  `bun:"id,pk,autoincrement"`
	Name string `bun:"name,notnull"`
}

type fieldsPlayer struct {
	bun.BaseModel `bun:"table:fplayers,alias:fp"`

	ID      int64          `bun:"id,pk,autoincrement"`
	GuildID int64          `bun:"guild_id,notnull"`
	Name    string         `bun:"name,notnull"`
	Level   int64          `bun:"level,notnull"`
	Email   string         `bun:"email,notnull"`
	Pin     string         `bun:"pin,notnull"`
	Secret  string         `bun:"secret,notnull"`
	Save    map[string]any `bun:"save"`
}

// selects records the text of every statement Bun runs that reads the
// players table.
type selects struct {
	mu    sync.Mutex
	texts []string
}

func (s *selects) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }
func (s *selects) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if strings.Contains(ev.Query, `"fplayers"`) || strings.Contains(ev.Query, "`fplayers`") {
		s.mu.Lock()
		s.texts = append(s.texts, ev.Query)
		s.mu.Unlock()
	}
}

// take returns the texts recorded since the last take.
func (s *selects) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.texts
	s.texts = nil
	return out
}

// TestFields: _fields makes a list page, a relation tab and a CSV export
// read and answer only the columns asked for and the key; a column the
// caller's role may not read is refused as an unknown one; masks apply.
func TestFields(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		if db.Dialect().Name() == dialect.MySQL {
			// A MariaDB game keeps its save document in a JSON column
			// (Bun would make a VARCHAR(255) of the map).
			createTables(t, db, (*fieldsGuild)(nil))
			must(db.ExecContext(context.Background(), "CREATE TABLE fplayers (id BIGINT AUTO_INCREMENT PRIMARY KEY, guild_id BIGINT NOT NULL, "+
				"name VARCHAR(255) NOT NULL, level BIGINT NOT NULL, email VARCHAR(255) NOT NULL, pin VARCHAR(255) NOT NULL, "+
				"secret VARCHAR(255) NOT NULL, save JSON)"))
		} else {
			createTables(t, db, (*fieldsGuild)(nil), (*fieldsPlayer)(nil))
		}
		insert(t, db, &[]fieldsGuild{{ID: 1, Name: "Red"}, {ID: 2, Name: "Blue"}})
		blob := strings.Repeat("x", 200_000)
		players := make([]fieldsPlayer, 100)
		for i := range players {
			players[i] = fieldsPlayer{ID: int64(i + 1), GuildID: int64(i%2 + 1), Name: fmt.Sprintf("player%03d", i+1), Level: int64(100 - i),
				Email: fmt.Sprintf("p%d@example.com", i+1), Pin: "1234", Secret: "s3cret", Save: map[string]any{"inventory": blob}}
		}
		for i := 0; i < len(players); i += 10 {
			batch := players[i : i+10]
			insert(t, db, &batch)
		}
		var seen selects
		e := newEnv(t, db.WithQueryHook(&seen), Options{
			Tables: tablesWith(map[string]any{"fguilds": (*fieldsGuild)(nil), "fplayers": (*fieldsPlayer)(nil)}),
			Relations: map[string][]Relation{
				"fguilds":  {{Name: "players", Target: "fplayers", Kind: Many, FK: "GuildID"}},
				"fplayers": {{Name: "guild", Target: "fguilds", Kind: One, FK: "GuildID"}},
			},
			Resources: map[string]*Resource{"fplayers": DefineResource((*fieldsPlayer)(nil), ResourceConfig{Columns: map[string]ColumnConfig{
				"email":  {ReadRole: RoleAdmin, Mask: MaskEmail},
				"pin":    {ReadRole: RoleAdmin},
				"secret": {Hidden: true},
			}})},
		})
		cr := e.crew("fplayers", "fguilds")
		admin, mod := cr.admin, cr.modScoped

		keys := func(row map[string]any) []string {
			var ks []string
			for k := range row {
				ks = append(ks, k)
			}
			slices.Sort(ks)
			return ks
		}
		unread := func(what string) {
			t.Helper()
			texts := seen.take()
			if len(texts) == 0 {
				t.Errorf("%s: no statement read the players", what)
			}
			for _, q := range texts {
				// A count's estimate (EXPLAIN) plans the statement and
				// reads no row.
				if (strings.Contains(q, `"save"`) || strings.Contains(q, "`save`")) && !strings.HasPrefix(q, "EXPLAIN") {
					t.Errorf("%s: a statement reads the save document: %s", what, q)
				}
			}
		}

		// The whole page carries every document; with _fields, none.
		if r := admin.do("GET", "/admin-api/fplayers?_end=100", nil).want(t, 200); len(r.raw) < 100*200_000 {
			t.Fatalf("the page without _fields is %d bytes; want every document", len(r.raw))
		}
		seen.take()
		page, r := admin.list(t, "/admin-api/fplayers", url.Values{"_fields": {"name,level"}, "_end": {"100"}})
		unread("the page with _fields")
		if len(page) != 100 || len(r.raw) >= 100_000 {
			t.Fatalf("the page with _fields=name,level is %d rows, %d bytes; want 100 rows under 100 KB", len(page), len(r.raw))
		}
		if got := keys(page[0]); !slices.Equal(got, []string{"id", "level", "name"}) {
			t.Errorf("a row with _fields=name,level has %v; want id, level, name", got)
		}

		// A keyset page sorted by a column not asked for: read for the
		// cursor, not sent.
		first, r := admin.list(t, "/admin-api/fplayers", url.Values{"_fields": {"name"}, "_sort": {"level"}, "_limit": {"10"}})
		unread("a keyset page")
		next := r.Header.Get("X-Next-Cursor")
		if got := keys(first[0]); !slices.Equal(got, []string{"id", "name"}) || next == "" || first[0]["name"] != "player100" {
			t.Fatalf("a keyset page with _fields=name = %v, cursor %q; want id and name of player100, and a cursor", first[0], next)
		}
		second, _ := admin.list(t, "/admin-api/fplayers", url.Values{"_fields": {"name"}, "_sort": {"level"}, "_limit": {"10"}, "_cursor": {next}})
		if second[0]["name"] != "player090" || len(keys(second[0])) != 2 {
			t.Errorf("the next page begins with %v; want player090's id and name", second[0])
		}

		// The labels are those of the keys asked for.
		labelled, _ := admin.list(t, "/admin-api/fplayers", url.Values{"_fields": {"guild_id"}, "_end": {"1"}})
		if lb := labels(labelled[0]); lb["guild_id"] != "Red" {
			t.Errorf("a row with _fields=guild_id = %v; want guild_id labelled Red", labelled[0])
		}
		if _, ok := page[0]["_labels"]; ok {
			t.Errorf("a row without guild_id in _fields has labels: %v", page[0])
		}

		// A relation tab.
		tab, r := admin.list(t, "/admin-api/fguilds/1/relations/players", url.Values{"_fields": {"level"}, "_end": {"100"}})
		unread("the tab")
		if len(tab) != 50 || len(r.raw) >= 100_000 || !slices.Equal(keys(tab[0]), []string{"id", "level"}) {
			t.Errorf("the tab with _fields=level = %d rows, %d bytes, %v; want 50 rows of id and level", len(tab), len(r.raw), tab[0])
		}

		// The CSV export: the columns asked for and the key, in the
		// table's order.
		csv := admin.do("GET", "/admin-api/fplayers/_export.csv?_fields=level,name", nil).want(t, 200)
		unread("the export")
		lines := strings.Split(strings.TrimSpace(strings.TrimPrefix(string(csv.raw), "\ufeff")), "\n")
		if len(lines) != 101 || strings.TrimSpace(lines[0]) != "id,name,level" || strings.Contains(string(csv.raw), "xxxx") {
			t.Errorf("the export with _fields=level,name = %d lines, header %q; want 100 rows of id,name,level", len(lines), lines[0])
		}

		// Masks apply; an unknown column, a hidden one and one the role
		// may not read are one answer; an empty _fields is no list.
		masked, _ := mod.list(t, "/admin-api/fplayers", url.Values{"_fields": {"email"}, "_end": {"1"}})
		if masked[0]["email"] != "p***@example.com" {
			t.Errorf("the mod's row with _fields=email = %v; want the email masked", masked[0])
		}
		for _, tt := range []struct {
			c     *client
			field string
		}{{admin, "nope"}, {admin, "secret"}, {mod, "pin"}, {mod, "secret"}} {
			r := tt.c.do("GET", "/admin-api/fplayers?_fields=name,"+tt.field, nil).want(t, 400, "unknown_column")
			var body struct {
				Error  string            `json:"error"`
				Fields map[string]string `json:"fields"`
			}
			if err := json.Unmarshal(r.raw, &body); err != nil || body.Fields[tt.field] == "" || body.Error != fmt.Sprintf("unknown column %q in _fields", tt.field) {
				t.Errorf("_fields=name,%s = %s; want unknown_column naming it, as any unknown column", tt.field, r.raw)
			}
			tt.c.do("GET", "/admin-api/fguilds/1/relations/players?_fields="+tt.field, nil).want(t, 400, "unknown_column")
			tt.c.do("GET", "/admin-api/fplayers/_export.csv?_fields="+tt.field, nil).want(t, 400, "unknown_column")
		}
		if pins, _ := admin.list(t, "/admin-api/fplayers", url.Values{"_fields": {"pin"}, "_end": {"1"}}); pins[0]["pin"] != "1234" {
			t.Errorf("the admin's row with _fields=pin = %v", pins[0])
		}
		admin.do("GET", "/admin-api/fplayers?_fields=", nil).want(t, 400, "invalid_value")
	})
}
