package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The search box's tables: three of named rows, and a view that takes
// seconds to find its one match.
type srGuild struct {
	bun.BaseModel `bun:"table:sr_guilds"`
	ID            int64  `bun:"id,pk,autoincrement"`
	Name          string `bun:"name,notnull"`
}

type srItem struct {
	bun.BaseModel `bun:"table:sr_items"`
	ID            int64  `bun:"id,pk,autoincrement"`
	Name          string `bun:"name,notnull"`
}

type srQuest struct {
	bun.BaseModel `bun:"table:sr_quests"`
	ID            int64  `bun:"id,pk,autoincrement"`
	Name          string `bun:"name,notnull"`
}

type srSlow struct {
	bun.BaseModel `bun:"table:sr_slow"`
	ID            int64  `bun:"id,pk"`
	Name          string `bun:"name"`
}

// searchAnswer is GET /_search's body.
type searchAnswer struct {
	Results []struct{ Resource, Label, ID, Title string }
	Skipped []struct{ Resource, Label, Reason string }
}

func (c *client) search(t *testing.T, q url.Values) (searchAnswer, *resp) {
	t.Helper()
	r := c.do("GET", "/admin-api/_search?"+q.Encode(), nil).want(t, 200)
	var a searchAnswer
	if err := json.Unmarshal(r.raw, &a); err != nil {
		t.Fatalf("%s: %v", r.raw, err)
	}
	return a, r
}

