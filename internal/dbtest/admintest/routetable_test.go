package admintest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/engine"
	"github.com/gameadmin/admin/live"
	"github.com/gorilla/websocket"
	"github.com/uptrace/bun"
)

// The route table: every route of the API, how a mod calls it, and what
// it must keep from the mod. A column a mod may not read (ReadRole, shown
// masked or not at all) and a Hidden column leave by no route, and no
// route lets the mod filter, sort or search by them; a read-only column
// and one restricted for mods are changed by no route the mod calls. The
// routes are the engine's route table (engine.Routes) and the OpenAPI
// document's, so a route added later fails TestRouteTable until it is
// classified here.

// rtPart is a row related to a gadget and to two users: its player, a
// plain link, and its owner, a link that mods see masked.
type rtPart struct {
	bun.BaseModel `bun:"table:rt_parts,alias:rp"`

	ID       int64   `bun:"id,pk,autoincrement"`
	Name     string  `bun:"name,notnull"`
	GadgetID int64   `bun:"gadget_id,notnull"`
	PlayerID *string `bun:"player_id"`
	OwnerID  *string `bun:"owner_id"`
}

// The values no answer to the mod may hold.
const (
	rtNoteFirst = "SECRET-NOTE-31e0" // g1's note as created
	rtNote      = "SECRET-NOTE-7f3a" // g1's note after the admin's edit
	rtNoteB     = "SECRET-NOTE-0b5d" // g2's note as created
	rtNoteC     = "SECRET-NOTE-5a6b" // g2's note after the game's change
	rtNoteGone  = "SECRET-NOTE-9d8c" // the note of a gadget the admin deleted
	rtNoteDoom  = "SECRET-NOTE-d00m" // the note of a gadget the mod deletes
	rtHidden    = "HIDDEN-9b1c"      // g1's hidden column: no one reads it
	rtAlice0    = "alice.first-6b7e@example.com"
	rtAlice     = "alice.secret-4d1f@example.com"
	rtBob       = "bob.secret-8a2c@example.com"
	rtOwnerName = "OWNER-NAME-5e2d" // bob's display name: who owns the part
)

var rtMarkers = []string{rtNoteFirst, rtNote, rtNoteB, rtNoteC, rtNoteGone, rtNoteDoom, rtHidden, rtAlice0, rtAlice, rtBob}

// rtWorld is the panel of the route table and its rows.
type rtWorld struct {
	t          *testing.T
	db         *bun.DB
	e          *env
	cr         crew
	admin, mod *client
	hub        *live.Hub

	g1, g2, gone, doomed, victim string // gadgets
	p1                           string // a part of g1: alice plays it, bob owns it
	alice, bob                   string
	combined                     int64  // the game's change of g2's note and qty, by the admin
	aliceChange                  int64  // the admin's change of alice's email
	goneEntry                    int64  // the admin's delete of gone
	partsByOwner                 string // the users tab of the parts a user owns
	room                         string
}

