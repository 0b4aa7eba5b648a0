package admintest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestGuard walks every cell of the guard's rejection table: no session,
// too low a role, navigation or API call.
func TestGuard(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		protected := func(a *Admin, mux *http.ServeMux) {
			ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				op, _ := OperatorFrom(r.Context())
				fmt.Fprintf(w, "hello %s %s", op.Role, op.UserID)
			})
			mux.Handle("/monitor", Guard(GuardOptions{Admin: a})(ok))
			mux.Handle("/playground", Guard(GuardOptions{Admin: a, Role: RoleMod})(ok))
			mux.Handle("/api/stats", a.Guard(GuardOptions{APIOnly: true})(ok))
			mux.Handle("/custom", a.Guard(GuardOptions{Role: RoleUser, LoginURL: "/login/"})(ok))
		}
		e := newEnv(t, db, Options{}, protected)
		root, rootID := e.bootstrap()
		modID := e.user("mod@example.com", "mod password")
		if err := e.admin.Moderation().AssignMod(ctx, modID, "users"); err != nil {
			t.Fatal(err)
		}
		e.user("user@example.com", "user password")
		user := e.login("user@example.com", "user password")
		revoked := e.login("mod@example.com", "mod password")
		if err := e.admin.Moderation().AssignMod(ctx, modID, "users"); err != nil {
			t.Fatal(err)
		}
		revokedTok := revoked.jar.Cookies(mustURL(e.srv.URL))[0].Value
		if err := e.admin.Auth().BumpTokenVersion(ctx, modID); err != nil {
			t.Fatal(err)
		}
		mod := e.login("mod@example.com", "mod password")
		revoked = e.client()
		revoked.hdr.Set("Cookie", sessionCookieName+"="+revokedTok)
		anon := e.client()
		modNav := e.login("mod@example.com", "mod password") // loses its cookie
		garbage := e.client()
		garbage.hdr.Set("Cookie", sessionCookieName+"=garbage")

		const html = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
		tests := []struct {
			name      string
			c         *client
			accept    string
			path      string
			code      int
			location  string
			errMsg    string
			cleared   bool
			wantBody  string
			errorCode string
		}{
			{name: "admin passes", c: root, path: "/monitor", code: 200, wantBody: "hello admin " + rootID},
			{name: "mod passes mod route", c: mod, path: "/playground", code: 200, wantBody: "hello mod " + modID},
			{name: "anonymous navigation", c: anon, accept: html, path: "/monitor?tab=rooms&x=1", code: 302, location: "/admin/login?next=%2Fmonitor%3Ftab%3Drooms%26x%3D1"},
			{name: "garbage cookie navigation", c: garbage, accept: html, path: "/monitor", code: 302, location: "/admin/login?next=%2Fmonitor"},
			{name: "revoked navigation", c: revoked, accept: html, path: "/monitor", code: 302, location: "/admin/login?next=%2Fmonitor"},
			{name: "anonymous fetch", c: anon, accept: "application/json", path: "/monitor", code: 401, errorCode: "unauthenticated"},
			{name: "star accept is not navigation", c: anon, accept: "*/*", path: "/monitor", code: 401, errorCode: "unauthenticated"},
			{name: "revoked fetch", c: revoked, path: "/monitor", code: 401, errorCode: "unauthenticated"},
			{name: "mod navigates admin route", c: modNav, accept: html, path: "/monitor", code: 302, location: "/admin/login", cleared: true},
			{name: "mod fetches admin route", c: mod, path: "/monitor", code: 403, errorCode: "forbidden", errMsg: "requires role 'admin' or higher (you have 'mod')"},
			{name: "user fetches mod route", c: user, path: "/playground", code: 403, errorCode: "forbidden", errMsg: "requires role 'mod' or higher (you have 'user')"},
			{name: "apiOnly navigation anonymous", c: anon, accept: html, path: "/api/stats", code: 401, errorCode: "unauthenticated"},
			{name: "apiOnly navigation low role", c: mod, accept: html, path: "/api/stats", code: 403, errorCode: "forbidden", errMsg: "requires role 'admin' or higher (you have 'mod')"},
			{name: "custom login url", c: anon, accept: html, path: "/custom", code: 302, location: "/login/?next=%2Fcustom"},
			{name: "user passes user route", c: user, path: "/custom", code: 200},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.c.hdr.Set("Accept", tt.accept)
				r := tt.c.do("GET", tt.path, nil)
				if tt.errorCode != "" {
					r.want(t, tt.code, tt.errorCode)
				} else {
					r.want(t, tt.code)
				}
				if loc := r.Header.Get("Location"); loc != tt.location {
					t.Fatalf("Location = %q; want %q", loc, tt.location)
				}
				if tt.errMsg != "" && r.body["error"] != tt.errMsg {
					t.Fatalf("error = %q; want %q", r.body["error"], tt.errMsg)
				}
				if tt.wantBody != "" && string(r.raw) != tt.wantBody {
					t.Fatalf("body = %q; want %q", r.raw, tt.wantBody)
				}
				ck := r.cookie(sessionCookieName)
				if cleared := ck != nil && ck.MaxAge < 0; cleared != tt.cleared {
					t.Fatalf("cookie cleared = %v; want %v", cleared, tt.cleared)
				}
			})
		}
	})
}

