package admintest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/token"
	"github.com/golang-jwt/jwt/v5"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

func TestCookieAttributes(t *testing.T) {
	t.Parallel()
	no, yes := false, true
	tests := []struct {
		name     string
		opts     Options
		secure   bool
		sameSite http.SameSite
		maxAge   int
		domain   string
	}{
		{name: "defaults", secure: false, sameSite: http.SameSiteStrictMode, maxAge: 7 * 24 * 3600},
		{name: "production is secure", opts: Options{Production: true}, secure: true, sameSite: http.SameSiteStrictMode, maxAge: 604800},
		{name: "secure override off", opts: Options{Production: true, Session: SessionOptions{Secure: &no}}, secure: false, sameSite: http.SameSiteStrictMode, maxAge: 604800},
		{name: "secure override on", opts: Options{Session: SessionOptions{Secure: &yes}}, secure: true, sameSite: http.SameSiteStrictMode, maxAge: 604800},
		{name: "lax", opts: Options{Session: SessionOptions{SameSite: http.SameSiteLaxMode}}, sameSite: http.SameSiteLaxMode, maxAge: 604800},
		{name: "none", opts: Options{Session: SessionOptions{SameSite: http.SameSiteNoneMode, Secure: &yes}}, secure: true, sameSite: http.SameSiteNoneMode, maxAge: 604800},
		{name: "ttl", opts: Options{Session: SessionOptions{TTL: time.Hour}}, sameSite: http.SameSiteStrictMode, maxAge: 3600},
		{name: "domain", opts: Options{Session: SessionOptions{Domain: "admin.example.com"}}, sameSite: http.SameSiteStrictMode, maxAge: 604800, domain: "admin.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, testdb.SQLite(t), tt.opts)
			r := e.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "a@example.com", "password": "correct horse", "token": e.setupToken()}).want(t, 201)
			// Read the raw header: the client's parser drops attributes it
			// does not model.
			raw := r.Header.Get("Set-Cookie")
			ck, err := http.ParseSetCookie(raw)
			if err != nil {
				t.Fatal(err)
			}
			if ck.Name != "game_admin_session" || !ck.HttpOnly || ck.Path != "/" || ck.Secure != tt.secure ||
				ck.SameSite != tt.sameSite || ck.MaxAge != tt.maxAge || ck.Domain != tt.domain {
				t.Fatalf("Set-Cookie = %q; want secure=%v sameSite=%v maxAge=%d domain=%q", raw, tt.secure, tt.sameSite, tt.maxAge, tt.domain)
			}
			c, err := signer().Parse(ck.Value, token.KindSession)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.ExpiresAt.Sub(c.IssuedAt.Time); got != time.Duration(tt.maxAge)*time.Second {
				t.Fatalf("token lifetime = %v; want %ds", got, tt.maxAge)
			}
		})
	}
}

func TestNewOptionErrors(t *testing.T) {
	db := testdb.SQLite(t)
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"short secret", Options{Secret: []byte("short")}, "at least 32"},
		{"production without secret", Options{Production: true}, "no Secret"},
		{"SameSite None without Secure", Options{Secret: testSecret, Session: SessionOptions{SameSite: http.SameSiteNoneMode}}, "Secure"},
		{"UIPath on the API", Options{Secret: testSecret, UIPath: "/admin-api/ui"}, "UIPath"},
		{"UIPath root", Options{Secret: testSecret, UIPath: "/"}, "UIPath"},
		{"negative WidgetTimeout", Options{Secret: testSecret, WidgetTimeout: -time.Second}, "WidgetTimeout"},
		{"negative CountBudget", Options{Secret: testSecret, CountBudget: -time.Second}, "CountBudget"},
		{"negative RoomTimeout", Options{Secret: testSecret, RoomTimeout: -time.Second}, "RoomTimeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(db, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New(%s) = %v; want an error containing %q", tt.name, err, tt.want)
			}
		})
	}
	t.Run("no secret from the environment", func(t *testing.T) {
		// The panel reads no environment: not even a key that looks like
		// its own (the game's JWT_SECRET may sign something else).
		t.Setenv("ADMIN_JWT_SECRET", string(testSecret))
		t.Setenv("JWT_SECRET", string(testSecret))
		t.Setenv("APP_ENV", "production")
		// In production New refuses to start without a Secret: it starts,
		// so it did not take APP_ENV for Production.
		a, err := New(db, Options{PasswordHasher: testHasher, SetupToken: testSetupToken, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatalf("New without a Secret, APP_ENV=production: %v; want a development panel", err)
		}
		t.Cleanup(func() { a.Close() })
		// Its key is not the environment's: a session signed with that
		// key is refused, where its own is taken.
		e := serve(t, db, a, a)
		c := e.client()
		r := c.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "env@example.com", "password": "correct horse", "token": testSetupToken}).want(t, 201)
		if ck := r.cookie(sessionCookieName); ck == nil || ck.Secure {
			t.Fatalf("bootstrap cookie = %v; want a development panel's, not Secure", ck)
		}
		c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		forged := e.client()
		forged.hdr.Set("Cookie", sessionCookieName+"="+signed(t, token.Claims{UserID: r.body["userId"].(string), Kind: token.KindSession}, time.Hour))
		if forged.do("GET", "/admin-api/auth/me", nil).StatusCode != http.StatusUnauthorized {
			t.Fatal("New read the environment: a session signed with $ADMIN_JWT_SECRET is taken")
		}
	})
}