// newRTWorld builds the panel: gadgets (note masked for mods, secret
// Hidden, qty read-only, sorted by note) with actions and a widget,
// users (email masked for mods), parts related to both, the audit log
// opened to mods, and a live hub; then fills it as an admin, so that
// history and the audit log carry the values.
func newRTWorld(t *testing.T, db *bun.DB) *rtWorld {
	t.Helper()
	ctx := context.Background()
	createTables(t, db, (*testGadget)(nil), (*rtPart)(nil))
	w := &rtWorld{t: t, db: db}
	w.hub = live.NewHub(live.Options{
		Authenticate: func(r *http.Request) (string, error) { return r.URL.Query().Get("user"), nil },
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	w.hub.Define("arena", live.RoomType{MaxClients: 10, EmptyTimeout: -1, NewState: func() any { return map[string]any{"round": 1.0} }})
	t.Cleanup(func() { w.hub.Close() })
	mods := Roles(RoleAdmin, RoleMod)
	masked := func(any) any { return "(masked)" }
	w.e = newEnv(t, db, Options{
		Rooms:            w.hub,
		ReportCategories: []ReportCategory{{Key: "abuse", Evidence: "text"}},
		Tables:           tablesWith(map[string]any{"gadgets": (*testGadget)(nil), "parts": (*rtPart)(nil)}),
		Relations: map[string][]Relation{"parts": {
			{Name: "gadget", Target: "gadgets", Kind: One, FK: "gadget_id"},
			{Name: "player", Target: "users", Kind: One, FK: "player_id"},
			{Name: "owner", Target: "users", Kind: One, FK: "owner_id"},
		}},
		Resources: map[string]*Resource{
			"gadgets": DefineResource((*testGadget)(nil), ResourceConfig{
				Columns: map[string]ColumnConfig{
					"qty":    {ReadOnly: true},
					"note":   {ReadRole: RoleAdmin, Mask: masked},
					"secret": {Hidden: true},
				},
				List:     ListConfig{DefaultSort: Sort{Field: "note"}},
				Policies: Policies{Create: mods, Update: mods, Delete: mods},
				Actions: []Action{
					{Name: "inspect", PerRow: true, Handler: func(_ context.Context, row map[string]any, _ ActionContext) (any, error) {
						return map[string]any{"row": row}, nil
					}},
					{Name: "snapshot", LoadRows: true, Handler: func(_ context.Context, _ map[string]any, c ActionContext) (any, error) {
						return map[string]any{"rows": c.Rows}, nil
					}},
					{Name: "activate", PerRow: true, Handler: func(ctx context.Context, row map[string]any, _ ActionContext) (any, error) {
						_, err := db.NewUpdate().Table("gadgets").Set("active = ?", true).Where("id = ?", row["id"]).Exec(ctx)
						return map[string]any{"activated": row["id"]}, err
					}},
				},
			}),
			"users": DefineResource((*User)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"email": {ReadRole: RoleAdmin, Mask: MaskEmail}}}),
			"parts": DefineResource((*rtPart)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"owner_id": {ReadRole: RoleAdmin, Mask: masked}}}),
			// A game that lets mods read the audit log, and searches its
			// payloads.
			"adminAudit": DefineResource((*AuditEntry)(nil), ResourceConfig{Policies: Policies{List: mods, Read: mods},
				Search: []string{"action", "resource", "target_id", "payload"}}),
		},
		// A table of gadgets as the game reads them: every column.
		Widgets: []Widget{{ID: "gadgetTable", Title: "Gadgets", Render: "table", Resource: "gadgets", Data: func(ctx context.Context, _ Operator) (any, error) {
			var rows []map[string]any
			err := db.NewSelect().Table("gadgets").Order("id").Scan(ctx, &rows)
			return rows, err
		}}},
	}, func(_ *Admin, mux *http.ServeMux) {
		mux.Handle("/ws/", http.StripPrefix("/ws/", w.hub))
	})
	w.cr = w.e.crew("users", "gadgets", "parts", "adminAudit", "rooms")
	w.admin, w.mod = w.cr.admin, w.cr.modScoped
	e, admin := w.e, w.admin

	w.alice = e.user(rtAlice0, "player password") // no display name: an admin's label of her is her email
	w.bob = e.user(rtBob, "player password")
	if _, err := db.NewUpdate().Table("game_users").Set("display_name = ?", rtOwnerName).Where("id = ?", w.bob).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	admin.do("PATCH", "/admin-api/users/"+w.alice, map[string]any{"email": rtAlice}).want(t, 200)
	// bob reports alice: the reports answers name them by their labels.
	must(e.admin.FileReport(ctx, Report{ReporterID: w.bob, PlayerID: w.alice, Category: "abuse", Text: "rude", Evidence: json.RawMessage(`"a chat line"`)}))
	w.aliceChange = w.lastEntry("update")
	admin.do("POST", "/admin-api/users/"+w.alice+"/invite", nil).want(t, 200) // user.invite {email}

	create := func(body map[string]any) string {
		t.Helper()
		return fmt.Sprint(admin.do("POST", "/admin-api/gadgets", body).want(t, 201).body["id"])
	}
	w.g1 = create(map[string]any{"name": "alpha", "note": rtNoteFirst})
	admin.do("PATCH", "/admin-api/gadgets/"+w.g1, map[string]any{"note": rtNote}).want(t, 200)
	if _, err := db.NewUpdate().Table("gadgets").Set("secret = ?", rtHidden).Where("id = ?", w.g1).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	w.g2 = create(map[string]any{"name": "beta", "note": rtNoteB})
	// The game changes g2's note and its read-only qty, and logs it as
	// the admin's change.
	if _, err := db.NewUpdate().Table("gadgets").Set("note = ?, qty = 70", rtNoteC).Where("id = ?", w.g2).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	must(0, e.admin.Audit().RecordUpdate(ctx, UpdateRecord{OperatorID: w.cr.adminID, Resource: "gadgets", TargetID: w.g2,
		Before: map[string]any{"note": rtNoteB, "qty": 7}, After: map[string]any{"note": rtNoteC, "qty": 70}}))
	w.combined = w.lastEntry("update")
	w.gone = create(map[string]any{"name": "gamma", "note": rtNoteGone})
	admin.do("DELETE", "/admin-api/gadgets/"+w.gone, nil).want(t, 200)
	w.goneEntry = w.lastEntry("delete")
	w.doomed = create(map[string]any{"name": "doomed", "note": rtNoteDoom})
	w.victim = create(map[string]any{"name": "victim"})
	// The admin's actions: their results, in the log, hold the rows.
	admin.do("POST", "/admin-api/gadgets/_action/inspect", map[string]any{"id": w.g1}).want(t, 200)
	admin.do("POST", "/admin-api/gadgets/_action/snapshot", map[string]any{"ids": []any{w.g1, w.g2}}).want(t, 200)

	w.p1 = fmt.Sprint(admin.do("POST", "/admin-api/parts", map[string]any{"name": "gear", "gadget_id": w.g1, "player_id": w.alice, "owner_id": w.bob}).want(t, 201).body["id"])
	for _, res := range rows(t, admin.do("GET", "/admin-api", nil).want(t, 200)) {
		if res["name"] != "users" {
			continue
		}
		for _, rel := range res["relations"].([]any) {
			if rel := rel.(map[string]any); rel["target"] == "parts" && rel["fk"] == "owner_id" {
				w.partsByOwner = rel["name"].(string)
			}
		}
	}
	if w.partsByOwner == "" {
		t.Fatal("users has no tab of the parts a user owns")
	}

	conn, roomID, _ := rtJoin(t, w.e, "arena", w.alice)
	w.room = roomID
	t.Cleanup(func() { conn.Close() })
	return w
}

