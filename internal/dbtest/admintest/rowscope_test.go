package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// testMatch is a table several games share, each row keyed by game_id.
type testMatch struct {
	bun.BaseModel `bun:"table:matches,alias:mt"`

	ID     int64  `bun:"id,pk,autoincrement"`
	GameID string `bun:"game_id,notnull"`
	Name   string `bun:"name,notnull"`
	Score  int64  `bun:"score,notnull"`
	// TeamID is the team that played it: a team of its game, but for
	// the one alpha match against beta's team (scopeCrossMatch).
	TeamID *int64    `bun:"team_id"`
	Team   *testTeam `bun:"rel:belongs-to,join:team_id=id"`
}

// testTeam is a team of one game: the matches' belongs-to, and a to-many
// tab of the matches.
type testTeam struct {
	bun.BaseModel `bun:"table:teams,alias:tm"`

	ID     int64  `bun:"id,pk,autoincrement"`
	GameID string `bun:"game_id,notnull"`
	Name   string `bun:"name,notnull"`
}

// The teams newScopeEnv makes, and its one alpha match whose team is
// beta's (its label must not reach alpha's mod).
const (
	scopeAlphaTeam   = 1 // "Alpha Wolves"
	scopeBetaTeam    = 2 // "Beta Bears"
	scopeCrossMatch  = 2 // an alpha match (i = 1) with beta's team
	scopeBetaOnAlpha = 4 // a beta match (i = 3) with alpha's team
)

// scopeEnv is a panel over matches and teams of two games, alpha and
// beta, with a mod of each: each mod's scopes hold matches and teams,
// its row scope its game. Matches 1, 4, 7, … (every third) are beta's.
type scopeEnv struct {
	*env
	admin, alpha, beta       *client
	adminID, alphaID, betaID string
}

func newScopeEnv(t *testing.T, db *bun.DB) scopeEnv {
	t.Helper()
	ctx := context.Background()
	createTables(t, db, (*testMatch)(nil), (*testTeam)(nil))
	insert(t, db, &[]testTeam{{GameID: "alpha", Name: "Alpha Wolves"}, {GameID: "beta", Name: "Beta Bears"}})
	var ms []testMatch
	for i := range 30 {
		g, team := "alpha", int64(scopeAlphaTeam)
		if i%3 == 0 {
			g, team = "beta", scopeBetaTeam
		}
		switch int64(i + 1) {
		case scopeCrossMatch:
			team = scopeBetaTeam
		case scopeBetaOnAlpha:
			team = scopeAlphaTeam
		}
		ms = append(ms, testMatch{GameID: g, Name: g + " match", Score: int64(i), TeamID: &team})
	}
	insert(t, db, &ms)
	echo := func(_ context.Context, row map[string]any, c ActionContext) (any, error) {
		return map[string]any{"row": row, "ids": c.IDs}, nil
	}
	e := newEnv(t, db, Options{
		Tables: tablesWith(map[string]any{"matches": (*testMatch)(nil), "teams": (*testTeam)(nil)}),
		Resources: map[string]*Resource{
			"matches": DefineResource((*testMatch)(nil), ResourceConfig{ScopeColumn: "game_id", Search: []string{"name"},
				Actions:  []Action{{Name: "replay", PerRow: true, Handler: echo}, {Name: "tally", Handler: echo}},
				Policies: Policies{Create: Roles(RoleAdmin, RoleMod), Delete: Roles(RoleAdmin, RoleMod)}}),
			"teams": DefineResource((*testTeam)(nil), ResourceConfig{ScopeColumn: "game_id"}),
		},
	})
	s := scopeEnv{env: e}
	s.admin, s.adminID = e.bootstrap()
	for _, g := range []string{"alpha", "beta"} {
		id := e.user(g+"-mod@example.com", "mod password")
		for _, res := range []string{"matches", "teams"} {
			if err := e.admin.Moderation().AssignMod(ctx, id, res); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.admin.Moderation().SetRowScope(ctx, id, []string{g}); err != nil {
			t.Fatal(err)
		}
		c := e.login(g+"-mod@example.com", "mod password")
		if g == "alpha" {
			s.alpha, s.alphaID = c, id
		} else {
			s.beta, s.betaID = c, id
		}
	}
	return s
}

// TestRowScopeSetting: SetRowScope keeps a mod's values in the roles
// table (read live, as the role is), writes an audit entry, and clears
// with nil; New refuses a ScopeColumn that cannot scope.
func TestRowScopeSetting(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := newScopeEnv(t, db)
		op, err := s.admin0().Role(ctx, s.alphaID)
		if err != nil || !slices.Equal(op.Rows, []string{"alpha"}) {
			t.Fatalf("Role = %+v, %v; want rows [alpha]", op, err)
		}
		if n := len(s.auditRows("role.set_row_scope")); n != 2 {
			t.Fatalf("role.set_row_scope entries = %d; want 2", n)
		}
		if err := s.admin0().SetRowScope(ctx, s.alphaID, nil); err != nil {
			t.Fatal(err)
		}
		if op, _ := s.admin0().Role(ctx, s.alphaID); op.Rows != nil {
			t.Fatalf("after clearing, rows = %#v; want nil", op.Rows)
		}
		if err := s.admin0().SetRowScope(ctx, s.alphaID, []string{}); err != nil {
			t.Fatal(err)
		}
		if op, _ := s.admin0().Role(ctx, s.alphaID); op.Rows == nil || len(op.Rows) != 0 {
			t.Fatalf("an empty scope reads %#v; want [] (no rows)", op.Rows)
		}

		for col, want := range map[string]string{"nope": "no column", "score": "", "id": ""} {
			_, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher, Tables: tablesWith(map[string]any{"matches": (*testMatch)(nil)}),
				Resources: map[string]*Resource{"matches": DefineResource((*testMatch)(nil), ResourceConfig{ScopeColumn: col})}})
			if want == "" {
				if err != nil {
					t.Errorf("ScopeColumn %q: %v; want accepted (an integer column)", col, err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), "ScopeColumn") || !strings.Contains(err.Error(), want) {
				t.Errorf("ScopeColumn %q: New = %v; want an error naming ScopeColumn and %q", col, err, want)
			}
		}
	})
}

