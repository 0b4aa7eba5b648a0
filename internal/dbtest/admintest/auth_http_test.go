package admintest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

func TestBootstrapAndStatus(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		anon := e.client()
		st := anon.do("GET", "/admin-api/auth/status", nil).want(t, 200)
		if st.body["needsBootstrap"] != true || st.body["authenticated"] != false || st.body["userId"] != nil || st.body["role"] != nil {
			t.Fatalf("status before bootstrap = %s", st.raw)
		}
		anon.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "a@example.com", "password": "short"}).want(t, 400, "password_too_short")

		c := e.client()
		r := c.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": " Root@Example.com ", "password": "correct horse", "displayName": "Root", "token": e.setupToken()}).want(t, 201)
		if r.body["role"] != "admin" || r.body["userId"] == "" {
			t.Fatalf("bootstrap = %s", r.raw)
		}
		if r.cookie(sessionCookieName) == nil {
			t.Fatal("bootstrap set no session cookie")
		}
		st = c.do("GET", "/admin-api/auth/status", nil).want(t, 200)
		if st.body["needsBootstrap"] != false || st.body["authenticated"] != true || st.body["userId"] != r.body["userId"] || st.body["role"] != "admin" {
			t.Fatalf("status after bootstrap = %s", st.raw)
		}
		me := c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if me.body["email"] != "Root@Example.com" || me.body["displayName"] != "Root" || me.body["role"] != "admin" {
			t.Fatalf("me = %s", me.raw)
		}
		if f := me.body["features"]; !reflect.DeepEqual(f, map[string]any{"ban": true, "revokeSessions": true, "email": true, "rooms": false, "reports": false}) {
			t.Fatalf("features = %v; want ban and revokeSessions, no rooms, no reports", f)
		}
		// Refused once an admin exists, whoever asks.
		e.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "b@example.com", "password": "correct horse"}).want(t, 403, "bootstrap_closed")
		if n := len(e.auditRows("auth.bootstrap")); n != 1 {
			t.Fatalf("auth.bootstrap audit rows = %d; want 1", n)
		}
	})
}

func TestBootstrapPromotesExistingUser(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		id := e.user("player@example.com", "player password")
		// The existing account's own password is required.
		e.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "player@example.com", "password": "not the password", "token": e.setupToken()}).want(t, 401, "invalid_credentials")
		r := e.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "player@example.com", "password": "player password", "token": e.setupToken()}).want(t, 201)
		if r.body["userId"] != id {
			t.Fatalf("bootstrap userId = %v; want the existing %s", r.body["userId"], id)
		}
	})
}

func TestLogin(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		e.bootstrap()
		id := e.user("mod@example.com", "mod password")
		if err := e.admin.Moderation().AssignMod(context.Background(), id, "users"); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name     string
			body     any
			status   int
			code     string
			wantRole string
		}{
			{"ok", map[string]any{"email": "mod@example.com", "password": "mod password"}, 200, "", "mod"},
			{"email case and spaces", map[string]any{"email": " MOD@example.com", "password": "mod password"}, 200, "", "mod"},
			{"wrong password", map[string]any{"email": "mod@example.com", "password": "nope nope"}, 401, "invalid_credentials", ""},
			{"unknown email", map[string]any{"email": "ghost@example.com", "password": "mod password"}, 401, "invalid_credentials", ""},
			{"missing email", map[string]any{"password": "x"}, 400, "missing_field", ""},
			{"missing password", map[string]any{"email": "mod@example.com"}, 400, "missing_field", ""},
			{"password wrong type", map[string]any{"email": "mod@example.com", "password": 12345678}, 400, "invalid_value", ""},
			{"unknown field", map[string]any{"email": "mod@example.com", "password": "mod password", "admin": true}, 400, "unknown_field", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := e.client()
				r := c.do("POST", "/admin-api/auth/login", tt.body)
				if tt.code != "" {
					r.want(t, tt.status, tt.code)
					if r.cookie(sessionCookieName) != nil {
						t.Fatal("a failed login set a cookie")
					}
					return
				}
				r.want(t, tt.status)
				if r.body["role"] != tt.wantRole || r.body["userId"] != id {
					t.Fatalf("login = %s; want role %s", r.raw, tt.wantRole)
				}
				c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
			})
		}
		// Audit: failures carry the attempted email, ip and user agent; the
		// unknown email has no operator.
		waitFor(t, func() bool { return len(e.auditRows("auth.login_failed")) == 2 })
		failed := e.auditRows("auth.login_failed")
		if failed[0].OperatorID == "" {
			failed[0], failed[1] = failed[1], failed[0] // written in the background, in either order
		}
		if failed[0].OperatorID != id || failed[0].Payload["email"] != "mod@example.com" || failed[0].Payload["ip"] != "127.0.0.1" || !strings.HasPrefix(failed[0].Payload["userAgent"].(string), "Go-http-client") {
			t.Fatalf("login_failed (known email) = %+v", failed[0])
		}
		if failed[1].OperatorID != "" || failed[1].Payload["email"] != "ghost@example.com" {
			t.Fatalf("login_failed (unknown email) = %+v", failed[1])
		}
		if n := len(e.auditRows("auth.login")); n != 2 {
			t.Fatalf("auth.login rows = %d; want 2", n)
		}
	})
}

