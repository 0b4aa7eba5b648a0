package admin

import (
	"encoding/json"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

func TestSessionsView(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		root, _ := e.bootstrap()
		c := e.client()
		c.hdr.Set("User-Agent", "TestBrowser/1.0")
		c.hdr.Set("X-Forwarded-For", "203.0.113.9")
		c.do("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 200)
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "wrong horse"}).want(t, 401)
		e.user("other@example.com", "other password")
		e.login("other@example.com", "other password")

		r := root.do("GET", "/admin-api/auth/sessions", nil).want(t, 200)
		var got []map[string]any
		if err := json.Unmarshal(r.raw, &got); err != nil {
			t.Fatal(err)
		}
		// Newest first: the login above, then the bootstrap; never the
		// failed attempt or another user's sign-in.
		if len(got) != 2 || got[0]["action"] != "auth.login" || got[0]["ip"] != "203.0.113.9" ||
			got[0]["userAgent"] != "TestBrowser/1.0" || got[0]["time"] == "" || got[1]["action"] != "auth.bootstrap" {
			t.Fatalf("sessions = %s; want the login (with ip and user agent) and the bootstrap", r.raw)
		}
		e.client().do("GET", "/admin-api/auth/sessions", nil).want(t, 401, "unauthenticated")
	})
}

func TestPasswordChange(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		root, _ := e.bootstrap()
		other := e.login("root@example.com", "correct horse")
		for _, tt := range []struct {
			body any
			code int
			err  string
		}{
			{map[string]any{"current": "wrong horse", "new": "battery staple"}, 400, "wrong_password"},
			{map[string]any{"current": "correct horse", "new": "short"}, 400, "password_too_short"},
			{map[string]any{"current": "correct horse"}, 400, "missing_field"},
			{`{"current": 1, "new": "battery staple"}`, 400, "invalid_value"},
			{`{"current": "correct horse", "new": "battery staple", "x": 1}`, 400, "unknown_field"},
			{`{`, 400, "invalid_json"},
		} {
			root.do("POST", "/admin-api/auth/password", tt.body).want(t, tt.code, tt.err)
		}
		e.login("root@example.com", "correct horse") // unchanged so far
		root.do("POST", "/admin-api/auth/password", map[string]any{"current": "correct horse", "new": "battery staple"}).want(t, 200)
		root.do("GET", "/admin-api/auth/me", nil).want(t, 200)  // this session lives on
		other.do("GET", "/admin-api/auth/me", nil).want(t, 401) // every other one ended
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 401)
		e.login("root@example.com", "battery staple")
		if n := len(e.auditRows("auth.password_changed")); n != 1 {
			t.Fatalf("auth.password_changed rows = %d; want 1", n)
		}
	})
}
