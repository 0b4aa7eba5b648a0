package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/pquerna/otp/totp"
	"github.com/uptrace/bun"
	"golang.org/x/crypto/bcrypt"

	"github.com/gameadmin/admin"
)

// TestExistingBackend runs the example over real HTTP on each database:
// the panel refuses to start before the game's migration ran, the
// migration (run twice) creates the players table and the panel's ops_*
// tables; the chi router serves the UI at /ops/admin (deep links too) and
// the API at /ops/admin-api, not at /admin-api; the panel then works on
// bigint player ids: sign-in, the fake SSO callback's StartSession (a bad
// signature, an unknown player and a banned one refused; with TOTP on, the
// redirect to the code step and a recovery code), the guarded
// game route, the grant-coins bulk action on a selection, notes, counts,
// a ban and the audit log.
func TestExistingBackend(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		if _, err := admin.New(db, panelOptions(db, log)); err == nil || !strings.Contains(err.Error(), "ops_admin_schema") {
			t.Fatalf("New before the migration = %v; want an error naming ops_admin_schema", err)
		}
		for range 2 {
			if err := migrate(ctx, db, panelOptions(db, log)); err != nil {
				t.Fatalf("migrate: %v", err)
			}
		}
		secret := []byte("test sso secret")
		h, a, err := setup(db, secret, log)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(func() {
			srv.Close()
			a.Close()
		})

		var list []map[string]any
		root := newClient(t, srv)
		// Over HTTP the first admin needs the setup token; a deployment
		// makes it from Go, as the -first-admin flag does.
		root.call("POST", "/ops/admin-api/auth/bootstrap", `{"email":"ops@example.com","password":"correct horse"}`, 403)
		if _, err := a.CreateFirstAdmin(ctx, "ops@example.com", "correct horse", ""); err != nil {
			t.Fatalf("CreateFirstAdmin: %v", err)
		}
		if _, err := a.CreateFirstAdmin(ctx, "other@example.com", "correct horse", ""); !errors.Is(err, admin.ErrBootstrapClosed) {
			t.Fatalf("a second CreateFirstAdmin = %v; want ErrBootstrapClosed", err)
		}
		root.call("POST", "/ops/admin-api/auth/login", `{"email":"ops@example.com","password":"correct horse"}`, 200)
		anon := newClient(t, srv)
		anon.call("GET", "/ops/economy", "", 401)

		// The panel where the game put it, and only there.
		for _, p := range []string{"/ops/admin/", "/ops/admin/users"} {
			res, body := anon.get(p)
			if res.StatusCode != 200 || !strings.Contains(body, `<meta name="admin-api-path" content="/ops/admin-api"`) {
				t.Fatalf("GET %s = %d %.300s; want the UI page with its API path", p, res.StatusCode, body)
			}
		}
		if got := anon.call("GET", "/ops/admin-api/auth/status", "", 200); got["needsBootstrap"] != false {
			t.Fatalf("GET /ops/admin-api/auth/status = %v", got)
		}
		for _, p := range []string{"/admin-api/auth/status", "/admin/"} {
			if res, _ := anon.get(p); res.StatusCode != 404 {
				t.Fatalf("GET %s = %d; want 404, the panel is under /ops/", p, res.StatusCode)
			}
		}

		// The fake SSO: a signed email is a session, anything else is not.
		sso := func(email, sig string) (*client, *http.Response) {
			c := newClient(t, srv)
			res, _ := c.get("/sso/callback?" + url.Values{"user": {email}, "sig": {sig}}.Encode())
			return c, res
		}
		sign := func(email string) string { return hex.EncodeToString(ssoMAC(secret, email)) }
		for _, bad := range [][2]string{
			{"ops@example.com", ""},
			{"ops@example.com", "zz"},
			{"ops@example.com", sign("ann@example.com")},
			{"ops@example.com", hex.EncodeToString(ssoMAC([]byte("guessed secret"), "ops@example.com"))},
			{"nobody@example.com", sign("nobody@example.com")},
		} {
			c, res := sso(bad[0], bad[1])
			if res.StatusCode != 403 || len(res.Cookies()) != 0 {
				t.Fatalf("SSO %v = %d with cookies %v; want 403 and none", bad, res.StatusCode, res.Cookies())
			}
			c.call("GET", "/ops/admin-api/auth/me", "", 401)
		}
		opsSSO, res := sso("OPS@example.com", sign("ops@example.com"))
		if res.StatusCode != 302 || res.Header.Get("Location") != "/ops/admin/" {
			t.Fatalf("SSO = %d Location %q; want a redirect to the panel", res.StatusCode, res.Header.Get("Location"))
		}
		me := opsSSO.call("GET", "/ops/admin-api/auth/me", "", 200)
		if me["role"] != "admin" {
			t.Fatalf("auth/me after SSO = %v; want the admin", me)
		}
		opsSSO.call("GET", "/ops/economy", "", 200)
		root.callInto("GET", fmt.Sprintf("/ops/admin-api/adminAudit?action=auth.login&target_id=%v", me["userId"]), "", 200, &list)
		external := 0
		for _, e := range list {
			if p, _ := e["payload"].(map[string]any); p["method"] == "external" {
				external++
			}
		}
		if external != 1 {
			t.Fatalf("auth.login audit = %v; want one entry with method external", list)
		}
		// With two-factor sign-in on, the SSO leads to the panel's code step
		// with no session yet; a recovery code (the test has no clock to
		// wait out the step its confirm code spent) finishes the sign-in.
		totpSecret, _ := opsSSO.call("POST", "/ops/admin-api/auth/totp/enroll", "", 200)["secret"].(string)
		first, err := totp.GenerateCode(totpSecret, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		codes, _ := opsSSO.call("POST", "/ops/admin-api/auth/totp/confirm", fmt.Sprintf(`{"code":%q}`, first), 200)["recoveryCodes"].([]any)
		if len(codes) == 0 {
			t.Fatal("confirm gave no recovery codes")
		}
		twoStep, res := sso("ops@example.com", sign("ops@example.com"))
		if want := a.SecondFactorURL("/ops/admin/"); res.StatusCode != 302 || res.Header.Get("Location") != want || want != "/ops/admin/login?step=totp&next=%2Fops%2Fadmin%2F" {
			t.Fatalf("SSO with TOTP on = %d Location %q; want a redirect to %q", res.StatusCode, res.Header.Get("Location"), want)
		}
		twoStep.call("GET", "/ops/admin-api/auth/me", "", 401)
		twoStep.call("GET", "/ops/economy", "", 401)
		twoStep.call("POST", "/ops/admin-api/auth/login/totp", fmt.Sprintf(`{"recoveryCode":%q}`, codes[0]), 200)
		if me := twoStep.call("GET", "/ops/admin-api/auth/me", "", 200); me["role"] != "admin" {
			t.Fatalf("auth/me after the second step = %v; want the admin", me)
		}
		twoStep.call("GET", "/ops/economy", "", 200)
		// Turning the second factor on ended the account's other sessions,
		// the bootstrap's among them.
		root.call("GET", "/ops/admin-api/auth/me", "", 401)
		root = twoStep

		if got := root.call("GET", "/ops/economy", "", 200); got["coins"] != float64(0) {
			t.Fatalf("GET /ops/economy = %v", got)
		}

		// Players the game signed up itself: bcrypt, emails as typed.
		hash, err := bcrypt.GenerateFromPassword([]byte("player password"), bcrypt.DefaultCost)
		if err != nil {
			t.Fatal(err)
		}
		players := []Player{{Email: "Ann@Example.com", Nickname: "Ann", PwHash: string(hash)}, {Email: "bob@example.com", Nickname: "Bob", PwHash: string(hash)}}
		if _, err := db.NewInsert().Model(&players).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		ann, bob := players[0].ID, players[1].ID
		root.callInto("GET", "/ops/admin-api/users?_sort=id", "", 200, &list)
		if len(list) != 3 || list[1]["id"] != float64(ann) || list[1]["nickname"] != "Ann" {
			t.Fatalf("GET /ops/admin-api/users = %v; want three players, ids as numbers", list)
		}

		// Ann (a mod) signs into the panel in another case; her row is the
		// game's as before, and the game's own bcrypt login still takes her.
		if err := a.Moderation().SetRole(ctx, fmt.Sprint(ann), admin.RoleMod); err != nil {
			t.Fatal(err)
		}
		newClient(t, srv).call("POST", "/ops/admin-api/auth/login", `{"email":"ann@example.com","password":"player password"}`, 200)
		var after Player
		if err := db.NewSelect().Model(&after).Where("id = ?", ann).Scan(ctx); err != nil || after.PwHash != string(hash) || after.Email != "Ann@Example.com" {
			t.Fatalf("Ann's row after a panel sign-in = %+v, %v; want it unchanged", after, err)
		}
		if got := anon.call("POST", "/api/login", `{"email":"ANN@example.com","password":"player password"}`, 200); got["id"] != float64(ann) {
			t.Fatalf("game login = %v", got)
		}
		// Players the panel creates are ones the game's login takes; one
		// created without a password (invited) holds a marker it refuses.
		made := root.call("POST", "/ops/admin-api/users", `{"email":"Cid@Example.com","nickname":"Cid","password":"cid password"}`, 201)
		if got := anon.call("POST", "/api/login", `{"email":"cid@example.com","password":"cid password"}`, 200); got["id"] != made["id"] {
			t.Fatalf("game login of a player the panel made = %v; want %v", got, made["id"])
		}
		root.call("POST", "/ops/admin-api/users", `{"email":"dee@example.com","nickname":"Dee"}`, 201)
		anon.call("POST", "/api/login", `{"email":"dee@example.com","password":"!"}`, 401)
		root.call("POST", "/ops/admin-api/users", `{"email":"ANN@example.com","password":"another one"}`, 409)

		// The bulk action on a selection, ids typed int64 in the handler.
		got := root.call("POST", "/ops/admin-api/users/_action/grant-coins", fmt.Sprintf(`{"ids":[%d,"%d"],"amount":50}`, ann, bob), 200)
		if res, _ := got["result"].(map[string]any); res["granted"] != float64(2) {
			t.Fatalf("grant-coins = %v; want two players granted", got)
		}
		root.call("POST", "/ops/admin-api/users/_action/grant-coins", `{"ids":["ann"],"amount":50}`, 400)
		root.call("POST", "/ops/admin-api/users/_action/grant-coins", `{"ids":[99999],"amount":50}`, 400)
		if got := anon.call("GET", fmt.Sprintf("/api/players/%d", ann), "", 200); got["coins"] != float64(50) {
			t.Fatalf("GET /api/players/%d = %v; want 50 coins", ann, got)
		}
		if got := root.call("GET", "/ops/economy", "", 200); got["coins"] != float64(100) {
			t.Fatalf("GET /ops/economy = %v; want 100 coins", got)
		}

		// Notes reference players by their bigint id; counts and labels follow.
		root.call("POST", "/ops/admin-api/userNotes", fmt.Sprintf(`{"user_id":%d,"body":"asked for a refund"}`, ann), 201)
		if got := root.call("GET", fmt.Sprintf("/ops/admin-api/users/%d/_counts", ann), "", 200); got["userNotes"] != float64(1) {
			t.Fatalf("_counts = %v; want one note", got)
		}
		root.callInto("GET", "/ops/admin-api/userNotes", "", 200, &list)
		if labels, _ := list[0]["_labels"].(map[string]any); labels["user_id"] != "Ann" {
			t.Fatalf("note labels = %v; want the nickname", list[0]["_labels"])
		}

		// A ban ends the player's sign-in; the audit log finds it by target.
		player := newClient(t, srv)
		player.call("POST", "/ops/admin-api/auth/login", `{"email":"bob@example.com","password":"player password"}`, 200)
		root.call("POST", fmt.Sprintf("/ops/admin-api/users/%d/ban", bob), `{"reason":"bot"}`, 200)
		player.call("GET", "/ops/admin-api/auth/me", "", 401)
		root.callInto("GET", fmt.Sprintf("/ops/admin-api/adminAudit?target_id=%d&action=user.ban", bob), "", 200, &list)
		if len(list) != 1 {
			t.Fatalf("audit of the ban = %v", list)
		}
		// The ban lives in the game's own "banned" column: the catalog
		// names it for the UI, the Banned filter and the dashboard read it,
		// and the audit log's search finds bob's history by his email.
		var catalog []map[string]any
		root.callInto("GET", "/ops/admin-api", "", 200, &catalog)
		for _, res := range catalog {
			if res["name"] == "users" && res["banColumn"] != "banned" {
				t.Fatalf("users catalog banColumn = %v; want banned", res["banColumn"])
			}
		}
		root.callInto("GET", "/ops/admin-api/users?_banned=true", "", 200, &list)
		if len(list) != 1 || list[0]["email"] != "bob@example.com" {
			t.Fatalf("_banned=true = %v; want bob", list)
		}
		var found []map[string]any
		root.callInto("GET", "/ops/admin-api/adminAudit?_q=bob@example", "", 200, &found)
		bans := 0
		for _, e := range found {
			if e["target_id"] != strconv.FormatInt(bob, 10) && e["operator_id"] != strconv.FormatInt(bob, 10) {
				t.Fatalf("audit search for bob found %v, not about bob", e)
			}
			if e["action"] == "user.ban" {
				bans++
			}
		}
		if bans != 1 {
			t.Fatalf("audit search for bob = %v; want his ban among them", found)
		}
		dash := root.call("GET", "/ops/admin-api/_dashboard", "", 200)
		for _, w := range dash["widgets"].([]any) {
			if w := w.(map[string]any); w["id"] == "today" {
				if figs := w["data"].([]any); len(figs) == 0 || figs[0].(map[string]any)["label"] != "Banned now" || figs[0].(map[string]any)["value"] != float64(1) {
					t.Fatalf("today = %v; want Banned now 1", figs)
				}
			}
		}
		if c, res := sso("bob@example.com", sign("bob@example.com")); res.StatusCode != 403 || len(res.Cookies()) != 0 {
			t.Fatalf("SSO of a banned player = %d with cookies %v; want 403 and none", res.StatusCode, res.Cookies())
		} else {
			c.call("GET", "/ops/admin-api/auth/me", "", 401)
		}

		// Bob asks to be forgotten: his export holds his note, then the
		// erase empties his row (bigint id, the game's own columns) and
		// deletes the note about him.
		export := root.call("GET", fmt.Sprintf("/ops/admin-api/users/%d/_export", bob), "", 200)
		if u := export["user"].(map[string]any); u["email"] != "bob@example.com" || u["pw_hash"] != nil {
			t.Fatalf("export user = %v", u)
		}
		root.call("POST", fmt.Sprintf("/ops/admin-api/users/%d/_erase", bob), `{"confirm":"BOB@example.com"}`, 200)
		var erased Player
		if err := db.NewSelect().Model(&erased).Where("id = ?", bob).Scan(ctx); err != nil || erased.Email == "bob@example.com" || erased.Nickname != "" || erased.Banned == nil {
			t.Fatalf("bob after the erase = %+v, %v", erased, err)
		}
		anon.call("POST", "/api/login", `{"email":"bob@example.com","password":"player password"}`, 401)
	})
}

type client struct {
	t   *testing.T
	srv *httptest.Server
	hc  *http.Client
}

func newClient(t *testing.T, srv *httptest.Server) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, srv: srv, hc: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // redirects are asserted, not followed
	}}}
}

// get sends a browser-like GET and returns the answer and its body.
func (c *client) get(path string) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.srv.URL+path, nil)
	req.Header.Set("Accept", "text/html")
	res, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res, string(raw)
}

// call sends a request and decodes a JSON object answer; the status must
// be want.
func (c *client) call(method, path, body string, want int) map[string]any {
	c.t.Helper()
	var out map[string]any
	c.callInto(method, path, body, want, &out)
	return out
}

func (c *client) callInto(method, path, body string, want int, out any) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.srv.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		c.t.Fatalf("%s %s = %d %s; want %d", method, path, res.StatusCode, raw, want)
	}
	_ = json.Unmarshal(raw, out)
}
