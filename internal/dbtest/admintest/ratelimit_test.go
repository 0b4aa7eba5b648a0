package admintest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"net/netip"
	"slices"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestClientIPHonoursTrustedProxies: the panel's ClientIP believes the
// proxies of Options.TrustedProxies and no others.
func TestClientIPHonoursTrustedProxies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.1.2.3:80"
	r.Header.Set("X-Forwarded-For", "198.51.100.9")
	if got := e.admin.ClientIP(r); got != "198.51.100.9" {
		t.Errorf("ClientIP(from a listed proxy) = %q; want 198.51.100.9", got)
	}
	r.RemoteAddr = "127.0.0.1:80" // loopback is not in this panel's list
	if got := e.admin.ClientIP(r); got != "127.0.0.1" {
		t.Errorf("ClientIP(from loopback, not listed) = %q; want 127.0.0.1", got)
	}
}

// TestClientIPDefaultTrust: with no TrustedProxies, loopback is the
// trusted proxy.
func TestClientIPDefaultTrust(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{})
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "127.0.0.1:1234"
	r.Header.Set("X-Forwarded-For", "198.51.100.9")
	if got, want := e.admin.ClientIP(r), "198.51.100.9"; got != want {
		t.Errorf("ClientIP(%q) = %q; want %q", r.RemoteAddr, got, want)
	}
}

// TestClientCannotChooseItsAddress: through a proxy that passes a
// client's own X-Real-IP on (Go's ReverseProxy with Rewrite, nginx's
// default proxy_pass), 40 wrong sign-ins with 40 invented addresses share
// one bucket: X-Real-IP counts only when the integrator names it.
func TestClientCannotChooseItsAddress(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		guess := func(e *env, i int) *resp {
			c := e.client()
			c.hdr.Set("X-Real-IP", fmt.Sprintf("198.51.%d.%d", i/200+1, i%200+1))
			return c.do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "guess"})
		}
		e := newEnv(t, db, Options{RateLimit: RateLimitOptions{Login: keepDefault{}}})
		for i := range 40 {
			if want := map[bool]int{true: 401, false: 429}[i < 10]; guess(e, i).StatusCode != want {
				t.Fatalf("guess %d with an invented X-Real-IP: want %d (one bucket of 10 for the peer)", i+1, want)
			}
		}
		// Named, it is the proxy's word: each address its own bucket.
		named := newEnv(t, db, Options{ClientIPHeader: "X-Real-IP", RateLimit: RateLimitOptions{Login: keepDefault{}}})
		for i := range 40 {
			guess(named, i).want(t, 401)
		}
	})
}

// refuse is a Limiter that always refuses, or fails.
type refuse struct {
	retry time.Duration
	err   error
}

func (l refuse) Allow(context.Context, string) (bool, time.Duration, error) {
	return false, l.retry, l.err
}

