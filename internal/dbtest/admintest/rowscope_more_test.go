package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// gamePlayer is a users table several games share: each player's game
// in game_id (NULL for the panel's own staff).
type gamePlayer struct {
	bun.BaseModel `bun:"table:players,alias:pl"`

	ID           string    `bun:"id,pk"`
	Email        string    `bun:"email,notnull,unique"`
	DisplayName  string    `bun:"display_name,nullzero"`
	PasswordHash string    `bun:"password_hash,nullzero"`
	Ban          *BanInfo  `bun:"ban"`
	TokenVersion int64     `bun:"token_version,notnull,default:0"`
	CreatedAt    time.Time `bun:"created_at,notnull,default:current_timestamp"`
	GameID       *string   `bun:"game_id"`
}

// playersEnv is a panel whose users are the players of two games, alpha
// and beta (three each), with a mod of each game (scopes users, row
// scope its game), a mod of users without a row scope (free), and the
// admin. The audit log is open to mods (its policy), so that only the
// row scope keeps it from alpha's and beta's mods.
type playersEnv struct {
	*env
	admin, alpha, beta, free *client
	alphaModID, betaModID    string
	alphaP, betaP            []string // the players' ids
	// betaWords are what of beta's players no answer to alpha's mod
	// may hold: their emails and names.
	betaWords []string
}

// scopeCategories are the report categories of the players tests: a
// chat line, and a cheat whose evidence is a player's row.
var scopeCategories = []ReportCategory{
	{Key: "abuse", Label: "Abuse", Evidence: "text"},
	{Key: "teaming", Label: "Teaming", Evidence: "row", Resource: "users"},
}

func newPlayersEnv(t *testing.T, db *bun.DB) playersEnv {
	t.Helper()
	ctx := context.Background()
	createTables(t, db, (*gamePlayer)(nil))
	mods := Roles(RoleAdmin, RoleMod)
	e := newEnv(t, db, Options{
		Tables:           tablesWith(map[string]any{"users": (*gamePlayer)(nil)}),
		ReportCategories: scopeCategories,
		Resources: map[string]*Resource{
			"users":      DefineResource((*gamePlayer)(nil), ResourceConfig{ScopeColumn: "game_id"}),
			"adminAudit": DefineResource((*AuditEntry)(nil), ResourceConfig{Policies: Policies{List: mods, Read: mods}}),
		},
	})
	s := playersEnv{env: e}
	s.admin, _ = e.bootstrap()
	for _, g := range []string{"alpha", "beta"} {
		for i := range 3 {
			name := fmt.Sprintf("%s%d", strings.ToUpper(g[:1])+g[1:], i) // Alpha0, Beta2
			id := uuid.Must(uuid.NewV7()).String()
			insert(t, db, &gamePlayer{ID: id, Email: strings.ToLower(name) + "@players.example", DisplayName: name + "Nick", PasswordHash: "x", GameID: &g})
			if g == "alpha" {
				s.alphaP = append(s.alphaP, id)
			} else {
				s.betaP = append(s.betaP, id)
				s.betaWords = append(s.betaWords, strings.ToLower(name)+"@players.example", name+"Nick")
			}
		}
	}
	mod := func(email, game string) (string, *client) {
		id := e.user(email, "mod password")
		if game != "" {
			must(db.NewUpdate().Table("players").Set("game_id = ?", game).Where("id = ?", id).Exec(ctx))
		}
		if err := e.admin.Moderation().AssignMod(ctx, id, "users"); err != nil {
			t.Fatal(err)
		}
		if game != "" {
			if err := e.admin.Moderation().SetRowScope(ctx, id, []string{game}); err != nil {
				t.Fatal(err)
			}
		}
		return id, e.login(email, "mod password")
	}
	s.alphaModID, s.alpha = mod("alpha-mod@example.com", "alpha")
	s.betaModID, s.beta = mod("beta-mod@example.com", "beta")
	_, s.free = mod("free-mod@example.com", "")
	s.betaWords = append(s.betaWords, "beta-mod@example.com")
	return s
}

