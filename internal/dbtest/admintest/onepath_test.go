package admintest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// onePathEnv is a panel where mods may create, update and delete gadgets,
// whose qty is read-only and whose note only an admin reads (mods see it
// masked), and where users' emails are masked for mods. It returns the
// crew: an admin, a mod scoped to users and gadgets, a bare mod.
func onePathEnv(t *testing.T, db *bun.DB) (*env, crew) {
	t.Helper()
	createTables(t, db, (*testGadget)(nil))
	mods := Roles(RoleAdmin, RoleMod)
	e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"gadgets": (*testGadget)(nil)}), Resources: map[string]*Resource{
		"gadgets": DefineResource((*testGadget)(nil), ResourceConfig{
			Columns: map[string]ColumnConfig{
				"qty":  {ReadOnly: true},
				"note": {ReadRole: RoleAdmin, Mask: func(any) any { return "(masked)" }},
			},
			Policies: Policies{Create: mods, Update: mods, Delete: mods},
			Create: CreateConfig{Defaults: func(context.Context, DefaultsContext) (map[string]any, error) {
				return map[string]any{"note": "a default secret"}, nil
			}},
		}),
		"users": DefineResource((*User)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"email": {ReadRole: RoleAdmin, Mask: MaskEmail}}}),
	}})
	return e, e.crew("users", "gadgets")
}

// noSecret fails when body holds any of the raw values.
func noSecret(t *testing.T, what string, body []byte, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(string(body), s) {
			t.Errorf("%s answers the masked value %q: %s", what, s, body)
		}
	}
}

// TestWriteAnswersAreMasked: a column a mod sees masked comes back masked
// from every write, as from a read — create, update (also with nothing to
// change), delete and the revert that undoes it.
func TestWriteAnswersAreMasked(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, cr := onePathEnv(t, db)
		mod := cr.modScoped
		id := fmt.Sprint(cr.admin.do("POST", "/admin-api/gadgets", map[string]any{"name": "g1", "note": "the admin's secret"}).want(t, 201).body["id"])

		r := mod.do("PATCH", "/admin-api/gadgets/"+id, map[string]any{}).want(t, 200)
		noSecret(t, "an empty PATCH", r.raw, "the admin's secret")
		if r.body["note"] != "(masked)" {
			t.Errorf("an empty PATCH answers note %v; want it masked", r.body["note"])
		}
		r = mod.do("PATCH", "/admin-api/gadgets/"+id, map[string]any{"name": "g1b"}).want(t, 200)
		noSecret(t, "a PATCH", r.raw, "the admin's secret")
		r = mod.do("POST", "/admin-api/gadgets", map[string]any{"name": "g2"}).want(t, 201)
		noSecret(t, "a create", r.raw, "a default secret")
		r = mod.do("DELETE", "/admin-api/gadgets/"+id, nil).want(t, 200)
		noSecret(t, "a delete", r.raw, "the admin's secret")

		// The delete undone: the row comes back as it was, note and all,
		// and the answer shows it masked.
		hist := rows(t, mod.do("GET", "/admin-api/gadgets/"+id+"/_history", nil).want(t, 200))
		r = mod.do("POST", "/admin-api/gadgets/"+id+"/_revert", map[string]any{"auditId": hist[0]["id"]}).want(t, 200)
		noSecret(t, "a revert", r.raw, "the admin's secret")
		if got := cr.admin.do("GET", "/admin-api/gadgets/"+id, nil).want(t, 200).body["note"]; got != "the admin's secret" {
			t.Errorf("the row re-created has note %v; want it back as it was", got)
		}

		// The users table: an empty PATCH of a player, as a mod.
		player := e.user("alice@example.com", "player password")
		r = mod.do("PATCH", "/admin-api/users/"+player, map[string]any{}).want(t, 200)
		noSecret(t, "a users PATCH", r.raw, "alice@example.com")
		if r.body["email"] != "a***@example.com" {
			t.Errorf("a users PATCH answers email %v; want a***@example.com", r.body["email"])
		}
	})
}