// admin0 is the panel's Moderation.
func (s scopeEnv) admin0() *Moderation { return s.admin.e.admin.Moderation() }

// noneOf fails when r's body holds anything of beta's game: its name, its
// team, the words of its rows.
func noneOf(t *testing.T, r *resp, what ...string) {
	t.Helper()
	body := strings.ToLower(string(r.raw))
	for _, w := range append([]string{"beta"}, what...) {
		if strings.Contains(body, strings.ToLower(w)) {
			t.Fatalf("%s %s answered %q, which a mod of alpha may not see: %s", r.Request.Method, r.Request.URL, w, r.raw)
		}
	}
}

// sameAsMissing fails unless r is the answer a row that does not exist
// gets (missing, the same request on a key naming no row).
func sameAsMissing(t *testing.T, r, missing *resp) {
	t.Helper()
	r.want(t, 404, "not_found")
	if !reflect.DeepEqual(r.body, missing.body) {
		t.Fatalf("%s %s = %s; want what a missing row answers: %s", r.Request.Method, r.Request.URL, r.raw, missing.raw)
	}
}

// total is a list answer's X-Total-Count, -1 when absent.
func total(r *resp) int {
	n, err := strconv.Atoi(r.Header.Get("X-Total-Count"))
	if err != nil {
		return -1
	}
	return n
}

