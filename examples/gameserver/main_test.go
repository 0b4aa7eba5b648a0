package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemo follows README.md's walk-through against the demo server on a
// fresh SQLite file: bootstrap, sign in as the seeded mod, reach the
// guarded routes, sign out.
func TestDemo(t *testing.T) {
	t.Setenv("ADMIN_JWT_SECRET", "demo secret demo secret demo secret!")
	db, err := openDB("sqlite:" + filepath.Join(t.TempDir(), "gameserver.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, h, err := setup(context.Background(), db, true, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()

	call := func(c *http.Client, method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	newClient := func() *http.Client {
		jar, _ := cookiejar.New(nil)
		return &http.Client{Jar: jar}
	}
	root, mod := newClient(), newClient()
	steps := []struct {
		c          *http.Client
		method     string
		path, body string
		code       int
		contains   string
	}{
		{root, "GET", "/admin-api/auth/status", "", 200, `"needsBootstrap":true`},
		{root, "POST", "/admin-api/auth/bootstrap", `{"email":"me@example.com","password":"correct horse"}`, 201, `"role":"admin"`},
		{root, "GET", "/monitor", "", 200, `"users":51`},
		{mod, "POST", "/admin-api/auth/login", `{"email":"player01@example.com","password":"player-password"}`, 200, `"role":"mod"`},
		{mod, "GET", "/playground", "", 200, "playground: hello"},
		{mod, "GET", "/monitor", "", 403, "requires role 'admin' or higher (you have 'mod')"},
		{mod, "POST", "/admin-api/auth/logout", "", 200, `"ok":true`},
		{mod, "GET", "/playground", "", 401, "unauthenticated"},
		{root, "POST", "/admin-api/auth/logout", "", 200, `"ok":true`},
	}
	for _, s := range steps {
		code, body := call(s.c, s.method, s.path, s.body)
		if code != s.code || !strings.Contains(body, s.contains) {
			t.Fatalf("%s %s = %d %s; want %d containing %q", s.method, s.path, code, body, s.code, s.contains)
		}
	}
}
