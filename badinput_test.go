package admin

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

// TestBadInput: every endpoint answers malformed bodies with a 4xx error
// body, and nothing is written.
func TestBadInput(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{MaxBodyBytes: 4 << 10})
		c := e.client()
		endpoints := []struct {
			path  string
			valid map[string]any
			field string // a string field to corrupt
		}{
			{"/admin-api/auth/bootstrap", map[string]any{"email": "a@example.com", "password": "correct horse"}, "email"},
			{"/admin-api/auth/login", map[string]any{"email": "a@example.com", "password": "correct horse"}, "email"},
			{"/admin-api/auth/request-reset", map[string]any{"email": "a@example.com"}, "email"},
			{"/admin-api/auth/reset", map[string]any{"token": "x.y.z", "password": "correct horse"}, "token"},
		}
		for _, ep := range endpoints {
			with := func(k string, v any) string {
				m := map[string]any{}
				for k, v := range ep.valid {
					m[k] = v
				}
				m[k] = v
				b, _ := json.Marshal(m)
				return string(b)
			}
			valid := with(ep.field, ep.valid[ep.field])
			bodies := []struct {
				name string
				body string
				code int
				err  string
			}{
				{"empty", "", 400, "invalid_body"},
				{"malformed", `{"email":`, 400, "invalid_json"},
				{"not an object", `["a@example.com"]`, 400, "invalid_body"},
				{"null", `null`, 400, "missing_field"},
				{"empty object", `{}`, 400, "missing_field"},
				{"wrong type", with(ep.field, 5), 400, "invalid_value"},
				{"unknown field", with("role", "admin"), 400, "unknown_field"},
				{"trailing data", valid + " {}", 400, "invalid_body"},
				{"invalid utf-8", strings.Replace(with(ep.field, "BAD"), "BAD", "\xff", 1), 400, "invalid_body"},
				{"oversized", with(ep.field, strings.Repeat("x", 5<<10)), 413, "body_too_large"},
			}
			for _, b := range bodies {
				t.Run(ep.path+"/"+b.name, func(t *testing.T) {
					c.do("POST", ep.path, b.body).want(t, b.code, b.err)
				})
			}
		}
		// Nothing was created by any of it.
		n, err := db.NewSelect().Model((*User)(nil)).Count(context.Background())
		if err != nil || n != 0 {
			t.Fatalf("users after bad input = %d, %v; want 0", n, err)
		}
		if !strings.Contains(e.logs.String(), "") || strings.Contains(e.logs.String(), "internal error") {
			t.Fatalf("bad input caused an internal error:\n%s", e.logs)
		}
		// Unknown API paths and methods are JSON 404s.
		c.do("GET", "/admin-api/a/b/c/d/e", nil).want(t, 404, "not_found")
		c.do("PUT", "/admin-api/auth", nil).want(t, 404, "not_found")
	})
}

func TestCrossOriginRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	e.user("p@example.com", "player password")
	tests := []struct {
		name   string
		header map[string]string
		code   int
	}{
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, 403},
		{"same origin", map[string]string{"Sec-Fetch-Site": "same-origin"}, 200},
		{"no browser headers (curl)", nil, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.client()
			for k, v := range tt.header {
				c.hdr.Set(k, v)
			}
			r := c.do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "player password"})
			if tt.code == 403 {
				r.want(t, 403, "cross_origin")
				if r.cookie(sessionCookieName) != nil {
					t.Fatal("a refused cross-origin login set a cookie")
				}
			} else {
				r.want(t, tt.code)
			}
		})
	}
	// Safe methods pass: status is readable from anywhere (it leaks nothing).
	c := e.client()
	c.hdr.Set("Sec-Fetch-Site", "cross-site")
	c.do("GET", "/admin-api/auth/status", nil).want(t, http.StatusOK)
}

// TestJSONBodiesSayWhatIsWrong: a key twice in one object is refused (the
// decoder would keep the last, a proxy or a log may read the first); a
// value of the wrong kind is named in JSON's words, not Go's; JSON answers
// are never sniffed as another type.
func TestJSONBodiesSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	root, _ := e.bootstrap()
	r := e.client().do("POST", "/admin-api/auth/login", `{"email":"root@example.com","password":"x","password":"correct horse"}`).want(t, 400, "invalid_json")
	if !contains(r.body["error"].(string), `"password" appears twice`) {
		t.Fatalf("duplicate key answer = %s", r.raw)
	}
	root.do("POST", "/admin-api/configs", `{"key":"k","value":1,"value":2}`).want(t, 400, "invalid_json")
	root.do("POST", "/admin-api/configs", `{"key":"k","value":{"a":1,"b":[{"k":1,"k":2}]}}`).want(t, 400, "invalid_json")
	if n := count(t, e.db, (*Config)(nil)); n != 0 {
		t.Fatalf("%d configs after a refused body", n)
	}
	// The same key in two objects is fine.
	root.do("POST", "/admin-api/configs", `{"key":"k","value":{"key":"inner","value":[{"key":1},{"key":2}]}}`).want(t, 201)
	r = e.client().do("POST", "/admin-api/auth/login", `{"email":["a@example.com"],"password":"correct horse"}`).want(t, 400, "invalid_value")
	if msg := r.body["error"].(string); msg != `field "email" must be a string, not a list` {
		t.Fatalf("type error = %q; want it in JSON's words", msg)
	}
	if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Fatalf("X-Content-Type-Options = %q; want nosniff", got)
	}
}
