package admintest

import (
	"context"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

var setupLink = regexp.MustCompile(`link="?(/admin/setup\?token=[^\s"]+)`)

// loggedToken is the setup token of the link New logged.
func loggedToken(t *testing.T, e *env) string {
	t.Helper()
	m := setupLink.FindStringSubmatch(e.logs.String())
	if m == nil {
		t.Fatalf("no setup link in the log:\n%s", e.logs)
	}
	u, err := url.Parse(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("token")
}

// TestFirstRunNeedsTheSetupToken: a panel with no admin is not the first
// visitor's. Only a request straight from loopback, or one with the token
// New logged, creates the first admin; the token is spent by it.
func TestFirstRunNeedsTheSetupToken(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		if !strings.Contains(e.logs.String(), "level=WARN") {
			t.Fatalf("the setup link is not a warning:\n%s", e.logs)
		}
		token := loggedToken(t, e)
		if len(token) < 16 {
			t.Fatalf("setup token %q: want a long random one", token)
		}
		if again := newEnv(t, testdb.SQLite(t), Options{}); loggedToken(t, again) == token {
			t.Fatal("two starts logged the same token")
		}

		// Through a proxy: the status says a token is needed.
		proxied := e.client()
		proxied.hdr.Set("X-Forwarded-For", "203.0.113.9")
		if r := proxied.do("GET", "/admin-api/auth/status", nil).want(t, 200); r.body["setupTokenRequired"] != true || r.body["needsBootstrap"] != true {
			t.Fatalf("status through a proxy = %s; want setupTokenRequired", r.raw)
		}
		if r := e.client().do("GET", "/admin-api/auth/status", nil).want(t, 200); r.body["setupTokenRequired"] != false {
			t.Fatalf("status from loopback = %s; want no token needed", r.raw)
		}
		body := func(token string) map[string]any {
			return map[string]any{"email": "root@example.com", "password": "correct horse", "token": token}
		}
		for _, h := range []string{"X-Forwarded-For", "X-Real-IP", "Forwarded"} {
			c := e.client()
			c.hdr.Set(h, "for=203.0.113.9")
			c.do("POST", "/admin-api/auth/bootstrap", body("")).want(t, 403, "setup_token_required")
		}
		proxied.do("POST", "/admin-api/auth/bootstrap", body(token+"x")).want(t, 403, "setup_token_required")
		proxied.do("POST", "/admin-api/auth/bootstrap", body(strings.ToLower(token))).want(t, 403, "setup_token_required")
		if n := len(e.auditRows("auth.bootstrap")); n != 0 {
			t.Fatalf("%d bootstrap audit rows after refusals", n)
		}
		// From an address that is not loopback (a real peer, no header).
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/admin-api/auth/bootstrap", strings.NewReader(`{"email":"root@example.com","password":"correct horse"}`))
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = "198.51.100.7:40000"
		e.admin.ServeHTTP(rec, req)
		if rec.Code != 403 || !strings.Contains(rec.Body.String(), "setup_token_required") {
			t.Fatalf("bootstrap from 198.51.100.7 = %d %s; want 403 setup_token_required", rec.Code, rec.Body)
		}

		r := proxied.do("POST", "/admin-api/auth/bootstrap", body(token)).want(t, 201)
		if r.body["role"] != "admin" {
			t.Fatalf("bootstrap with the token = %s", r.raw)
		}
		proxied.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		// Once an admin exists the answer is the closed bootstrap, token
		// or not, as before.
		proxied.do("POST", "/admin-api/auth/bootstrap", body("")).want(t, 403, "bootstrap_closed")
		// Spent: with no admin again (rows edited by hand), the old token
		// opens nothing.
		if _, err := db.ExecContext(context.Background(), "DELETE FROM game_roles"); err != nil {
			t.Fatal(err)
		}
		proxied.do("POST", "/admin-api/auth/bootstrap", body(token)).want(t, 403, "setup_token_required")
		e.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 201)
	})
}

// TestSetupTokenOption: a deployment's own token works on any node and is
// never logged; a short one is refused; no link is logged once an admin
// exists.
func TestSetupTokenOption(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		const token = "the deployment's own setup token"
		e := newEnv(t, db, Options{SetupToken: token})
		if logs := e.logs.String(); strings.Contains(logs, token) || strings.Contains(logs, url.QueryEscape(token)) || !strings.Contains(logs, "/admin/setup?token=<Options.SetupToken>") {
			t.Fatalf("log with Options.SetupToken:\n%s", logs)
		}
		c := e.client()
		c.hdr.Set("X-Forwarded-For", "203.0.113.9")
		c.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse", "token": token}).want(t, 201)

		later := newEnv(t, db, Options{})
		if strings.Contains(later.logs.String(), "setup") {
			t.Fatalf("a setup link logged although an admin exists:\n%s", later.logs)
		}
	})
	if _, err := New(testdb.SQLite(t), Options{Secret: testSecret, SetupToken: "short"}); err == nil || !strings.Contains(err.Error(), "SetupToken") {
		t.Fatalf("New with a 5-character SetupToken = %v; want an error naming SetupToken", err)
	}
}
