package admintest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/token"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestResetOperatorsOnly: players and operators in one users table. With
// ResetOperatorsOnly a player's, an operator's and an unknown email's
// requests are answered alike, and only the operator's link is sent, with
// its role; without it the player's link is sent too, marked RoleUser.
func TestResetOperatorsOnly(t *testing.T) {
	t.Parallel()
	for _, only := range []bool{true, false} {
		// Subtests named apart: a repeated name gets "#01", and a '#' in
		// the SQLite file's URI would cut its path.
		name := map[bool]string{true: "operators-only", false: "everyone"}[only]
		t.Run(name, func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, db *bun.DB) {
				got := make(chan ResetRequest, 8)
				e := newEnv(t, db, Options{ResetOperatorsOnly: only,
					OnResetRequest: func(_ context.Context, req ResetRequest) error {
						got <- req
						return nil
					}})
				ctx := context.Background()
				modID := e.user("mod@example.com", "mod password")
				if err := e.admin.Moderation().SetRole(ctx, modID, RoleMod); err != nil {
					t.Fatal(err)
				}
				playerID := e.user("player@example.com", "player password")

				var answers []string
				for _, email := range []string{"mod@example.com", "player@example.com", "nobody@example.com"} {
					r := e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": email}).want(t, 200)
					answers = append(answers, string(r.raw)+"|"+r.Header.Get("Content-Type")+"|"+r.Header.Get("Content-Length"))
				}
				if answers[0] != answers[1] || answers[1] != answers[2] {
					t.Fatalf("ResetOperatorsOnly=%v: answers differ: %q", only, answers)
				}
				e.admin.Close() // waits for the deliveries
				close(got)
				byUser := map[string]ResetRequest{}
				for req := range got {
					byUser[req.UserID] = req
				}
				if req, ok := byUser[modID]; !ok || req.Role != RoleMod {
					t.Fatalf("ResetOperatorsOnly=%v: mod's request = %+v, %v; want a link with RoleMod", only, req, ok)
				}
				req, sent := byUser[playerID]
				if sent == only || (sent && req.Role != RoleUser) {
					t.Fatalf("ResetOperatorsOnly=%v: player's link sent = %v (%+v)", only, sent, req)
				}
				waitFor(t, func() bool { return len(e.auditRows("auth.password_reset_requested")) >= 3 })
				var skipped int
				for _, row := range e.auditRows("auth.password_reset_requested") {
					if row.Payload["delivered"] == false {
						skipped++
						if row.TargetID != playerID || row.Payload["reason"] != "not_an_operator" {
							t.Fatalf("skipped row = %+v; want the player's", row)
						}
					}
				}
				if want := map[bool]int{true: 1, false: 0}[only]; skipped != want {
					t.Fatalf("ResetOperatorsOnly=%v: %d undelivered rows; want %d", only, skipped, want)
				}
			})
		})
	}
}

// TestPasswordReset walks a reset link from request to use: one use,
// fifteen minutes, every session ended.
func TestPasswordReset(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		got := make(chan ResetRequest, 4)
		e := newEnv(t, db, Options{OnResetRequest: func(ctx context.Context, req ResetRequest) error {
			got <- req
			return nil
		}})
		id := e.user("p@example.com", "old password")
		old := e.login("p@example.com", "old password")

		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{}).want(t, 400, "missing_field")
		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "nobody@example.com"}).want(t, 200)
		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "P@example.com"}).want(t, 200)
		var req ResetRequest
		select {
		case req = <-got:
		case <-time.After(30 * time.Second):
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
		sess := signed(t, token.Claims{UserID: id, TV: 1, Kind: token.KindSession}, time.Hour)
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": sess, "password": "new password 2"}).want(t, 400, "invalid_token")
		_, hash, tv := e.account(id)
		expired := signed(t, token.Claims{UserID: id, TV: tv, Kind: token.KindReset, PW: signer().PasswordFingerprint(hash)}, -time.Second)
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": expired, "password": "new password 2"}).want(t, 400, "invalid_token")

		waitFor(t, func() bool { return len(e.auditRows("auth.password_reset_requested")) == 2 })
		if n := len(e.auditRows("auth.password_reset_completed")); n != 1 {
			t.Fatalf("auth.password_reset_completed rows = %d; want 1", n)
		}
	})
}

func TestPasswordResetDefaultLogsLink(t *testing.T) {
	t.Parallel()
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
