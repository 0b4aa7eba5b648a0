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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/bucket"
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

// failureLimits are rl with the three sign-in failure buckets of the
// defaults (their bursts and a token back every 30 s) on clk, and the
// panel's defaults in every slot rl leaves nil. A test moves clk to give
// tokens back: however slow the machine, none comes back by itself.
func failureLimits(clk *clock, rl RateLimitOptions) RateLimitOptions {
	on := func(burst int) Limiter {
		b := bucket.New(burst, 1/failureTokenEvery.Seconds())
		b.Now = clk.now
		return b
	}
	rl.LoginFailuresPerEmail = on(defaultFailuresBurst)
	rl.LoginFailuresPerNetwork = on(defaultNetworkFailures)
	rl.LoginFailuresPerDevice = on(defaultNetworkFailures)
	return defaultLimits(rl)
}

// TestRateLimitDefaults checks the default buckets through HTTP.
func TestRateLimitDefaults(t *testing.T) {
	t.Parallel()
	// The login row is Login's bucket alone: the failure buckets (their
	// tests are below), whose burst is also 10, would refuse the 11th
	// wrong password too, with a Retry-After of their own.
	defaults := Options{RateLimit: defaultLimits(RateLimitOptions{LoginFailuresPerEmail: NoLimit{}, LoginFailuresPerNetwork: NoLimit{}, LoginFailuresPerDevice: NoLimit{}})}
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
			// Requests until the first 429: the burst, and on a machine so
			// slow that the requests took a period or more, the tokens
			// that came back meanwhile.
			start := time.Now()
			want := atoi(tt.retry)
			var r *resp
			for i := 0; ; i++ {
				r = c.do("POST", tt.path, tt.body(i))
				earned := int(time.Since(start).Seconds()) / want
				if r.StatusCode == 429 {
					if i < tt.allowed {
						t.Fatalf("request %d refused; want %d allowed", i+1, tt.allowed)
					}
					break
				}
				if i >= tt.allowed+earned {
					t.Fatalf("request %d allowed; want %d, and %d back since the first", i+1, tt.allowed, earned)
				}
			}
			r.want(t, 429, "rate_limited")
			// A bucket refills from its first request on, so the wait is the
			// full period less the time the requests took (whole seconds,
			// rounded up): on a slow machine 59 for a minute.
			took := int(math.Ceil(time.Since(start).Seconds()))
			got := r.Header.Get("Retry-After")
			if n := atoi(got); n > want || n < want-took {
				t.Fatalf("Retry-After = %q; want %d, less at most the %d s the requests took", got, want, took)
			}
			if r.body["retryAfterSec"] != float64(atoi(got)) {
				t.Fatalf("retryAfterSec = %v; want the Retry-After, %s", r.body["retryAfterSec"], got)
			}
			if p, _ := r.body["params"].(map[string]any); p["retryAfterSec"] != r.body["retryAfterSec"] {
				t.Fatalf("params = %v; want retryAfterSec %v", r.body["params"], r.body["retryAfterSec"])
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
// /48) lock the account from that network first; failures spread over
// many networks meet the per-email ceiling, past which every stranger is
// refused with 429 — while a browser that signed in before (its device
// cookie) still signs in. Both databases, since failures are audited.
// The failure buckets are the defaults' on a clock that stands still, so
// no token comes back while a slow machine sends the guesses.
func TestLoginFailureLimits(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		// The default buckets (ceiling 100).
		e := newEnv(t, db, Options{RateLimit: failureLimits(&clock{}, RateLimitOptions{})})
		id := e.user("p@example.com", "player password")
		loginWith := func(c *client, ip, password string) *resp {
			c.hdr.Set("X-Forwarded-For", ip)
			return c.do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": password})
		}
		login := func(ip, password string) *resp { return loginWith(e.client(), ip, password) }
		// 20 guesses from 20 addresses of one /24: the 11th on are refused.
		for i := range 20 {
			r := login(fmt.Sprintf("198.51.100.%d", i+1), "guess")
			if want := map[bool]int{true: 401, false: 429}[i < 10]; r.StatusCode != want {
				t.Fatalf("guess %d = %d %s; want %d", i+1, r.StatusCode, r.raw, want)
			}
		}
		r := login("198.51.100.200", "player password").want(t, 429, "rate_limited")
		// One token per 30 s, and the buckets' clock has not moved.
		if got := r.Header.Get("Retry-After"); got != "30" {
			t.Fatalf("Retry-After = %q; want 30", got)
		}
		// One IPv6 /48 is one network, whatever /64s it rotates through.
		for i := range 20 {
			r := login(fmt.Sprintf("2001:db8:7:%x::1", i+1), "guess")
			if want := map[bool]int{true: 401, false: 429}[i < 10]; r.StatusCode != want {
				t.Fatalf("IPv6 guess %d = %d %s; want %d", i+1, r.StatusCode, r.raw, want)
			}
		}
		// The owner, elsewhere, still signs in, at once; the browser is
		// now the account's device. A right password spends nothing.
		owner := e.client()
		loginWith(owner, "203.0.113.7", "player password").want(t, 200)
		if ck := cookieNamed(owner, e, "/admin-api/auth/login", "game_admin_device"); ck == nil {
			t.Fatal("no device cookie after a sign-in")
		}

		// 130 more guesses over 13 more /24s: the ceiling of 100 holds 80
		// of them (20 spent above); the other 50 are refused unevaluated.
		evaluated := 0
		for n := range 13 {
			for k := range 10 {
				switch r := login(fmt.Sprintf("192.0.%d.%d", n+1, k+1), "guess"); r.StatusCode {
				case 401:
					evaluated++
				case 429:
					if r.Header.Get("Retry-After") == "" {
						t.Fatal("429 without Retry-After")
					}
				default:
					t.Fatalf("guess = %d %s", r.StatusCode, r.raw)
				}
			}
		}
		if evaluated != 80 {
			t.Fatalf("%d of 130 guesses evaluated past 20 failures; want 80 (a ceiling of 100)", evaluated)
		}
		// A new browser of the owner: a clear 429, not a slow 401.
		login("192.0.200.1", "player password").want(t, 429, "rate_limited")
		login("2001:db8:9::1", "player password").want(t, 429, "rate_limited")
		// The owner's browser signs in, from a network it never used.
		loginWith(owner, "192.0.201.1", "player password").want(t, 200)
		logins := e.auditRows("auth.login")
		if len(logins) != 2 || logins[0].Payload["device"] != nil || logins[1].Payload["device"] != true {
			t.Fatalf("auth.login rows = %+v; want the second through the device", logins)
		}

		// Every evaluated failure for the known account is audited, with the
		// client address from the trusted proxy.
		waitFor(t, func() bool { return len(e.auditRows("auth.login_failed")) == 100 })
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

// TestGuessesInParallelAreCapped: the failure buckets are spent before
// the hash, so parallelism buys nothing. 60 concurrent guesses from one
// /24 (or 60 /64s of one IPv6 /48) get 10 evaluated; 150 guesses of 10
// parallel guessers on ever new networks get 100 evaluated at one account
// (the ceiling), and 150 more after 30 s on the buckets' clock get one
// more (a token back every 30 s); meanwhile the owner's browser signs in
// with its device cookie, and a new browser of the owner gets a clear 429
// with Retry-After. The buckets' clock moves only when the test moves it,
// so a slow machine earns the guessers nothing.
func TestGuessesInParallelAreCapped(t *testing.T) {
	t.Parallel()
	testdb.EachParallel(t, func(t *testing.T, db *bun.DB) {
		hasher := &countingHasher{PasswordHasher: testHasher}
		clk := &clock{}
		e := newEnv(t, db, Options{PasswordHasher: hasher, RateLimit: failureLimits(clk, RateLimitOptions{})})
		guess := func(email, ip string) *resp {
			c := e.client()
			c.hdr.Set("X-Forwarded-For", ip)
			return c.do("POST", "/admin-api/auth/login", map[string]any{"email": email, "password": "guess"})
		}
		burst := func(email string, ip func(i int) string) (evaluated int) {
			var wg sync.WaitGroup
			var n atomic.Int64
			for i := range 60 {
				wg.Go(func() {
					if guess(email, ip(i)).StatusCode == 401 {
						n.Add(1)
					}
				})
			}
			wg.Wait()
			return int(n.Load())
		}
		if n := burst("a@example.com", func(i int) string { return fmt.Sprintf("198.51.100.%d", i+1) }); n != defaultNetworkFailures {
			t.Fatalf("60 concurrent guesses from one /24: %d evaluated; want %d", n, defaultNetworkFailures)
		}
		if n := burst("b@example.com", func(i int) string { return fmt.Sprintf("2001:db8:5:%x::1", i+1) }); n != defaultNetworkFailures {
			t.Fatalf("60 concurrent guesses from one /48: %d evaluated; want %d", n, defaultNetworkFailures)
		}

		e.user("owner@example.com", "owner password")
		owner := e.client()
		owner.hdr.Set("X-Forwarded-For", "203.0.113.50")
		owner.do("POST", "/admin-api/auth/login", map[string]any{"email": "owner@example.com", "password": "owner password"}).want(t, 200)
		before := hasher.work.Load()

		// guessers sends n guesses at the owner's account from 10
		// goroutines, each from a network never used before.
		var next atomic.Int64
		guessers := func(n int64) (evaluated, refused int64) {
			var ev, ref atomic.Int64
			last := next.Load() + n
			var wg sync.WaitGroup
			for range 10 {
				wg.Go(func() {
					for i := next.Add(1); i <= last; i = next.Add(1) {
						switch r := guess("owner@example.com", fmt.Sprintf("10.%d.%d.1", 100+i/250, i%250)); r.StatusCode {
						case 401:
							ev.Add(1)
						case 429:
							if r.Header.Get("Retry-After") == "" {
								t.Error("429 without Retry-After")
							}
							ref.Add(1)
						default:
							t.Errorf("guess = %d %s", r.StatusCode, r.raw)
						}
					}
				})
			}
			wg.Wait()
			next.Store(last)
			return ev.Load(), ref.Load()
		}
		if ev, ref := guessers(150); ev != defaultFailuresBurst || ref != 150-defaultFailuresBurst {
			t.Fatalf("150 parallel guesses on new networks: %d evaluated, %d refused; want %d evaluated (the ceiling)", ev, ref, defaultFailuresBurst)
		}
		// During the attack: the owner's browser gets in, a new one of
		// theirs is told to wait.
		owner.do("POST", "/admin-api/auth/login", map[string]any{"email": "owner@example.com", "password": "owner password"}).want(t, 200)
		stranger := e.client()
		stranger.hdr.Set("X-Forwarded-For", "203.0.113.51")
		if r := stranger.do("POST", "/admin-api/auth/login", map[string]any{"email": "owner@example.com", "password": "owner password"}).want(t, 429, "rate_limited"); r.Header.Get("Retry-After") == "" {
			t.Fatal("the owner's new browser: 429 without Retry-After")
		}
		clk.add(failureTokenEvery)
		if ev, _ := guessers(150); ev != 1 {
			t.Fatalf("150 parallel guesses 30 s later: %d evaluated; want 1 (one token back)", ev)
		}
		// The hash ran for each evaluated guess, the owner's sign-in and
		// nothing else.
		if n, want := hasher.work.Load()-before, int64(defaultFailuresBurst+1+1); n != want {
			t.Fatalf("%d hashes; want %d: the %d evaluated guesses and the owner's sign-in", n, want, want-1)
		}
	})
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
