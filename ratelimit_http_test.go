package admin

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/testdb"
)

// refuse is a Limiter that always refuses, or fails.
type refuse struct {
	retry time.Duration
	err   error
}

func (l refuse) Allow(context.Context, string) (bool, time.Duration, error) {
	return false, l.retry, l.err
}

// TestRateLimitDefaults checks SEED.md 8's default buckets through HTTP.
func TestRateLimitDefaults(t *testing.T) {
	defaults := Options{RateLimit: defaultLimiters(RateLimitOptions{})}
	tests := []struct {
		name    string
		path    string
		body    func(i int) map[string]any
		allowed int
		retry   string
	}{
		{"login: 10 per IP and email, one back every 6 s", "/admin-api/auth/login",
			func(int) map[string]any {
				return map[string]any{"email": "p@example.com", "password": "wrong password"}
			}, 10, "6"},
		{"bootstrap: 5 per IP, one back a minute", "/admin-api/auth/bootstrap",
			func(int) map[string]any {
				return map[string]any{"email": "p@example.com", "password": "wrong password"}
			}, 5, "60"},
		{"request-reset: 3 per IP and email, one back a minute", "/admin-api/auth/request-reset",
			func(int) map[string]any { return map[string]any{"email": "p@example.com"} }, 3, "60"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, testdb.SQLite(t), defaults)
			e.user("p@example.com", "player password")
			c := e.client()
			for i := range tt.allowed {
				if r := c.do("POST", tt.path, tt.body(i)); r.StatusCode == 429 {
					t.Fatalf("request %d refused; want %d allowed", i+1, tt.allowed)
				}
			}
			r := c.do("POST", tt.path, tt.body(tt.allowed)).want(t, 429, "rate_limited")
			if got := r.Header.Get("Retry-After"); got != tt.retry {
				t.Fatalf("Retry-After = %q; want %q", got, tt.retry)
			}
			if r.body["retryAfterSec"] != float64(atoi(tt.retry)) {
				t.Fatalf("retryAfterSec = %v; want %s", r.body["retryAfterSec"], tt.retry)
			}
			// Another client address has its own bucket.
			other := e.client()
			other.hdr.Set("X-Forwarded-For", "203.0.113.9")
			if r := other.do("POST", tt.path, tt.body(0)); r.StatusCode == 429 {
				t.Fatalf("another IP was refused: %s", r.raw)
			}
		})
	}
}

// TestLoginFailuresPerEmail: failures spread over many IPs still lock the
// account, and the lock holds for the right password too.
func TestLoginFailuresPerEmail(t *testing.T) {
	e := newEnv(t, testdb.SQLite(t), Options{RateLimit: defaultLimiters(RateLimitOptions{})})
	e.user("p@example.com", "player password")
	for i := range 20 {
		c := e.client()
		c.hdr.Set("X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1))
		c.do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "guess"}).want(t, 401)
	}
	c := e.client()
	c.hdr.Set("X-Forwarded-For", "198.51.100.200")
	r := c.do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "player password"}).want(t, 429, "rate_limited")
	if r.Header.Get("Retry-After") != "30" {
		t.Fatalf("Retry-After = %q; want 30", r.Header.Get("Retry-After"))
	}
	// Successful sign-ins do not spend it.
	e2 := newEnv(t, testdb.SQLite(t), Options{RateLimit: RateLimitOptions{LoginFailuresPerEmail: defaultLimiters(RateLimitOptions{}).LoginFailuresPerEmail}})
	e2.user("q@example.com", "player password")
	for range 25 {
		e2.login("q@example.com", "player password")
	}
	// The audit log records the client address from the trusted proxy.
	if rows := e.auditRows("auth.login_failed"); len(rows) != 20 || rows[0].Payload["ip"] != "198.51.100.1" {
		t.Fatalf("login_failed rows = %d, first ip %v; want 20, 198.51.100.1", len(rows), rows[0].Payload["ip"])
	}
}

// TestForwardedForFromUntrustedPeer: with no trusted proxies, a client
// cannot dodge its bucket with X-Forwarded-For.
func TestForwardedForFromUntrustedPeer(t *testing.T) {
	opts := Options{TrustedProxies: []netip.Prefix{}, RateLimit: RateLimitOptions{Login: NewTokenBucket(2, 1.0/60)}}
	e := newEnv(t, testdb.SQLite(t), opts)
	for i := range 3 {
		c := e.client()
		c.hdr.Set("X-Forwarded-For", fmt.Sprintf("192.0.2.%d", i+1))
		r := c.do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "guess"})
		if want := map[bool]int{true: 429, false: 401}[i == 2]; r.StatusCode != want {
			t.Fatalf("attempt %d = %d; want %d", i+1, r.StatusCode, want)
		}
	}
}

func TestCustomLimiters(t *testing.T) {
	e := newEnv(t, testdb.SQLite(t), Options{RateLimit: RateLimitOptions{
		Login:        refuse{retry: 41500 * time.Millisecond},
		RequestReset: refuse{err: errors.New("redis down")},
	}})
	r := e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "guess"}).want(t, 429, "rate_limited")
	if r.Header.Get("Retry-After") != "42" {
		t.Fatalf("Retry-After = %q; want 42 (rounded up)", r.Header.Get("Retry-After"))
	}
	e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "p@example.com"}).want(t, 503, "rate_limiter_unavailable")
	if !contains(e.logs.String(), "redis down") {
		t.Fatal("limiter failure not logged")
	}
	// NoLimit disables a slot.
	e2 := newEnv(t, testdb.SQLite(t), Options{RateLimit: RateLimitOptions{Bootstrap: NoLimit}})
	for range 20 {
		e2.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "x@example.com", "password": "short"}).want(t, 400)
	}
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}