// TestForgedTokens: every token that is not a current HS256 session signed
// with our key is anonymous.
func TestForgedTokens(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		_, id := e.bootstrap()
		sign := func(method jwt.SigningMethod, key any, c jwt.Claims) string {
			s, err := jwt.NewWithClaims(method, c).SignedString(key)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		now := time.Now()
		valid := token.Claims{UserID: id, TV: 0, Kind: token.KindSession, RegisteredClaims: jwt.RegisteredClaims{
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}}
		with := func(f func(*token.Claims)) token.Claims { c := valid; f(&c); return c }
		good := sign(jwt.SigningMethodHS256, testSecret, valid)
		parts := strings.Split(good, ".")

		tests := []struct {
			name  string
			token string
			code  int
		}{
			{"valid", good, 200},
			{"garbage", "not-a-jwt", 401},
			{"empty", "", 401},
			{"tampered payload", parts[0] + "." + strings.TrimRight(jwtSegment(`{"userId":"`+id+`","tv":0,"kind":"session","role":"admin","exp":9999999999}`), "=") + "." + parts[2], 401},
			{"alg none", sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, valid), 401},
			{"HS512 with our key", sign(jwt.SigningMethodHS512, testSecret, valid), 401},
			{"other key", sign(jwt.SigningMethodHS256, []byte("another secret another secret 32b"), valid), 401},
			{"expired", sign(jwt.SigningMethodHS256, testSecret, with(func(c *token.Claims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Second)) })), 401},
			{"no expiry", sign(jwt.SigningMethodHS256, testSecret, with(func(c *token.Claims) { c.ExpiresAt = nil })), 401},
			{"issued in the future", sign(jwt.SigningMethodHS256, testSecret, with(func(c *token.Claims) { c.IssuedAt = jwt.NewNumericDate(now.Add(time.Hour)) })), 401},
			{"reset kind", sign(jwt.SigningMethodHS256, testSecret, with(func(c *token.Claims) { c.Kind = token.KindReset })), 401},
			{"no kind", sign(jwt.SigningMethodHS256, testSecret, with(func(c *token.Claims) { c.Kind = "" })), 401},
			{"stale token version", sign(jwt.SigningMethodHS256, testSecret, with(func(c *token.Claims) { c.TV = 1 })), 401},
			{"unknown user", sign(jwt.SigningMethodHS256, testSecret, with(func(c *token.Claims) { c.UserID = "nobody" })), 401},
			{"oversized", strings.Repeat("a", 5000), 401},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := e.client()
				c.hdr.Set("Cookie", sessionCookieName+"="+tt.token)
				r := c.do("GET", "/admin-api/auth/me", nil)
				if tt.code == 401 {
					r.want(t, 401, "unauthenticated")
				} else {
					r.want(t, tt.code)
				}
			})
		}
	})
}

func jwtSegment(s string) string {
	return strings.TrimRight(b64url(s), "=")
}

