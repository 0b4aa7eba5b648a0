package admin

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock for tokenBucket.now that moves only when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newTestBucket returns a token bucket on a fake clock.
func newTestBucket(capacity int, refillPerSec float64) (*tokenBucket, *fakeClock) {
	b := NewTokenBucket(capacity, refillPerSec).(*tokenBucket)
	c := newFakeClock()
	b.now = c.now
	return b, c
}

func mustAllow(t *testing.T, l Limiter, key string) (bool, time.Duration) {
	t.Helper()
	ok, retry, err := l.Allow(context.Background(), key)
	if err != nil {
		t.Fatalf("Allow(%q) error: %v", key, err)
	}
	return ok, retry
}

func TestDefaultLimitBuckets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		slot  func(RateLimitOptions) Limiter
		burst int
		every time.Duration // time for one token to come back
	}{
		{"login", func(o RateLimitOptions) Limiter { return o.Login }, 10, 6 * time.Second},
		{"bootstrap", func(o RateLimitOptions) Limiter { return o.Bootstrap }, 5, time.Minute},
		{"request reset", func(o RateLimitOptions) Limiter { return o.RequestReset }, 3, time.Minute},
		{"login failures per email", func(o RateLimitOptions) Limiter { return o.LoginFailuresPerEmail }, 100, 30 * time.Second},
		{"login failures per network", func(o RateLimitOptions) Limiter { return o.LoginFailuresPerNetwork }, 10, 30 * time.Second},
		{"per IP", func(o RateLimitOptions) Limiter { return o.PerIP }, 30, 2 * time.Second},
		{"actions", func(o RateLimitOptions) Limiter { return o.Actions }, 60, time.Second},
		{"reset deliveries", func(o RateLimitOptions) Limiter { return o.ResetDeliveries }, 5, 12 * time.Minute},
	}
	if d := defaultLimiters(RateLimitOptions{}).LoginStepUpDelay; d != 3*time.Second {
		t.Errorf("LoginStepUpDelay = %v; want 3s", d)
	}
	if d := defaultLimiters(RateLimitOptions{LoginStepUpDelay: -1}).LoginStepUpDelay; d != 0 {
		t.Errorf("LoginStepUpDelay -1 = %v; want none", d)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.slot(defaultLimiters(RateLimitOptions{})).(*tokenBucket)
			c := newFakeClock()
			b.now = c.now
			for i := range tt.burst {
				if ok, retry := mustAllow(t, b, "k"); !ok {
					t.Fatalf("request %d refused (retryAfter %v); want allowed within the burst of %d", i+1, retry, tt.burst)
				}
			}
			ok, retry := mustAllow(t, b, "k")
			if ok {
				t.Fatalf("request %d allowed; want refused after the burst", tt.burst+1)
			}
			if d := retry - tt.every; d < 0 || d > time.Microsecond {
				t.Errorf("retryAfter = %v; want %v", retry, tt.every)
			}
			c.advance(tt.every - time.Millisecond)
			if ok, _ := mustAllow(t, b, "k"); ok {
				t.Fatalf("allowed %v after the burst; want refused until %v", tt.every-time.Millisecond, tt.every)
			}
			c.advance(time.Millisecond)
			if ok, retry := mustAllow(t, b, "k"); !ok {
				t.Fatalf("refused %v after the burst (retryAfter %v); want allowed", tt.every, retry)
			}
		})
	}
}

func TestDefaultLimitersKeepsGivenSlots(t *testing.T) {
	t.Parallel()
	custom := NewTokenBucket(1, 1)
	o := defaultLimiters(RateLimitOptions{Login: NoLimit{}, Bootstrap: custom})
	if o.Login != (NoLimit{}) {
		t.Errorf("Login = %T; want NoLimit kept", o.Login)
	}
	if o.Bootstrap != custom {
		t.Errorf("Bootstrap = %v; want the given limiter kept", o.Bootstrap)
	}
	if o.RequestReset == nil || o.LoginFailuresPerEmail == nil {
		t.Errorf("nil slots not filled: %+v", o)
	}
	if p := defaultLimiters(RateLimitOptions{}); p.Login == o.RequestReset || p.Login == defaultLimiters(RateLimitOptions{}).Login {
		t.Errorf("defaultLimiters shares buckets between calls or slots")
	}
}

func TestTokenBucketRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		capacity int
		perSec   float64
		spend    int           // allowed requests before the refused one
		after    time.Duration // clock advance before the refused one
		want     time.Duration
	}{
		{"one per second", 1, 1, 1, 0, time.Second},
		{"partly refilled", 1, 1, 1, 300 * time.Millisecond, 700 * time.Millisecond},
		{"fast refill", 5, 1000, 5, 0, time.Millisecond},
		{"slow refill", 2, 1.0 / 3600, 2, 0, time.Hour},
		{"a third per second", 3, 1.0 / 3, 3, time.Second, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := newTestBucket(tt.capacity, tt.perSec)
			for i := range tt.spend {
				if ok, _ := mustAllow(t, b, "k"); !ok {
					t.Fatalf("request %d refused; want allowed", i+1)
				}
			}
			c.advance(tt.after)
			ok, retry := mustAllow(t, b, "k")
			if ok {
				t.Fatalf("allowed; want refused")
			}
			if d := retry - tt.want; d < 0 || d > time.Microsecond {
				t.Errorf("retryAfter = %v; want %v", retry, tt.want)
			}
			// A refusal spends nothing: the wait does not grow.
			if _, again := mustAllow(t, b, "k"); again != retry {
				t.Errorf("second retryAfter = %v; want %v (a refusal must not spend a token)", again, retry)
			}
			c.advance(retry)
			if ok, again := mustAllow(t, b, "k"); !ok {
				t.Errorf("refused after waiting retryAfter %v (retryAfter now %v); want allowed", retry, again)
			}
		})
	}
}

func TestTokenBucketKeysIndependent(t *testing.T) {
	t.Parallel()
	b, _ := newTestBucket(2, 1)
	for range 2 {
		mustAllow(t, b, "1.2.3.4|a@example.com")
	}
	if ok, _ := mustAllow(t, b, "1.2.3.4|a@example.com"); ok {
		t.Fatalf("third request on a spent key allowed; want refused")
	}
	for _, key := range []string{"1.2.3.4|b@example.com", "5.6.7.8|a@example.com", ""} {
		if ok, _ := mustAllow(t, b, key); !ok {
			t.Errorf("Allow(%q) refused; want allowed (keys are independent)", key)
		}
	}
}

func TestNoLimit(t *testing.T) {
	t.Parallel()
	for i := range 1000 {
		if ok, retry, err := (NoLimit{}).Allow(context.Background(), "k"); !ok || retry != 0 || err != nil {
			t.Fatalf("NoLimit.Allow #%d = %v, %v, %v; want true, 0, nil", i, ok, retry, err)
		}
	}
}

func TestNewTokenBucketPanics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		capacity int
		perSec   float64
	}{
		{"zero capacity", 0, 1},
		{"negative capacity", -1, 1},
		{"zero refill", 1, 0},
		{"negative refill", 1, -1},
		{"NaN refill", 1, nan()},
		{"infinite refill", 1, inf()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("NewTokenBucket(%d, %v) did not panic", tt.capacity, tt.perSec)
				}
			}()
			NewTokenBucket(tt.capacity, tt.perSec)
		})
	}
}

func nan() float64 { z := 0.0; return z / z }

func inf() float64 { z := 0.0; return 1 / z }

// TestTokenBucketPrunes floods the bucket with distinct keys, each spending a
// token, and checks that the map never holds much more than the keys whose
// buckets are still refilling.
func TestTokenBucketPrunes(t *testing.T) {
	t.Parallel()
	const perSec = 10 // a spent token is back after 100ms
	b, c := newTestBucket(1, perSec)
	peak := 0
	for i := range 100_000 {
		// 1000 new keys per second: about 100 buckets are refilling at any time.
		c.advance(time.Millisecond)
		if ok, _ := mustAllow(t, b, strconv.Itoa(i)); !ok {
			t.Fatalf("first request of key %d refused", i)
		}
		peak = max(peak, b.len())
	}
	if limit := 2*max(100, minSweepSize) + 1; peak > limit {
		t.Errorf("map peaked at %d buckets; want at most %d (idle full buckets must be pruned)", peak, limit)
	}

	// The time-based sweep drops what is left once the buckets are full again,
	// even when no new key arrives.
	c.advance(sweepInterval)
	mustAllow(t, b, "0")
	if n := b.len(); n != 1 {
		t.Errorf("after a quiet minute the map holds %d buckets; want 1", n)
	}
}

