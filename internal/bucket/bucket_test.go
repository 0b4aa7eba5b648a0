package bucket

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock for Buckets.Now that moves only when told to.
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
func newTestBucket(capacity int, refillPerSec float64) (*Buckets, *fakeClock) {
	b := New(capacity, refillPerSec)
	c := newFakeClock()
	b.Now = c.now
	return b, c
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
		peak = max(peak, b.Len())
	}
	if limit := 2*max(100, MinSweepSize) + 1; peak > limit {
		t.Errorf("map peaked at %d buckets; want at most %d (idle full buckets must be pruned)", peak, limit)
	}

	// The time-based sweep drops what is left once the buckets are full again,
	// even when no new key arrives.
	c.advance(SweepInterval)
	mustAllow(t, b, "0")
	if n := b.Len(); n != 1 {
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
	for i := range 10 * MinSweepSize {
		mustAllow(t, b, strconv.Itoa(i)) // forces doubling sweeps
	}
	c.advance(SweepInterval) // forces a time sweep; one token is back
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

// BenchmarkTokenBucketAllow measures Allow from all Ps over many keys, the
// cost every auth request pays.
func BenchmarkTokenBucketAllow(b *testing.B) {
	const keys = 1 << 14
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("198.51.%d.%d|user%d@example.com", i>>8&255, i&255, i)
	}
	l := New(10, 10.0/60)
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

func TestTokenBucketRefund(t *testing.T) {
	t.Parallel()
	clock := time.Unix(1_700_000_000, 0)
	b := New(3, 1)
	b.Now = func() time.Time { return clock }
	ctx := context.Background()
	if err := b.Refund(ctx, "fresh"); err != nil || b.Len() != 0 {
		t.Fatalf("Refund of a key never spent = %v, %d buckets; want nil, none", err, b.Len())
	}
	for range 3 {
		mustAllow(t, b, "k")
	}
	if ok, retry := mustAllow(t, b, "k"); ok || retry != time.Second {
		t.Fatalf("4th Allow = %v, %v; want refused for 1s", ok, retry)
	}
	b.Refund(ctx, "k")
	if ok, _ := mustAllow(t, b, "k"); !ok {
		t.Fatal("Allow after a refund = refused; want the refunded token")
	}
	if ok, _ := mustAllow(t, b, "k"); ok {
		t.Fatal("a second Allow after one refund = allowed; want refused")
	}
	// Refunds never lift a bucket past its capacity: one that would be
	// full again is dropped, and three more spends empty it.
	for range 10 {
		b.Refund(ctx, "k")
	}
	if b.Len() != 0 {
		t.Fatalf("%d buckets after refunds to full; want the full bucket dropped", b.Len())
	}
	for i := range 4 {
		if ok, _ := mustAllow(t, b, "k"); ok != (i < 3) {
			t.Fatalf("Allow #%d after refunds = %v; want a capacity of 3", i+1, ok)
		}
	}
}

func mustAllow(t *testing.T, b *Buckets, key string) (bool, time.Duration) {
	t.Helper()
	ok, retry, err := b.Allow(context.Background(), key)
	if err != nil {
		t.Fatalf("Allow(%q) error: %v", key, err)
	}
	return ok, retry
}