func TestLoginBanned(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		ctx := context.Background()
		id := e.user("cheater@example.com", "cheater password")
		if err := e.admin.Auth().Ban(ctx, id, BanInfo{Reason: "aimbot"}); err != nil {
			t.Fatal(err)
		}
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "cheater@example.com", "password": "cheater password"}).want(t, 403, "banned")
		// A wrong password does not reveal the ban.
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "cheater@example.com", "password": "wrong password"}).want(t, 401, "invalid_credentials")
		if _, err := e.admin.Auth().Authenticate(ctx, "cheater@example.com", "cheater password"); !errors.Is(err, ErrBanned) {
			t.Fatalf("Authenticate(banned) = %v; want ErrBanned", err)
		}
		// A ban whose end has passed no longer blocks sign-in.
		past := time.Now().Add(-time.Minute)
		if err := e.admin.Auth().Ban(ctx, id, BanInfo{Reason: "timeout", Until: &past}); err != nil {
			t.Fatal(err)
		}
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "cheater@example.com", "password": "cheater password"}).want(t, 200)
		future := time.Now().Add(time.Hour)
		if err := e.admin.Auth().Ban(ctx, id, BanInfo{Until: &future}); err != nil {
			t.Fatal(err)
		}
		if b, err := e.admin.Auth().Banned(ctx, id); err != nil || b == nil || !b.Until.Equal(future.Truncate(time.Second)) && b.Until.Sub(future).Abs() > time.Millisecond {
			t.Fatalf("Banned = %+v, %v; want a ban until %v", b, err, future)
		}
		if err := e.admin.Auth().Unban(ctx, id); err != nil {
			t.Fatal(err)
		}
		if b, err := e.admin.Auth().Banned(ctx, id); err != nil || b != nil {
			t.Fatalf("Banned after Unban = %+v, %v; want nil", b, err)
		}
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "cheater@example.com", "password": "cheater password"}).want(t, 200)
	})
}

// TestClockEndsBans: Options.Clock is the time a ban ends by (sign-in,
// Banned, UserStates); a new ban's end must be ahead of it, for one user
// or a selection, and a ban is dated by it.
func TestClockEndsBans(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		clk := &clock{}
		clk.set(time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC))
		e := newEnv(t, db, Options{Clock: clk.now})
		root, _ := e.bootstrap()
		id := e.user("p@example.com", "player password")
		banned := func() bool {
			t.Helper()
			b := must(e.admin.Auth().Banned(ctx, id))
			st := must(e.admin.Auth().UserStates(ctx, []string{id}))
			_, err := e.admin.Auth().Authenticate(ctx, "p@example.com", "player password")
			if (b != nil) != st[id].Banned || (b != nil) != errors.Is(err, ErrBanned) || err != nil && !errors.Is(err, ErrBanned) {
				t.Fatalf("Banned %+v, UserStates %+v, Authenticate %v: they disagree", b, st[id], err)
			}
			return b != nil
		}
		// An end the real time has not reached, but the panel's clock has.
		root.do("POST", "/admin-api/users/"+id+"/ban", map[string]any{"until": time.Now().Add(time.Hour)}).want(t, 400, "invalid_value")
		root.do("POST", "/admin-api/users/_bulk/ban", map[string]any{"ids": []string{id}, "until": time.Now().Add(time.Hour)}).want(t, 400, "invalid_value")
		root.do("POST", "/admin-api/users/"+id+"/ban", map[string]any{"reason": "cooling off", "until": clk.at(time.Hour)}).want(t, 200)
		if b := must(e.admin.Auth().Banned(ctx, id)); b == nil || !b.BannedAt.Equal(clk.now()) {
			t.Fatalf("ban = %+v; want one dated %v, the clock's", b, clk.now())
		}
		if !banned() {
			t.Fatal("the ban is not in force before its end")
		}
		clk.add(2 * time.Hour)
		if banned() {
			t.Fatal("the ban is in force after its end, by the clock")
		}
	})
}

