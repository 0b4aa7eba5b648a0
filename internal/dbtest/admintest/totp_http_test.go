package admintest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/token"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"github.com/uptrace/bun"
)

// clock is a test panel's Options.Clock, moved by the test, to the second.
type clock struct{ unix atomic.Int64 }

func (c *clock) now() time.Time               { return time.Unix(c.unix.Load(), 0) }
func (c *clock) set(t time.Time)              { c.unix.Store(t.Unix()) }
func (c *clock) add(d time.Duration)          { c.unix.Add(int64(d / time.Second)) }
func (c *clock) at(d time.Duration) time.Time { return c.now().Add(d) }

// totpEnv is a panel whose TOTP limiter is off unless opts set one, with a
// clock the test moves (starting on a step boundary, in the middle of 2030).
func totpEnv(t *testing.T, db *bun.DB, opts Options, extra ...func(a *Admin, mux *http.ServeMux)) (*env, *clock) {
	if opts.RateLimit.TOTP == nil {
		opts.RateLimit.TOTP = NoLimit{}
	}
	clk := &clock{}
	clk.unix.Store(1908000000)
	opts.Clock = clk.now
	return newEnv(t, db, opts, extra...), clk
}

// code computes the code of secret at time at, as an authenticator app does.
func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enrol turns TOTP on for c's operator and returns the secret and the
// recovery codes. It spends the current time step.
func enrol(t *testing.T, c *client, clk *clock) (string, []string) {
	t.Helper()
	r := c.do("POST", "/admin-api/auth/totp/enroll", nil).want(t, 200)
	secret, _ := r.body["secret"].(string)
	if secret == "" || !strings.HasPrefix(r.body["otpauthUrl"].(string), "otpauth://totp/") ||
		!strings.HasPrefix(r.body["qr"].(string), "data:image/png;base64,") {
		t.Fatalf("enroll = %s; want secret, otpauthUrl and a PNG QR", r.raw)
	}
	r = c.do("POST", "/admin-api/auth/totp/confirm", map[string]any{"code": code(t, secret, clk.now())}).want(t, 200)
	var codes []string
	for _, v := range r.body["recoveryCodes"].([]any) {
		codes = append(codes, v.(string))
	}
	if len(codes) != 10 {
		t.Fatalf("recoveryCodes = %v; want 10", codes)
	}
	return secret, codes
}

// passwordStep runs the first sign-in step and checks that it asked for
// the code without issuing a session.
func passwordStep(t *testing.T, e *env, email, password string) *client {
	t.Helper()
	c := e.client()
	r := c.do("POST", "/admin-api/auth/login", map[string]any{"email": email, "password": password}).want(t, 200)
	if r.body["totpRequired"] != true || r.body["challenge"] == "" || r.cookie(sessionCookieName) != nil {
		t.Fatalf("login with TOTP on = %s (cookies %v); want {totpRequired: true} and no session", r.raw, r.Cookies())
	}
	c.do("GET", "/admin-api/auth/me", nil).want(t, 401, "unauthenticated")
	return c
}

