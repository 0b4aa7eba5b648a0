package admin

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

// eachPair runs fn on two fresh databases of each dialect.
func eachPair(t *testing.T, fn func(t *testing.T, db1, db2 *bun.DB)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, testdb.SQLite(t), testdb.SQLite(t)) })
	t.Run("pg", func(t *testing.T) { fn(t, testdb.PG(t), testdb.PG(t)) })
}

// newPanel is New with the test defaults of newEnv, closed when t ends.
func newPanel(t *testing.T, db *bun.DB, opts Options) *Admin {
	t.Helper()
	opts.Secret = testSecret
	opts.PasswordHasher = testHasher
	rl := &opts.RateLimit
	for _, l := range []*Limiter{&rl.Login, &rl.Bootstrap, &rl.RequestReset, &rl.LoginFailuresPerEmail, &rl.LoginFailuresPerNetwork, &rl.PerIP, &rl.Actions, &rl.ResetDeliveries, &rl.Exports} {
		if *l == nil {
			*l = NoLimit{}
		}
	}
	a, err := New(db, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// serve starts h behind an httptest server and returns an env whose
// clients talk to it, with a as its panel.
func serve(t *testing.T, db *bun.DB, a *Admin, h http.Handler) *env {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &env{t: t, db: db, admin: a, srv: srv, logs: &syncBuffer{}}
}

func TestPathsNormalizedAndChecked(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	for _, tt := range []struct{ ui, api, err string }{
		{"/admin", "/admin/api", "contain one another"},
		{"/ops", "/ops/admin-api", "contain one another"},
		{"/x", "/x", "contain one another"},
		{"/x", "/", "plain sub-path"},
		{"/x", `/a\b`, "plain sub-path"},
		{"/x", "/a?b", "plain sub-path"},
		{"/x y", "", "plain sub-path"},
	} {
		a, err := New(db, Options{Secret: testSecret, UIPath: tt.ui, APIPath: tt.api})
		if a != nil {
			a.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("New(UIPath %q, APIPath %q) = %v; want an error with %q", tt.ui, tt.api, err, tt.err)
		}
	}
	a := newPanel(t, db, Options{UIPath: "ops/admin/", APIPath: "/ops/admin-api/"})
	if a.UIPath() != "/ops/admin" || a.APIPath() != "/ops/admin-api" {
		t.Fatalf("paths = %q, %q; want /ops/admin, /ops/admin-api", a.UIPath(), a.APIPath())
	}
}

// TestTwoPanelsOneMux mounts two panels with their own paths, databases
// and cookies on one mux: neither sees the other's state or takes the
// other's sessions or reset tokens, although they share a secret.
func TestTwoPanelsOneMux(t *testing.T) {
	t.Parallel()
	eachPair(t, func(t *testing.T, db1, db2 *bun.DB) {
		ctx := context.Background()
		resets := make(chan ResetRequest, 4)
		onReset := func(_ context.Context, req ResetRequest) error {
			resets <- req
			return nil
		}
		ops := newPanel(t, db1, Options{UIPath: "/ops/admin", APIPath: "/ops/admin-api", Session: SessionOptions{CookieName: "ops_session"}, OnResetRequest: onReset})
		sup := newPanel(t, db2, Options{UIPath: "/support/admin", APIPath: "/support/admin-api", Session: SessionOptions{CookieName: "support_session"}})
		mux := http.NewServeMux()
		ops.Mount(mux)
		sup.Mount(mux)
		hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			op, _ := OperatorFrom(r.Context())
			fmt.Fprintf(w, "hello %s", op.UserID)
		})
		mux.Handle("/ops/monitor", ops.Guard(GuardOptions{})(hello))
		mux.Handle("/support/monitor", sup.Guard(GuardOptions{})(hello))
		e := serve(t, db1, ops, mux)

		c := e.client()
		r := c.do("POST", "/ops/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 201)
		rootID := r.body["userId"].(string)
		if ck := r.cookie("ops_session"); ck == nil || ck.Path != "/" {
			t.Fatalf("bootstrap cookie = %v; want ops_session", r.Cookies())
		}
		if r := c.do("GET", "/support/admin-api/auth/status", nil).want(t, 200); r.body["needsBootstrap"] != true || r.body["authenticated"] != false {
			t.Fatalf("the support panel saw the ops panel's state: %s", r.raw)
		}
		c.do("GET", "/ops/admin-api/auth/me", nil).want(t, 200)
		c.do("GET", "/ops/admin-api/users/"+rootID, nil).want(t, 200)
		c.do("GET", "/support/admin-api/users/"+rootID, nil).want(t, 401, "unauthenticated")
		c.do("GET", "/ops/admin-api/nothing/here/at/all", nil).want(t, 404)
		c.do("GET", "/ops/monitor", nil).want(t, 200)
		c.hdr.Set("Accept", "text/html")
		if r := c.do("GET", "/support/monitor?x=1", nil).want(t, 302); r.Header.Get("Location") != "/support/admin/login?next=%2Fsupport%2Fmonitor%3Fx%3D1" {
			t.Fatalf("support guard Location = %q", r.Header.Get("Location"))
		}
		c.hdr.Del("Accept")

		// The same user id, an admin in both databases: the ops session,
		// presented under the support cookie's name, is still refused.
		h := must(sup.Auth().HashPassword(ctx, "other password"))
		if _, err := db2.NewInsert().Model(&User{ID: rootID, Email: "root@example.com", PasswordHash: h}).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := sup.Moderation().SetRole(ctx, rootID, RoleAdmin); err != nil {
			t.Fatal(err)
		}
		var tok string
		for _, ck := range c.jar.Cookies(mustURL(e.srv.URL)) {
			if ck.Name == "ops_session" {
				tok = ck.Value
			}
		}
		forged := e.client()
		forged.hdr.Set("Cookie", "support_session="+tok)
		forged.do("GET", "/support/admin-api/auth/me", nil).want(t, 401, "unauthenticated")
		forged.do("GET", "/support/monitor", nil).want(t, 401, "unauthenticated")
		sc := e.client()
		sc.do("POST", "/support/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "other password"}).want(t, 200)
		sc.do("GET", "/support/admin-api/auth/me", nil).want(t, 200)
		sc.do("GET", "/ops/admin-api/auth/me", nil).want(t, 401, "unauthenticated")

		// A reset link names the panel's own UI path, and its token works
		// on that panel's API only.
		c.do("POST", "/ops/admin-api/auth/request-reset", map[string]any{"email": "root@example.com"}).want(t, 200)
		var req ResetRequest
		select {
		case req = <-resets:
		case <-time.After(10 * time.Second):
			t.Fatal("OnResetRequest was not called")
		}
		if !strings.HasPrefix(req.URL, "/ops/admin/reset?token=") || req.Role != RoleAdmin {
			t.Fatalf("ResetRequest = %+v; want an admin's link under /ops/admin/reset", req)
		}
		token := req.Token
		e.client().do("POST", "/support/admin-api/auth/reset", map[string]any{"token": token, "password": "a new password"}).want(t, 400, "invalid_token")
		e.client().do("POST", "/ops/admin-api/auth/reset", map[string]any{"token": token, "password": "a new password"}).want(t, 200)

		// The UI pages name their own paths.
		for _, p := range []struct{ page, ui, api string }{
			{"/ops/admin/users/" + rootID, "/ops/admin", "/ops/admin-api"},
			{"/support/admin/reset?token=x", "/support/admin", "/support/admin-api"},
		} {
			body := string(e.client().do("GET", p.page, nil).want(t, 200).raw)
			if !strings.Contains(body, `content="`+p.ui+`"`) || !strings.Contains(body, `content="`+p.api+`"`) {
				t.Errorf("GET %s does not name %s and %s:\n%s", p.page, p.ui, p.api, body)
			}
		}
	})
}

// TestMountOnRouters mounts the panel, unstripped, under one prefix
// pattern of a ServeMux, and walks the API, the UI, its assets and a
// guarded game route. (examples/existingbackend does the same on chi.)
func TestMountOnRouters(t *testing.T) {
	t.Parallel()
	opts := Options{UIPath: "/ops/admin", APIPath: "/ops/admin-api"}
	mounts := map[string]func(a *Admin) http.Handler{
		"ServeMux prefix": func(a *Admin) http.Handler {
			mux := http.NewServeMux()
			mux.Handle("/ops/", a)
			mux.Handle("/ops/monitor", a.Guard(GuardOptions{})(http.HandlerFunc(gameRoute)))
			return mux
		},
	}
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		for name, mount := range mounts {
			t.Run(name, func(t *testing.T) {
				a := newPanel(t, db, opts)
				e := serve(t, db, a, mount(a))
				anon := e.client()
				anon.do("GET", "/ops/admin-api/auth/status", nil).want(t, 200)
				anon.hdr.Set("Accept", "text/html")
				if r := anon.do("GET", "/ops/monitor", nil).want(t, 302); r.Header.Get("Location") != "/ops/admin/login?next=%2Fops%2Fmonitor" {
					t.Fatalf("guard Location = %q", r.Header.Get("Location"))
				}
				var c *client
				if r := anon.do("GET", "/ops/admin-api/auth/status", nil); r.body["needsBootstrap"] == true {
					c = e.client()
					c.do("POST", "/ops/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 201)
				} else {
					c = e.client()
					c.do("POST", "/ops/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 200)
				}
				me := c.do("GET", "/ops/admin-api/auth/me", nil).want(t, 200)
				id := me.body["userId"].(string)
				c.do("GET", "/ops/admin-api", nil).want(t, 200)
				c.do("GET", "/ops/admin-api/", nil).want(t, 200)
				c.do("GET", "/ops/admin-api/users/"+id, nil).want(t, 200)
				c.do("PATCH", "/ops/admin-api/users/"+id, map[string]any{"display_name": "Root"}).want(t, 200)
				c.do("GET", "/ops/admin-api/users/"+id+"/_counts", nil).want(t, 200)
				c.do("GET", "/ops/admin-api/no-such-thing", nil).want(t, 404)
				if r := c.do("GET", "/ops/monitor", nil).want(t, 200); string(r.raw) != "game page "+id {
					t.Fatalf("guarded route = %q", r.raw)
				}
				index := c.do("GET", "/ops/admin/users/"+id, nil).want(t, 200)
				refs := assetRef.FindAllStringSubmatch(string(index.raw), -1)
				if len(refs) == 0 {
					t.Fatalf("deep link is not index.html: %s", index.raw)
				}
				for _, m := range refs {
					c.do("GET", m[1], nil).want(t, 200)
				}
				c.do("GET", "/ops/admin/reset?token=abc", nil).want(t, 200)
				c.do("POST", "/ops/admin-api/auth/logout", nil).want(t, 200)
			})
		}
	})
}

func gameRoute(w http.ResponseWriter, r *http.Request) {
	op, _ := OperatorFrom(r.Context())
	fmt.Fprintf(w, "game page %s", op.UserID)
}
