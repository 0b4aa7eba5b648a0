package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/clientip"

	"github.com/gameadmin/admin/internal/bucket"
	"github.com/gameadmin/admin/internal/errbody"
)

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
		slot  func(Options) Limiter
		burst int
		every time.Duration // time for one token to come back
	}{
		{"login", func(o Options) Limiter { return o.Login }, 10, 6 * time.Second},
		{"bootstrap", func(o Options) Limiter { return o.Bootstrap }, 5, time.Minute},
		{"request reset", func(o Options) Limiter { return o.RequestReset }, 3, time.Minute},
		{"login failures per email", func(o Options) Limiter { return o.LoginFailuresPerEmail }, 100, 30 * time.Second},
		{"login failures per network", func(o Options) Limiter { return o.LoginFailuresPerNetwork }, 10, 30 * time.Second},
		{"login failures per device", func(o Options) Limiter { return o.LoginFailuresPerDevice }, 10, 30 * time.Second},
		{"per IP", func(o Options) Limiter { return o.PerIP }, 30, 2 * time.Second},
		{"actions", func(o Options) Limiter { return o.Actions }, 60, time.Second},
		{"reset deliveries", func(o Options) Limiter { return o.ResetDeliveries }, 5, 12 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.slot(Defaults(Options{})).(*bucket.Buckets)
			now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			b.Now = func() time.Time { return now }
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
			now = now.Add(tt.every - time.Millisecond)
			if ok, _ := mustAllow(t, b, "k"); ok {
				t.Fatalf("allowed %v after the burst; want refused until %v", tt.every-time.Millisecond, tt.every)
			}
			now = now.Add(time.Millisecond)
			if ok, retry := mustAllow(t, b, "k"); !ok {
				t.Fatalf("refused %v after the burst (retryAfter %v); want allowed", tt.every, retry)
			}
		})
	}
}

func TestDefaultLimitersKeepsGivenSlots(t *testing.T) {
	t.Parallel()
	custom := NewTokenBucket(1, 1)
	o := Defaults(Options{Login: NoLimit{}, Bootstrap: custom})
	if o.Login != (NoLimit{}) {
		t.Errorf("Login = %T; want NoLimit kept", o.Login)
	}
	if o.Bootstrap != custom {
		t.Errorf("Bootstrap = %v; want the given limiter kept", o.Bootstrap)
	}
	if o.RequestReset == nil || o.LoginFailuresPerEmail == nil {
		t.Errorf("nil slots not filled: %+v", o)
	}
	if p := Defaults(Options{}); p.Login == o.RequestReset || p.Login == Defaults(Options{}).Login {
		t.Errorf("Defaults shares buckets between calls or slots")
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
		if got := clientip.Of(r, DefaultTrustedProxies()); got == "198.51.100.9" {
			t.Errorf("clientIP(peer %s, XFF 198.51.100.9) = %q; want the peer: private ranges are not trusted by default", peer, got)
		}
	}
	d := DefaultTrustedProxies()
	d[0] = netip.MustParsePrefix("0.0.0.0/0")
	if DefaultTrustedProxies()[0] == d[0] {
		t.Error("DefaultTrustedProxies returned shared state")
	}
}

func TestError(t *testing.T) {
	t.Parallel()
	var err error = fmt.Errorf("sign-in: %w", &Error{RetryAfter: 1400 * time.Millisecond})
	if !errors.Is(err, ErrLimited) {
		t.Errorf("errors.Is(%v, ErrLimited) = false", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.RetryAfter != 1400*time.Millisecond {
		t.Errorf("errors.As(%v) = %v", err, e)
	}
	if want := "admin: rate limited; retry in 1s"; e.Error() != want {
		t.Errorf("Error() = %q; want %q", e.Error(), want)
	}
	if errors.Is(errors.New("admin: rate limited"), ErrLimited) {
		t.Error("another error with the same text matches ErrLimited")
	}
}

type failing struct{}

func (failing) Allow(context.Context, string) (bool, time.Duration, error) {
	return false, 0, errors.New("store down")
}

func TestSpendAndAnswer(t *testing.T) {
	ctx := context.Background()
	if err := Spend(ctx, NoLimit{}, "k"); err != nil {
		t.Fatalf("NoLimit: %v", err)
	}
	l := NewTokenBucket(1, 0.001)
	if err := Spend(ctx, l, "k"); err != nil {
		t.Fatalf("first token: %v", err)
	}
	err := Spend(ctx, l, "k")
	var rl *Error
	if !errors.As(err, &rl) || !errors.Is(err, ErrLimited) {
		t.Fatalf("empty bucket: %v", err)
	}
	var ae *errbody.Error
	if !errors.As(Answer(err), &ae) || ae.Status != 429 || ae.Code != "rate_limited" || ae.RetryAfterSec < 1 {
		t.Fatalf("Answer(%v) = %v", err, Answer(err))
	}
	if ae := refused(10 * time.Millisecond); ae.RetryAfterSec != 1 || ae.Message != "too many requests; retry in 1 s" {
		t.Fatalf("a refusal under a second: %+v", ae)
	}
	err = Spend(ctx, failing{}, "k")
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "store down") {
		t.Fatalf("failing limiter: %v", err)
	}
	if !errors.As(Answer(err), &ae) || ae.Status != 503 || !errors.Is(ae, ErrUnavailable) {
		t.Fatalf("Answer(%v) = %v", err, Answer(err))
	}
	other := errors.New("other")
	if Answer(other) != other || Answer(nil) != nil {
		t.Fatal("Answer changed an error that is no refusal")
	}
}