// noBeta fails unless r's body holds nothing of beta's players: their
// emails, names and (unless ids is false) ids.
func (s playersEnv) noBeta(t *testing.T, what string, r *resp, ids bool) {
	t.Helper()
	body := string(r.raw)
	words := s.betaWords
	if ids {
		words = append(slices.Clone(words), s.betaP...)
		words = append(words, s.betaModID)
	}
	for _, w := range words {
		if strings.Contains(body, w) {
			t.Errorf("%s: the answer to alpha's mod holds %q of game beta: %s", what, w, body)
		}
	}
}

// missingID names no user.
const missingID = "01900000-0000-7000-8000-000000000000"

// asMissing fails unless c's request about user id answers exactly as the
// same request about a user that is not there: 404, same code and
// message.
func asMissing(t *testing.T, c *client, method, path, id string, body any) {
	t.Helper()
	asMissingAs(t, c, method, path, id, missingID, body)
}

// asMissingAs is asMissing with missing the id that names no row.
func asMissingAs(t *testing.T, c *client, method, path, id, missing string, body any) {
	t.Helper()
	got := c.do(method, fmt.Sprintf(path, id), body)
	want := c.do(method, fmt.Sprintf(path, missing), body)
	if got.StatusCode != 404 || want.StatusCode != 404 || got.body["code"] != want.body["code"] || got.body["error"] != want.body["error"] {
		t.Errorf("%s %s: another game's row answers %d %s; a missing one %d %s; want the same 404", method, path, got.StatusCode, got.raw, want.StatusCode, want.raw)
	}
}

// isBanned reads a player's ban from the table.
func (s playersEnv) isBanned(t *testing.T, id string) bool {
	t.Helper()
	var p gamePlayer
	if err := s.db.NewSelect().Model(&p).Where("id = ?", id).Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p.Ban != nil
}