func TestTOTPEnrolConfirmSignIn(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, clk := totpEnv(t, db, Options{})
		root, rootID := e.bootstrap()
		r := root.do("GET", "/admin-api/auth/totp", nil).want(t, 200)
		if r.body["enabled"] != false || r.body["required"] != false {
			t.Fatalf("GET /auth/totp = %s; want off, not required", r.raw)
		}
		// A confirm without an enrolment, and a wrong first code.
		root.do("POST", "/admin-api/auth/totp/confirm", map[string]any{"code": "123456"}).want(t, 409, "totp_not_enrolling")
		pending := root.do("POST", "/admin-api/auth/totp/enroll", nil).want(t, 200)
		wrong := code(t, pending.body["secret"].(string), clk.at(-5*time.Minute))
		root.do("POST", "/admin-api/auth/totp/confirm", map[string]any{"code": wrong}).want(t, 400, "invalid_code")
		if n := len(e.auditRows("auth.totp_failed")); n != 1 {
			t.Fatalf("auth.totp_failed rows = %d; want 1", n)
		}
		// Until confirmed, sign-in needs no code.
		e.login("root@example.com", "correct horse")

		secret, _ := enrol(t, root, clk)
		var row operatorTOTP
		if err := db.NewSelect().Model(&row).Where("user_id = ?", rootID).Scan(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !row.Enabled || strings.Contains(row.Secret, secret) || !strings.HasPrefix(row.Secret, "v1:") {
			t.Fatalf("stored row = %+v; want enabled and the secret sealed", row)
		}
		if rows := e.auditRows("auth.totp_enabled"); len(rows) != 1 || rows[0].OperatorID != rootID {
			t.Fatalf("auth.totp_enabled rows = %+v; want one by root", rows)
		}
		root.do("POST", "/admin-api/auth/totp/enroll", nil).want(t, 409, "totp_already_enabled")
		root.do("POST", "/admin-api/auth/logout", nil).want(t, 200)

		c := passwordStep(t, e, "root@example.com", "correct horse")
		// The confirming code's step is spent: replay refused.
		c.do("POST", "/admin-api/auth/login/totp", map[string]any{"code": code(t, secret, clk.now())}).want(t, 400, "invalid_code")
		clk.add(30 * time.Second)
		r = c.do("POST", "/admin-api/auth/login/totp", map[string]any{"code": code(t, secret, clk.now())}).want(t, 200)
		if r.body["userId"] != rootID || r.body["role"] != "admin" || r.cookie(sessionCookieName) == nil {
			t.Fatalf("login/totp = %s; want root's session", r.raw)
		}
		c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		logins := e.auditRows("auth.login")
		last := logins[len(logins)-1]
		if last.Payload["secondFactor"] != "totp" || last.Payload["ip"] == nil {
			t.Fatalf("last auth.login payload = %v; want secondFactor totp and ip", last.Payload)
		}
	})
}

func TestTOTPCodesRefused(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, clk := totpEnv(t, db, Options{})
		root, _ := e.bootstrap()
		secret, _ := enrol(t, root, clk)
		clk.add(10 * time.Minute)
		c := passwordStep(t, e, "root@example.com", "correct horse")
		try := func(body any, want int, code ...string) {
			c.do("POST", "/admin-api/auth/login/totp", body).want(t, want, code...)
		}

		try(map[string]any{"code": code(t, secret, clk.at(-90*time.Second))}, 400, "invalid_code") // expired
		try(map[string]any{"code": code(t, secret, clk.at(90*time.Second))}, 400, "invalid_code")  // not yet valid
		try(map[string]any{"code": "000000x"}, 400, "invalid_code")
		try(map[string]any{"code": "12345"}, 400, "invalid_code")
		try(map[string]any{}, 400, "missing_field")
		try(map[string]any{"code": "1", "recoveryCode": "2"}, 400, "missing_field")
		try(`{"code": 123456}`, 400, "invalid_value")
		try(`{"code": "1"`, 400, "invalid_json")
		try(`{"code": "1", "x": 1}`, 400, "unknown_field")
		try(`{"code": "`+strings.Repeat("1", 2<<20)+`"}`, 413, "body_too_large")
		if n := len(e.auditRows("auth.totp_failed")); n != 4 {
			t.Fatalf("auth.totp_failed rows = %d; want 4 (one per refused code)", n)
		}
		// One step back is accepted (clock drift), and only once.
		prev := code(t, secret, clk.at(-30*time.Second))
		try(map[string]any{"code": prev}, 200)
		c2 := passwordStep(t, e, "root@example.com", "correct horse")
		c2.do("POST", "/admin-api/auth/login/totp", map[string]any{"code": prev}).want(t, 400, "invalid_code")
		// A step before the last used one is refused even within the window.
		clk.add(30 * time.Second)
		c2.do("POST", "/admin-api/auth/login/totp", map[string]any{"code": code(t, secret, clk.at(-60*time.Second))}).want(t, 400, "invalid_code")
		c2.do("POST", "/admin-api/auth/login/totp", map[string]any{"code": code(t, secret, clk.now())}).want(t, 200)
	})
}