func TestMigrationsAreIdempotent(t *testing.T) {
	t.Parallel()
	type Guild struct {
		ID   int64 `bun:"id,pk"`
		Name string
	}
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		tables := BuiltinTables()
		tables["guilds"] = (*Guild)(nil)
		opts := Options{Secret: testSecret, PasswordHasher: testHasher, Tables: tables}
		for range 2 {
			a, err := New(db, opts)
			if err != nil {
				t.Fatal(err)
			}
			a.Close()
		}
		// Every built-in table is needed: each step of the schema (a table
		// or an alter) is recorded once.
		steps := len(recordedSteps(t, db.Dialect().Name(), opts))
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM game_admin_schema").Scan(&n); err != nil || n != steps {
			t.Fatalf("game_admin_schema rows = %d, %v; want %d", n, err, steps)
		}
		for _, m := range BuiltinTables() {
			if _, err := db.NewSelect().Model(m).Limit(1).Exists(ctx); err != nil {
				t.Fatalf("built-in table of %T missing: %v", m, err)
			}
		}
		if _, err := db.NewSelect().Model((*Guild)(nil)).Exists(ctx); err == nil {
			t.Fatal("New created the custom table guilds; custom tables are the game's to create")
		}
	})
}

func TestNewFailsWhenHasherFails(t *testing.T) {
	t.Parallel()
	if _, err := New(testdb.SQLite(t), Options{Secret: testSecret, PasswordHasher: failingHasher{}}); err == nil {
		t.Fatal("New with a failing hasher = nil error")
	}
}

// TestSessionStatement: the session check is a prepared statement that
// still reads the role live on every request, and survives the statement
// going bad: lost by the server (DEALLOCATE ALL, as a pooler that does
// not keep prepared statements loses it), or invalidated by a change of
// the roles table's column type, it falls back to the plain query and
// prepares again. On SQLite it is prepared per operator, with the id in
// its text (a bound id makes SQLite prepare it again on every run once
// ANALYZE has sampled the users), through the panel's statement cache.
//
// What ran plainly, Bun's hooks see (sessionQueries); what ran prepared,
// they do not. On PostgreSQL the pool has one connection, so that
// pg_prepared_statements, read by the test, is the panel's connection's.
func TestSessionStatement(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		pg := db.Dialect().Name() == dialect.PG
		if pg {
			db.SetMaxOpenConns(1)
		}
		plain := &sessionQueries{}
		e := newEnv(t, db.WithQueryHook(plain), Options{})
		c, _ := e.bootstrap()
		uid := e.user("mod@example.com", "mod password")
		m := e.login("mod@example.com", "mod password")
		plain.reset()
		m.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		// Roles are read live: a grant applies on the next request.
		role := func(c *client) any { return c.do("GET", "/admin-api/auth/me", nil).want(t, 200).body["role"] }
		if got := role(m); got != "user" {
			t.Fatalf("role before the grant = %v; want user", got)
		}
		if err := e.admin.Moderation().SetRole(ctx, uid, RoleAdmin); err != nil {
			t.Fatal(err)
		}
		if got := role(m); got != "admin" {
			t.Fatalf("role after the grant = %v; want admin", got)
		}
		if db.Dialect().Name() == dialect.MySQL {
			// MariaDB prepares the statement on the server from the first
			// check on; which statements a connection holds it does not
			// list (performance_schema is off by default), so the lost
			// statement's part below is PostgreSQL's.
			if n := plain.n(); n != 0 {
				t.Fatalf("%d of 3 session checks ran plainly; want a prepared statement", n)
			}
			if err := e.admin.Moderation().SetRole(ctx, uid, RoleUser); err != nil {
				t.Fatal(err)
			}
			if got := role(m); got != "user" || plain.n() != 0 {
				t.Fatalf("role after the demotion = %v (%d plain runs); want user, prepared", got, plain.n())
			}
			return
		}
		if !pg {
			// The operator's first check ran plainly, its id in the text;
			// the next ones ran that text prepared, from the cache.
			if got := plain.texts(); len(got) != 1 || !strings.Contains(got[0], "'"+uid+"'") {
				t.Fatalf("SQLite: %d session checks of 3 ran through Bun (%q); want the first, with the operator's id in its text, and the text prepared in the cache since", len(got), got)
			}
			if err := e.admin.Moderation().SetRole(ctx, uid, RoleUser); err != nil {
				t.Fatal(err)
			}
			if got := role(m); got != "user" {
				t.Fatalf("role after the demotion = %v; want user", got)
			}
			return
		}
		if n := plain.n(); n != 0 || preparedSessions(t, db) != 1 {
			t.Fatalf("%d of 3 session checks ran plainly, %d session statements prepared; want a prepared statement", n, preparedSessions(t, db))
		}

		must(db.ExecContext(ctx, "DEALLOCATE ALL"))
		plain.reset()
		c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if plain.n() != 1 || preparedSessions(t, db) != 0 {
			t.Fatalf("a lost session statement was kept: %d plain runs, %d prepared", plain.n(), preparedSessions(t, db))
		}
		c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if plain.n() != 1 || preparedSessions(t, db) != 1 {
			t.Fatal("the session statement was not prepared again")
		}
		must(db.ExecContext(ctx, "ALTER TABLE game_roles ALTER COLUMN role TYPE varchar(16)"))
		for range 3 { // each pooled connection's copy goes bad
			c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		}
		if got := role(m); got != "admin" {
			t.Fatalf("role after ALTER TABLE = %v; want admin", got)
		}

		// A pooler that loses prepared statements: after maxStmtFailures
		// failures where the plain query worked, the plain query is used
		// for good, and the log says so once. A panel of its own, whose
		// count of failures starts at none.
		e.admin.Close()
		e = newEnv(t, db.WithQueryHook(plain), Options{})
		c = e.login("root@example.com", "correct horse")
		for i := range maxStmtFailures {
			plain.reset()
			c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
			if plain.n() != 0 || preparedSessions(t, db) != 1 {
				t.Fatalf("not prepared again after %d failures", i)
			}
			must(db.ExecContext(ctx, "DEALLOCATE ALL"))
			c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		}
		plain.reset()
		c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if plain.n() != 1 || preparedSessions(t, db) != 0 {
			t.Fatal("prepared again after giving up on the statement")
		}
		if n := strings.Count(e.logs.String(), "prepared statement keeps failing"); n != 1 {
			t.Fatalf("%d warnings about the failing statement; want 1:\n%s", n, e.logs)
		}
		if got := role(e.login("mod@example.com", "mod password")); got != "admin" {
			t.Fatalf("role through the plain query = %v; want admin", got)
		}
		e.admin.Close()
		if preparedSessions(t, db) != 0 {
			t.Fatal("Close left the session statement open")
		}
	})
}