// TestRowScopePlayersModeration: a mod of game alpha moderates alpha's
// players and no one else: ban, unban, revoke sessions, the bulk
// endpoints, the reports' claim and resolve, a row's history and revert
// all answer another game's player as a missing one, and change nothing;
// the mod of beta and the admin are not narrowed by alpha's scope.
func TestRowScopePlayersModeration(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		s := newPlayersEnv(t, db)
		a0, b0, b1, b2 := s.alphaP[0], s.betaP[0], s.betaP[1], s.betaP[2]

		// One user: each refusal as for a user who is not there.
		for _, op := range []string{"ban", "unban", "revoke-sessions"} {
			asMissing(t, s.alpha, "POST", "/admin-api/users/%s/"+op, b0, map[string]any{})
		}
		if s.isBanned(t, b0) {
			t.Fatal("alpha's mod banned a player of beta")
		}
		s.alpha.do("POST", "/admin-api/users/"+a0+"/ban", map[string]any{"reason": "spam"}).want(t, 200)
		s.beta.do("POST", "/admin-api/users/"+b0+"/ban", map[string]any{"reason": "spam"}).want(t, 200)
		s.beta.do("POST", "/admin-api/users/"+a0+"/unban", nil).want(t, 404, "not_found")
		if !s.isBanned(t, a0) || !s.isBanned(t, b0) {
			t.Fatal("each game's mod bans their own game's player")
		}
		// The ban is not alpha's to learn either: unban of beta's banned
		// player is the missing user's 404, not "not banned" nor 200.
		asMissing(t, s.alpha, "POST", "/admin-api/users/%s/unban", b0, map[string]any{})
		// Operators of no game are outside every row scope: 404, not the
		// hierarchy's 403 (which would say the account is there).
		asMissing(t, s.alpha, "POST", "/admin-api/users/%s/ban", s.betaModID, map[string]any{})

		// The bulk endpoints: another game's players are not_found, never
		// already_banned (b0 is banned) nor banned.
		r := s.alpha.do("POST", "/admin-api/users/_bulk/ban", map[string]any{"ids": []string{s.alphaP[1], b0, b1, missingID}, "reason": "raid"}).want(t, 200)
		res := r.body["results"].(map[string]any)
		if res[s.alphaP[1]] != "banned" || res[b0] != "not_found" || res[b1] != "not_found" || res[missingID] != "not_found" {
			t.Fatalf("bulk ban by alpha's mod = %s; want alpha1 banned, beta's and the missing one not_found", r.raw)
		}
		if s.isBanned(t, b1) {
			t.Fatal("a bulk ban by alpha's mod banned a player of beta")
		}
		r = s.alpha.do("POST", "/admin-api/users/_bulk/unban", map[string]any{"ids": []string{b0, b1}}).want(t, 200)
		if res := r.body["results"].(map[string]any); res[b0] != "not_found" || res[b1] != "not_found" || !s.isBanned(t, b0) {
			t.Fatalf("bulk unban by alpha's mod = %s; want not_found for beta's players, b0 still banned", r.raw)
		}
		s.alpha.do("POST", "/admin-api/users/_bulk/revoke-sessions", map[string]any{"ids": []string{b2}}).want(t, 200)
		var tv int64
		must(0, db.NewSelect().Table("players").Column("token_version").Where("id = ?", b2).Scan(context.Background(), &tv))
		if tv != 0 {
			t.Fatalf("beta's player token version = %d after alpha's bulk revoke; want 0", tv)
		}

		// History and revert: the admin renames b2; alpha's mod reads no
		// entry of it and reverts nothing.
		s.admin.do("PATCH", "/admin-api/users/"+b2, map[string]any{"display_name": "Renamed"}).want(t, 200)
		entry := s.auditRows("update")
		if len(entry) == 0 {
			t.Fatal("no update entry for the admin's rename")
		}
		id := entry[len(entry)-1].ID
		asMissing(t, s.alpha, "GET", "/admin-api/users/%s/_history", b2, nil)
		asMissing(t, s.alpha, "POST", "/admin-api/users/%s/_revert", b2, map[string]any{"auditId": id})
		if got := rows(t, s.beta.do("GET", "/admin-api/users/"+b2+"/_history", nil).want(t, 200)); len(got) == 0 {
			t.Fatal("beta's mod reads no history of their own player")
		}
		h := s.alpha.do("GET", "/admin-api/users/"+a0+"/_history", nil).want(t, 200)
		if len(rows(t, h)) == 0 {
			t.Fatal("alpha's mod reads no history of alpha's banned player")
		}
		s.noBeta(t, "alpha's history", h, true)
		// An entry of beta's row named on alpha's row: not this row's.
		s.alpha.do("POST", "/admin-api/users/"+a0+"/_revert", map[string]any{"auditId": id}).want(t, 404, "not_found")
		var name string
		must(0, db.NewSelect().Table("players").Column("display_name").Where("id = ?", b2).Scan(context.Background(), &name))
		if name != "Renamed" {
			t.Fatalf("b2's name = %q after alpha's revert; want Renamed", name)
		}
		// Beta's mod reverts it: the row is theirs.
		s.beta.do("POST", "/admin-api/users/"+b2+"/_revert", map[string]any{"auditId": id}).want(t, 200)

		// A player deleted by the admin: its history is beta's, by its
		// logged row, and still none of alpha's.
		s.admin.do("DELETE", "/admin-api/users/"+b1, nil).want(t, 200)
		asMissing(t, s.alpha, "GET", "/admin-api/users/%s/_history", b1, nil)
		s.beta.do("GET", "/admin-api/users/"+b1+"/_history", nil).want(t, 200)
		del := s.auditRows("delete")
		asMissing(t, s.alpha, "POST", "/admin-api/users/%s/_revert", b1, map[string]any{"auditId": del[len(del)-1].ID})
		if n := must(db.NewSelect().Table("players").Where("id = ?", b1).Count(context.Background())); n != 0 {
			t.Fatal("alpha's mod re-created a deleted player of beta")
		}

		// The admin is unscoped.
		s.admin.do("POST", "/admin-api/users/"+s.betaP[2]+"/ban", map[string]any{"reason": "x"}).want(t, 200)
		s.admin.do("GET", "/admin-api/users/"+b1+"/_history", nil).want(t, 200)
		// A player's data requests are an admin's: a mod is refused alike
		// for any player (403, not about the player).
		for _, path := range []string{"/admin-api/users/%s/_export"} {
			got, want := s.alpha.do("GET", fmt.Sprintf(path, b0), nil), s.alpha.do("GET", fmt.Sprintf(path, a0), nil)
			if got.StatusCode != 403 || string(got.raw) != string(want.raw) {
				t.Fatalf("%s by alpha's mod: beta's player %d %s, alpha's %d %s; want the same 403", path, got.StatusCode, got.raw, want.StatusCode, want.raw)
			}
		}
	})
}

