package admintest

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// After Close, the API, the UI and every Guard answer 503 closed.
func TestClosedAnswers503(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		admin, _ := e.bootstrap()
		guarded := httptest.NewServer(e.admin.Guard(GuardOptions{Role: RoleUser})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		})))
		defer guarded.Close()
		get := func(url string) *http.Response {
			req, err := http.NewRequest("GET", url, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range admin.jar.Cookies(req.URL) {
				req.AddCookie(c)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res
		}
		// The cookie's host is the panel's; the guard's server is on the
		// same host, another port.
		panelURL, err := url.Parse(e.srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		cookies := admin.jar.Cookies(panelURL)
		guardedGet := func() *http.Response {
			req, _ := http.NewRequest("GET", guarded.URL, nil)
			for _, c := range cookies {
				req.AddCookie(c)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res
		}
		if res := guardedGet(); res.StatusCode != http.StatusNoContent {
			t.Fatalf("guarded route before Close = %d; want 204", res.StatusCode)
		}
		if err := e.admin.Close(); err != nil {
			t.Fatal(err)
		}
		if res := guardedGet(); res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("guarded route after Close = %d; want 503", res.StatusCode)
		}
		for _, path := range []string{"/admin-api/auth/me", "/admin-api/auth/status", "/admin-api/_health", "/admin/", "/admin-api/nothing"} {
			if res := get(e.srv.URL + path); res.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("GET %s after Close = %d; want 503", path, res.StatusCode)
			}
		}
		admin.do("GET", "/admin-api/auth/me", nil).want(t, 503, "closed")
	})
}

// testSecret signs every test server's tokens, so tests can forge tokens.
var testSecret = []byte("0123456789abcdef0123456789abcdef-test")

// testHasher keeps hashing cheap under -race; one test covers the default.
var testHasher PasswordHasher = Argon2id{Memory: 64, Time: 1, Threads: 1}

// env is one panel on a real database behind a real HTTP server.
type env struct {
	t     *testing.T
	db    *bun.DB
	admin *Admin
	opts  Options // as New got them: what the tests' own SQL needs to know
	srv   *httptest.Server
	logs  *syncBuffer
	// setupTok is Options.SetupToken; "" means the one New logged.
	setupTok string
	// spec is the OpenAPI document an admin gets (fetchSpec), which every
	// answer of the API is checked against; nil for a panel the test
	// built itself.
	spec *openapi3.T
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newEnv starts a panel with test defaults (cheap hasher, no rate limits,
// fixed secret) changed by opts. mux, when given, receives extra routes.
func newEnv(t *testing.T, db *bun.DB, opts Options, extra ...func(a *Admin, mux *http.ServeMux)) *env {
	t.Helper()
	logs := &syncBuffer{}
	if opts.Secret == nil {
		opts.Secret = testSecret
	}
	if opts.PasswordHasher == nil {
		opts.PasswordHasher = testHasher
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	longTimeLimits(&opts)
	rl := &opts.RateLimit
	for _, l := range limitSlots(rl) {
		switch (*l).(type) {
		case nil:
			*l = NoLimit{}
		case keepDefault:
			*l = nil // New puts its default bucket here
		}
	}
	a, err := New(db, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		a.Close()
		if t.Failed() {
			t.Logf("the panel's log:\n%s", logs.String())
		}
	}) // after the server below
	mux := http.NewServeMux()
	a.Mount(mux)
	for _, fn := range extra {
		fn(a, mux)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e := &env{t: t, db: db, admin: a, opts: opts, srv: srv, logs: logs, setupTok: opts.SetupToken}
	if e.setupTok == "" {
		// The token of the link New logged, read now: a test may break
		// the database before it bootstraps.
		if link, err := url.Parse(a.SetupLink(context.Background())); err == nil {
			e.setupTok = link.Query().Get("token")
		}
	}
	e.spec = e.fetchSpec()
	return e
}

// via is e with its requests sent to front (a proxy before the panel)
// instead of the panel's own server.
func (e *env) via(front *httptest.Server) *env {
	return &env{t: e.t, db: e.db, admin: e.admin, opts: e.opts, srv: front, logs: e.logs, setupTok: e.setupTok, spec: e.spec}
}

// setupToken is the token a bootstrap of this panel needs: the option's,
// or the one of the link New logged (SetupLink gave it when newEnv made
// the panel, whatever logger the test chose).
func (e *env) setupToken() string {
	e.t.Helper()
	if e.setupTok == "" {
		e.t.Fatal("no setup token: an admin existed when the panel was made")
	}
	return e.setupTok
}

// eachEnv runs fn on SQLite, PostgreSQL and MariaDB with a fresh panel each.
func eachEnv(t *testing.T, opts Options, fn func(t *testing.T, e *env)) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		fn(t, newEnv(t, db, opts))
	})
}