// sessionQueries records the session checks that ran through Bun: the
// plain query, or SQLite's first run of an operator's text. A prepared
// statement's runs do not pass Bun's hooks.
type sessionQueries struct {
	mu sync.Mutex
	q  []string
}

func (h *sessionQueries) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if strings.Contains(ev.Query, sessionColumns) {
		h.mu.Lock()
		h.q = append(h.q, ev.Query)
		h.mu.Unlock()
	}
	return ctx
}

func (*sessionQueries) AfterQuery(context.Context, *bun.QueryEvent) {}

func (h *sessionQueries) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.q = nil
}

func (h *sessionQueries) texts() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.q)
}

func (h *sessionQueries) n() int { return len(h.texts()) }

// sessionColumns starts the session check's statement: the role and
// scopes of the roles row it joins.
const sessionColumns = "SELECT r.role, r.scopes, "

// preparedSessions is how many session statements the PostgreSQL
// connection db reaches holds prepared (the pool must have only one).
func preparedSessions(t *testing.T, db *bun.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), "SELECT count(*) FROM pg_prepared_statements WHERE starts_with(statement, ?)", sessionColumns).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// BenchmarkSessionCheck measures the per-request session check as a
// game's guarded route pays it (Guard, in front of a handler that does
// nothing): the JWT and the one statement that reads the operator's
// token version, ban and role live.
//
//	go test -run '^$' -bench SessionCheck -benchmem .
func BenchmarkSessionCheck(b *testing.B) {
	for _, d := range []struct {
		name string
		open func(testing.TB) *bun.DB
	}{{"sqlite", testdb.SQLite}, {"pg", testdb.PG}} {
		b.Run(d.name, func(b *testing.B) {
			a, err := New(d.open(b), Options{Secret: testSecret, PasswordHasher: testHasher,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), RateLimit: RateLimitOptions{Bootstrap: NoLimit{}}, SetupToken: testSetupToken})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { a.Close() })
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("POST", "/admin-api/auth/bootstrap", strings.NewReader(`{"email":"bench@example.com","password":"correct horse","token":"`+testSetupToken+`"}`))
			req.Header.Set("Content-Type", "application/json")
			a.ServeHTTP(rec, req)
			cookies := rec.Result().Cookies()
			if rec.Code != 201 || len(cookies) == 0 {
				b.Fatalf("bootstrap: %d %s", rec.Code, rec.Body)
			}
			guarded := a.Guard(GuardOptions{APIOnly: true})(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusNoContent)
			}))
			r := httptest.NewRequest("GET", "/game/route", nil)
			r.AddCookie(cookies[0])
			w := &statusWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				guarded.ServeHTTP(w, r)
				if w.code != http.StatusNoContent {
					b.Fatalf("the guarded route answered %d", w.code)
				}
			}
		})
	}
}