// TestRowScopeReads: a mod of alpha walks every read of a scoped
// resource (lists with filters, search, _fields and every count mode, a
// read by id, relation tabs both ways and their counts, labels of the
// rows a match points at, the CSV export, the search box) and meets
// nothing of beta's: a beta row by key is exactly a missing row. An
// admin and a mod without a row scope see both games; an empty row
// scope sees no row.
func TestRowScopeReads(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := newScopeEnv(t, db)
		a := s.alpha
		const api = "/admin-api"

		for _, q := range []url.Values{nil, {"game_id_eq": {"beta"}}, {"_q": {"beta"}}, {"game_id_in": {"alpha,beta"}},
			{"_fields": {"id,name"}}, {"_count": {"exact"}}, {"_count": {"estimate"}}, {"_limit": {"5"}, "_count": {"exact"}}, {"_sort": {"game_id"}, "_order": {"desc"}}} {
			list, r := a.list(t, api+"/matches", q)
			noneOf(t, r, "Beta Bears")
			want := 20
			if q.Get("game_id_eq") == "beta" || q.Get("_q") == "beta" {
				want = 0
			}
			if q.Get("_limit") == "" && len(list) != want {
				t.Fatalf("matches?%s: %d rows; want %d", q.Encode(), len(list), want)
			}
			if n := total(r); n != want || r.Header.Get("X-Total-Count-Estimated") != "" {
				t.Fatalf("matches?%s: total %q (estimated %q); want %d, counted", q.Encode(), r.Header.Get("X-Total-Count"), r.Header.Get("X-Total-Count-Estimated"), want)
			}
			for _, row := range list {
				if g, ok := row["game_id"]; ok && g != "alpha" {
					t.Fatalf("matches?%s: a row of %v", q.Encode(), g)
				}
			}
		}
		// The label of beta's team (the cross match's team_id) is none
		// of alpha's mod's business: the key stays, its label does not.
		list, _ := a.list(t, api+"/matches", url.Values{"id_eq": {strconv.Itoa(scopeCrossMatch)}})
		if len(list) != 1 || list[0]["_labels"] != nil {
			t.Fatalf("the cross match = %v; want its row without the label of beta's team", list)
		}
		r := a.do("GET", api+"/matches/"+strconv.Itoa(scopeCrossMatch), nil).want(t, 200)
		noneOf(t, r, "Bears")
		// An alpha match shows its own team's label.
		list, _ = a.list(t, api+"/matches", url.Values{"id_eq": {"3"}})
		if lb, _ := list[0]["_labels"].(map[string]any); lb["team_id"] != "Alpha Wolves" {
			t.Fatalf("an alpha match's labels = %v; want its team", list[0]["_labels"])
		}

		// A beta row by key: every path answers as for no row at all.
		for _, path := range []string{"/matches/%s", "/matches/%s/_counts", "/matches/%s/relations/team", "/teams/%s", "/teams/%s/_counts", "/teams/%s/relations/matches"} {
			beta := "1"
			if strings.HasPrefix(path, "/teams") {
				beta = strconv.Itoa(scopeBetaTeam)
			}
			missing := a.do("GET", api+fmt.Sprintf(path, "999999"), nil)
			sameAsMissing(t, a.do("GET", api+fmt.Sprintf(path, beta), nil), missing)
		}
		// The tabs of alpha's team: its alpha matches only, counted so.
		tab, r := a.list(t, api+"/teams/1/relations/matches", url.Values{"_count": {"exact"}})
		noneOf(t, r)
		if len(tab) != 19 || total(r) != 19 { // 20 alpha matches, less the cross one
			t.Fatalf("alpha's team's matches: %d rows, total %d; want 19", len(tab), total(r))
		}
		c := a.do("GET", api+"/teams/1/_counts", nil).want(t, 200)
		if c.body["matches"] != float64(19) {
			t.Fatalf("alpha's team's counts = %s; want 19 matches", c.raw)
		}
		// The belongs-to tab of the cross match: beta's team is not there.
		tab, r = a.list(t, api+"/matches/"+strconv.Itoa(scopeCrossMatch)+"/relations/team", nil)
		noneOf(t, r, "Bears")
		if len(tab) != 0 {
			t.Fatalf("the cross match's team tab = %v; want none", tab)
		}

		// The CSV export and the search box.
		csv := a.do("GET", api+"/matches/_export.csv", nil).want(t, 200)
		noneOf(t, csv)
		if n := strings.Count(string(csv.raw), "alpha match"); n != 20 {
			t.Fatalf("the export holds %d alpha matches; want 20: %s", n, csv.raw)
		}
		csv = a.do("GET", api+"/teams/_export.csv", nil).want(t, 200)
		noneOf(t, csv, "Bears")
		for _, q := range []string{"beta", "b", "alpha", "a"} {
			found, r := a.search(t, url.Values{"q": {q}, "limit": {"20"}})
			noneOf(t, r, "Bears")
			for _, h := range found.Results {
				if h.Resource == "matches" {
					if id, _ := strconv.Atoi(h.ID); id%3 == 1 {
						t.Fatalf("search %q found beta's match %s", q, h.ID)
					}
				}
			}
			if q == "alpha" && len(found.Results) == 0 {
				t.Fatalf("search alpha found nothing; want alpha's rows")
			}
		}

		// Beta's mod, the mirror image.
		list, r = s.beta.list(t, api+"/matches", nil)
		if len(list) != 10 || strings.Contains(string(r.raw), "alpha") {
			t.Fatalf("beta's mod lists %d matches: %s; want beta's 10", len(list), r.raw)
		}

		// Unscoped: the admin, and a mod without a row scope.
		list, _ = s.admin.list(t, api+"/matches", nil)
		if len(list) != 30 {
			t.Fatalf("the admin lists %d matches; want 30", len(list))
		}
		list, _ = s.admin.list(t, api+"/matches", url.Values{"id_eq": {strconv.Itoa(scopeCrossMatch)}})
		if lb, _ := list[0]["_labels"].(map[string]any); lb["team_id"] != "Beta Bears" {
			t.Fatalf("the admin's cross match labels = %v; want beta's team", list[0]["_labels"])
		}
		plainID := s.user("plain-mod@example.com", "mod password")
		if err := s.admin0().AssignMod(ctx, plainID, "matches"); err != nil {
			t.Fatal(err)
		}
		plain := s.login("plain-mod@example.com", "mod password")
		if list, _ := plain.list(t, api+"/matches", nil); len(list) != 30 {
			t.Fatalf("a mod without a row scope lists %d matches; want 30", len(list))
		}
		plain.do("GET", api+"/matches/1", nil).want(t, 200)
		// An empty row scope: no row at all.
		if err := s.admin0().SetRowScope(ctx, plainID, []string{}); err != nil {
			t.Fatal(err)
		}
		if list, r := plain.list(t, api+"/matches", nil); len(list) != 0 || total(r) != 0 {
			t.Fatalf("an empty row scope lists %d matches, total %d; want none", len(list), total(r))
		}
		plain.do("GET", api+"/matches/2", nil).want(t, 404, "not_found")
		if found, _ := plain.search(t, url.Values{"q": {"a"}}); len(found.Results) != 0 {
			t.Fatalf("an empty row scope finds %v", found.Results)
		}
	})
}