// TestTokenBucketPruneKeepsState checks that a sweep never drops a bucket that
// is still refilling, which would hand its key a fresh burst.
func TestTokenBucketPruneKeepsState(t *testing.T) {
	t.Parallel()
	b, c := newTestBucket(3, 1.0/60)
	for range 3 {
		mustAllow(t, b, "victim")
	}
	for i := range 10 * minSweepSize {
		mustAllow(t, b, strconv.Itoa(i)) // forces doubling sweeps
	}
	c.advance(sweepInterval) // forces a time sweep; one token is back
	if ok, _ := mustAllow(t, b, "victim"); !ok {
		t.Fatalf("refused after a minute; want the refilled token")
	}
	if ok, _ := mustAllow(t, b, "victim"); ok {
		t.Fatalf("allowed twice after a minute; the sweep dropped a refilling bucket")
	}
}

func TestTokenBucketConcurrent(t *testing.T) {
	t.Parallel()
	const (
		workers  = 16
		perKey   = 50
		capacity = 20
	)
	b, _ := newTestBucket(capacity, 1e-9) // the clock stands still: no refill
	var allowed [4]atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perKey {
				k := (w + i) % len(allowed)
				ok, _, err := b.Allow(context.Background(), fmt.Sprint("key", k))
				if err != nil {
					t.Errorf("Allow: %v", err)
					return
				}
				if ok {
					allowed[k].Add(1)
				}
			}
		})
	}
	wg.Wait()
	for k := range allowed {
		if n := allowed[k].Load(); n != capacity {
			t.Errorf("key%d: %d requests allowed; want exactly %d", k, n, capacity)
		}
	}
}