// statusWriter keeps an answer's status and drops its body.
type statusWriter struct {
	h    http.Header
	code int
}

func (w *statusWriter) Header() http.Header         { return w.h }
func (w *statusWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *statusWriter) WriteHeader(code int)        { w.code = code }

// FuzzSessionCookie sends arbitrary Cookie headers to a signed-in endpoint
// and to a Guard: only a token signed with the panel's key is a session
// (the fuzzer cannot forge one), and nothing answers 5xx.
func FuzzSessionCookie(f *testing.F) {
	p := newFuzzPanel(f)
	sign := func(c token.Claims, method jwt.SigningMethod, key any) string {
		c.IssuedAt = jwt.NewNumericDate(time.Now())
		c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
		s, err := jwt.NewWithClaims(method, c).SignedString(key)
		if err != nil {
			f.Fatal(err)
		}
		return s
	}
	reset, err := signer().Sign(token.Claims{UserID: p.adminID, Kind: token.KindReset}, time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"game_admin_session=" + p.cookie,
		"game_admin_session=" + reset,
		"game_admin_session=" + sign(token.Claims{UserID: p.adminID, Kind: token.KindSession}, jwt.SigningMethodHS512, testSecret),
		"game_admin_session=" + sign(token.Claims{UserID: p.adminID, Kind: token.KindSession}, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType),
		"game_admin_session=" + sign(token.Claims{UserID: p.adminID, Kind: token.KindSession}, jwt.SigningMethodHS256, []byte("another key, 32 bytes at least....")),
		"game_admin_session=" + sign(token.Claims{UserID: p.adminID, Kind: token.KindSession, TV: 7}, jwt.SigningMethodHS256, testSecret),
		"game_admin_session=" + sign(token.Claims{UserID: "nobody", Kind: token.KindSession}, jwt.SigningMethodHS256, testSecret),
		"a=b; game_admin_session=" + p.cookie + "; game_admin_session=x",
		"game_admin_session=", "game_admin_session=a.b.c", "=;;", `game_admin_session="` + p.cookie + `"`,
	} {
		f.Add(s)
	}
	guard := p.a.Guard(GuardOptions{Role: RoleUser, APIOnly: true})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op, _ := OperatorFrom(r.Context())
		_, _ = io.WriteString(w, op.UserID)
	}))
	f.Fuzz(func(t *testing.T, cookie string) {
		req := httptest.NewRequest("GET", "http://panel.test/admin-api/auth/me", nil)
		req.Header.Set("Cookie", cookie)
		signed := false
		if ck, err := req.Cookie(sessionCookieName); err == nil {
			if c, err := signer().Parse(ck.Value, token.KindSession); err == nil {
				// Seeds come from the coordinating process too, whose
				// admin has another id: only the kind is certain.
				if c.Kind != token.KindSession || c.UserID == "" {
					t.Fatalf("parseToken accepted %q as %+v", ck.Value, c)
				}
				signed = true
			}
		}
		rec := p.serve("GET", "/admin-api/auth/me", "", cookie)
		p.checkAnswer(t, "GET /auth/me with Cookie "+cookie, rec)
		if rec.Code == 200 && !signed {
			t.Fatalf("Cookie %q signed in without a token of the panel's key", cookie)
		}
		if rec.Code != 200 && rec.Code != 401 {
			t.Fatalf("GET /auth/me with Cookie %q = %d; want 200 or 401", cookie, rec.Code)
		}
		grec := httptest.NewRecorder()
		guard.ServeHTTP(grec, req)
		if grec.Code >= 500 || grec.Code == 200 && !signed {
			t.Fatalf("Guard with Cookie %q = %d %s", cookie, grec.Code, grec.Body)
		}
	})
}

// sessionCookieName is the default SessionOptions.CookieName: a test that
// reads it fails if the default changes.
const sessionCookieName = "game_admin_session"

// signer signs as a panel on testSecret at the default API path, so tests
// can forge the tokens a panel would issue (and ones it must refuse).
func signer() *token.Signer {
	return &token.Signer{Secret: testSecret, Audience: "/admin-api", AcceptNoAudience: true}
}

// signed is a token of c valid for ttl (negative: already expired).
func signed(t testing.TB, c token.Claims, ttl time.Duration) string {
	t.Helper()
	s, err := signer().Sign(c, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