// lastEntry is the id of the newest audit entry with action.
func (w *rtWorld) lastEntry(action string) int64 {
	w.t.Helper()
	rows := w.e.auditRows(action)
	if len(rows) == 0 {
		w.t.Fatalf("no %s entry", action)
	}
	return rows[len(rows)-1].ID
}

// guarded is what no route the mod calls may change: the notes
// (masked for mods) and qtys (read-only) of g1 and g2, alice's email
// (masked) and the part's owner (masked), as the database holds them.
func (w *rtWorld) guarded() map[string]string {
	w.t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	for _, id := range []string{w.g1, w.g2} {
		var note *string
		var qty int64
		if err := w.db.NewSelect().Table("gadgets").Column("note", "qty").Where("id = ?", id).Scan(ctx, &note, &qty); err != nil {
			w.t.Fatal(err)
		}
		out["gadget "+id+" note"], out["gadget "+id+" qty"] = fmt.Sprint(*note), fmt.Sprint(qty)
	}
	var email, owner string
	if err := w.db.NewSelect().Table("game_users").Column("email").Where("id = ?", w.alice).Scan(ctx, &email); err != nil {
		w.t.Fatal(err)
	}
	if err := w.db.NewSelect().Table("rt_parts").Column("owner_id").Where("id = ?", w.p1).Scan(ctx, &owner); err != nil {
		w.t.Fatal(err)
	}
	out["alice's email"], out["the part's owner"] = email, owner
	return out
}

// unchanged runs the mod's write attempts and fails when one of them
// changed a guarded value.
func (w *rtWorld) unchanged(t *testing.T, route string, attempts func()) {
	t.Helper()
	before := w.guarded()
	attempts()
	after := w.guarded()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s as the mod changed %s: %q, now %q", route, k, v, after[k])
		}
	}
}

// rtClass is what a route does with rows.
type rtClass int

const (
	rtAnswers rtClass = 1 << iota // its answer holds rows, or values of them
	rtWrites                      // it writes rows
)

// rtRoute is one route of the table.
type rtRoute struct {
	// key is "METHOD /path": a route of engine.Routes, or an endpoint
	// the OpenAPI document names, with the resource and the action or
	// relation name as parameters.
	key   string
	class rtClass // 0: neither
	why   string  // for neither: why no row passes
	// call makes the route's requests as c (answers).
	call func(c *client) []*resp
	// read: call changes nothing, and the admin makes it too, whose
	// answers must hold adminSees (else the check proves nothing) and
	// never the Hidden column.
	read      bool
	adminSees []string
	// write runs the mod's attempts to change what it may not (writes).
	write func(t *testing.T)
}

