package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/token"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

func TestSessionsView(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestAccountAuditInSameTx: a change of one's own account (password,
// second factor, recovery codes), a password reset and an admin's TOTP
// reset write their audit entry in the change's transaction, so a failed
// entry answers 500 and leaves the account as it was.
func TestAccountAuditInSameTx(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, clk := totpEnv(t, db, Options{})
		ctx := context.Background()
		root, rootID := e.bootstrap()
		auditAway := func(away bool) {
			t.Helper()
			from, to := "game_admin_audit", "audit_away"
			if !away {
				from, to = to, from
			}
			if _, err := db.ExecContext(ctx, "ALTER TABLE "+from+" RENAME TO "+to); err != nil {
				t.Fatal(err)
			}
		}
		const cause = "game_admin_audit"
		resetToken := func(id string) string {
			_, hash, tv := e.account(id)
			return signed(t, token.Claims{UserID: id, TV: tv, Kind: token.KindReset, PW: signer().PasswordFingerprint(hash)}, time.Minute)
		}
		uid := e.user("p@example.com", "old password")

		pending := root.do("POST", "/admin-api/auth/totp/enroll", nil).want(t, 200)
		auditAway(true)
		want5xx(t, e, root.do("POST", "/admin-api/auth/totp/confirm", map[string]any{"code": code(t, pending.body["secret"].(string), clk.now())}), 500, "internal", cause)
		want5xx(t, e, root.do("POST", "/admin-api/auth/password", map[string]any{"current": "correct horse", "new": "battery staple"}), 500, "internal", cause)
		want5xx(t, e, e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": resetToken(uid), "password": "new password"}), 500, "internal", cause)
		auditAway(false)
		if r := root.do("GET", "/admin-api/auth/totp", nil).want(t, 200); r.body["enabled"] != false || r.body["recoveryCodesLeft"] != float64(0) {
			t.Fatalf("GET /auth/totp after a failed confirm = %s; want off, no recovery codes", r.raw)
		}
		root.do("GET", "/admin-api/auth/me", nil).want(t, 200) // token version not bumped
		e.login("root@example.com", "correct horse")           // password unchanged
		e.login("p@example.com", "old password")               // reset not applied

		clk.add(30 * time.Second)
		secret, codes := enrol(t, root, clk)
		var before []recoveryCode
		if err := db.NewSelect().Model(&before).Where("user_id = ?", rootID).Order("code_hash").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		auditAway(true)
		want5xx(t, e, root.do("POST", "/admin-api/auth/totp/disable", map[string]any{"password": "correct horse"}), 500, "internal", cause)
		want5xx(t, e, root.do("POST", "/admin-api/users/"+rootID+"/totp/reset", nil), 500, "internal", cause)
		clk.add(30 * time.Second)
		want5xx(t, e, root.do("POST", "/admin-api/auth/totp/recovery-codes", map[string]any{"code": code(t, secret, clk.now())}), 500, "internal", cause)
		auditAway(false)
		var after []recoveryCode
		if err := db.NewSelect().Model(&after).Where("user_id = ?", rootID).Order("code_hash").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(after) != len(codes) || fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("recovery codes changed by failed requests: %v; want %v", after, before)
		}
		if r := root.do("GET", "/admin-api/auth/totp", nil).want(t, 200); r.body["enabled"] != true {
			t.Fatalf("GET /auth/totp after failed disable and reset = %s; want on", r.raw)
		}
		for _, action := range []string{"auth.totp_enabled", "auth.totp_disabled", "auth.recovery_codes_regenerated", "auth.password_changed", "auth.password_reset_completed", "user.totp_reset"} {
			want := 0
			if action == "auth.totp_enabled" {
				want = 1 // the enrolment after the table came back
			}
			if n := len(e.auditRows(action)); n != want {
				t.Fatalf("%s rows = %d; want %d", action, n, want)
			}
		}
	})
}
