package admintest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestAuthenticateLimitsAndAudit: the game's own sign-in is no unlimited,
// unaudited password oracle: failures spend the same failure buckets as the
// panel's sign-in, and each is audited.
func TestAuthenticateLimitsAndAudit(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{RateLimit: defaultLimits(RateLimitOptions{})})
		ctx := context.Background()
		id := e.user("admin@example.com", "admin password")
		au := e.admin.Auth()
		var limited error
		for i := range 60 {
			_, err := au.Authenticate(ctx, "admin@example.com", fmt.Sprintf("guess %d", i))
			if errors.Is(err, ErrRateLimited) {
				limited = err
				if i != 10 {
					t.Fatalf("guess %d rate limited; want the 11th", i+1)
				}
				break
			}
			if !errors.Is(err, ErrInvalidCredentials) {
				t.Fatalf("Authenticate(guess %d) = %v; want ErrInvalidCredentials", i+1, err)
			}
		}
		var rl *RateLimitError
		if !errors.As(limited, &rl) || rl.RetryAfter <= 0 {
			t.Fatalf("60 wrong guesses: last error %v; want a *RateLimitError with RetryAfter", limited)
		}
		if _, err := au.Authenticate(ctx, "admin@example.com", "admin password"); !errors.Is(err, ErrRateLimited) {
			t.Fatalf("Authenticate(right password after the guesses) = %v; want ErrRateLimited", err)
		}
		waitFor(t, func() bool { return len(e.auditRows("auth.login_failed")) == 10 })
		for _, row := range e.auditRows("auth.login_failed") {
			if row.OperatorID != id || row.Payload["via"] != "authenticate" || row.Payload["email"] != "admin@example.com" {
				t.Fatalf("login_failed row = %+v", row)
			}
		}
		// The panel's sign-in from a network of its own still works: the
		// game's guesses count as one network.
		c := e.client()
		c.hdr.Set("X-Forwarded-For", "203.0.113.7")
		c.do("POST", "/admin-api/auth/login", map[string]any{"email": "admin@example.com", "password": "admin password"}).want(t, 200)
	})
}

// TestAuthenticateFrom: the request-aware variant spends the per-IP bucket
// before any database work and keys failures on the client's network.
func TestAuthenticateFrom(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{RateLimit: RateLimitOptions{
			PerIP:                   NewTokenBucket(3, 1.0/60),
			LoginFailuresPerNetwork: NewTokenBucket(2, 1.0/60),
		}})
		e.user("p@example.com", "player password")
		req := func(ip string) *http.Request {
			r, _ := http.NewRequest("POST", "/api/auth/login", nil)
			r.RemoteAddr = "127.0.0.1:5555"
			r.Header.Set("X-Forwarded-For", ip)
			r.Header.Set("User-Agent", "game-client/1.0")
			return r
		}
		au := e.admin.Auth()
		for i := range 2 {
			if _, err := au.AuthenticateFrom(req("198.51.100.1"), "p@example.com", "guess"); !errors.Is(err, ErrInvalidCredentials) {
				t.Fatalf("guess %d = %v; want ErrInvalidCredentials", i+1, err)
			}
		}
		if _, err := au.AuthenticateFrom(req("198.51.100.2"), "p@example.com", "player password"); !errors.Is(err, ErrRateLimited) {
			t.Fatalf("same /24 after 2 failures = %v; want ErrRateLimited", err)
		}
		id, err := au.AuthenticateFrom(req("203.0.113.7"), "p@example.com", "player password")
		if err != nil || id == "" {
			t.Fatalf("another network = %q, %v; want the user id", id, err)
		}
		// Per IP: 198.51.100.1 spent 2 of its 3 tokens.
		au.AuthenticateFrom(req("198.51.100.1"), "nobody@example.com", "guess")
		if _, err := au.AuthenticateFrom(req("198.51.100.1"), "other@example.com", "guess"); !errors.Is(err, ErrRateLimited) {
			t.Fatalf("4th attempt from one IP = %v; want ErrRateLimited", err)
		}
		waitFor(t, func() bool { return len(e.auditRows("auth.login_failed")) >= 3 })
		row := e.auditRows("auth.login_failed")[0]
		if row.Payload["userAgent"] != "game-client/1.0" || row.Payload["via"] != "authenticate" {
			t.Fatalf("login_failed row = %+v; want the request's ip and user agent", row)
		}
	})
}