// routeTable is every route of the API, classified.
func (w *rtWorld) routeTable(t *testing.T) []rtRoute {
	api := "/admin-api"
	get := func(paths ...string) func(c *client) []*resp {
		return func(c *client) []*resp {
			var out []*resp
			for _, p := range paths {
				out = append(out, c.do("GET", api+p, nil))
			}
			return out
		}
	}
	status := func(c *client, method, path string, body any, code int) *resp {
		t.Helper()
		return c.do(method, api+path, body).want(t, code)
	}
	mod := w.mod
	gone := w.gone
	self := func(what string) string { return "the caller's own " + what + ": no other row" }
	return []rtRoute{
		{key: "GET /auth/status", why: "public: whether a session is on and an admin exists"},
		{key: "POST /auth/bootstrap", why: "makes the first admin; refused once one exists"},
		{key: "POST /auth/login", why: "sign-in: " + self("account")},
		{key: "GET /auth/me", why: self("account")},
		{key: "POST /auth/logout", why: self("session")},
		{key: "POST /auth/logout-everywhere", why: self("sessions")},
		{key: "PUT /auth/locale", why: self("language of the UI")},
		{key: "POST /auth/request-reset", why: "answers the same whatever the email: no row"},
		{key: "POST /auth/reset", why: "sets a password with a reset token: no column of a resource"},
		{key: "POST /auth/login/totp", why: "sign-in's second factor: " + self("account")},
		{key: "GET /auth/totp", why: self("second factor")},
		{key: "POST /auth/totp/enroll", why: self("second factor")},
		{key: "POST /auth/totp/confirm", why: self("second factor")},
		{key: "POST /auth/totp/disable", why: self("second factor")},
		{key: "POST /auth/totp/recovery-codes", why: self("second factor")},
		{key: "GET /auth/sessions", why: self("sign-ins")},
		{key: "POST /auth/password", why: self("password")},
		{key: "GET /_health", why: "public: the database's health, no row"},
		{key: "* /", why: "answers 404 to a path no route serves"},
		{key: "GET /{resource}/{id}/{sub}", why: "answers 404, once signed in, to a row's path no route serves"},
		{key: "POST /{resource}/{id}/{op}", why: "answers 404, once signed in, to a row's or a bulk op no route serves"},
		{key: "PATCH /rooms/{roomId}", why: "locks a live room: no table row"},
		{key: "DELETE /rooms/{roomId}", why: "disposes of a live room: no table row"},
		{key: "DELETE /rooms/{roomId}/clients/{sessionId}", why: "kicks a live client: no table row"},
		{key: "PATCH /rooms/{roomId}/state", why: "edits a live room's state: no table row"},
		{key: "DELETE /rooms/{roomId}/state", why: "edits a live room's state: no table row"},

		{key: "GET {APIPath}", class: rtAnswers, read: true, call: get("")},
		{key: "GET /{$}", class: rtAnswers, read: true, call: get("/")},
		{key: "GET /_openapi.json", class: rtAnswers, read: true, call: get("/_openapi.json")},
		{key: "GET /_search", class: rtAnswers, read: true, call: get("/_search?q=alice", "/_search?q=bob&limit=20", "/_search?q=a&limit=20"), adminSees: []string{rtAlice}},
		{key: "GET /_dashboard", class: rtAnswers, read: true, call: get("/_dashboard"), adminSees: []string{rtNote, rtAlice}},
		{key: "GET /rooms", class: rtAnswers, read: true, call: get("/rooms")},
		{key: "GET /rooms/{roomId}", class: rtAnswers, read: true, call: get("/rooms/" + w.room)},
		{key: "GET /rooms/by-user/{userId}", class: rtAnswers, read: true, call: get("/rooms/by-user/" + w.alice)},
		{key: "GET /{resource}", class: rtAnswers, read: true,
			call:      get("/gadgets", "/gadgets?_limit=1", "/users", "/parts", "/adminAudit", "/adminAudit?_q=alice"),
			adminSees: []string{rtNote, rtNoteC, rtAlice, rtOwnerName, rtNoteFirst, rtNoteGone}},
		{key: "GET /{resource}/_export.csv", class: rtAnswers, read: true,
			call:      get("/gadgets/_export.csv", "/users/_export.csv", "/parts/_export.csv", "/adminAudit/_export.csv"),
			adminSees: []string{rtNote, rtAlice, rtNoteFirst, rtNoteGone}},
		{key: "GET /{resource}/{id}", class: rtAnswers, read: true,
			call:      get("/gadgets/"+w.g1, "/users/"+w.alice, "/parts/"+w.p1, fmt.Sprintf("/adminAudit/%d", w.aliceChange)),
			adminSees: []string{rtNote, rtAlice, rtOwnerName, rtAlice0}},
		{key: "GET /{resource}/{id}/_history", class: rtAnswers, read: true,
			call: get("/gadgets/"+w.g1+"/_history", "/gadgets/"+w.g2+"/_history", "/gadgets/"+gone+"/_history",
				"/users/"+w.alice+"/_history", "/parts/"+w.p1+"/_history", "/gadgets/"+w.g1+"/_history?_q=alpha"),
			adminSees: []string{rtNoteFirst, rtNote, rtNoteB, rtNoteC, rtNoteGone, rtAlice0, rtAlice}},
		{key: "GET /{resource}/{id}/_counts", class: rtAnswers, read: true,
			call: get("/gadgets/"+w.g1+"/_counts", "/users/"+w.alice+"/_counts", "/users/"+w.bob+"/_counts", "/parts/"+w.p1+"/_counts")},
		{key: "GET /{resource}/{id}/relations/{name}", class: rtAnswers, read: true,
			call: get("/gadgets/"+w.g1+"/relations/parts", "/parts/"+w.p1+"/relations/gadget", "/parts/"+w.p1+"/relations/player",
				"/parts/"+w.p1+"/relations/owner", "/users/"+w.alice+"/relations/parts", "/users/"+w.bob+"/relations/"+w.partsByOwner),
			adminSees: []string{rtNote, rtAlice, rtBob}},
		{key: "GET /{resource}/{id}/_export", class: rtAnswers, read: true, call: get("/users/" + w.alice + "/_export"), adminSees: []string{rtAlice}},

		{key: "POST /{resource}", class: rtAnswers | rtWrites,
			call: func(c *client) []*resp {
				return []*resp{status(c, "POST", "/gadgets", map[string]any{"name": "made by the mod"}, 201)}
			},
			write: func(t *testing.T) {
				w.unchanged(t, "POST /gadgets", func() {
					status(mod, "POST", "/gadgets", map[string]any{"name": "m-note", "note": "the mod's note"}, 403)
					status(mod, "POST", "/gadgets", map[string]any{"name": "m-qty", "qty": 99}, 400)
					status(mod, "POST", "/parts", map[string]any{"name": "m-part", "gadget_id": w.g1, "owner_id": w.cr.modScopedID}, 403)
				})
				if n := len(rows(t, w.admin.do("GET", api+"/gadgets?name_in=m-note,m-qty", nil).want(t, 200))); n != 0 {
					t.Errorf("the mod's refused creates made %d gadgets", n)
				}
			}},
		{key: "PATCH /{resource}/{id}", class: rtAnswers | rtWrites,
			call: func(c *client) []*resp {
				return []*resp{
					status(c, "PATCH", "/gadgets/"+w.g1, map[string]any{"name": "alpha"}, 200),
					status(c, "PATCH", "/gadgets/"+w.g2, map[string]any{}, 200),
					status(c, "PATCH", "/users/"+w.alice, map[string]any{}, 200),
					status(c, "PATCH", "/parts/"+w.p1, map[string]any{"name": "gear"}, 200),
				}
			},
			write: func(t *testing.T) { w.updates(t, "PATCH") }},
		{key: "PUT /{resource}/{id}", class: rtAnswers | rtWrites,
			call: func(c *client) []*resp {
				return []*resp{status(c, "PUT", "/gadgets/"+w.g1, map[string]any{"name": "alpha"}, 200)}
			},
			write: func(t *testing.T) { w.updates(t, "PUT") }},
		{key: "DELETE /{resource}/{id}", class: rtAnswers | rtWrites,
			call: func(c *client) []*resp {
				return []*resp{status(c, "DELETE", "/gadgets/"+w.doomed, nil, 200)}
			},
			write: func(t *testing.T) {
				w.unchanged(t, "DELETE /gadgets/{id}", func() {
					status(mod, "DELETE", "/gadgets/"+w.victim, map[string]any{"note": "the mod's note", "qty": 99}, 200)
					status(mod, "DELETE", "/users/"+w.alice, nil, 403)
					status(mod, "DELETE", "/parts/"+w.p1, nil, 403)
				})
			}},
		{key: "POST /{resource}/{id}/_revert", class: rtAnswers | rtWrites,
			// The mod undoes the admin's delete: the row comes back as it
			// was, and the answer shows it masked.
			call: func(c *client) []*resp {
				return []*resp{status(c, "POST", "/gadgets/"+gone+"/_revert", map[string]any{"auditId": w.goneEntry}, 200)}
			},
			write: func(t *testing.T) {
				w.unchanged(t, "POST /{resource}/{id}/_revert", func() {
					// One entry changed g2's masked note and read-only qty.
					status(mod, "POST", "/gadgets/"+w.g2+"/_revert", map[string]any{"auditId": w.combined}, 403)
					status(mod, "POST", "/gadgets/"+w.g2+"/_revert", map[string]any{"auditId": w.combined, "force": true}, 403)
					status(mod, "POST", "/users/"+w.alice+"/_revert", map[string]any{"auditId": w.aliceChange}, 403)
				})
				// The row the mod re-created holds what the log held, not a
				// value of the mod's choosing.
				var note string
				var qty int64
				if err := w.db.NewSelect().Table("gadgets").Column("note", "qty").Where("id = ?", gone).Scan(context.Background(), &note, &qty); err != nil {
					t.Fatal(err)
				}
				if note != rtNoteGone || qty != 7 {
					t.Errorf("the gadget the mod re-created has note %q, qty %d; want it as it was (%q, 7)", note, qty, rtNoteGone)
				}
			}},
		{key: "POST /{resource}/_action/{name}", class: rtAnswers | rtWrites,
			call: func(c *client) []*resp {
				return []*resp{
					status(c, "POST", "/gadgets/_action/inspect", map[string]any{"id": w.g1}, 200),
					status(c, "POST", "/gadgets/_action/snapshot", map[string]any{"ids": []any{w.g1, w.g2}}, 200),
				}
			},
			write: func(t *testing.T) {
				w.unchanged(t, "POST /gadgets/_action/activate", func() {
					status(mod, "POST", "/gadgets/_action/activate", map[string]any{"id": w.g1, "note": "the mod's note", "qty": 99}, 200)
				})
			}},
		{key: "POST /{resource}/_bulk/ban", class: rtWrites, write: func(t *testing.T) { w.bulk(t, "ban") }},
		{key: "POST /{resource}/_bulk/unban", class: rtWrites, write: func(t *testing.T) { w.bulk(t, "unban") }},
		{key: "POST /{resource}/_bulk/revoke-sessions", class: rtWrites, write: func(t *testing.T) { w.bulk(t, "revoke-sessions") }},
		{key: "GET /_reports", class: rtAnswers, read: true, call: get("/_reports", "/_reports?player="+w.alice, "/_reports?player="+w.bob), adminSees: []string{rtAlice}},
		{key: "POST /_reports/{playerId}/claim", why: "claims a player's open reports: a row of the panel's own claims table, no resource's"},
		{key: "POST /_reports/{playerId}/release", why: "ends a claim on a player's open reports: a row of the panel's own claims table, no resource's"},
		{key: "POST /_reports/{playerId}/resolve", class: rtWrites, write: func(t *testing.T) {
			w.unchanged(t, "POST /_reports/{playerId}/resolve", func() {
				status(mod, "POST", "/_reports/"+w.alice+"/resolve", map[string]any{"outcome": "warn", "note": "n", "email": "stolen@example.com"}, 400)
				status(mod, "POST", "/_reports/"+w.alice+"/resolve", map[string]any{"outcome": "warn", "note": "be nice"}, 200)
			})
		}},
		{key: "POST /{resource}/{id}/ban", class: rtWrites, write: func(t *testing.T) { w.moderates(t, "ban", 200) }},
		{key: "POST /{resource}/{id}/unban", class: rtWrites, write: func(t *testing.T) { w.moderates(t, "unban", 200) }},
		{key: "POST /{resource}/{id}/revoke-sessions", class: rtWrites, write: func(t *testing.T) { w.moderates(t, "revoke-sessions", 200) }},
		{key: "POST /{resource}/{id}/invite", class: rtWrites, write: func(t *testing.T) { w.moderates(t, "invite", 403) }},
		{key: "POST /{resource}/{id}/_erase", class: rtWrites, write: func(t *testing.T) { w.moderates(t, "_erase", 403) }},
		// Restore only clears a soft-delete column (softdelete_test.go); no
		// resource here has one, so it changes nothing.
		{key: "POST /{resource}/{id}/_restore", class: rtWrites, write: func(t *testing.T) {
			w.unchanged(t, "POST /{resource}/{id}/_restore", func() {
				status(mod, "POST", "/gadgets/"+w.g1+"/_restore", nil, 400)
				status(mod, "POST", "/parts/"+w.p1+"/_restore", map[string]any{"owner_id": w.alice}, 400)
			})
		}},
		{key: "POST /users/{id}/totp/reset", class: rtWrites, write: func(t *testing.T) { w.moderates(t, "totp/reset", 403) }},
		{key: "GET /users/{id}/row-scope", why: "a mod's row scope, admins only (403 for a mod): the panel's own row_scopes table, no resource's rows"},
		{key: "PUT /users/{id}/row-scope", why: "sets a mod's row scope, admins only (403 for a mod): the panel's own row_scopes table, no resource's rows"},
	}
}