// TestGuardNeedsItsAdmin: the package-level Guard guards with the Admin its
// options name, and refuses at set-up to guess: leaving Admin out panics
// naming the field (the library keeps no default panel), and so does naming another
// panel than the method's receiver.
func TestGuardNeedsItsAdmin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	other := newPanel(t, testdb.SQLite(t), Options{})
	mustPanic := func(what string, fn func()) (msg string) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil {
				t.Errorf("%s did not panic", what)
			}
			msg = fmt.Sprint(r)
		}()
		fn()
		return ""
	}
	if msg := mustPanic("Guard with no Admin", func() { Guard(GuardOptions{}) }); !strings.Contains(msg, "GuardOptions.Admin") {
		t.Errorf("Guard with no Admin panics with %q; want it to name GuardOptions.Admin", msg)
	}
	mustPanic("a.Guard naming another Admin", func() { e.admin.Guard(GuardOptions{Admin: other}) })

	g := Guard(GuardOptions{Admin: e.admin, APIOnly: true})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op, _ := OperatorFrom(r.Context())
		w.Write([]byte(op.Role))
	}))
	w := httptest.NewRecorder()
	g.ServeHTTP(w, httptest.NewRequest("GET", "/ops", nil))
	if w.Code != http.StatusUnauthorized {
		t.Errorf("no session: %d; want 401", w.Code)
	}
}

// TestGuardOmitsUnsafeNext sends a raw request line whose path is not a
// plain absolute path: the redirect must not carry it.
func TestGuardOmitsUnsafeNext(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	g := e.admin.Guard(GuardOptions{})(http.NotFoundHandler())
	for _, target := range []string{"//evil.example/x", `/\evil.example`} {
		req, _ := http.NewRequest("GET", "http://x/", nil)
		req.URL.Path, req.URL.RawPath = target, ""
		req.RequestURI = target
		req.Header.Set("Accept", "text/html")
		w := newRecorder()
		g.ServeHTTP(w, req)
		if loc := w.Header().Get("Location"); w.Code != 302 || loc != "/admin/login" {
			t.Errorf("Guard(%q) = %d %q; want 302 to /admin/login without next", target, w.Code, loc)
		}
	}
}

// TestGuardRefusesCrossOrigin: a guarded route of the game's is not
// reachable by a cross-site form post riding the session cookie.
func TestGuardRefusesCrossOrigin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{}, func(a *Admin, mux *http.ServeMux) {
		mux.Handle("/kick-everyone", a.Guard(GuardOptions{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "done")
		})))
	})
	root, _ := e.bootstrap()
	root.hdr.Set("Sec-Fetch-Site", "cross-site")
	root.do("POST", "/kick-everyone", nil).want(t, 403, "cross_origin")
	root.do("GET", "/kick-everyone", nil).want(t, 200) // safe methods pass
	root.hdr.Set("Sec-Fetch-Site", "same-origin")
	root.do("POST", "/kick-everyone", nil).want(t, 200)
}