// TestRevertPassesTheWriteGate: a revert is an update through the same
// gate as a PATCH. A mod cannot revert a change to a column they may not
// read (403) or to a read-only one (400), and no revert of an operator's
// email change brings back the sessions the change ended.
func TestRevertPassesTheWriteGate(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, cr := onePathEnv(t, db)
		ctx := context.Background()
		mod := cr.modScoped
		id := fmt.Sprint(cr.admin.do("POST", "/admin-api/gadgets", map[string]any{"name": "gold", "note": "first"}).want(t, 201).body["id"])
		latest := func() any {
			t.Helper()
			return rows(t, cr.admin.do("GET", "/admin-api/gadgets/"+id+"/_history", nil).want(t, 200))[0]["id"]
		}

		// A column masked for mods: PATCH is 403, and so is the revert.
		cr.admin.do("PATCH", "/admin-api/gadgets/"+id, map[string]any{"note": "second"}).want(t, 200)
		mod.do("PATCH", "/admin-api/gadgets/"+id, map[string]any{"note": "first"}).want(t, 403, "forbidden")
		mod.do("POST", "/admin-api/gadgets/"+id+"/_revert", map[string]any{"auditId": latest()}).want(t, 403, "forbidden")
		if got := cr.admin.do("GET", "/admin-api/gadgets/"+id, nil).want(t, 200).body["note"]; got != "second" {
			t.Fatalf("note after the mod's refused revert = %v; want second", got)
		}

		// A read-only column the game changed (and logged): PATCH is 400
		// read_only, and so is the revert.
		if _, err := db.NewUpdate().Table("gadgets").Set("qty = 2000000").Where("id = ?", id).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.admin.Audit().RecordUpdate(ctx, UpdateRecord{Resource: "gadgets", TargetID: id,
			Before: map[string]any{"qty": 1000000}, After: map[string]any{"qty": 2000000}}); err != nil {
			t.Fatal(err)
		}
		mod.do("PATCH", "/admin-api/gadgets/"+id, map[string]any{"qty": 1000000}).want(t, 400, "read_only")
		mod.do("POST", "/admin-api/gadgets/"+id+"/_revert", map[string]any{"auditId": latest()}).want(t, 400, "read_only")
		if got := cr.admin.do("GET", "/admin-api/gadgets/"+id, nil).want(t, 200).body["qty"]; got != float64(2000000) {
			t.Fatalf("qty after the refused revert = %v; want 2000000", got)
		}

		// An admin changes another operator's email: that operator's
		// sessions end (the token version moves). Reverting the change puts
		// the email back and leaves the token version where it is.
		tokenVersion := func() int64 {
			t.Helper()
			var tv int64
			if err := db.NewSelect().Table("game_users").Column("token_version").Where("id = ?", cr.modBareID).Scan(ctx, &tv); err != nil {
				t.Fatal(err)
			}
			return tv
		}
		before := tokenVersion()
		cr.admin.do("PATCH", "/admin-api/users/"+cr.modBareID, map[string]any{"email": "bare.renamed@example.com"}).want(t, 200)
		cr.modBare.do("GET", "/admin-api/auth/me", nil).want(t, 401)
		ended := tokenVersion()
		if ended == before {
			t.Fatal("the email change did not move the token version")
		}
		hist := rows(t, cr.admin.do("GET", "/admin-api/users/"+cr.modBareID+"/_history", nil).want(t, 200))
		cr.admin.do("POST", "/admin-api/users/"+cr.modBareID+"/_revert", map[string]any{"auditId": hist[0]["id"]}).want(t, 200)
		if got := cr.admin.do("GET", "/admin-api/users/"+cr.modBareID, nil).want(t, 200).body["email"]; got != "bare@example.com" {
			t.Fatalf("email after the revert = %v; want it back", got)
		}
		if tv := tokenVersion(); tv < ended {
			t.Fatalf("token version after the revert = %d; want at least %d (it was %d before the change)", tv, ended, before)
		}
		cr.modBare.do("GET", "/admin-api/auth/me", nil).want(t, 401)
	})
}