// updates are the mod's attempts, by PATCH or PUT, to change a read-only
// column or one masked for mods.
func (w *rtWorld) updates(t *testing.T, method string) {
	t.Helper()
	w.unchanged(t, method+" /{resource}/{id}", func() {
		for _, a := range []struct {
			path string
			body map[string]any
			code int
		}{
			{"/gadgets/" + w.g1, map[string]any{"note": "the mod's note"}, 403},
			{"/gadgets/" + w.g1, map[string]any{"note": "(masked)"}, 403},
			{"/gadgets/" + w.g1, map[string]any{"qty": 99}, 400},
			{"/gadgets/" + w.g1, map[string]any{"name": "alpha", "qty": 99}, 400},
			{"/gadgets/" + w.g1, map[string]any{"secret": "the mod's secret"}, 400},
			{"/users/" + w.alice, map[string]any{"email": "stolen@example.com"}, 403},
			{"/users/" + w.alice, map[string]any{"token_version": 99}, 400},
			{"/users/" + w.alice, map[string]any{"ban": map[string]any{"reason": "x"}}, 400},
			{"/parts/" + w.p1, map[string]any{"owner_id": w.cr.modScopedID}, 403},
		} {
			w.mod.do(method, "/admin-api"+a.path, a.body).want(t, a.code)
		}
	})
}