// TestRowScopeWrites: the one write gate holds a mod of alpha to alpha's
// rows: an update, delete, restore or action on a beta row is exactly a
// missing row; a write that would put a row in beta (or out of every
// game) is 403 out_of_scope naming the column, and writes nothing; a
// create without the column takes the mod's one game.
func TestRowScopeWrites(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		s := newScopeEnv(t, db)
		a := s.alpha
		const api = "/admin-api"
		game := func(id int) string {
			var g string
			if err := db.NewSelect().Table("matches").Column("game_id").Where("id = ?", id).Scan(context.Background(), &g); err != nil {
				return ""
			}
			return g
		}

		for _, m := range []string{"PATCH", "PUT"} {
			sameAsMissing(t, a.do(m, api+"/matches/1", map[string]any{"name": "taken"}), a.do(m, api+"/matches/999999", map[string]any{"name": "taken"}))
		}
		sameAsMissing(t, a.do("DELETE", api+"/matches/1", nil), a.do("DELETE", api+"/matches/999999", nil))
		sameAsMissing(t, a.do("POST", api+"/matches/_action/replay", map[string]any{"id": 1}), a.do("POST", api+"/matches/_action/replay", map[string]any{"id": 999999}))
		bulk := a.do("POST", api+"/matches/_action/tally", map[string]any{"ids": []any{2, 1}}).want(t, 400, "unknown_id")
		missing := a.do("POST", api+"/matches/_action/tally", map[string]any{"ids": []any{2, 999999}}).want(t, 400, "unknown_id")
		if strings.Replace(bulk.body["error"].(string), `"1"`, `"999999"`, 1) != missing.body["error"] {
			t.Fatalf("a bulk action naming beta's row = %s; want what a missing id answers: %s", bulk.raw, missing.raw)
		}
		if game(1) != "beta" {
			t.Fatal("beta's match changed")
		}
		var name string
		_ = db.NewSelect().Table("matches").Column("name").Where("id = 1").Scan(context.Background(), &name)
		if name != "beta match" {
			t.Fatalf("beta's match is named %q", name)
		}

		// Moving an alpha row to beta, or to no game: refused, nothing written.
		r := a.do("PATCH", api+"/matches/2", map[string]any{"game_id": "beta", "name": "moved"}).want(t, 403, "out_of_scope")
		if f, _ := r.body["fields"].(map[string]any); f["game_id"] == nil {
			t.Fatalf("out_of_scope = %s; want it to name game_id", r.raw)
		}
		if game(2) != "alpha" {
			t.Fatal("the refused move wrote")
		}
		a.do("PATCH", api+"/matches/2", map[string]any{"name": "renamed", "game_id": "alpha"}).want(t, 200)
		a.do("PUT", api+"/matches/3", map[string]any{"id": 3, "game_id": "alpha", "name": "put", "score": 1}).want(t, 200)

		// Creating: in alpha (given, or taken), never in beta.
		a.do("POST", api+"/matches", map[string]any{"game_id": "beta", "name": "sneaky", "score": 1}).want(t, 403, "out_of_scope")
		made := a.do("POST", api+"/matches", map[string]any{"name": "new", "score": 1}).want(t, 201)
		if made.body["game_id"] != "alpha" {
			t.Fatalf("a create without game_id = %s; want alpha's", made.raw)
		}
		a.do("POST", api+"/matches", map[string]any{"game_id": "alpha", "name": "new", "score": 2}).want(t, 201)
		if n := count(t, db, (*testMatch)(nil)); n != 32 {
			t.Fatalf("%d matches; want 32 (the refused create wrote?)", n)
		}

		// Its own rows: the action, the delete.
		act := a.do("POST", api+"/matches/_action/replay", map[string]any{"id": 2}).want(t, 200)
		noneOf(t, act)
		a.do("POST", api+"/matches/_action/tally", map[string]any{"ids": []any{2, 3}}).want(t, 200)
		a.do("DELETE", api+"/matches/5", nil).want(t, 200)

		// Beta's mod cannot touch alpha's rows either; the admin touches both.
		sameAsMissing(t, s.beta.do("DELETE", api+"/matches/2", nil), s.beta.do("DELETE", api+"/matches/999999", nil))
		s.admin.do("PATCH", api+"/matches/1", map[string]any{"name": "by the admin"}).want(t, 200)
		s.admin.do("PATCH", api+"/matches/2", map[string]any{"game_id": "beta"}).want(t, 200)
		sameAsMissing(t, a.do("GET", api+"/matches/2", nil), a.do("GET", api+"/matches/999999", nil))

		// A mod with several games creates only with the column named.
		if err := s.admin0().SetRowScope(context.Background(), s.alphaID, []string{"alpha", "gamma"}); err != nil {
			t.Fatal(err)
		}
		a.do("POST", api+"/matches", map[string]any{"name": "which game?", "score": 1}).want(t, 403, "out_of_scope")
		a.do("POST", api+"/matches", map[string]any{"name": "gamma's", "score": 1, "game_id": "gamma"}).want(t, 201)
	})
}

