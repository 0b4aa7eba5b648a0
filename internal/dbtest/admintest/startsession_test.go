package admintest

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// denyAll is a limiter that refuses everything.
type denyAll struct{}

func (denyAll) Allow(context.Context, string) (bool, time.Duration, error) {
	return false, time.Minute, nil
}

// TestStartSession signs users in through a game's own callback: a
// session like the panel's, audited as external, no rate limit, bans
// refused, and the panel's second factor still asked for.
func TestStartSession(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		// Every password sign-in is rate limited: StartSession is not.
		opts := Options{RateLimit: RateLimitOptions{PerIP: denyAll{}, Login: denyAll{}}}
		var callbackErr error
		e, clk := totpEnv(t, db, opts, func(a *Admin, mux *http.ServeMux) {
			// The game's SSO callback, with the user it has authenticated.
			mux.HandleFunc("GET /sso/callback", func(w http.ResponseWriter, r *http.Request) {
				// ?mfa=1 stands for an identity provider that says it
				// checked a second factor for this sign-in.
				callbackErr = a.Auth().StartSession(w, r, r.URL.Query().Get("user"), ExternalSignIn{SecondFactor: r.URL.Query().Get("mfa") == "1"})
				switch {
				case errors.Is(callbackErr, ErrSecondFactorRequired):
					http.Redirect(w, r, a.SecondFactorURL("/lobby"), http.StatusFound)
				case callbackErr != nil:
					http.Error(w, "sign-in refused", http.StatusForbidden)
				default:
					http.Redirect(w, r, "/lobby", http.StatusFound)
				}
			})
		})
		rootID := e.user("root@example.com", "correct horse")
		if err := e.admin.Moderation().SetRole(ctx, rootID, RoleAdmin); err != nil {
			t.Fatal(err)
		}
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 429)

		c := e.client()
		r := c.do("GET", "/sso/callback?user="+rootID, nil).want(t, 302)
		if callbackErr != nil || r.Header.Get("Location") != "/lobby" || r.cookie(sessionCookieName) == nil {
			t.Fatalf("callback: err %v, Location %q, cookies %v; want a session", callbackErr, r.Header.Get("Location"), r.Cookies())
		}
		if me := c.do("GET", "/admin-api/auth/me", nil).want(t, 200); me.body["userId"] != rootID || me.body["role"] != "admin" {
			t.Fatalf("me = %s", me.raw)
		}
		logins := e.auditRows("auth.login")
		if len(logins) != 1 || logins[0].OperatorID != rootID || logins[0].Payload["method"] != "external" || logins[0].Payload["ip"] == nil {
			t.Fatalf("auth.login rows = %+v; want one external sign-in with ip", logins)
		}

		// Unknown and banned users get no cookie.
		r = e.client().do("GET", "/sso/callback?user=no-such-user", nil).want(t, 403)
		if !errors.Is(callbackErr, ErrNotFound) || r.cookie(sessionCookieName) != nil {
			t.Fatalf("unknown user: err %v, cookies %v", callbackErr, r.Cookies())
		}
		playerID := e.user("player@example.com", "player password")
		if err := e.admin.Auth().Ban(ctx, playerID, BanInfo{Reason: "cheating"}); err != nil {
			t.Fatal(err)
		}
		r = e.client().do("GET", "/sso/callback?user="+playerID, nil).want(t, 403)
		if !errors.Is(callbackErr, ErrBanned) || r.cookie(sessionCookieName) != nil {
			t.Fatalf("banned user: err %v, cookies %v", callbackErr, r.Cookies())
		}
		if rows := e.auditRows("auth.login_failed"); len(rows) != 1 || rows[0].Payload["reason"] != "banned" || rows[0].Payload["method"] != "external" {
			t.Fatalf("auth.login_failed rows = %+v; want the banned external sign-in", rows)
		}

		// With TOTP on, the callback leads to the panel's code step.
		secret, _ := enrol(t, c, clk)
		clk.add(30 * time.Second)
		c2 := e.client()
		r = c2.do("GET", "/sso/callback?user="+rootID, nil).want(t, 302)
		if !errors.Is(callbackErr, ErrSecondFactorRequired) || r.Header.Get("Location") != "/admin/login?step=totp&next=%2Flobby" || r.cookie(sessionCookieName) != nil {
			t.Fatalf("TOTP user: err %v, Location %q, cookies %v; want the code step and no session", callbackErr, r.Header.Get("Location"), r.Cookies())
		}
		if ck := r.cookie(totpChallengeCookie); ck == nil || ck.Path != "/admin-api/auth/login/totp" {
			t.Fatalf("challenge cookie = %v", ck)
		}
		c2.do("GET", "/admin-api/auth/me", nil).want(t, 401, "unauthenticated")
		c2.do("POST", "/admin-api/auth/login/totp", map[string]any{"code": code(t, secret, clk.now())}).want(t, 200)
		c2.do("GET", "/admin-api/auth/me", nil).want(t, 200)

		// Only when the game says its provider checked a second factor is
		// the panel's step skipped, and the entry says so.
		c3 := e.client()
		r = c3.do("GET", "/sso/callback?mfa=1&user="+rootID, nil).want(t, 302)
		if callbackErr != nil || r.Header.Get("Location") != "/lobby" || r.cookie(sessionCookieName) == nil {
			t.Fatalf("vouched second factor: err %v, Location %q; want a session", callbackErr, r.Header.Get("Location"))
		}
		c3.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		logins = e.auditRows("auth.login")
		if last := logins[len(logins)-1]; last.Payload["secondFactor"] != "external" || last.Payload["method"] != "external" {
			t.Fatalf("last auth.login = %+v; want secondFactor external", last)
		}

		e.admin.Close()
		if err := e.admin.Auth().StartSession(newRecorder(), must(http.NewRequest("GET", "/", nil)), rootID); err == nil {
			t.Fatal("StartSession after Close succeeded")
		}
	})
}