// bulk is the mod's bulk op on alice, with a body that names her email:
// refused, or done with her email as it was.
func (w *rtWorld) bulk(t *testing.T, op string) {
	t.Helper()
	w.unchanged(t, "POST /users/_bulk/"+op, func() {
		w.mod.do("POST", "/admin-api/users/_bulk/"+op, map[string]any{"ids": []any{w.alice}, "email": "stolen@example.com"}).want(t, 400)
		w.mod.do("POST", "/admin-api/users/_bulk/"+op, map[string]any{"ids": []any{w.alice}}).want(t, 200)
	})
}

// moderates is the mod's op on alice, with a body that names her email:
// refused, or done with her email as it was.
func (w *rtWorld) moderates(t *testing.T, op string, code int) {
	t.Helper()
	w.unchanged(t, "POST /users/{id}/"+op, func() {
		if op == "ban" {
			w.mod.do("POST", "/admin-api/users/"+w.alice+"/ban", map[string]any{"reason": "r", "email": "stolen@example.com"}).want(t, 400)
		}
		w.mod.do("POST", "/admin-api/users/"+w.alice+"/"+op, nil).want(t, code)
	})
}

// TestRouteTable: every route of the API is classified, and as a mod
// scoped to every resource, no route answers a value the mod may not read
// or searches, sorts or filters by it, and no route writes a column the
// mod may not write.
func TestRouteTable(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newRTWorld(t, db)
		table := w.routeTable(t)
		known := map[string]rtRoute{}
		for _, rt := range table {
			if _, dup := known[rt.key]; dup {
				t.Fatalf("the route table has %s twice", rt.key)
			}
			known[rt.key] = rt
			switch {
			case rt.class == 0 && rt.why == "":
				t.Errorf("%s: a route that neither answers nor writes rows says why", rt.key)
			case rt.class&rtAnswers != 0 && rt.call == nil, rt.class&rtWrites != 0 && rt.write == nil:
				t.Errorf("%s: its class needs a call (answers) and a write (writes)", rt.key)
			}
		}
		served := w.servedRoutes(t)
		for _, k := range slices.Sorted(maps.Keys(served)) {
			if _, ok := known[k]; !ok {
				t.Errorf("route %q (%s) is not in the route table of routetable_test.go: classify it — answers rows, writes rows, or neither (and why) — and say how a mod calls it", k, served[k])
			}
		}
		for k := range known {
			if served[k] == "" {
				t.Errorf("the route table names %q, which no route serves any more: remove it", k)
			}
		}

		// What the mod is answered: no masked, hidden or restricted value,
		// in the body or a header (a cursor holds the last row's sort
		// values).
		for _, rt := range table {
			if rt.class&rtAnswers == 0 {
				continue
			}
			if rt.read {
				var all strings.Builder
				for _, r := range rt.call(w.admin) {
					all.WriteString(answerText(r))
				}
				for _, s := range rt.adminSees {
					if !strings.Contains(all.String(), s) {
						t.Errorf("%s: the admin's answers lack %q, so the mod's prove nothing: %s", rt.key, s, all.String())
					}
				}
				rtLeaks(t, rt.key+" as the admin (a Hidden column)", all.String(), rtHidden)
			}
			for _, r := range rt.call(w.mod) {
				what := fmt.Sprintf("%s as the mod (%s %s, %d)", rt.key, r.Request.Method, r.Request.URL.RequestURI(), r.StatusCode)
				if r.StatusCode >= 500 {
					t.Errorf("%s: %s", what, r.raw)
				}
				secrets := rtMarkers
				if strings.Contains(r.Request.URL.Path, "parts") {
					// Whose the part is: bob's id and name, through its owner.
					secrets = append(slices.Clone(rtMarkers), w.bob, rtOwnerName)
				}
				rtLeaks(t, what, answerText(r), secrets...)
			}
		}

		w.noOracle(t)

		for _, rt := range table {
			if rt.class&rtWrites != 0 {
				rt.write(t)
			}
		}
	})
}