// TestRowScopeHTTP: an admin reads and sets a mod's row scope through
// GET and PUT /users/{id}/row-scope (audited, live at the mod's next
// request); /auth/me says the mod's rows and the catalog each
// resource's scope column. Anyone else is refused, bad bodies are 400,
// an unknown user 404.
func TestRowScopeHTTP(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		s := newScopeEnv(t, db)
		const api = "/admin-api"
		path := api + "/users/" + s.alphaID + "/row-scope"

		me := s.alpha.do("GET", api+"/auth/me", nil).want(t, 200)
		if rows, _ := me.body["rows"].([]any); len(rows) != 1 || rows[0] != "alpha" {
			t.Fatalf("alpha's mod's /auth/me = %s; want rows [alpha]", me.raw)
		}
		if me := s.admin.do("GET", api+"/auth/me", nil).want(t, 200); me.body["rows"] != nil {
			t.Fatalf("the admin's /auth/me = %s; want rows null", me.raw)
		}
		cat := s.alpha.do("GET", api, nil).want(t, 200)
		var entries []map[string]any
		if err := json.Unmarshal(cat.raw, &entries); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if (e["name"] == "matches" || e["name"] == "teams") != (e["scopeColumn"] == "game_id") {
				t.Fatalf("catalog entry %v: scopeColumn %v", e["name"], e["scopeColumn"])
			}
		}

		got := s.admin.do("GET", path, nil).want(t, 200)
		if v, _ := got.body["values"].([]any); len(v) != 1 || v[0] != "alpha" || got.body["userId"] != s.alphaID {
			t.Fatalf("GET row-scope = %s", got.raw)
		}
		s.alpha.do("GET", path, nil).want(t, 403, "forbidden")
		s.alpha.do("PUT", path, map[string]any{"values": nil}).want(t, 403, "forbidden")
		for _, bad := range []any{map[string]any{}, map[string]any{"values": "alpha"}, map[string]any{"values": []any{""}}, map[string]any{"values": []any{1}},
			map[string]any{"values": []any{"alpha"}, "extra": 1}, map[string]any{"values": []any{strings.Repeat("x", 201)}}} {
			s.admin.do("PUT", path, bad).want(t, 400)
		}
		s.admin.do("PUT", api+"/users/nobody-at-all/row-scope", map[string]any{"values": []any{"alpha"}}).want(t, 404)

		// Both games, then every row (null).
		put := s.admin.do("PUT", path, map[string]any{"values": []any{"beta", "alpha", "beta"}}).want(t, 200)
		if v, _ := put.body["values"].([]any); len(v) != 2 || v[0] != "alpha" || v[1] != "beta" {
			t.Fatalf("PUT row-scope = %s; want [alpha beta]", put.raw)
		}
		if list, _ := s.alpha.list(t, api+"/matches", nil); len(list) != 30 {
			t.Fatalf("with both games, %d matches; want 30", len(list))
		}
		s.admin.do("PUT", path, map[string]any{"values": []any{"beta"}}).want(t, 200)
		if list, _ := s.alpha.list(t, api+"/matches", nil); len(list) != 10 {
			t.Fatalf("moved to beta, %d matches; want 10", len(list))
		}
		put = s.admin.do("PUT", path, map[string]any{"values": nil}).want(t, 200)
		if put.body["values"] != nil {
			t.Fatalf("PUT null = %s; want values null", put.raw)
		}
		if me := s.alpha.do("GET", api+"/auth/me", nil).want(t, 200); me.body["rows"] != nil {
			t.Fatalf("an unscoped mod's /auth/me = %s; want rows null", me.raw)
		}
		if list, _ := s.alpha.list(t, api+"/matches", nil); len(list) != 30 {
			t.Fatalf("unscoped, %d matches; want 30", len(list))
		}
		entries2 := s.auditRows("role.set_row_scope")
		if len(entries2) != 5 || entries2[4].OperatorID != s.adminID || entries2[4].TargetID != s.alphaID {
			t.Fatalf("role.set_row_scope entries = %+v; want 5, the last by the admin about alpha's mod", entries2)
		}
	})
}