// TestRateLimitDefaults checks the default buckets through HTTP.
func TestRateLimitDefaults(t *testing.T) {
	t.Parallel()
	defaults := Options{RateLimit: defaultLimits(RateLimitOptions{})}
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
			start := time.Now()
			for i := range tt.allowed {
				if r := c.do("POST", tt.path, tt.body(i)); r.StatusCode == 429 {
					t.Fatalf("request %d refused; want %d allowed", i+1, tt.allowed)
				}
			}
			r := c.do("POST", tt.path, tt.body(tt.allowed)).want(t, 429, "rate_limited")
			// A bucket refills from its first request on, so the wait is the
			// full period less the time the requests took (whole seconds,
			// rounded up): on a slow machine 59 for a minute.
			want, took := atoi(tt.retry), int(math.Ceil(time.Since(start).Seconds()))
			got := r.Header.Get("Retry-After")
			if n := atoi(got); n > want || n < want-took {
				t.Fatalf("Retry-After = %q; want %d, less at most the %d s the requests took", got, want, took)
			}
			if r.body["retryAfterSec"] != float64(atoi(got)) {
				t.Fatalf("retryAfterSec = %v; want the Retry-After, %s", r.body["retryAfterSec"], got)
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

// TestLoginFailureLimits: failures from one network (an IPv4 /24, an IPv6
// /48) lock the account from that network only; failures spread over many
// networks pass the per-email ceiling, which then steps sign-ins up (a
// delay, audited) instead of refusing the owner. Both databases, since
// failures are audited.
func TestLoginFailureLimits(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		// The default buckets (ceiling 100); a short step-up delay.
		e := newEnv(t, db, Options{RateLimit: defaultLimits(RateLimitOptions{LoginStepUpDelay: time.Millisecond})})
		id := e.user("p@example.com", "player password")
		login := func(ip, password string) *resp {
			c := e.client()
			c.hdr.Set("X-Forwarded-For", ip)
			return c.do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": password})
		}
		// 20 guesses from 20 addresses of one /24: the 11th on are refused.
		for i := range 20 {
			r := login(fmt.Sprintf("198.51.100.%d", i+1), "guess")
			if want := map[bool]int{true: 401, false: 429}[i < 10]; r.StatusCode != want {
				t.Fatalf("guess %d = %d %s; want %d", i+1, r.StatusCode, r.raw, want)
			}
		}
		r := login("198.51.100.200", "player password").want(t, 429, "rate_limited")
		// One token per 30 s: 30, or 29 when a slow machine took over a
		// second since the 10th failure.
		if got := r.Header.Get("Retry-After"); got != "30" && got != "29" {
			t.Fatalf("Retry-After = %q; want 30 (or 29)", got)
		}
		// One IPv6 /48 is one network, whatever /64s it rotates through.
		for i := range 20 {
			r := login(fmt.Sprintf("2001:db8:7:%x::1", i+1), "guess")
			if want := map[bool]int{true: 401, false: 429}[i < 10]; r.StatusCode != want {
				t.Fatalf("IPv6 guess %d = %d %s; want %d", i+1, r.StatusCode, r.raw, want)
			}
		}
		// The owner, elsewhere, still signs in, at once.
		login("203.0.113.7", "player password").want(t, 200)

		// 130 more guesses over 13 more /24s: 150 in all, past the ceiling
		// of 100. The owner, from a network that never failed, signs in,
		// stepped up; so does one from a fresh /48.
		for n := range 13 {
			for k := range 10 {
				login(fmt.Sprintf("192.0.%d.%d", n+1, k+1), "guess").want(t, 401)
			}
		}
		login("192.0.200.1", "player password").want(t, 200)
		login("2001:db8:9::1", "player password").want(t, 200)
		logins := e.auditRows("auth.login")
		if len(logins) != 3 || logins[0].Payload["stepUp"] != nil || logins[1].Payload["stepUp"] != true || logins[2].Payload["stepUp"] != true {
			t.Fatalf("auth.login rows = %+v; want the last two stepped up", logins)
		}

		// Every failure for the known account is audited, with the client
		// address from the trusted proxy.
		waitFor(t, func() bool { return len(e.auditRows("auth.login_failed")) == 150 })
		for _, row := range e.auditRows("auth.login_failed") {
			if row.OperatorID != id || row.Payload["ip"] == "127.0.0.1" {
				t.Fatalf("login_failed row = %+v; want operator %s and the forwarded ip", row, id)
			}
		}
	})
	// Successful sign-ins spend no failure bucket.
	e2 := newEnv(t, testdb.SQLite(t), Options{RateLimit: RateLimitOptions{
		LoginFailuresPerEmail:   NewTokenBucket(2, 1.0/60),
		LoginFailuresPerNetwork: NewTokenBucket(2, 1.0/60),
	}})
	e2.user("q@example.com", "player password")
	for range 25 {
		e2.login("q@example.com", "player password")
	}
}

// TestForwardedForFromUntrustedPeer: with no trusted proxies, a client
// cannot dodge its bucket with X-Forwarded-For.
func TestForwardedForFromUntrustedPeer(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	// NoLimit{} disables a slot.
	e2 := newEnv(t, testdb.SQLite(t), Options{RateLimit: RateLimitOptions{Bootstrap: NoLimit{}}})
	for range 20 {
		e2.client().do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "x@example.com", "password": "short"}).want(t, 400)
	}
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