// TestRowScopePlayersReports: the reports queue, a player's reports page,
// claim and resolve and the labels of evidence hold to the mod's row
// scope; the audit log is refused to a mod with a row scope even where
// its policy opens it to mods; the dashboard leaves out what counts every
// game's players.
func TestRowScopePlayersReports(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := newPlayersEnv(t, db)
		a := s.admin0()
		a0, a1, b0, b1, b2 := s.alphaP[0], s.alphaP[1], s.betaP[0], s.betaP[1], s.betaP[2]
		for _, rp := range []Report{
			{ReporterID: a1, PlayerID: a0, Category: "abuse", Text: "alpha line"},
			// Evidence pointing at beta's row: its label is not alpha's.
			{ReporterID: a1, PlayerID: a0, Category: "teaming", Evidence: json.RawMessage(`"` + b2 + `"`)},
			{ReporterID: b1, PlayerID: b0, Category: "abuse", Text: "beta line"},
			// Filed by a beta player about an alpha one, and the reverse:
			// a mod sees neither side of the other game.
			{ReporterID: b1, PlayerID: a1, Category: "abuse", Text: "cross line"},
			{ReporterID: a0, PlayerID: b2, Category: "abuse", Text: "cross back"},
		} {
			if _, err := a.FileReport(ctx, rp); err != nil {
				t.Fatal(err)
			}
		}
		players := func(c *client) []string {
			r := c.do("GET", "/admin-api/_reports", nil).want(t, 200)
			var ids []string
			for _, g := range r.body["players"].([]any) {
				ids = append(ids, g.(map[string]any)["player"].(map[string]any)["id"].(string))
			}
			slices.Sort(ids)
			return ids
		}
		if got, want := players(s.alpha), []string{a0}; !slices.Equal(got, want) {
			t.Fatalf("alpha's queue = %v; want only %v (a1's report is filed by beta's b1)", got, want)
		}
		if got := players(s.beta); !slices.Equal(got, []string{b0}) {
			t.Fatalf("beta's queue = %v; want only %v", got, b0)
		}
		if got := players(s.admin); len(got) != 4 {
			t.Fatalf("the admin's queue = %v; want the 4 reported players", got)
		}
		q := s.alpha.do("GET", "/admin-api/_reports", nil).want(t, 200)
		s.noBeta(t, "alpha's queue", q, false)
		if strings.Contains(string(q.raw), "cross") || strings.Contains(string(q.raw), "beta line") {
			t.Fatalf("alpha's queue = %s; want no report involving beta's players", q.raw)
		}
		if !strings.Contains(string(q.raw), b2) {
			t.Fatalf("alpha's queue = %s; want the teaming evidence's id (without a label)", q.raw)
		}
		p := s.alpha.do("GET", "/admin-api/_reports?player="+a0, nil).want(t, 200)
		s.noBeta(t, "alpha's player page", p, false)
		if f := p.body["filed"].([]any); len(f) != 0 {
			t.Fatalf("a0's reports filed, to alpha's mod = %v; want none (their one report is about beta's b2)", f)
		}
		asMissing(t, s.alpha, "GET", "/admin-api/_reports?player=%s", b0, nil)
		asMissing(t, s.alpha, "POST", "/admin-api/_reports/%s/claim", b0, map[string]any{})
		asMissing(t, s.alpha, "POST", "/admin-api/_reports/%s/resolve", b0, map[string]any{"outcome": "dismiss"})
		s.alpha.do("POST", "/admin-api/_reports/"+a0+"/claim", map[string]any{}).want(t, 200)
		s.beta.do("POST", "/admin-api/_reports/"+b0+"/resolve", map[string]any{"outcome": "dismiss"}).want(t, 200)
		// a1's history holds the report b1 filed, without naming b1.
		h := s.alpha.do("GET", "/admin-api/users/"+a1+"/_history", nil).want(t, 200)
		if !strings.Contains(string(h.raw), "report.file") {
			t.Fatalf("a1's history = %s; want the report.file entry", h.raw)
		}
		s.noBeta(t, "a1's history", h, true)
		if !strings.Contains(string(s.admin.do("GET", "/admin-api/users/"+a1+"/_history", nil).want(t, 200).raw), b1) {
			t.Fatal("the admin's history of a1 does not name the reporter b1")
		}
		if s.betaWordsIn(t, s.alpha.do("GET", "/admin-api/_reports?status=resolved", nil).want(t, 200)) {
			t.Fatal("alpha's resolved queue names beta's resolution")
		}

		// The audit log: open to mods by its policy, refused to a mod
		// with a row scope (it names every game's rows), read by the mod
		// without one.
		s.alpha.do("GET", "/admin-api/adminAudit", nil).want(t, 403, "forbidden")
		s.alpha.do("GET", "/admin-api/adminAudit/1", nil).want(t, 403, "forbidden")
		s.alpha.do("GET", "/admin-api/adminAudit/_export.csv", nil).want(t, 403, "forbidden")
		s.free.do("GET", "/admin-api/adminAudit", nil).want(t, 200)

		// The dashboard: nothing of beta, no widget counting every game's
		// players, which the unscoped mod has.
		d := s.alpha.do("GET", "/admin-api/_dashboard", nil).want(t, 200)
		s.noBeta(t, "alpha's dashboard", d, true)
		ws := widgets(t, d)
		for _, id := range []string{"recentUsers", "signUps", "openReports", "reportsFiled", "recentModeration", "auditEvents"} {
			if ws[id] != nil {
				t.Errorf("alpha's dashboard has widget %s: %v; want it left out", id, ws[id])
			}
		}
		if ws := widgets(t, s.free.do("GET", "/admin-api/_dashboard", nil).want(t, 200)); ws["recentUsers"] == nil || ws["openReports"] == nil {
			t.Fatalf("the unscoped mod's dashboard = %v; want recentUsers and openReports", ws)
		}
	})
}