// TestHistorySearchIsNoOracle: a mod who sees a player's email masked
// cannot learn it by searching the player's history: _q finds the same
// entries whether the guess is the email or nonsense, and a filter on the
// entries' payloads is refused.
func TestHistorySearchIsNoOracle(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, cr := onePathEnv(t, db)
		player := e.user("first.address@example.com", "player password")
		cr.admin.do("PATCH", "/admin-api/users/"+player, map[string]any{"email": "secret.person@example.com"}).want(t, 200)
		cr.admin.do("PATCH", "/admin-api/users/"+player, map[string]any{"display_name": "Someone"}).want(t, 200)
		count := func(c *client, q url.Values) string {
			t.Helper()
			q.Set("_count", "exact")
			return c.do("GET", "/admin-api/users/"+player+"/_history?"+q.Encode(), nil).want(t, 200).Header.Get("X-Total-Count")
		}
		for _, guess := range []string{"secret.person@example.com", "secret", "first.address"} {
			if got, none := count(cr.modScoped, url.Values{"_q": {guess}}), count(cr.modScoped, url.Values{"_q": {"zz-no-such-text"}}); got != none {
				t.Errorf("the mod's history search for %q counts %s, for nonsense %s: the masked email leaks", guess, got, none)
			}
		}
		for _, p := range []string{"payload_like", "payload_eq", "payload"} {
			cr.modScoped.do("GET", "/admin-api/users/"+player+"/_history?"+p+"=%25secret%25", nil).want(t, 403, "forbidden")
		}
		// The admin, who reads the email, finds the player by it.
		if got := count(cr.admin, url.Values{"_q": {"secret.person"}}); got == "0" {
			t.Errorf("the admin's history search by the email counts %s; want the entries", got)
		}
	})
}

// TestOneModeration: a ban through the Go API is the panel's ban — the
// same audit entry, the same hierarchy for the operator on the context
// (a mod's game route cannot ban an admin), the same end of sessions.
func TestOneModeration(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{}, func(a *Admin, mux *http.ServeMux) {
			mux.Handle("POST /game/ban/{id}", a.Guard(GuardOptions{Role: RoleMod})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if err := a.Auth().Ban(r.Context(), r.PathValue("id"), BanInfo{Reason: "from the game"}); err != nil {
					http.Error(w, err.Error(), http.StatusForbidden)
				}
			})))
		})
		cr := e.crew("users")
		ctx := context.Background()
		viaHTTP, viaGo, viaGuard := e.user("a@example.com", "pw password"), e.user("b@example.com", "pw password"), e.user("c@example.com", "pw password")
		cr.admin.do("POST", "/admin-api/users/"+viaHTTP+"/ban", map[string]any{"reason": "cheating"}).want(t, 200)
		if err := e.admin.Auth().Ban(ctx, viaGo, BanInfo{Reason: "cheating"}); err != nil {
			t.Fatal(err)
		}
		cr.modScoped.do("POST", "/game/ban/"+viaGuard, nil).want(t, 200)
		// A mod's game route cannot ban an admin: the hierarchy holds.
		cr.modScoped.do("POST", "/game/ban/"+cr.adminID, nil).want(t, 403)

		bans := e.auditRows("user.ban")
		if len(bans) != 3 {
			t.Fatalf("%d user.ban entries; want 3 (the refused one writes none)", len(bans))
		}
		for _, b := range bans {
			for _, k := range []string{"reason", "until", "sessionsClosed"} {
				if _, ok := b.Payload[k]; !ok {
					t.Errorf("user.ban entry of %s has no %q: %v", b.TargetID, k, b.Payload)
				}
			}
		}
		if bans[1].OperatorID != "" || bans[2].OperatorID != cr.modScopedID {
			t.Errorf("ban operators = %q, %q; want none (the game) and the mod", bans[1].OperatorID, bans[2].OperatorID)
		}
		if err := e.admin.Auth().Unban(ctx, viaGo); err != nil {
			t.Fatal(err)
		}
		if err := e.admin.Auth().BumpTokenVersion(ctx, viaGo); err != nil {
			t.Fatal(err)
		}
		if n := len(e.auditRows("user.unban")); n != 1 {
			t.Errorf("%d user.unban entries; want 1", n)
		}
		if n := len(e.auditRows("user.revoke_sessions")); n != 1 {
			t.Errorf("%d user.revoke_sessions entries; want 1 (BumpTokenVersion is the panel's revoke)", n)
		}
	})
}
