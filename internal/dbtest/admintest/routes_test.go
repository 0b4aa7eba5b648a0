package admintest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

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

// TestReverseProxyTrustedOrigins puts the panel behind a reverse proxy that
// rewrites Host to the backend's, and POSTs as a browser without
// Sec-Fetch-Site does, with the public site's Origin: refused as
// cross-origin unless Options.TrustedOrigins lists that origin, on the API
// and on a guarded route alike. Another origin stays refused.
func TestReverseProxyTrustedOrigins(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		for _, trusted := range []bool{false, true} {
			t.Run(fmt.Sprintf("trusted=%v", trusted), func(t *testing.T) {
				public := httptest.NewUnstartedServer(nil) // its address is the public origin
				origin := "http://" + public.Listener.Addr().String()
				opts := Options{SetupToken: testSetupToken} // the proxy forwards: a token is needed
				if trusted {
					opts.TrustedOrigins = []string{origin}
				}
				e := newEnv(t, db, opts, func(a *Admin, mux *http.ServeMux) {
					mux.Handle("POST /game/kick", a.Guard(GuardOptions{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						fmt.Fprint(w, "kicked")
					})))
				})
				backend := must(url.Parse(e.srv.URL))
				public.Config.Handler = &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
					pr.SetURL(backend) // and Host: the backend's
					pr.SetXForwarded()
				}}
				public.Start()
				t.Cleanup(public.Close)
				e.srv = public // the clients talk to the proxy

				c := e.client()
				c.hdr.Set("Origin", origin)
				want := func(r *resp) {
					t.Helper()
					if trusted {
						r.want(t, r.StatusCode) // any answer but cross_origin
						if r.body["code"] == "cross_origin" {
							t.Fatalf("%s %s refused as cross-origin although trusted", r.Request.Method, r.Request.URL.Path)
						}
					} else {
						r.want(t, 403, "cross_origin")
					}
				}
				r := c.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse", "token": testSetupToken})
				want(r)
				if !trusted {
					return
				}
				r.want(t, 201)
				c.do("POST", "/game/kick", nil).want(t, 200)
				c.do("POST", "/admin-api/auth/logout", nil).want(t, 200)

				evil := e.client()
				evil.hdr.Set("Origin", "http://evil.example")
				evil.do("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 403, "cross_origin")
				evil.hdr.Set("Sec-Fetch-Site", "cross-site")
				evil.do("POST", "/game/kick", nil).want(t, 403, "cross_origin")
			})
		}
	})
}

func TestTrustedOriginsChecked(t *testing.T) {
	t.Parallel()
	_, err := New(testdb.SQLite(t), Options{Secret: testSecret, TrustedOrigins: []string{"game.example"}})
	if err == nil {
		t.Fatal("New accepted a trusted origin without a scheme")
	}
}
