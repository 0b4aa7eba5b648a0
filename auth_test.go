package admin

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

func TestBootstrapAndStatus(t *testing.T) {
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		anon := e.client()
		st := anon.do("GET", "/admin-api/auth/status", nil).want(t, 200)
		if st.body["needsBootstrap"] != true || st.body["authenticated"] != false || st.body["userId"] != nil || st.body["role"] != nil {
			t.Fatalf("status before bootstrap = %s", st.raw)
		}
		anon.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "a@example.com", "password": "short"}).want(t, 400, "password_too_short")

		c := e.client()
		r := c.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": " Root@Example.com ", "password": "correct horse", "displayName": "Root"}).want(t, 201)
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
		if me.body["email"] != "root@example.com" || me.body["displayName"] != "Root" || me.body["role"] != "admin" {
			t.Fatalf("me = %s", me.raw)
		}
		// Refused once an admin exists, whoever asks.
		e.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "b@example.com", "password": "correct horse"}).want(t, 403, "bootstrap_closed")
		if n := len(e.auditRows("auth.bootstrap")); n != 1 {
			t.Fatalf("auth.bootstrap audit rows = %d; want 1", n)
		}
	})
}

func TestBootstrapPromotesExistingUser(t *testing.T) {
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		id := e.user("player@example.com", "player password")
		// The existing account's own password is required.
		e.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "player@example.com", "password": "not the password"}).want(t, 401, "invalid_credentials")
		r := e.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "player@example.com", "password": "player password"}).want(t, 201)
		if r.body["userId"] != id {
			t.Fatalf("bootstrap userId = %v; want the existing %s", r.body["userId"], id)
		}
	})
}

func TestLogin(t *testing.T) {
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
		failed := e.auditRows("auth.login_failed")
		if len(failed) != 2 {
			t.Fatalf("auth.login_failed rows = %d; want 2", len(failed))
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

// TestSessionTransitions walks SEED.md 3.2 row by row.
func TestSessionTransitions(t *testing.T) {
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

// TestPasswordReset walks SEED.md 3.3 and 5.1.
func TestPasswordReset(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		got := make(chan ResetRequest, 4)
		e := newEnv(t, db, Options{OnResetRequest: func(ctx context.Context, req ResetRequest) error {
			got <- req
			return nil
		}})
		ctx := context.Background()
		id := e.user("p@example.com", "old password")
		old := e.login("p@example.com", "old password")

		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{}).want(t, 400, "missing_field")
		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "nobody@example.com"}).want(t, 200)
		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "P@example.com"}).want(t, 200)
		var req ResetRequest
		select {
		case req = <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("OnResetRequest was not called")
		}
		select {
		case extra := <-got:
			t.Fatalf("OnResetRequest called for an unknown email: %+v", extra)
		default:
		}
		if req.UserID != id || req.Email != "p@example.com" || req.URL != "/admin/reset?token="+req.Token || req.Token == "" {
			t.Fatalf("ResetRequest = %+v", req)
		}
		// A reset token is not a session.
		forged := e.client()
		forged.hdr.Set("Cookie", sessionCookieName+"="+req.Token)
		forged.do("GET", "/admin-api/auth/me", nil).want(t, 401)

		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "short"}).want(t, 400, "password_too_short")
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": "garbage", "password": "new password"}).want(t, 400, "invalid_token")
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token}).want(t, 400, "missing_field")
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "new password"}).want(t, 200)
		old.do("GET", "/admin-api/auth/me", nil).want(t, 401) // every session ended
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "old password"}).want(t, 401)
		e.login("p@example.com", "new password")
		// Single use.
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "third password"}).want(t, 400, "invalid_token")

		// A session token is not a reset token; an expired reset token fails.
		sess, _ := e.admin.signToken(claims{UserID: id, TV: 1, Kind: kindSession}, time.Hour)
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": sess, "password": "new password 2"}).want(t, 400, "invalid_token")
		acc, _ := e.admin.users.accountByID(ctx, e.db, id)
		expired, _ := e.admin.signToken(claims{UserID: id, TV: acc.TokenVersion, Kind: kindReset, PW: e.admin.passwordFingerprint(acc.PasswordHash)}, -time.Second)
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": expired, "password": "new password 2"}).want(t, 400, "invalid_token")

		waitFor(t, func() bool { return len(e.auditRows("auth.password_reset_requested")) == 2 })
		if n := len(e.auditRows("auth.password_reset_completed")); n != 1 {
			t.Fatalf("auth.password_reset_completed rows = %d; want 1", n)
		}
	})
}

func TestPasswordResetDefaultLogsLink(t *testing.T) {
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		e.user("p@example.com", "old password")
		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "p@example.com"}).want(t, 200)
		e.admin.Close() // waits for the background delivery
		if !strings.Contains(e.logs.String(), `url="/admin/reset?token=`) {
			t.Fatalf("log has no reset link:\n%s", e.logs)
		}
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "old password"}).want(t, 503, "closed")
	})
}

// Player is a game's own users model without ban or token_version.
type Player struct {
	ID           int64  `bun:"id,pk,autoincrement"`
	Email        string `bun:"email,notnull,unique"`
	PasswordHash string `bun:"password_hash,nullzero"`
}

func TestUsersTableWithoutOptionalColumns(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := db.NewCreateTable().Model((*Player)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		tables := BuiltinTables()
		tables["users"] = (*Player)(nil)
		got := make(chan ResetRequest, 1)
		e := newEnv(t, db, Options{Tables: tables, OnResetRequest: func(_ context.Context, r ResetRequest) error { got <- r; return nil }})
		id := e.user("p@example.com", "player password")
		if id != "1" {
			t.Fatalf("created id = %q; want 1", id)
		}
		c := e.login("p@example.com", "player password")
		if r := c.do("GET", "/admin-api/auth/me", nil).want(t, 200); r.body["userId"] != "1" || r.body["displayName"] != "" {
			t.Fatalf("me = %s", r.raw)
		}
		c.do("POST", "/admin-api/auth/logout-everywhere", nil).want(t, 501, "unsupported")
		if err := e.admin.Auth().Ban(ctx, id, BanInfo{}); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("Ban = %v; want ErrUnsupported", err)
		}
		if err := e.admin.Auth().BumpTokenVersion(ctx, id); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("BumpTokenVersion = %v; want ErrUnsupported", err)
		}
		// Reset tokens stay single-use: they are bound to the old hash.
		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "p@example.com"}).want(t, 200)
		req := <-got
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "new password"}).want(t, 200)
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "newer password"}).want(t, 400, "invalid_token")
		e.login("p@example.com", "new password")
	})
}

func TestUsersTableMustHaveSignInColumns(t *testing.T) {
	type NoPassword struct {
		ID    int64  `bun:"id,pk"`
		Email string `bun:"email"`
	}
	db := testdb.SQLite(t)
	tables := BuiltinTables()
	tables["users"] = (*NoPassword)(nil)
	if _, err := New(db, Options{Secret: testSecret, Tables: tables}); err == nil || !strings.Contains(err.Error(), "password_hash") {
		t.Fatalf("New with a users table without password_hash = %v; want an error naming it", err)
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
