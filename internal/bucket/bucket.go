// Package bucket is the in-memory token-bucket limiter behind
// admin.NewTokenBucket: one golang.org/x/time/rate limiter per key, with
// idle keys swept so that memory stays bounded however many keys arrive.
package bucket

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// SweepInterval is how often, at most, Allow looks for idle buckets to drop
// when the map has not doubled in the meantime.
const SweepInterval = time.Minute

// MinSweepSize keeps a small map from being swept on every new key.
const MinSweepSize = 64

// New returns a bucket per key, each holding at most capacity tokens,
// starting full and getting refillPerSec tokens back per second (admin's
// NewTokenBucket checks both).
//
// Memory is bounded without a goroutine: a bucket that is full again carries
// no state and is dropped by a sweep that Allow runs at most once a minute,
// or sooner when the number of keys has doubled since the last sweep. The map
// therefore holds at most about twice the keys seen within the time a bucket
// takes to refill (capacity/refillPerSec), however many distinct keys arrive.
func New(capacity int, refillPerSec float64) *Buckets {
	return &Buckets{
		limit:   rate.Limit(refillPerSec),
		burst:   capacity,
		Now:     time.Now,
		buckets: make(map[string]*rate.Limiter),
	}
}

// Buckets are the token buckets of one limit, by key.
type Buckets struct {
	limit rate.Limit
	burst int
	// Now is the clock: time.Now; tests move a fake one instead of sleeping.
	Now func() time.Time

	// mu guards the map and is held for the whole of Allow, so that a sweep
	// never drops a bucket between its lookup and its use.
	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
	lastSweep time.Time
	swept     int // len(buckets) after the last sweep
}

// Allow spends a token of key's bucket if one is there, else reports how long
// until one is. It never sleeps and never returns an error.
func (b *Buckets) Allow(_ context.Context, key string) (bool, time.Duration, error) {
	now := b.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.maybeSweep(now)
	lim, ok := b.buckets[key]
	if !ok {
		lim = rate.NewLimiter(b.limit, b.burst)
		b.buckets[key] = lim
	}
	if lim.AllowN(now, 1) {
		return true, 0, nil
	}
	return false, b.wait(1 - lim.TokensAt(now)), nil
}

// Refund gives back a token Allow spent for key: a bucket that would be
// full again is dropped, as the sweep drops it (it carries no state), so
// a refund never lifts a bucket past its capacity.
func (b *Buckets) Refund(_ context.Context, key string) error {
	now := b.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	lim, ok := b.buckets[key]
	switch {
	case !ok:
	case lim.TokensAt(now)+1 >= float64(b.burst):
		delete(b.buckets, key)
	default:
		lim.AllowN(now, -1) // a negative spend adds the token back
	}
	return nil
}

// wait is the time the bucket takes to refill the given number of tokens,
// rounded up to the nanosecond so that a retry after it always finds a token.
func (b *Buckets) wait(tokens float64) time.Duration {
	if tokens <= 0 {
		return 0
	}
	ns := math.Ceil(tokens / float64(b.limit) * float64(time.Second))
	if ns >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ns)
}

// maybeSweep drops the buckets that are full at now, at most once per
// SweepInterval unless the map has doubled since the last sweep, so its cost
// stays constant per call on average. b.mu must be held.
func (b *Buckets) maybeSweep(now time.Time) {
	n := len(b.buckets)
	if now.Sub(b.lastSweep) < SweepInterval && n < 2*max(b.swept, MinSweepSize) {
		return
	}
	full := float64(b.burst)
	for key, lim := range b.buckets {
		if lim.TokensAt(now) >= full {
			delete(b.buckets, key)
		}
	}
	b.lastSweep = now
	b.swept = len(b.buckets)
}

// Len reports the number of buckets held.
func (b *Buckets) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.buckets)
}