func TestTOTPRecoveryCodes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, clk := totpEnv(t, db, Options{})
		root, rootID := e.bootstrap()
		secret, codes := enrol(t, root, clk)

		c := passwordStep(t, e, "root@example.com", "correct horse")
		c.do("POST", "/admin-api/auth/login/totp", map[string]any{"recoveryCode": codes[0]}).want(t, 200)
		c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if rows := e.auditRows("auth.recovery_used"); len(rows) != 1 || rows[0].OperatorID != rootID {
			t.Fatalf("auth.recovery_used rows = %+v; want one", rows)
		}
		c = passwordStep(t, e, "root@example.com", "correct horse")
		c.do("POST", "/admin-api/auth/login/totp", map[string]any{"recoveryCode": codes[0]}).want(t, 400, "invalid_code")
		c.do("POST", "/admin-api/auth/login/totp", map[string]any{"recoveryCode": "AAAA-AAAA-AAAA-AAAA"}).want(t, 400, "invalid_code")
		// Case and dashes do not matter.
		loose := strings.ToLower(strings.ReplaceAll(codes[1], "-", ""))
		c.do("POST", "/admin-api/auth/login/totp", map[string]any{"recoveryCode": loose}).want(t, 200)
		if r := c.do("GET", "/admin-api/auth/totp", nil).want(t, 200); r.body["recoveryCodesLeft"] != float64(8) {
			t.Fatalf("recoveryCodesLeft = %v; want 8", r.body["recoveryCodesLeft"])
		}

		// Regenerating needs a code and retires the old codes.
		c.do("POST", "/admin-api/auth/totp/recovery-codes", map[string]any{}).want(t, 400, "missing_field")
		c.do("POST", "/admin-api/auth/totp/recovery-codes", map[string]any{"code": "000000"}).want(t, 400, "invalid_code")
		clk.add(30 * time.Second)
		r := c.do("POST", "/admin-api/auth/totp/recovery-codes", map[string]any{"code": code(t, secret, clk.now())}).want(t, 200)
		fresh := r.body["recoveryCodes"].([]any)
		if len(fresh) != 10 || fresh[0] == codes[2] {
			t.Fatalf("regenerated = %v; want 10 new codes", fresh)
		}
		c = passwordStep(t, e, "root@example.com", "correct horse")
		c.do("POST", "/admin-api/auth/login/totp", map[string]any{"recoveryCode": codes[2]}).want(t, 400, "invalid_code")
		c.do("POST", "/admin-api/auth/login/totp", map[string]any{"recoveryCode": fresh[0]}).want(t, 200)
	})
}

func TestRequireTOTP(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
		e, clk := totpEnv(t, db, Options{RequireTOTP: TOTPOperators}, func(a *Admin, mux *http.ServeMux) {
			mux.Handle("/monitor", a.Guard(GuardOptions{})(ok))
		})
		root, _ := e.bootstrap()
		for _, p := range []string{"/admin-api/users", "/admin-api/_dashboard", "/admin-api", "/admin-api/auth/sessions", "/admin-api/rooms", "/monitor"} {
			root.do("GET", p, nil).want(t, 403, "totp_enrollment_required")
		}
		root.do("POST", "/admin-api/configs", map[string]any{"key": "k", "value": 1}).want(t, 403, "totp_enrollment_required")
		root.do("POST", "/admin-api/auth/password", map[string]any{"current": "correct horse", "new": "another horse"}).want(t, 403, "totp_enrollment_required")
		root.hdr.Set("Accept", "text/html")
		if r := root.do("GET", "/monitor", nil).want(t, 302); r.Header.Get("Location") != "/admin/account" {
			t.Fatalf("guarded navigation Location = %q; want /admin/account", r.Header.Get("Location"))
		}
		root.hdr.Del("Accept")
		root.do("GET", "/admin-api/auth/status", nil).want(t, 200)
		root.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if r := root.do("GET", "/admin-api/auth/totp", nil).want(t, 200); r.body["required"] != true {
			t.Fatalf("GET /auth/totp = %s; want required", r.raw)
		}
		// A plain user is not an operator: no gate.
		e.user("player@example.com", "player password")
		e.login("player@example.com", "player password").do("GET", "/admin-api/auth/sessions", nil).want(t, 200)

		enrol(t, root, clk)
		root.do("GET", "/admin-api/users", nil).want(t, 200)
		root.do("GET", "/monitor", nil).want(t, 200)
		root.do("POST", "/admin-api/auth/logout-everywhere", nil).want(t, 200)
	})
	t.Run("a game route whose pattern is a panel exemption", func(t *testing.T) {
		ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
		e, _ := totpEnv(t, testdb.SQLite(t), Options{RequireTOTP: TOTPAdmins}, func(a *Admin, mux *http.ServeMux) {
			mux.Handle("GET /admin-api/auth/totp/enroll", a.Guard(GuardOptions{})(ok))
		})
		root, _ := e.bootstrap()
		root.do("GET", "/admin-api/auth/totp/enroll", nil).want(t, 403, "totp_enrollment_required")
	})
	t.Run("admins", func(t *testing.T) {
		e, _ := totpEnv(t, testdb.SQLite(t), Options{RequireTOTP: TOTPAdmins})
		root, _ := e.bootstrap()
		root.do("GET", "/admin-api/users", nil).want(t, 403, "totp_enrollment_required")
		modID := e.user("mod@example.com", "mod password")
		if err := e.admin.Moderation().AssignMod(context.Background(), modID, "users"); err != nil {
			t.Fatal(err)
		}
		e.login("mod@example.com", "mod password").do("GET", "/admin-api/users", nil).want(t, 200)
	})
	t.Run("invalid", func(t *testing.T) {
		if _, err := New(testdb.SQLite(t), Options{Secret: testSecret, RequireTOTP: "everyone"}); err == nil || !strings.Contains(err.Error(), "RequireTOTP") {
			t.Fatalf("New with RequireTOTP everyone = %v; want an error naming RequireTOTP", err)
		}
	})
}