// TestSearch: GET /_search finds rows of every resource the operator may
// list and read by the start of their label, or of a later word of it
// ranked after, ignoring case: limit rows a
// resource (5 by default), 50 in all, the resources past that named as
// skipped; each hit opens its row. A mod finds rows of the resources in
// their scope only, and never by a column they read masked (the users'
// email) or may not read (the quests' name), whose values no answer
// holds. A resource whose statement runs out of its share of
// QueryTimeout is skipped and named, and the others answered. Bad input
// is 400 in words, a player 403, no session 401.
func TestSearch(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		createTables(t, db, (*srGuild)(nil), (*srItem)(nil), (*srQuest)(nil))
		// A view whose one match is its last row of millions: reading it
		// takes seconds on both databases.
		slow := `CREATE VIEW sr_slow AS
			WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 50000000)
			SELECT n AS id, CASE WHEN n = 50000000 THEN 'Night last' ELSE 'x' END AS name FROM r`
		if db.Dialect().Name() == dialect.MySQL {
			// MariaDB stops a recursion at max_recursive_iterations; its
			// sequence engine counts as far.
			slow = `CREATE VIEW sr_slow AS
			SELECT seq AS id, CASE WHEN seq = 50000000 THEN 'Night last' ELSE 'x' END AS name FROM seq_1_to_50000000`
		}
		if _, err := db.ExecContext(ctx, slow); err != nil {
			t.Fatal(err)
		}
		var guilds []srGuild
		var items []srItem
		var quests []srQuest
		for i := range 25 {
			guilds = append(guilds, srGuild{Name: fmt.Sprintf("Night Owls %02d", i)})
			items = append(items, srItem{Name: fmt.Sprintf("night lamp %02d", i)})
			quests = append(quests, srQuest{Name: fmt.Sprintf("NIGHT-QUEST-%02d", i)})
		}
		guilds = append(guilds, srGuild{Name: "Dawn Patrol"}, srGuild{Name: "100% Owls"}, srGuild{Name: "Knights of the Night"}, srGuild{Name: "Owls Nest"})
		insert(t, db, &guilds)
		insert(t, db, &items)
		insert(t, db, &quests)

		e := newEnv(t, db, Options{
			// A resource's share is 2 s: long enough for the small tables
			// on a loaded machine, far short of reading the slow view.
			QueryTimeout: 8 * time.Second,
			Tables: tablesWith(map[string]any{
				"guilds": (*srGuild)(nil), "items": (*srItem)(nil), "quests": (*srQuest)(nil), "slow": (*srSlow)(nil),
			}),
			Resources: map[string]*Resource{
				"users":  DefineResource((*User)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"email": {ReadRole: RoleAdmin, Mask: MaskEmail}}}),
				"quests": DefineResource((*srQuest)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"name": {ReadRole: RoleAdmin}}}),
			},
		})
		c := e.crew("guilds", "users", "quests")
		e.user("night.rider@example.com", "player password") // no display name: the admin's label of them is their email
		admin := c.admin

		// The admin: 5 a resource by default, each named with its
		// resource, opening its row; the slow view skipped.
		began := time.Now()
		a, _ := admin.search(t, url.Values{"q": {"night"}})
		if took := time.Since(began); took > 8*time.Second+20*time.Second {
			t.Errorf("the search took %s; want the slow view ended at its share of QueryTimeout, not waited for", took)
		}
		per := map[string]int{}
		for _, h := range a.Results {
			per[h.Resource]++
			if !strings.HasPrefix(strings.ToLower(h.Title), "night") && h.Resource != "users" {
				t.Errorf("hit %+v: its label does not start with night", h)
			}
			if h.Label == "" || h.ID == "" {
				t.Errorf("hit %+v: want its resource's label and its id", h)
			}
		}
		for _, res := range []string{"guilds", "items", "quests"} {
			if per[res] != 5 {
				t.Errorf("%d hits of %s; want 5 (the default limit) in %+v", per[res], res, a.Results)
			}
		}
		if per["users"] != 1 {
			t.Errorf("%d hits of users; want night.rider's, by email", per["users"])
		}
		if len(a.Skipped) != 1 || a.Skipped[0].Resource != "slow" || a.Skipped[0].Reason != "timeout" {
			t.Errorf("skipped %+v; want the slow view, timeout", a.Skipped)
		}
		for _, h := range a.Results {
			if h.Resource == "guilds" {
				row := admin.do("GET", "/admin-api/guilds/"+h.ID, nil).want(t, 200)
				if row.body["name"] != h.Title {
					t.Errorf("hit %+v opens %v", h, row.body)
				}
				break
			}
		}
		// A prefix of the label or of a later word, not a substring; a
		// wildcard is a letter. The label's start ranks first.
		a, _ = admin.search(t, url.Values{"q": {"wls"}})
		if len(a.Results) != 0 {
			t.Errorf("q=wls found %+v; want nothing (labels or words starting with it)", a.Results)
		}
		a, _ = admin.search(t, url.Values{"q": {"owls"}})
		titles := []string{}
		for _, h := range a.Results {
			titles = append(titles, h.Title)
		}
		// Which rows a later word finds is the table's order (no index
		// serves it): the label's start first, then 4 of those, by label.
		if len(titles) != 5 || titles[0] != "Owls Nest" || !slices.IsSorted(titles[1:]) {
			t.Errorf("q=owls found %q; want Owls Nest, then 4 with Owls as a later word, by label", titles)
		}
		for _, title := range titles[1:] {
			if !strings.Contains(title, " Owls") {
				t.Errorf("q=owls found %q: no later word starts with owls", title)
			}
		}
		a, _ = admin.search(t, url.Values{"q": {"patrol"}})
		if len(a.Results) != 1 || a.Results[0].Title != "Dawn Patrol" {
			t.Errorf("q=patrol found %+v; want Dawn Patrol, by its second word", a.Results)
		}
		a, _ = admin.search(t, url.Values{"q": {"100%"}})
		if len(a.Results) != 1 || a.Results[0].Title != "100% Owls" {
			t.Errorf("q=100%% found %+v; want 100%% Owls alone", a.Results)
		}
		a, _ = admin.search(t, url.Values{"q": {"%"}})
		if len(a.Results) != 0 {
			t.Errorf("q=%% found %+v; want nothing", a.Results)
		}

		// Bounded in total: 20 a resource, 50 in all.
		a, _ = admin.search(t, url.Values{"q": {"night"}, "limit": {"20"}})
		per = map[string]int{}
		for _, h := range a.Results {
			per[h.Resource]++
		}
		if len(a.Results) != 50 {
			t.Errorf("%d hits with limit 20; want 50, the total cap", len(a.Results))
		}
		for res, n := range per {
			if n > 20 {
				t.Errorf("%d hits of %s; want at most 20", n, res)
			}
		}
		limited := false
		for _, s := range a.Skipped {
			limited = limited || s.Reason == "limit"
		}
		if !limited {
			t.Errorf("skipped %+v; want the resources after the cap named, reason limit", a.Skipped)
		}

		// The mod: their scope only, by the columns they read.
		a, r := c.modScoped.search(t, url.Values{"q": {"night"}, "limit": {"20"}})
		for _, h := range a.Results {
			if h.Resource != "guilds" {
				t.Errorf("the mod found %+v; want guilds only (users by their email, which mods read masked, and quests by their name, which they may not read, are not searched)", h)
			}
		}
		if len(a.Results) != 20 {
			t.Errorf("the mod found %d guilds; want 20", len(a.Results))
		}
		for _, secret := range []string{"night.rider", "NIGHT-QUEST", "items", "slow"} {
			if strings.Contains(string(r.raw), secret) {
				t.Errorf("the mod's answer holds %q: %s", secret, r.raw)
			}
		}
		a, _ = c.modBare.search(t, url.Values{"q": {"night"}})
		if len(a.Results) != 0 {
			t.Errorf("a mod without scopes found %+v; want nothing", a.Results)
		}

		// Bad input, in words.
		for _, q := range []string{"", "q=", "q=%20%20", "q=" + strings.Repeat("n", 201), "q=night&limit=0", "q=night&limit=21", "q=night&limit=five", "q=night&limit=1&limit=2", "q=a%00b"} {
			admin.do("GET", "/admin-api/_search?"+q, nil).want(t, 400, "invalid_value")
		}
		c.user.do("GET", "/admin-api/_search?q=night", nil).want(t, 403, "forbidden")
		c.anon.do("GET", "/admin-api/_search?q=night", nil).want(t, 401)
		if logs := e.logs.String(); strings.Contains(logs, "level=ERROR") {
			t.Errorf("an error was logged:\n%s", logs)
		}
	})
}