// betaWordsIn reports whether r's body holds a word of beta's players.
func (s playersEnv) betaWordsIn(t *testing.T, r *resp) bool {
	t.Helper()
	for _, w := range append(slices.Clone(s.betaWords), s.betaP...) {
		if strings.Contains(string(r.raw), w) {
			return true
		}
	}
	return false
}

// admin0 is the panel.
func (s playersEnv) admin0() *Admin { return s.env.admin }

// TestRowScopeKick: a mod of alpha kicks alpha's players from a live room
// and not beta's, whose session answers as one that is not there; a
// player's rooms, asked about beta's player, are none.
func TestRowScopeKick(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		createTables(t, db, (*gamePlayer)(nil))
		w := newWorld(t, db, true, func(o *Options) {
			o.Tables = tablesWith(map[string]any{"users": (*gamePlayer)(nil)})
			o.Resources = map[string]*Resource{"users": DefineResource((*gamePlayer)(nil), ResourceConfig{ScopeColumn: "game_id"})}
		})
		add := func(email, game string) string {
			h := must(w.admin.Auth().HashPassword(ctx, "password "+email))
			id := uuid.Must(uuid.NewV7()).String()
			insert(t, db, &gamePlayer{ID: id, Email: email, PasswordHash: h, GameID: &game})
			return id
		}
		modID := add("alpha-mod@example.com", "alpha")
		m := w.admin.Moderation()
		for _, err := range []error{m.AssignMod(ctx, modID, "rooms"), m.AssignMod(ctx, modID, "users"), m.SetRowScope(ctx, modID, []string{"alpha"})} {
			if err != nil {
				t.Fatal(err)
			}
		}
		mod := w.login("alpha-mod@example.com")
		paID, pbID := add("pa@example.com", "alpha"), add("pb@example.com", "beta")
		pa, pb := w.mustJoin("arena", paID, ""), w.mustJoin("arena", pbID, "")
		code, got := mod.do("DELETE", "/admin-api/rooms/"+pb.roomID+"/clients/"+pb.sid, map[string]any{"reason": "x"})
		wantCode, want := mod.do("DELETE", "/admin-api/rooms/"+pb.roomID+"/clients/nobody", map[string]any{"reason": "x"})
		if code != 404 || wantCode != 404 || got["code"] != want["code"] || got["error"] != want["error"] {
			t.Fatalf("kick of beta's player by alpha's mod = %d %v; of no session %d %v; want the same 404", code, got, wantCode, want)
		}
		if _, b := mod.do("GET", "/admin-api/rooms/by-user/"+pbID, nil); strings.TrimSpace(fmt.Sprint(b["_raw"])) != "[]" {
			t.Fatalf("beta's player's rooms, to alpha's mod = %v; want []", b)
		}
		if _, b := mod.do("GET", "/admin-api/rooms/by-user/"+paID, nil); strings.TrimSpace(fmt.Sprint(b["_raw"])) == "[]" {
			t.Fatal("alpha's player's rooms, to alpha's mod = []; want their session")
		}
		mod.want("DELETE", "/admin-api/rooms/"+pa.roomID+"/clients/"+pa.sid, map[string]any{"reason": "x"}, 200)
	})
}