func TestTOTPAdminReset(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e, clk := totpEnv(t, db, Options{})
		root, rootID := e.bootstrap()
		modID := e.user("mod@example.com", "mod password")
		if err := e.admin.Moderation().AssignMod(ctx, modID, "users"); err != nil {
			t.Fatal(err)
		}
		mod := e.login("mod@example.com", "mod password")
		enrol(t, mod, clk)
		mod.do("POST", "/admin-api/users/"+rootID+"/totp/reset", nil).want(t, 403, "forbidden")
		root.do("POST", "/admin-api/users/no-such-user/totp/reset", nil).want(t, 404)
		root.do("POST", "/admin-api/users/"+modID+"/totp/reset", `{"x":1}`).want(t, 400, "unknown_field")
		r := root.do("POST", "/admin-api/users/"+modID+"/totp/reset", nil).want(t, 200)
		if r.body["hadTotp"] != true {
			t.Fatalf("reset = %s; want hadTotp", r.raw)
		}
		mod.do("GET", "/admin-api/auth/me", nil).want(t, 401) // token version bumped
		e.login("mod@example.com", "mod password")            // no second step any more
		if rows := e.auditRows("user.totp_reset"); len(rows) != 1 || rows[0].OperatorID != rootID || rows[0].TargetID != modID {
			t.Fatalf("user.totp_reset rows = %+v; want one by root on the mod", rows)
		}

		// The Go API, for when no admin can sign in any more.
		enrol(t, root, clk)
		if had, err := e.admin.Auth().ResetTOTP(ctx, rootID); err != nil || !had {
			t.Fatalf("ResetTOTP = %v, %v; want true, nil", had, err)
		}
		root.do("GET", "/admin-api/auth/me", nil).want(t, 401)
		e.login("root@example.com", "correct horse")
		if had, err := e.admin.Auth().ResetTOTP(ctx, rootID); err != nil || had {
			t.Fatalf("second ResetTOTP = %v, %v; want false, nil", had, err)
		}
	})
}

