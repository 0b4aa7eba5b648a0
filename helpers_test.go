package admin

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

// testSecret signs every test server's tokens, so tests can forge tokens.
var testSecret = []byte("0123456789abcdef0123456789abcdef-test")

// testHasher keeps hashing cheap under -race; one test covers the default.
var testHasher PasswordHasher = Argon2id{Memory: 64, Time: 1, Threads: 1}

// env is one panel on a real database behind a real HTTP server.
type env struct {
	t     *testing.T
	db    *bun.DB
	admin *Admin
	srv   *httptest.Server
	logs  *syncBuffer
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
	mux := http.NewServeMux()
	a.Mount(mux)
	for _, fn := range extra {
		fn(a, mux)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		a.Close()
	})
	return &env{t: t, db: db, admin: a, srv: srv, logs: logs}
}

// eachEnv runs fn on SQLite and PostgreSQL with a fresh panel each.
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
	return r
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
	r := c.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(e.t, 201)
	return c, r.body["userId"].(string)
}

// user creates a user with a password through the Go API and returns its id.
func (e *env) user(email, password string) string {
	e.t.Helper()
	ctx := context.Background()
	h, err := e.admin.Auth().HashPassword(ctx, password)
	if err != nil {
		e.t.Fatal(err)
	}
	id, err := e.admin.users.createUser(ctx, e.db, email, "", h)
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