// rtLeaks fails when text holds any of secrets, naming each with the
// text around it.
func rtLeaks(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	var found []string
	for _, s := range secrets {
		if i := strings.Index(text, s); i >= 0 {
			found = append(found, fmt.Sprintf("%q in …%s…", s, text[max(0, i-120):min(len(text), i+len(s)+40)]))
		}
	}
	if len(found) > 0 {
		t.Errorf("%s answers %d value(s) it must not:\n\t%s", what, len(found), strings.Join(found, "\n\t"))
	}
}

// answerText is a response's headers and body, a cursor decoded.
func answerText(r *resp) string {
	var b strings.Builder
	for k, vs := range r.Header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
			if k == "X-Next-Cursor" {
				raw, _ := base64.RawURLEncoding.DecodeString(v)
				fmt.Fprintf(&b, "%s (decoded): %s\n", k, raw)
			}
		}
	}
	b.Write(r.raw)
	return b.String()
}

// noOracle: the mod can neither filter, sort nor count by a column it may
// not read, on the lists, tabs, history, audit log and exports (each 4xx),
// nor search by it (_q finds what nonsense finds), and the default sort
// of a list is not the masked column's order.
func (w *rtWorld) noOracle(t *testing.T) {
	t.Helper()
	mod := w.mod
	refused := func(path string) {
		t.Helper()
		if r := mod.do("GET", "/admin-api"+path, nil); r.StatusCode < 400 || r.StatusCode >= 500 {
			t.Errorf("GET %s as the mod = %d; want 4xx: it names a column the mod may not read", path, r.StatusCode)
		}
	}
	sep := func(p string) string {
		if strings.Contains(p, "?") {
			return "&"
		}
		return "?"
	}
	// count is how many rows path finds: X-Total-Count, or a CSV's lines.
	count := func(path string) string {
		t.Helper()
		if strings.Contains(path, ".csv") {
			r := mod.do("GET", "/admin-api"+path, nil).want(t, 200)
			return fmt.Sprint(strings.Count(string(r.raw), "\n"))
		}
		r := mod.do("GET", "/admin-api"+path+sep(path)+"_count=exact", nil).want(t, 200)
		return r.Header.Get("X-Total-Count")
	}
	searchNothing := func(path string, guesses ...string) {
		t.Helper()
		none := count(path + sep(path) + "_q=zz-no-such-text")
		for _, g := range guesses {
			if got := count(path + sep(path) + "_q=" + url.QueryEscape(g)); got != none {
				t.Errorf("GET %s?_q=%s as the mod finds %s, nonsense %s: the search looks into a column the mod may not read", path, g, got, none)
			}
		}
	}
	filters := func(col, v string) []string {
		v = url.QueryEscape(v)
		return []string{col + "=" + v, col + "=" + v + "&_count=exact", col + "_eq=" + v, col + "_like=" + url.QueryEscape("%"+v[:6]+"%"), col + "_ne=" + v, col + "_null=false", "_sort=" + col, "_sort=id," + col}
	}
	for _, base := range []string{"/gadgets", "/gadgets/_export.csv", "/parts/" + w.p1 + "/relations/gadget"} {
		for _, q := range append(filters("note", rtNote), filters("secret", rtHidden)...) {
			refused(base + "?" + q)
		}
		searchNothing(base, rtNote, rtNoteC, rtHidden, "SECRET-NOTE")
	}
	for _, base := range []string{"/users", "/users/_export.csv", "/parts/" + w.p1 + "/relations/player"} {
		for _, q := range filters("email", rtAlice) {
			refused(base + "?" + q)
		}
		searchNothing(base, rtAlice, "alice.secret", rtAlice0)
	}
	for _, base := range []string{"/parts", "/parts/_export.csv", "/gadgets/" + w.g1 + "/relations/parts", "/users/" + w.alice + "/relations/parts"} {
		for _, q := range filters("owner_id", w.bob) {
			refused(base + "?" + q)
		}
		searchNothing(base, w.bob)
	}
	// The history and the audit log hold the values in their payloads.
	for _, base := range []string{"/gadgets/" + w.g1 + "/_history", "/users/" + w.alice + "/_history", "/parts/" + w.p1 + "/_history", "/adminAudit", "/adminAudit/_export.csv"} {
		for _, q := range filters("payload", rtNote) {
			refused(base + "?" + q)
		}
		refused(base + "?payload_key=" + url.QueryEscape("email:"+rtAlice))
		searchNothing(base, rtNote, rtNoteFirst, rtAlice, "alice.secret", rtHidden, w.bob)
	}
	// A tab keyed by a column the mod may not read is a filter by it.
	refused("/users/" + w.bob + "/relations/" + w.partsByOwner)
	refused("/parts/" + w.p1 + "/relations/owner")
	if c := mod.do("GET", "/admin-api/users/"+w.bob+"/_counts", nil).want(t, 200); c.body[w.partsByOwner] != nil {
		t.Errorf("the mod's counts of bob's tabs count the parts he owns (%v): the masked owner_id decides them", c.body[w.partsByOwner])
	}
	// The mod's catalog offers neither that tab, nor a link through the
	// masked key, nor the masked column as the default sort.
	for _, res := range rows(t, mod.do("GET", "/admin-api", nil).want(t, 200)) {
		switch res["name"] {
		case "users":
			for _, rel := range res["relations"].([]any) {
				if rel.(map[string]any)["fk"] == "owner_id" {
					t.Errorf("the mod's catalog offers the users tab %v, keyed by the masked owner_id", rel)
				}
			}
		case "parts":
			for _, c := range res["columns"].([]any) {
				if c := c.(map[string]any); c["name"] == "owner_id" && c["linkTo"] != nil {
					t.Errorf("the mod's catalog links the masked owner_id: %v", c)
				}
			}
		case "gadgets":
			if res["defaultSort"] != nil {
				t.Errorf("the mod's catalog sorts gadgets by %v, the masked note", res["defaultSort"])
			}
		}
	}
	// The default sort is the list's, not the masked column's: mods get
	// the primary key's order.
	ids := func(c *client) []string {
		return column(rows(t, c.do("GET", "/admin-api/gadgets?id_in="+w.g1+","+w.g2, nil).want(t, 200)), "id")
	}
	if got := ids(w.admin); !slices.Equal(got, []string{w.g2, w.g1}) {
		t.Fatalf("the admin's gadgets in order %v; want them by note (%s, %s)", got, w.g2, w.g1)
	}
	if got := ids(mod); !slices.Equal(got, []string{w.g1, w.g2}) {
		t.Errorf("the mod's gadgets in order %v; want them by id: the default sort by the masked note orders them by it", got)
	}
}