func TestTOTPChallengeIsNotASession(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
		e, clk := totpEnv(t, db, Options{}, func(a *Admin, mux *http.ServeMux) {
			mux.Handle("/monitor", a.Guard(GuardOptions{Role: RoleUser})(ok))
		})
		root, rootID := e.bootstrap()
		secret, _ := enrol(t, root, clk)
		r := e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 200)
		challenge := r.body["challenge"].(string)

		forged := e.client()
		forged.hdr.Set("Cookie", sessionCookieName+"="+challenge)
		for _, p := range []string{"/admin-api/auth/me", "/admin-api/users", "/admin-api/_dashboard", "/admin-api/auth/totp", "/admin-api/auth/sessions", "/monitor"} {
			forged.do("GET", p, nil).want(t, 401, "unauthenticated")
		}
		forged.do("POST", "/admin-api/auth/totp/enroll", nil).want(t, 401, "unauthenticated")
		if r := forged.do("GET", "/admin-api/auth/status", nil).want(t, 200); r.body["authenticated"] != false {
			t.Fatalf("status with a challenge as session = %s; want anonymous", r.raw)
		}

		// Neither a session nor a reset token nor an expired challenge is a challenge.
		clk.add(30 * time.Second)
		good := code(t, secret, clk.now())
		sess := signed(t, token.Claims{UserID: rootID, Kind: token.KindSession}, time.Hour)
		reset := signed(t, token.Claims{UserID: rootID, Kind: token.KindReset}, time.Hour)
		expired := signed(t, token.Claims{UserID: rootID, Kind: token.KindTOTPChallenge}, -time.Second)
		for _, tok := range []string{sess, reset, expired, "garbage", ""} {
			e.client().do("POST", "/admin-api/auth/login/totp", map[string]any{"code": good, "challenge": tok}).want(t, 401, "invalid_challenge")
		}
		// Sign-out-everywhere ends pending challenges too.
		root.do("POST", "/admin-api/auth/logout-everywhere", nil).want(t, 200)
		e.client().do("POST", "/admin-api/auth/login/totp", map[string]any{"code": good, "challenge": challenge}).want(t, 401, "invalid_challenge")
		// The body's challenge works without the cookie (API clients).
		r = e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 200)
		e.client().do("POST", "/admin-api/auth/login/totp", map[string]any{"code": good, "challenge": r.body["challenge"]}).want(t, 200)
	})
}

func TestTOTPRateLimit(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, clk := totpEnv(t, db, Options{RateLimit: RateLimitOptions{TOTP: NewTokenBucket(3, 1.0/3600)}})
		root, _ := e.bootstrap()
		from := func(c *client, ip string) *client { c.hdr.Set("X-Forwarded-For", ip); return c }
		secret, _ := enrol(t, from(root, "10.9.9.9"), clk) // spends one of root's and one of 10.9.9.9's
		clk.add(30 * time.Second)

		a := from(passwordStep(t, e, "root@example.com", "correct horse"), "203.0.113.1")
		for _, c := range []string{"000000", "000001", "000002"} {
			a.do("POST", "/admin-api/auth/login/totp", map[string]any{"code": c}).want(t, 400, "invalid_code")
		}
		// Root's bucket for that network is empty: the right code from
		// another address of it is refused.
		from(a, "203.0.113.2")
		r := a.do("POST", "/admin-api/auth/login/totp", map[string]any{"code": code(t, secret, clk.now())}).want(t, 429, "rate_limited")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
		// The owner, from another network, is not blocked by those guesses.
		from(passwordStep(t, e, "root@example.com", "correct horse"), "198.51.100.1").
			do("POST", "/admin-api/auth/login/totp", map[string]any{"code": code(t, secret, clk.now())}).want(t, 200)

		// Another account from an IP that spent its bucket is refused too.
		e.user("other@example.com", "other password")
		other := from(e.login("other@example.com", "other password"), "203.0.113.1")
		other.do("POST", "/admin-api/auth/totp/enroll", nil).want(t, 200)
		other.do("POST", "/admin-api/auth/totp/confirm", map[string]any{"code": "000000"}).want(t, 429, "rate_limited") // the IP spent its three
		from(other, "198.51.100.7").do("POST", "/admin-api/auth/totp/confirm", map[string]any{"code": "000000"}).want(t, 400, "invalid_code")
	})
}