// TestSessionTransitions walks a session's states (signed out, in,
// revoked, expired) one change at a time.
func TestSessionTransitions(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		ctx := context.Background()
		root, rootID := e.bootstrap()

		t.Run("logout clears the cookie but the token stays valid", func(t *testing.T) {
			c := e.login("root@example.com", "correct horse")
			tok := c.jar.Cookies(mustURL(e.srv.URL))[0].Value
			r := c.do("POST", "/admin-api/auth/logout", nil).want(t, 200)
			if ck := r.cookie(sessionCookieName); ck == nil || ck.MaxAge >= 0 || ck.Value != "" {
				t.Fatalf("logout cookie = %+v; want it cleared", ck)
			}
			c.do("GET", "/admin-api/auth/me", nil).want(t, 401, "unauthenticated")
			replay := e.client()
			replay.hdr.Set("Cookie", sessionCookieName+"="+tok)
			replay.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		})
		t.Run("logout-everywhere ends every session", func(t *testing.T) {
			other := e.login("root@example.com", "correct horse")
			c := e.login("root@example.com", "correct horse")
			c.do("POST", "/admin-api/auth/logout-everywhere", nil).want(t, 200)
			other.do("GET", "/admin-api/auth/me", nil).want(t, 401, "unauthenticated")
			root.do("GET", "/admin-api/auth/me", nil).want(t, 401, "unauthenticated")
			root = e.login("root@example.com", "correct horse")
		})
		t.Run("BumpTokenVersion ends earlier sessions only", func(t *testing.T) {
			id := e.user("p@example.com", "player password")
			before := e.login("p@example.com", "player password")
			if err := e.admin.Auth().BumpTokenVersion(ctx, id); err != nil {
				t.Fatal(err)
			}
			before.do("GET", "/admin-api/auth/me", nil).want(t, 401)
			e.login("p@example.com", "player password").do("GET", "/admin-api/auth/me", nil).want(t, 200)
		})
		t.Run("ban ends sessions", func(t *testing.T) {
			id := e.user("b@example.com", "player password")
			c := e.login("b@example.com", "player password")
			if err := e.admin.Auth().Ban(ctx, id, BanInfo{Reason: "x"}); err != nil {
				t.Fatal(err)
			}
			c.do("GET", "/admin-api/auth/me", nil).want(t, 401)
		})
		t.Run("demotion keeps the session with the new role", func(t *testing.T) {
			id := e.user("m@example.com", "mod password")
			if err := e.admin.Moderation().SetRole(ctx, id, RoleAdmin); err != nil {
				t.Fatal(err)
			}
			c := e.login("m@example.com", "mod password")
			if r := c.do("GET", "/admin-api/auth/me", nil).want(t, 200); r.body["role"] != "admin" {
				t.Fatalf("role = %v; want admin", r.body["role"])
			}
			if err := e.admin.Moderation().SetRole(ctx, id, RoleUser); err != nil {
				t.Fatal(err)
			}
			if r := c.do("GET", "/admin-api/auth/me", nil).want(t, 200); r.body["role"] != "user" {
				t.Fatalf("role after demotion = %v; want user", r.body["role"])
			}
		})
		t.Run("deleted user", func(t *testing.T) {
			id := e.user("gone@example.com", "gone password")
			c := e.login("gone@example.com", "gone password")
			if _, err := e.db.NewDelete().Model((*User)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			c.do("GET", "/admin-api/auth/me", nil).want(t, 401)
		})
		if n := len(e.auditRows("auth.logout")); n != 2 {
			t.Fatalf("auth.logout rows = %d; want 2", n)
		}
		_ = rootID
	})
}