// servedRoutes are the routes of the API, each with where it was found:
// the engine's route table, and the operations of the OpenAPI document
// an admin gets, with the resource and the action or relation name as
// parameters, and a parameter of a few values as each of its routes.
func (w *rtWorld) servedRoutes(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range engine.Routes() {
		method, path := r.Method, r.Path
		if method == "" {
			method = "*"
		}
		if path == "" {
			path = "{APIPath}"
		}
		out[method+" "+path] = "engine.Routes (" + r.Handler + ")"
	}

	resources := map[string]bool{}
	for _, r := range rows(t, w.admin.do("GET", "/admin-api", nil).want(t, 200)) {
		resources[r["name"].(string)] = true
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(w.admin.do("GET", "/admin-api/_openapi.json", nil).want(t, 200).raw, &doc); err != nil {
		t.Fatal(err)
	}
	for p, ops := range doc.Paths {
		for _, path := range enumPaths(t, p, ops["parameters"]) {
			for m := range ops {
				if m == "parameters" {
					continue
				}
				key := strings.ToUpper(m) + " " + path
				if out[key] == "" {
					key = strings.ToUpper(m) + " " + genericPath(path, resources)
				}
				if out[key] == "" {
					out[key] = "the OpenAPI document's " + strings.ToUpper(m) + " " + p
				}
			}
		}
	}
	return out
}

// enumPaths is p with each path parameter that takes a few values
// (an enum) as each of them: /users/_bulk/{op} is a route per op.
func enumPaths(t *testing.T, p string, params json.RawMessage) []string {
	t.Helper()
	var ps []struct {
		Name   string `json:"name"`
		In     string `json:"in"`
		Schema struct {
			Enum []string `json:"enum"`
		} `json:"schema"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &ps); err != nil {
			t.Fatalf("%s: parameters: %v", p, err)
		}
	}
	out := []string{p}
	for _, param := range ps {
		if param.In != "path" || len(param.Schema.Enum) == 0 {
			continue
		}
		var next []string
		for _, q := range out {
			for _, v := range param.Schema.Enum {
				next = append(next, strings.ReplaceAll(q, "{"+param.Name+"}", v))
			}
		}
		out = next
	}
	return out
}

// genericPath is a path of the OpenAPI document with its resource, and
// its action or relation name, as parameters.
func genericPath(p string, resources map[string]bool) string {
	if p == "/" {
		return "/{$}"
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if resources[segs[0]] {
		segs[0] = "{resource}"
	}
	if n := len(segs); n >= 2 && (segs[n-2] == "_action" || segs[n-2] == "relations") {
		segs[n-1] = "{name}"
	}
	return "/" + strings.Join(segs, "/")
}

// rtJoin connects a live client of userID to a room of roomType on e's
// server (the hub at /ws/), and returns it with its room and session.
func rtJoin(t *testing.T, e *env, roomType, userID string) (*websocket.Conn, string, string) {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(e.srv.URL, "http")+"/ws/"+roomType+"?user="+url.QueryEscape(userID), nil)
	if err != nil {
		t.Fatalf("join %s as %s: %v", roomType, userID, err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		var m map[string]any
		if err := conn.ReadJSON(&m); err != nil {
			t.Fatalf("join %s as %s: %v", roomType, userID, err)
		}
		if m["type"] == "joined" {
			conn.SetReadDeadline(time.Time{})
			return conn, m["roomId"].(string), m["sessionId"].(string)
		}
	}
}
