package admin

import (
	"net/netip"

	"github.com/gameadmin/admin/internal/engine"
)

// Limiter decides whether one more request for key may go through now.
// allowed=false comes with retryAfter: how long until a token is back.
// err is for system errors only (e.g. a shared store is unreachable).
//
// Implementations must be safe for concurrent use. The in-memory buckets of
// NewTokenBucket are shared only within one process; a game running several
// nodes supplies a Limiter backed by a shared store.
type Limiter = engine.Limiter

// NoLimit is a Limiter that allows everything. Put NoLimit{} in a slot of
// RateLimitOptions to disable that limiter.
type NoLimit = engine.NoLimit

// Refunder is a Limiter that can give back a token Allow spent. Sign-in
// spends its failure buckets (LoginFailuresPerNetwork, PerEmail, PerDevice)
// before it checks a password, so that guesses sent in parallel cannot all
// pass a bucket that holds one token; a sign-in that succeeds, or that a
// later bucket refuses, gives its tokens back when the limiter is a
// Refunder. A failure limiter without it is spent by every attempt, right
// or wrong. The token bucket and redisstore's Limiter implement it.
type Refunder = engine.Refunder

// RateLimitOptions holds the limiters of the auth endpoints. A nil slot is the
// default in-memory token bucket named below; NoLimit{} disables the slot.
type RateLimitOptions = engine.RateLimitOptions

// NewTokenBucket returns an in-memory Limiter with one token bucket per key:
// each bucket holds at most capacity tokens, starts full, and gets
// refillPerSec tokens back per second. Every allowed request spends a token.
//
// Memory is bounded without a goroutine: a bucket that is full again carries
// no state and is dropped by a sweep that Allow runs at most once a minute,
// or sooner when the number of keys has doubled since the last sweep. The map
// therefore holds at most about twice the keys seen within the time a bucket
// takes to refill (capacity/refillPerSec), however many distinct keys arrive.
//
// NewTokenBucket panics if capacity < 1 or refillPerSec is not a positive,
// finite number.
func NewTokenBucket(capacity int, refillPerSec float64) Limiter {
	return engine.NewTokenBucket(capacity, refillPerSec)
}

// DefaultTrustedProxies returns the peers whose X-Forwarded-For and
// Forwarded headers are believed when Options.TrustedProxies is nil:
// loopback only (127.0.0.0/8 and ::1), that is a reverse proxy on the same
// host. Private ranges are not trusted by default: anything that reaches the
// server from one (a container beside it, a host behind the same NAT) could
// otherwise pick its own address and a fresh rate-limit bucket per request.
// List a load balancer's addresses in Options.TrustedProxies. Each call
// returns a new slice.
func DefaultTrustedProxies() []netip.Prefix {
	return engine.DefaultTrustedProxies()
}