func TestTOTPDisable(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, clk := totpEnv(t, db, Options{})
		root, _ := e.bootstrap()
		root.do("POST", "/admin-api/auth/totp/disable", map[string]any{"password": "correct horse"}).want(t, 409, "totp_not_enabled")
		secret, _ := enrol(t, root, clk)
		root.do("POST", "/admin-api/auth/totp/disable", map[string]any{"password": "wrong horse"}).want(t, 400, "wrong_password")
		root.do("POST", "/admin-api/auth/totp/disable", map[string]any{"code": code(t, secret, clk.now())}).want(t, 400, "invalid_code") // spent by confirm
		clk.add(30 * time.Second)
		root.do("POST", "/admin-api/auth/totp/disable", map[string]any{"code": code(t, secret, clk.now())}).want(t, 200)
		if n := len(e.auditRows("auth.totp_disabled")); n != 1 {
			t.Fatalf("auth.totp_disabled rows = %d; want 1", n)
		}
		e.login("root@example.com", "correct horse") // one step again

		enrol(t, root, clk)
		root.do("POST", "/admin-api/auth/totp/disable", map[string]any{"password": "correct horse"}).want(t, 200)
		root.do("POST", "/admin-api/auth/totp/disable", `{"password": 1}`).want(t, 400, "invalid_value")
		root.do("POST", "/admin-api/auth/totp/disable", `[]`).want(t, 400, "invalid_body")
		root.do("POST", "/admin-api/auth/totp/confirm", map[string]any{"code": "1", "password": "x"}).want(t, 400, "unknown_field")
		root.do("POST", "/admin-api/auth/totp/enroll", `{"x":1}`).want(t, 400, "unknown_field")
	})
}

// TestTOTPConcurrentReplay sends one code in parallel sign-ins: exactly one
// gets a session.
func TestTOTPConcurrentReplay(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, clk := totpEnv(t, db, Options{})
		root, _ := e.bootstrap()
		secret, _ := enrol(t, root, clk)
		clk.add(30 * time.Second)
		good := code(t, secret, clk.now())
		const n = 8
		clients := make([]*client, n)
		for i := range clients {
			clients[i] = passwordStep(t, e, "root@example.com", "correct horse")
		}
		codes := make(chan int, n)
		var wg sync.WaitGroup
		for _, c := range clients {
			wg.Go(func() {
				body, _ := json.Marshal(map[string]any{"code": good})
				req, _ := http.NewRequest("POST", e.srv.URL+"/admin-api/auth/login/totp", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				res, err := c.hc.Do(req)
				if err != nil {
					codes <- 0
					return
				}
				res.Body.Close()
				codes <- res.StatusCode
			})
		}
		wg.Wait()
		close(codes)
		got := map[int]int{}
		for c := range codes {
			got[c]++
		}
		if got[200] != 1 || got[400] != n-1 {
			t.Fatalf("statuses = %v; want one 200 and %d 400", got, n-1)
		}
	})
}

// TestTOTPChallengeSpentAndCapped: a sign-in challenge signs in once, and
// is void after five wrong codes (the password is asked again); both hold
// in the database, so across nodes.
func TestTOTPChallengeSpentAndCapped(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, clk := totpEnv(t, db, Options{})
		root, _ := e.bootstrap()
		secret, _ := enrol(t, root, clk)
		challenge := func() string {
			r := e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "correct horse"}).want(t, 200)
			return r.body["challenge"].(string)
		}
		step := func(ch, code string) *resp {
			return e.client().do("POST", "/admin-api/auth/login/totp", map[string]any{"challenge": ch, "code": code})
		}
		clk.add(30 * time.Second)
		ch := challenge()
		step(ch, code(t, secret, clk.now())).want(t, 200)
		clk.add(30 * time.Second)
		step(ch, code(t, secret, clk.now())).want(t, 401, "invalid_challenge") // spent

		ch = challenge()
		for i := range 5 {
			step(ch, fmt.Sprintf("00000%d", i)).want(t, 400, "invalid_code")
		}
		step(ch, code(t, secret, clk.now())).want(t, 401, "invalid_challenge") // void
		step(challenge(), code(t, secret, clk.now())).want(t, 200)
	})
}

// operatorTOTP and recoveryCode read the panel's second-factor tables as
// stored (default prefix).
type operatorTOTP struct {
	bun.BaseModel `bun:"table:game_operator_totp,alias:ot"`

	UserID      string     `bun:"user_id,pk"`
	Secret      string     `bun:"secret,notnull"`
	Enabled     bool       `bun:"enabled,notnull"`
	LastStep    int64      `bun:"last_step,notnull"`
	CreatedAt   time.Time  `bun:"created_at,notnull"`
	ConfirmedAt *time.Time `bun:"confirmed_at"`
}

type recoveryCode struct {
	bun.BaseModel `bun:"table:game_operator_recovery_codes,alias:rc"`

	UserID   string     `bun:"user_id,pk"`
	CodeHash string     `bun:"code_hash,pk"`
	UsedAt   *time.Time `bun:"used_at"`
}