func TestClientIP(t *testing.T) {
	t.Parallel()
	// Loopback, the private ranges and link-local: a deployment that lists
	// its own proxies' ranges.
	trusted := append(DefaultTrustedProxies(),
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("fc00::/7"),
		netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("fe80::/10"))
	tests := []struct {
		name   string
		remote string
		xff    []string // one element per header line
		realIP string
		want   string
	}{
		{"untrusted peer", "203.0.113.7:5555", nil, "", "203.0.113.7"},
		{"untrusted peer spoofs XFF", "203.0.113.7:5555", []string{"1.1.1.1"}, "", "203.0.113.7"},
		{"untrusted peer spoofs X-Real-IP", "203.0.113.7:5555", nil, "1.1.1.1", "203.0.113.7"},
		{"trusted peer without headers", "10.0.0.2:80", nil, "", "10.0.0.2"},
		{"trusted peer, one hop", "10.0.0.2:80", []string{"198.51.100.9"}, "", "198.51.100.9"},
		{"client prepends a spoofed hop", "10.0.0.2:80", []string{"1.1.1.1, 198.51.100.9"}, "", "198.51.100.9"},
		{"chain of trusted proxies", "127.0.0.1:80", []string{"6.6.6.6, 198.51.100.9, 10.1.1.1, 192.168.0.3"}, "", "198.51.100.9"},
		{"every hop trusted: leftmost", "127.0.0.1:80", []string{"10.0.0.5, 172.16.3.4, 192.168.0.3"}, "", "10.0.0.5"},
		{"several header lines", "10.0.0.2:80", []string{"6.6.6.6", "198.51.100.9, 10.0.0.3", "10.0.0.4"}, "", "198.51.100.9"},
		{"several lines, client in the last", "10.0.0.2:80", []string{"6.6.6.6", "198.51.100.9"}, "", "198.51.100.9"},
		{"spaces and ports in entries", "10.0.0.2:80", []string{"  198.51.100.9:4711 ,10.0.0.3:80 "}, "", "198.51.100.9"},
		{"XFF wins over X-Real-IP", "10.0.0.2:80", []string{"198.51.100.9"}, "198.51.100.10", "198.51.100.9"},
		{"X-Real-IP when no XFF", "10.0.0.2:80", nil, "198.51.100.10", "198.51.100.10"},
		{"X-Real-IP with spaces", "10.0.0.2:80", nil, " 198.51.100.10 ", "198.51.100.10"},
		{"garbage X-Real-IP", "10.0.0.2:80", nil, "nonsense", "10.0.0.2"},
		{"garbage XFF falls to X-Real-IP", "10.0.0.2:80", []string{"nonsense"}, "198.51.100.10", "198.51.100.10"},
		{"garbage XFF falls to peer", "10.0.0.2:80", []string{"nonsense"}, "", "10.0.0.2"},
		{"garbage left of the client is ignored", "10.0.0.2:80", []string{"nonsense, 198.51.100.9"}, "", "198.51.100.9"},
		{"garbage stops at the last good hop", "10.0.0.2:80", []string{"198.51.100.9, nonsense, 10.0.0.3"}, "", "10.0.0.3"},
		{"empty entry is garbage", "10.0.0.2:80", []string{"198.51.100.9,, 10.0.0.3"}, "", "10.0.0.3"},
		{"empty header line", "10.0.0.2:80", []string{""}, "", "10.0.0.2"},
		{"IPv6 peer untrusted", "[2001:db8::1]:443", []string{"1.1.1.1"}, "", "2001:db8::1"},
		{"IPv6 peer non-canonical", "[2001:DB8:0:0::1]:443", nil, "", "2001:db8::1"},
		{"IPv6 loopback peer", "[::1]:443", []string{"2001:db8::7"}, "", "2001:db8::7"},
		{"IPv6 ULA peer, bracketed hop", "[fd00::1]:443", []string{"[2001:db8::7]:5000, fd00::2"}, "", "2001:db8::7"},
		{"IPv6 hop with zone", "[::1]:1", []string{"fe80::1%eth0, ::1"}, "", "fe80::1"},
		{"IPv4-mapped peer is trusted", "[::ffff:10.0.0.2]:80", []string{"198.51.100.9"}, "", "198.51.100.9"},
		{"IPv4-mapped hop is unmapped", "10.0.0.2:80", []string{"::ffff:198.51.100.9"}, "", "198.51.100.9"},
		{"IPv4-mapped untrusted peer", "[::ffff:203.0.113.7]:80", []string{"1.1.1.1"}, "", "203.0.113.7"},
		{"link-local peer trusted", "169.254.1.1:80", []string{"198.51.100.9"}, "", "198.51.100.9"},
		{"peer without port", "203.0.113.7", nil, "", "203.0.113.7"},
		{"unparseable peer kept raw", "@", []string{"1.1.1.1"}, "", "@"},
		{"empty peer kept raw", "", []string{"1.1.1.1"}, "1.1.1.1", ""},
		{"172.32 is not private", "172.32.0.1:80", []string{"1.1.1.1"}, "", "172.32.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, line := range tt.xff {
				r.Header.Add("X-Forwarded-For", line)
			}
			if tt.realIP != "" {
				r.Header.Set("X-Real-IP", tt.realIP)
			}
			if got := clientIP(r, trusted); got != tt.want {
				t.Errorf("clientIP(%q, XFF %q, X-Real-IP %q) = %q; want %q", tt.remote, tt.xff, tt.realIP, got, tt.want)
			}
		})
	}
}

func TestClientIPCustomTrusted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trusted []netip.Prefix
		remote  string
		xff     string
		want    string
	}{
		{"none trusted: loopback ignored", nil, "127.0.0.1:80", "198.51.100.9", "127.0.0.1"},
		{"public proxy trusted", []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}, "203.0.113.7:80", "198.51.100.9, 203.0.113.8", "198.51.100.9"},
		{"private not trusted by custom list", []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}, "10.0.0.1:80", "198.51.100.9", "10.0.0.1"},
		{"private hop is the client when untrusted", []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}, "203.0.113.7:80", "198.51.100.9, 10.0.0.1", "10.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			r.Header.Set("X-Forwarded-For", tt.xff)
			if got := clientIP(r, tt.trusted); got != tt.want {
				t.Errorf("clientIP(%q, XFF %q) = %q; want %q", tt.remote, tt.xff, got, tt.want)
			}
		})
	}
}

