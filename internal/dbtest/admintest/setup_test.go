package admintest

import (
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"net/http/httputil"
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
// visitor's, whatever sits in front of it. Every bootstrap needs the token
// New logged — straight from 127.0.0.1 and ::1, through Go's own
// ReverseProxy with Rewrite and SetURL (which adds no forwarding header),
// and through a proxy that strips every header — since a proxy on the
// same host makes any request look like loopback. The token is spent.
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
		if got := e.admin.SetupLink(context.Background()); got != "/admin/setup?token="+url.QueryEscape(token) {
			t.Fatalf("SetupLink = %q; want the logged link", got)
		}

		// Every way in: the peer is loopback in each.
		target, _ := url.Parse(e.srv.URL)
		rewrite := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }})
		t.Cleanup(rewrite.Close)
		stripping := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			for k := range pr.Out.Header {
				if k != "Content-Type" && k != "Content-Length" {
					pr.Out.Header.Del(k)
				}
			}
		}})
		t.Cleanup(stripping.Close)
		ways := map[string]*env{"127.0.0.1": e, "ReverseProxy Rewrite+SetURL": e.via(rewrite), "a proxy stripping every header": e.via(stripping)}
		if ln, err := net.Listen("tcp", "[::1]:0"); err == nil {
			v6 := httptest.NewUnstartedServer(e.admin)
			v6.Listener.Close()
			v6.Listener = ln
			v6.Start()
			t.Cleanup(v6.Close)
			ways["::1"] = e.via(v6)
		} else if !strings.Contains(err.Error(), "address") {
			t.Fatalf("listen on ::1: %v", err)
		}
		body := func(token string) map[string]any {
			return map[string]any{"email": "root@example.com", "password": "correct horse", "token": token}
		}
		for name, w := range ways {
			c := w.client()
			if r := c.do("GET", "/admin-api/auth/status", nil).want(t, 200); r.body["setupTokenRequired"] != true || r.body["needsBootstrap"] != true {
				t.Fatalf("status via %s = %s; want setupTokenRequired", name, r.raw)
			}
			c.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 403, "setup_token_required")
			c.do("POST", "/admin-api/auth/bootstrap", body("")).want(t, 403, "setup_token_required")
			c.do("POST", "/admin-api/auth/bootstrap", body(token+"x")).want(t, 403, "setup_token_required")
			c.do("POST", "/admin-api/auth/bootstrap", body(strings.ToLower(token))).want(t, 403, "setup_token_required")
		}
		for _, h := range []string{"X-Forwarded-For", "X-Real-IP", "Forwarded"} {
			c := e.client()
			c.hdr.Set(h, "for=203.0.113.9")
			c.do("POST", "/admin-api/auth/bootstrap", body("")).want(t, 403, "setup_token_required")
		}
		if n := len(e.auditRows("auth.bootstrap")); n != 0 {
			t.Fatalf("%d bootstrap audit rows after refusals", n)
		}

		proxied := e.via(rewrite).client()
		r := proxied.do("POST", "/admin-api/auth/bootstrap", body(token)).want(t, 201)
		if r.body["role"] != "admin" {
			t.Fatalf("bootstrap with the token = %s", r.raw)
		}
		proxied.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if got := e.admin.SetupLink(context.Background()); got != "" {
			t.Fatalf("SetupLink once an admin exists = %q; want none", got)
		}
		// Once an admin exists the answer is the closed bootstrap, token
		// or not, as before.
		proxied.do("POST", "/admin-api/auth/bootstrap", body("")).want(t, 403, "bootstrap_closed")
		// Spent: with no admin again (rows edited by hand), the old token
		// opens nothing, from anywhere.
		if _, err := db.ExecContext(context.Background(), "DELETE FROM game_roles"); err != nil {
			t.Fatal(err)
		}
		for name, w := range ways {
			if r := w.client().do("POST", "/admin-api/auth/bootstrap", body(token)); r.StatusCode != 403 {
				t.Fatalf("the spent token via %s = %d %s; want 403", name, r.StatusCode, r.raw)
			}
		}
	})
}

// TestCreateFirstAdmin: a scripted deployment makes its first admin from
// Go, with the bootstrap's checks and audit entry, and only once.
func TestCreateFirstAdmin(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		ctx := context.Background()
		if _, err := e.admin.CreateFirstAdmin(ctx, "root@example.com", "short", ""); err == nil || !strings.Contains(err.Error(), "at least") {
			t.Fatalf("CreateFirstAdmin with a short password = %v; want the length error", err)
		}
		if _, err := e.admin.CreateFirstAdmin(ctx, "not an email", "correct horse", ""); err == nil {
			t.Fatal("CreateFirstAdmin with a bad email: no error")
		}
		id, err := e.admin.CreateFirstAdmin(ctx, "Root@Example.com", "correct horse", "Root")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.admin.CreateFirstAdmin(ctx, "other@example.com", "correct horse", ""); !errors.Is(err, ErrBootstrapClosed) {
			t.Fatalf("a second CreateFirstAdmin = %v; want ErrBootstrapClosed", err)
		}
		rows := e.auditRows("auth.bootstrap")
		if len(rows) != 1 || rows[0].OperatorID != id || rows[0].Payload["via"] != "go" {
			t.Fatalf("bootstrap audit rows = %+v; want one by %s via go", rows, id)
		}
		c := e.client()
		c.do("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 200)
		if me := c.do("GET", "/admin-api/auth/me", nil).want(t, 200); me.body["role"] != "admin" || me.body["userId"] != id {
			t.Fatalf("me = %s", me.raw)
		}
		// The logged link is spent too.
		c.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "x@example.com", "password": "correct horse", "token": loggedToken(t, e)}).want(t, 403, "bootstrap_closed")
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