// client is a browser-like HTTP client with its own cookie jar.
type client struct {
	e   *env
	jar *cookiejar.Jar
	hc  *http.Client
	hdr http.Header
}

func (e *env) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{e: e, jar: jar, hdr: http.Header{}, hc: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// resp is an answered request with its decoded JSON body.
type resp struct {
	*http.Response
	raw  []byte
	body map[string]any
}

func (c *client) do(method, path string, body any) *resp {
	c.e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, c.e.srv.URL+path, rd)
	if err != nil {
		c.e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range c.hdr {
		req.Header[k] = v
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := &resp{Response: res, raw: raw}
	_ = json.Unmarshal(raw, &r.body)
	c.e.checkSpec(method, path, r)
	return r
}

// checkSpec checks an answer of the API against the panel's OpenAPI
// document (an admin's: every path any role may call): its path, method
// and status are documented, and a JSON body fits the schema.
func (e *env) checkSpec(method, path string, r *resp) {
	e.t.Helper()
	if e.spec == nil {
		return // an env of a panel built by the test itself
	}
	api := e.admin.APIPath()
	if !strings.HasPrefix(path, api+"/") && path != api {
		return
	}
	checkResponse(e.t, e.spec, method, strings.Replace(path, api, "/admin-api", 1), r)
}

// want fails the test unless the status is code (and, for errors, the
// body is the error body with errCode).
func (r *resp) want(t *testing.T, code int, errCode ...string) *resp {
	t.Helper()
	if r.StatusCode != code {
		t.Fatalf("%s %s = %d %s; want %d", r.Request.Method, r.Request.URL.Path, r.StatusCode, r.raw, code)
	}
	if len(errCode) > 0 {
		if r.body["code"] != errCode[0] || r.body["status"] != float64(code) || r.body["error"] == "" || r.body["error"] == nil {
			t.Fatalf("%s %s body = %s; want error body with code %q", r.Request.Method, r.Request.URL.Path, r.raw, errCode[0])
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("error Content-Type = %q; want application/json", ct)
		}
	}
	return r
}

// cookieNamed is the cookie c's jar would send to path on e's server.
func cookieNamed(c *client, e *env, path, name string) *http.Cookie {
	u, _ := url.Parse(e.srv.URL + path)
	for _, ck := range c.jar.Cookies(u) {
		if ck.Name == name {
			return ck
		}
	}
	return nil
}

func (r *resp) cookie(name string) *http.Cookie {
	for _, c := range r.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// bootstrap creates the first admin and returns a client signed in as it.
func (e *env) bootstrap() (*client, string) {
	e.t.Helper()
	c := e.client()
	r := c.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse", "token": e.setupToken()}).want(e.t, 201)
	return c, r.body["userId"].(string)
}

// user creates a user with a password, hashed by the panel's hasher
// (Auth.HashPassword), as the game's own sign-up would: a row of the
// users table (insertUser). It returns the user's id.
func (e *env) user(email, password string) string {
	e.t.Helper()
	ctx := context.Background()
	h, err := e.admin.Auth().HashPassword(ctx, password)
	if err != nil {
		e.t.Fatal(err)
	}
	id, err := insertUser(ctx, e.db, e.admin.TableName("users"), e.opts.UserColumns, strings.TrimSpace(email), h)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// login signs in a new client.
func (e *env) login(email, password string) *client {
	e.t.Helper()
	c := e.client()
	c.do("POST", "/admin-api/auth/login", map[string]any{"email": email, "password": password}).want(e.t, 200)
	return c
}

// auditRows returns the audit entries with the given action, oldest first.
func (e *env) auditRows(action string) []AuditEntry {
	e.t.Helper()
	var rows []AuditEntry
	if err := e.db.NewSelect().Model(&rows).Where("action = ?", action).Order("id").Scan(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return rows
}

// must returns v and panics, failing the test run, when err is not nil:
// for calls that cannot fail unless something is badly wrong, so that no
// error in a test goes unchecked.
func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}

func b64url(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// eachPair runs fn on two fresh databases of each dialect.
func eachPair(t *testing.T, fn func(t *testing.T, db1, db2 *bun.DB)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, testdb.SQLite(t), testdb.SQLite(t)) })
	t.Run("pg", func(t *testing.T) { fn(t, testdb.PG(t), testdb.PG(t)) })
	t.Run("mysql", func(t *testing.T) { fn(t, testdb.MySQL(t), testdb.MySQL(t)) })
}

// longTimeLimits gives the panel's limits on work by the clock a minute
// where the test sets none (QueryTimeout 5 s, CountBudget 500 ms and
// WidgetTimeout 5 s by default): a test that is not about them must not
// see a 503 query_timeout, an estimated total or a widget's timeout
// because a loaded machine is slow. The tests of the limits set them.
func longTimeLimits(o *Options) {
	if o.QueryTimeout == 0 {
		o.QueryTimeout = time.Minute
	}
	if o.CountBudget == 0 {
		o.CountBudget = time.Minute
	}
	if o.WidgetTimeout == 0 {
		o.WidgetTimeout = time.Minute
	}
}

// newPanel is New with the test defaults of newEnv, closed when t ends.
func newPanel(t *testing.T, db *bun.DB, opts Options) *Admin {
	t.Helper()
	opts.Secret = testSecret
	opts.PasswordHasher = testHasher
	if opts.SetupToken == "" {
		opts.SetupToken = testSetupToken
	}
	longTimeLimits(&opts)
	rl := &opts.RateLimit
	for _, l := range limitSlots(rl) {
		switch (*l).(type) {
		case nil:
			*l = NoLimit{}
		case keepDefault:
			*l = nil // New puts its default bucket here
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
	return &env{t: t, db: db, admin: a, srv: srv, logs: &syncBuffer{}, setupTok: testSetupToken}
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
		r := c.do("POST", "/ops/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse", "token": testSetupToken}).want(t, 201)
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
		case <-time.After(30 * time.Second):
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
					c.do("POST", "/ops/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse", "token": testSetupToken}).want(t, 201)
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

// keepDefault in a RateLimit slot makes newEnv leave the panel's own
// default bucket there; newEnv's default is NoLimit.
type keepDefault struct{ NoLimit }

// defaultLimits keeps the panel's default bucket in every slot rl leaves
// nil.
func defaultLimits(rl RateLimitOptions) RateLimitOptions {
	for _, l := range limitSlots(&rl) {
		if *l == nil {
			*l = keepDefault{}
		}
	}
	return rl
}

func limitSlots(rl *RateLimitOptions) []*Limiter {
	return []*Limiter{&rl.Login, &rl.Bootstrap, &rl.RequestReset, &rl.LoginFailuresPerEmail, &rl.LoginFailuresPerNetwork, &rl.LoginFailuresPerDevice, &rl.PerIP, &rl.Actions, &rl.ResetDeliveries, &rl.Exports, &rl.Reports}
}

// testSetupToken is Options.SetupToken for tests that build their panel
// themselves and bootstrap it over HTTP.
const testSetupToken = "a setup token for the tests"

// The panel's fixed bounds as its docs state them. Tests that lean on one
// fail if it changes, which is the point: each is a promise to games.
const (
	defaultPerIPBurst      = 30       // RateLimitOptions.PerIP's default burst
	maxActionIDs           = 1000     // ids one action request may name
	defaultAuditMaxPayload = 16 << 10 // Options.AuditMaxPayload's default
	maxPasswordBytes       = 1024     // the longest password the panel hashes
	unusableHash           = "!"      // a NOT NULL password column of a user created without one
	totpChallengeCookie    = "game_admin_totp"
	backgroundWorkers      = 4    // workers per background queue
	backgroundQueueCap     = 1024 // jobs a background queue holds
	maxStmtFailures        = 5    // failures of prepared statements before the panel sends plain text (docs/adopting.md)
)

// The sign-in failure buckets' defaults (RateLimitOptions), which
// failureLimits puts on a test's clock.
const (
	defaultFailuresBurst   = 100 // LoginFailuresPerEmail's burst
	defaultNetworkFailures = 10  // LoginFailuresPerNetwork's and LoginFailuresPerDevice's
	failureTokenEvery      = 30 * time.Second
)

// account reads a user's email, password hash and token version from the
// users table (0 when it has no token version column).
func (e *env) account(id string) (email, hash string, tv int64) {
	e.t.Helper()
	cols := withDefaults(e.opts.UserColumns)
	table := e.admin.TableName("users")
	var tvCol any = bun.Safe("0")
	if _, ok := liveTable(e.t, e.db, table)[cols.TokenVersion]; ok {
		tvCol = bun.Ident(cols.TokenVersion)
	}
	var h sql.NullString
	err := e.db.QueryRowContext(context.Background(), "SELECT ?, ?, ? FROM ? WHERE ? = ?",
		bun.Ident(cols.Email), bun.Ident(cols.PasswordHash), tvCol, bun.Ident(table), bun.Ident(cols.ID), id).Scan(&email, &h, &tv)
	if err != nil {
		e.t.Fatalf("the users row of %s: %v", id, err)
	}
	return email, h.String, tv
}

// failingHasher fails every hash.
type failingHasher struct{}

func (failingHasher) Hash(string) (string, error)         { return "", errors.New("boom") }
func (failingHasher) Verify(string, string) (bool, error) { return false, errors.New("boom") }

// adminExists reports whether the roles table names an admin.
func (e *env) adminExists() bool {
	e.t.Helper()
	var n int
	if err := e.db.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM ? WHERE role = 'admin'", bun.Ident(e.admin.TableName("roles"))).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n > 0
}

// withDefaults is c with the defaults UserColumns states.
func withDefaults(c UserColumns) UserColumns {
	c.ID = cmp.Or(c.ID, "id")
	c.Email = cmp.Or(c.Email, "email")
	c.PasswordHash = cmp.Or(c.PasswordHash, "password_hash")
	c.DisplayName = cmp.Or(c.DisplayName, "display_name")
	c.TokenVersion = cmp.Or(c.TokenVersion, "token_version")
	c.Ban = cmp.Or(c.Ban, "ban")
	c.CreatedAt = cmp.Or(c.CreatedAt, "created_at")
	return c
}

// insertUser inserts a user with a password hash into table, the users
// table whose columns cols names, as a game's own sign-up does, and
// returns its id. The id is the database's default when the column has
// one; else a UUIDv7, as the panel gives a text id without one.
func insertUser(ctx context.Context, db *bun.DB, table string, cols UserColumns, email, hash string) (string, error) {
	cols = withDefaults(cols)
	vals := map[string]any{cols.Email: email, cols.PasswordHash: hash}
	live, err := readLiveTable(ctx, db, table)
	if err != nil {
		return "", err
	}
	if !live[cols.ID].hasDefault {
		vals[cols.ID] = uuid.Must(uuid.NewV7()).String()
	}
	return insertRow(ctx, db, table, cols.ID, vals)
}

// insertRow inserts vals into table and returns the row's idCol as text.
func insertRow(ctx context.Context, db *bun.DB, table, idCol string, vals map[string]any) (string, error) {
	names := slices.Sorted(maps.Keys(vals))
	args := []any{bun.Ident(table)}
	for _, n := range names {
		args = append(args, bun.Ident(n))
	}
	for _, n := range names {
		args = append(args, vals[n])
	}
	args = append(args, bun.Ident(idCol))
	ph := strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")
	var id string
	if db.Dialect().Name() == dialect.MySQL {
		// MariaDB's RETURNING takes no CAST to text; the driver reads any
		// key as text.
		err := db.NewRaw(fmt.Sprintf("INSERT INTO ? (%s) VALUES (%s) RETURNING ?", ph, ph), args...).Scan(ctx, &id)
		return id, err
	}
	err := db.NewRaw(fmt.Sprintf("INSERT INTO ? (%s) VALUES (%s) RETURNING CAST(? AS TEXT)", ph, ph), args...).Scan(ctx, &id)
	return id, err
}

// liveColumn is a column of a table as the database describes it.
type liveColumn struct {
	hasDefault bool   // a default, an identity or SQLite's rowid
	notNull    bool   // NOT NULL, or SQLite's primary key
	typ        string // the declared type, lower case
}

// liveTable reads the columns of table from the database.
func liveTable(t testing.TB, db *bun.DB, table string) map[string]liveColumn {
	t.Helper()
	cols, err := readLiveTable(context.Background(), db, table)
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

func readLiveTable(ctx context.Context, db *bun.DB, table string) (map[string]liveColumn, error) {
	q := `SELECT name, dflt_value IS NOT NULL OR (pk = 1 AND upper(type) = 'INTEGER'), "notnull" = 1 OR pk > 0, lower(type) FROM pragma_table_info(?)`
	switch db.Dialect().Name() {
	case dialect.PG:
		q = `SELECT column_name, column_default IS NOT NULL OR is_identity = 'YES', is_nullable = 'NO', lower(data_type)
FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?`
	case dialect.MySQL: // MariaDB's column_default is the text NULL for a column without one
		q = `SELECT column_name, (column_default IS NOT NULL AND column_default <> 'NULL') OR extra LIKE '%auto_increment%', is_nullable = 'NO', lower(data_type)
FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?`
	}
	rows, err := db.QueryContext(ctx, q, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]liveColumn{}
	for rows.Next() {
		var name string
		var c liveColumn
		if err := rows.Scan(&name, &c.hasDefault, &c.notNull, &c.typ); err != nil {
			return nil, err
		}
		out[name] = c
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no table %s", table)
	}
	return out, nil
}