// TestIPv6AndDeliveryLimits: an IPv6 client is its /64 for every
// per-address limiter, so rotating addresses buys nothing; whatever the
// addresses, one account gets at most ResetDeliveries links an hour
// (reset or invite); refused requests are audited, collapsed per address.
func TestIPv6AndDeliveryLimits(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		box := &mailbox{}
		e := newEnv(t, db, Options{OnResetRequest: box.deliver, RateLimit: defaultLimits(RateLimitOptions{})})
		root, _ := e.bootstrap()
		id := e.user("p@example.com", "player password")
		reset := func(ip string) *resp {
			c := e.client()
			c.hdr.Set("X-Forwarded-For", ip)
			return c.do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "p@example.com"})
		}
		// One /64, ten addresses: RequestReset's burst of 3, then 429.
		for i := range 10 {
			r := reset(fmt.Sprintf("2001:db8:1:2::%x", i+1))
			if want := map[bool]int{true: 200, false: 429}[i < 3]; r.StatusCode != want {
				t.Fatalf("reset %d from one /64 = %d %s; want %d", i+1, r.StatusCode, r.raw, want)
			}
		}
		box.wait(t, 3)
		// Ten more /64s: the account's ceiling of 5 deliveries holds.
		for i := range 10 {
			reset(fmt.Sprintf("2001:db8:1:%x::1", 100+i)).want(t, 200)
		}
		box.wait(t, 5)
		waitFor(t, func() bool {
			return slices.ContainsFunc(e.auditRows("auth.password_reset_requested"), func(a AuditEntry) bool { return a.Payload["reason"] == "rate_limited" })
		})
		root.do("POST", "/admin-api/users/"+id+"/invite", nil).want(t, 429, "rate_limited")
		e.admin.Close()
		box.mu.Lock()
		if n := len(box.sent); n != 5 {
			t.Fatalf("%d links delivered to one account; want 5", n)
		}
		box.mu.Unlock()
		// The refusals of the /64 are one row and one collapsed row, not 7.
		limited := e.auditRows("auth.rate_limited")
		collapsedLast := func(a AuditEntry) int {
			if _, ok := a.Payload["collapsed"]; ok {
				return 1
			}
			return 0
		}
		slices.SortFunc(limited, func(a, b AuditEntry) int { // whichever was written first
			return cmp.Compare(collapsedLast(a), collapsedLast(b))
		})
		if len(limited) != 2 || limited[0].Payload["limiter"] != "RequestReset" || limited[1].Payload["collapsed"] != float64(6) {
			t.Fatalf("auth.rate_limited rows = %+v; want the first refusal and one collapsed row of 6", limited)
		}
		refused := e.auditRows("auth.reset_delivery_limited")
		if len(refused) != 1 || refused[0].TargetID != id || refused[0].Payload["collapsed"] != float64(7) {
			t.Fatalf("auth.reset_delivery_limited rows = %+v; want one collapsed row of 7 for %s", refused, id)
		}
	})
}

// TestAuthenticateLimiterDown: a game's sign-in through Authenticate is
// refused, with an error it can tell apart (to answer 503), when a limiter
// fails: never let through unlimited, never mistaken for a wrong password.
func TestAuthenticateLimiterDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{RateLimit: RateLimitOptions{LoginFailuresPerNetwork: refuse{err: errors.New("redis down")}}})
	e.user("p@example.com", "player password")
	_, err := e.admin.Auth().Authenticate(context.Background(), "p@example.com", "player password")
	if !errors.Is(err, ErrLimiterUnavailable) || errors.Is(err, ErrInvalidCredentials) || !contains(err.Error(), "redis down") {
		t.Fatalf("Authenticate with the limiter down = %v; want ErrLimiterUnavailable wrapping the cause", err)
	}
}