// Player is a game's own users model without ban or token_version.
type Player struct {
	ID           int64  `bun:"id,pk,autoincrement"`
	Email        string `bun:"email,notnull,unique"`
	PasswordHash string `bun:"password_hash,nullzero"`
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// waitFor polls cond until it holds. Its 30 s are only spent when cond
// never holds: the wait ends as soon as it does, however loaded the machine.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBootstrapExtraNotNullColumn: bootstrap into a users table with a NOT
// NULL column of the game's answers 400 naming the column and writes
// nothing; with the users resource's Create.Defaults filling it, bootstrap
// and POST /users succeed. A required display name comes from the email.
// Without ban and token version columns, /auth/me tells the UI not to
// offer what would answer 501.
func TestBootstrapExtraNotNullColumn(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*regionPlayer)(nil))
		opts := Options{Tables: tablesWith(map[string]any{"users": (*regionPlayer)(nil)}), UserColumns: UserColumns{PasswordHash: "pw_hash", DisplayName: "nickname"}}
		e := newEnv(t, db, opts)
		r := e.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse", "token": e.setupToken()}).want(t, 400, "missing_value")
		if !contains(string(r.raw), "region") {
			t.Fatalf("bootstrap = %s; want the column named", r.raw)
		}
		if n := count(t, db, (*regionPlayer)(nil)); n != 0 {
			t.Fatalf("%d players after a refused bootstrap; want none", n)
		}

		opts.Resources = map[string]*Resource{"users": DefineResource((*regionPlayer)(nil), ResourceConfig{
			Create: CreateConfig{Defaults: func(context.Context, DefaultsContext) (map[string]any, error) {
				return map[string]any{"region": "eu"}, nil
			}},
		})}
		e = newEnv(t, db, opts)
		c, id := e.bootstrap()
		if got := c.do("GET", "/admin-api/users/"+id, nil).want(t, 200).body; got["region"] != "eu" || got["nickname"] != "root" {
			t.Fatalf("the first admin = %v; want region eu from Create.Defaults, nickname root from the email", got)
		}
		if got := c.do("POST", "/admin-api/users", map[string]any{"email": "p@example.com", "nickname": "P"}).want(t, 201).body; got["region"] != "eu" {
			t.Fatalf("POST /users = %v; want region eu", got)
		}
		me := c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if f := me.body["features"]; !reflect.DeepEqual(f, map[string]any{"ban": false, "revokeSessions": false, "email": true, "rooms": false, "reports": false}) {
			t.Fatalf("features = %v; want none but email", f)
		}
		c.do("POST", "/admin-api/auth/logout-everywhere", nil).want(t, 501, "unsupported")
	})
}

// TestStatusWithCatalog: GET /auth/status?with=catalog carries the catalog
// GET /admin-api answers, for operators only, so the UI's first data is
// one round trip away from the list.
func TestStatusWithCatalog(t *testing.T) {
	t.Parallel()
	e := gadgetEnv(t, testdb.SQLite(t), Options{}, false)
	c := e.crew("gadgets")

	catalogOf := func(cl *client) json.RawMessage {
		t.Helper()
		r := cl.do("GET", "/admin-api/auth/status?with=catalog", nil).want(t, 200)
		var body struct {
			Authenticated bool            `json:"authenticated"`
			Catalog       json.RawMessage `json:"catalog"`
		}
		if err := json.Unmarshal(r.raw, &body); err != nil {
			t.Fatal(err)
		}
		return body.Catalog
	}
	for _, cl := range []*client{c.admin, c.modScoped} {
		got := catalogOf(cl)
		want := cl.do("GET", "/admin-api", nil).want(t, 200).raw
		if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
			t.Errorf("status catalog = %s\nwant %s", got, want)
		}
	}
	if got := catalogOf(c.user); got != nil {
		t.Errorf("a plain user got a catalog: %s", got)
	}
	if got := catalogOf(c.anon); got != nil {
		t.Errorf("an anonymous client got a catalog: %s", got)
	}
	// Without ?with=catalog the answer is as before.
	r := c.admin.do("GET", "/admin-api/auth/status", nil).want(t, 200)
	if _, ok := r.body["catalog"]; ok {
		t.Errorf("plain status carries a catalog: %s", r.raw)
	}
}

// TestStatusCatalogNeedsTOTP: an operator who must enrol a second factor
// gets no catalog from the status either.
func TestStatusCatalogNeedsTOTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{RequireTOTP: TOTPAdmins})
	c, _ := e.bootstrap()
	c.do("GET", "/admin-api", nil).want(t, 403, "totp_enrollment_required")
	r := c.do("GET", "/admin-api/auth/status?with=catalog", nil).want(t, 200)
	if _, ok := r.body["catalog"]; ok || r.body["authenticated"] != true {
		t.Errorf("status = %s; want authenticated without a catalog", r.raw)
	}
}