// testSeason is a soft-delete table of several games: a delete keeps the
// row, to be restored.
type testSeason struct {
	bun.BaseModel `bun:"table:seasons,alias:sn"`

	ID        int64     `bun:"id,pk,autoincrement"`
	GameID    string    `bun:"game_id,notnull"`
	Name      string    `bun:"name,notnull"`
	DeletedAt time.Time `bun:"deleted_at,soft_delete,nullzero"`
}

// TestRowScopeSoftDelete: on a soft-delete resource, another game's
// deleted rows stay out of alpha's mod's deleted view, and their restore
// is the missing row's 404; alpha's own are deleted and restored.
func TestRowScopeSoftDelete(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		createTables(t, db, (*testSeason)(nil))
		insert(t, db, &[]testSeason{{GameID: "alpha", Name: "alpha spring"}, {GameID: "beta", Name: "beta spring"}})
		if _, err := db.NewDelete().Model((*testSeason)(nil)).Where("id = 2").Exec(ctx); err != nil { // beta's, soft
			t.Fatal(err)
		}
		e := newEnv(t, db, Options{
			Tables: tablesWith(map[string]any{"seasons": (*testSeason)(nil)}),
			Resources: map[string]*Resource{"seasons": DefineResource((*testSeason)(nil), ResourceConfig{ScopeColumn: "game_id",
				Policies: Policies{Delete: Roles(RoleAdmin, RoleMod)}})},
		})
		e.bootstrap()
		id := e.user("alpha-mod@example.com", "mod password")
		if err := e.admin.Moderation().AssignMod(ctx, id, "seasons"); err != nil {
			t.Fatal(err)
		}
		if err := e.admin.Moderation().SetRowScope(ctx, id, []string{"alpha"}); err != nil {
			t.Fatal(err)
		}
		a := e.login("alpha-mod@example.com", "mod password")

		list, r := a.list(t, "/admin-api/seasons", url.Values{"_deleted": {"include"}})
		noneOf(t, r)
		if len(list) != 1 {
			t.Fatalf("alpha's seasons, deleted included: %v; want alpha's one", list)
		}
		sameAsMissing(t, a.do("POST", "/admin-api/seasons/2/_restore", nil), a.do("POST", "/admin-api/seasons/999999/_restore", nil))
		sameAsMissing(t, a.do("GET", "/admin-api/seasons/2", nil), a.do("GET", "/admin-api/seasons/999999", nil))
		a.do("DELETE", "/admin-api/seasons/1", nil).want(t, 200)
		a.do("POST", "/admin-api/seasons/1/_restore", nil).want(t, 200)
		var deleted int
		if err := db.NewSelect().Model((*testSeason)(nil)).WhereDeleted().ColumnExpr("count(*)").Scan(ctx, &deleted); err != nil || deleted != 1 {
			t.Fatalf("deleted seasons = %d, %v; want beta's one still deleted", deleted, err)
		}
	})
}