// TestRowScopeHistoryOfRows: a row's history and revert on a resource of
// the game's (matches, ScopeColumn game_id) hold to the mod's row scope
// as the players' do: another game's row, as it is or deleted, is 404 as
// a key naming no row; the mod's own game's row is theirs to read and
// revert, a deleted one's history too.
func TestRowScopeHistoryOfRows(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := newScopeEnv(t, db)
		var ids []struct {
			ID     int64  `bun:"id"`
			GameID string `bun:"game_id"`
		}
		must(0, db.NewSelect().Table("matches").Column("id", "game_id").Order("id").Scan(ctx, &ids))
		var alphaID, betaID, betaGone string
		for _, r := range ids {
			switch {
			case r.GameID == "alpha" && alphaID == "":
				alphaID = fmt.Sprint(r.ID)
			case r.GameID == "beta" && betaID == "":
				betaID = fmt.Sprint(r.ID)
			case r.GameID == "beta" && betaGone == "":
				betaGone = fmt.Sprint(r.ID)
			}
		}
		s.admin.do("PATCH", "/admin-api/matches/"+betaID, map[string]any{"name": "beta renamed"}).want(t, 200)
		s.admin.do("PATCH", "/admin-api/matches/"+alphaID, map[string]any{"name": "alpha renamed"}).want(t, 200)
		up := s.auditRows("update")
		betaEntry, alphaEntry := up[len(up)-2].ID, up[len(up)-1].ID
		s.admin.do("DELETE", "/admin-api/matches/"+betaGone, nil).want(t, 200)
		del := s.auditRows("delete")
		goneEntry := del[len(del)-1].ID

		const none = "999999"
		asMissingAs(t, s.alpha, "GET", "/admin-api/matches/%s/_history", betaID, none, nil)
		asMissingAs(t, s.alpha, "GET", "/admin-api/matches/%s/_history", betaGone, none, nil)
		asMissingAs(t, s.alpha, "POST", "/admin-api/matches/%s/_revert", betaID, none, map[string]any{"auditId": betaEntry})
		asMissingAs(t, s.alpha, "POST", "/admin-api/matches/%s/_revert", betaGone, none, map[string]any{"auditId": goneEntry})
		var name string
		must(0, db.NewSelect().Table("matches").Column("name").Where("id = ?", betaID).Scan(ctx, &name))
		if name != "beta renamed" {
			t.Fatalf("beta's match is named %q after alpha's revert; want beta renamed", name)
		}
		if n := must(db.NewSelect().Table("matches").Where("id = ?", betaGone).Count(ctx)); n != 0 {
			t.Fatal("alpha's mod re-created a deleted match of beta")
		}
		h := s.alpha.do("GET", "/admin-api/matches/"+alphaID+"/_history", nil).want(t, 200)
		if len(rows(t, h)) == 0 || strings.Contains(string(h.raw), "beta") {
			t.Fatalf("alpha's history of its match = %s; want its entry, nothing of beta", h.raw)
		}
		s.alpha.do("POST", "/admin-api/matches/"+alphaID+"/_revert", map[string]any{"auditId": alphaEntry}).want(t, 200)
		// Beta's mod reads the deleted row's history, by its logged copy.
		if h := rows(t, s.beta.do("GET", "/admin-api/matches/"+betaGone+"/_history", nil).want(t, 200)); len(h) == 0 {
			t.Fatal("beta's mod reads no history of beta's deleted match")
		}
	})
}