// TestDefaultTrustedProxiesLoopbackOnly: a peer in a private range (a
// container behind Docker's NAT) cannot pick its own address, and so a
// fresh rate-limit bucket, with X-Forwarded-For; a caller changing the
// returned slice changes nobody else's.
func TestDefaultTrustedProxiesLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, peer := range []string{"172.17.0.1:4000", "10.0.0.2:80", "192.168.1.5:80", "[fd00::1]:80", "169.254.1.1:80"} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", "198.51.100.9")
		if got := clientIP(r, DefaultTrustedProxies()); got == "198.51.100.9" {
			t.Errorf("clientIP(peer %s, XFF 198.51.100.9) = %q; want the peer: private ranges are not trusted by default", peer, got)
		}
	}
	d := DefaultTrustedProxies()
	d[0] = netip.MustParsePrefix("0.0.0.0/0")
	if DefaultTrustedProxies()[0] == d[0] {
		t.Error("DefaultTrustedProxies returned shared state")
	}
	h := DefaultArgon2id()
	h.Memory = 8
	if DefaultArgon2id().Memory != 9216 {
		t.Error("DefaultArgon2id returned shared state")
	}
}

func FuzzClientIP(f *testing.F) {
	f.Add("10.0.0.2:80", "1.1.1.1, 198.51.100.9", "10.0.0.3", "198.51.100.10")
	f.Add("[::1]:443", "[2001:db8::7]:5000, fd00::2", "", "")
	f.Add("203.0.113.7:1", "1.1.1.1", "", "x")
	f.Add("@", ",,,", "", "")
	f.Add("[::ffff:10.0.0.2]:80", "fe80::1%eth0", "::ffff:1.2.3.4", "[::1]")
	f.Fuzz(func(t *testing.T, remote, xff1, xff2, realIP string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header["X-Forwarded-For"] = []string{xff1, xff2}
		r.Header.Set("X-Real-IP", realIP)
		got := clientIP(r, DefaultTrustedProxies())
		if got == remote {
			return
		}
		ip, err := netip.ParseAddr(got)
		if err != nil {
			t.Fatalf("clientIP(%q, XFF %q %q, X-Real-IP %q) = %q; want a parseable address or the raw peer", remote, xff1, xff2, realIP, got)
		}
		if ip.String() != got || ip.Is4In6() || ip.Zone() != "" {
			t.Fatalf("clientIP(%q, ...) = %q; want the canonical form %q, unmapped, without zone", remote, got, ip.Unmap().WithZone(""))
		}
		if peer, ok := parseHop(remote); ok && !isTrusted(peer, DefaultTrustedProxies()) && got != peer.String() {
			t.Fatalf("clientIP(%q, XFF %q %q) = %q; want the untrusted peer %q", remote, xff1, xff2, got, peer)
		}
	})
}

// BenchmarkTokenBucketAllow measures Allow from all Ps over many keys, the
// cost every auth request pays.
func BenchmarkTokenBucketAllow(b *testing.B) {
	const keys = 1 << 14
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("198.51.%d.%d|user%d@example.com", i>>8&255, i&255, i)
	}
	l := NewTokenBucket(10, 10.0/60)
	var seq atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := seq.Add(1) * 7919
		ctx := context.Background()
		for pb.Next() {
			i++
			if _, _, err := l.Allow(ctx, names[i%keys]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestTokenBucketPeek(t *testing.T) {
	t.Parallel()
	clock := time.Unix(1_700_000_000, 0)
	b := NewTokenBucket(2, 1).(*tokenBucket)
	b.now = func() time.Time { return clock }
	ctx := context.Background()
	for i := range 5 {
		if ok, _, _ := b.Peek(ctx, "k"); !ok {
			t.Fatalf("Peek #%d on a fresh key = false; want true (peeking spends nothing)", i+1)
		}
	}
	b.Allow(ctx, "k")
	b.Allow(ctx, "k")
	ok, retry, err := b.Peek(ctx, "k")
	if ok || err != nil || retry != time.Second {
		t.Fatalf("Peek on an empty bucket = %v, %v, %v; want false, 1s, nil", ok, retry, err)
	}
	clock = clock.Add(time.Second)
	if ok, _, _ := b.Peek(ctx, "k"); !ok {
		t.Fatal("Peek after refill = false; want true")
	}
}