// TestRowScopeReferences: a row-scoped mod links a row only to rows of
// their scope: a key naming another game's row is refused exactly as
// one naming no row (400 invalid_reference), on create and update; a
// key the row holds already (the cross match's beta team) is kept.
func TestRowScopeReferences(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		s := newScopeEnv(t, db)
		a := s.alpha
		const api = "/admin-api"
		beta := a.do("POST", api+"/matches", map[string]any{"name": "x", "score": 1, "team_id": scopeBetaTeam}).want(t, 400, "invalid_reference")
		none := a.do("POST", api+"/matches", map[string]any{"name": "x", "score": 1, "team_id": 999999}).want(t, 400, "invalid_reference")
		if !reflect.DeepEqual(beta.body, none.body) {
			t.Fatalf("a link to beta's team = %s; want what a missing team answers: %s", beta.raw, none.raw)
		}
		a.do("POST", api+"/matches", map[string]any{"name": "x", "score": 1, "team_id": scopeAlphaTeam}).want(t, 201)
		a.do("PATCH", api+"/matches/3", map[string]any{"team_id": scopeBetaTeam}).want(t, 400, "invalid_reference")
		a.do("PATCH", api+"/matches/3", map[string]any{"team_id": scopeAlphaTeam, "name": "same team"}).want(t, 200)
		// The cross match keeps the beta team it holds; a PUT of it as read passes.
		row := a.do("GET", api+"/matches/"+strconv.Itoa(scopeCrossMatch), nil).want(t, 200)
		body := row.body
		body["name"] = "renamed"
		a.do("PUT", api+"/matches/"+strconv.Itoa(scopeCrossMatch), body).want(t, 200)
		s.admin.do("PATCH", api+"/matches/3", map[string]any{"team_id": scopeBetaTeam}).want(t, 200)
	})
}
