// Package ratelimit is the panel's rate limiting: the Limiter interface
// and its Refunder extension, NoLimit, the in-memory token bucket (over
// internal/bucket), the limiters of the auth endpoints with their default
// buckets, the error a refused sign-in returns, and the proxies trusted
// by default when finding the client address a bucket is keyed by.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"time"

	"github.com/gameadmin/admin/internal/bucket"
)

// Limiter decides whether one more request for key may go through now.
// allowed=false comes with retryAfter: how long until a token is back.
// err is for system errors only (e.g. a shared store is unreachable).
//
// Implementations must be safe for concurrent use. The in-memory buckets of
// NewTokenBucket are shared only within one process; a game running several
// nodes supplies a Limiter backed by a shared store.
type Limiter interface {
	Allow(ctx context.Context, key string) (allowed bool, retryAfter time.Duration, err error)
}

// NoLimit is a Limiter that allows everything. Put NoLimit{} in a slot of
// Options to disable that limiter.
type NoLimit struct{}

// Allow allows key.
func (NoLimit) Allow(context.Context, string) (bool, time.Duration, error) { return true, 0, nil }

// Refunder is a Limiter that can give back a token Allow spent. Sign-in
// spends its failure buckets (LoginFailuresPerNetwork, PerEmail, PerDevice)
// before it checks a password, so that guesses sent in parallel cannot all
// pass a bucket that holds one token; a sign-in that succeeds, or that a
// later bucket refuses, gives its tokens back when the limiter is a
// Refunder. A failure limiter without it is spent by every attempt, right
// or wrong. The token bucket and redisstore's Limiter implement it.
type Refunder interface {
	Refund(ctx context.Context, key string) error
}

// Options is admin.RateLimitOptions, field for field (the root converts one to the
// other); its documentation is there.
type Options struct {
	Login                   Limiter
	Bootstrap               Limiter
	RequestReset            Limiter
	LoginFailuresPerEmail   Limiter
	LoginFailuresPerNetwork Limiter
	LoginFailuresPerDevice  Limiter
	PerIP                   Limiter
	Actions                 Limiter
	ResetDeliveries         Limiter
	Exports                 Limiter
	TOTP                    Limiter
	Reports                 Limiter
}

// The default buckets of Options (docs/security.md lists them).
const (
	defaultLoginBurst          = 10
	defaultLoginPerSec         = 10.0 / 60
	defaultBootstrapBurst      = 5
	defaultBootstrapPerSec     = 1.0 / 60
	defaultRequestResetBurst   = 3
	defaultRequestResetPerSec  = 1.0 / 60
	defaultLoginFailuresBurst  = 100
	defaultLoginFailuresPerSec = 1.0 / 30
	defaultNetFailuresBurst    = 10
	defaultNetFailuresPerSec   = 1.0 / 30
	defaultPerIPBurst          = 30
	defaultPerIPPerSec         = 30.0 / 60
	defaultActionsBurst        = 60
	defaultActionsPerSec       = 60.0 / 60
	defaultTOTPBurst           = 10
	defaultTOTPPerSec          = 1.0 / 30
	defaultExportsBurst        = 5
	defaultExportsPerSec       = 1.0 / 120
	defaultDeliveriesBurst     = 5
	defaultDeliveriesPerSec    = 5.0 / 3600
	defaultReportsBurst        = 10
	defaultReportsPerSec       = 5.0 / 60
)

// Defaults returns o with every nil slot filled with its default
// in-memory bucket. Each call makes new buckets, so each panel has its
// own.
func Defaults(o Options) Options {
	if o.Login == nil {
		o.Login = NewTokenBucket(defaultLoginBurst, defaultLoginPerSec)
	}
	if o.Bootstrap == nil {
		o.Bootstrap = NewTokenBucket(defaultBootstrapBurst, defaultBootstrapPerSec)
	}
	if o.RequestReset == nil {
		o.RequestReset = NewTokenBucket(defaultRequestResetBurst, defaultRequestResetPerSec)
	}
	if o.LoginFailuresPerEmail == nil {
		o.LoginFailuresPerEmail = NewTokenBucket(defaultLoginFailuresBurst, defaultLoginFailuresPerSec)
	}
	if o.TOTP == nil {
		o.TOTP = NewTokenBucket(defaultTOTPBurst, defaultTOTPPerSec)
	}
	if o.LoginFailuresPerNetwork == nil {
		o.LoginFailuresPerNetwork = NewTokenBucket(defaultNetFailuresBurst, defaultNetFailuresPerSec)
	}
	if o.LoginFailuresPerDevice == nil {
		o.LoginFailuresPerDevice = NewTokenBucket(defaultNetFailuresBurst, defaultNetFailuresPerSec)
	}
	if o.PerIP == nil {
		o.PerIP = NewTokenBucket(defaultPerIPBurst, defaultPerIPPerSec)
	}
	if o.Actions == nil {
		o.Actions = NewTokenBucket(defaultActionsBurst, defaultActionsPerSec)
	}
	if o.Exports == nil {
		o.Exports = NewTokenBucket(defaultExportsBurst, defaultExportsPerSec)
	}
	if o.ResetDeliveries == nil {
		o.ResetDeliveries = NewTokenBucket(defaultDeliveriesBurst, defaultDeliveriesPerSec)
	}
	if o.Reports == nil {
		o.Reports = NewTokenBucket(defaultReportsBurst, defaultReportsPerSec)
	}
	return o
}

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
	if capacity < 1 {
		panic(fmt.Sprintf("admin: NewTokenBucket: capacity %d must be at least 1", capacity))
	}
	if !(refillPerSec > 0) || math.IsInf(refillPerSec, 0) {
		panic(fmt.Sprintf("admin: NewTokenBucket: refillPerSec %v must be positive and finite", refillPerSec))
	}
	return bucket.New(capacity, refillPerSec)
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
	return []netip.Prefix{
		netip.MustParsePrefix("127.0.0.0/8"),
		netip.MustParsePrefix("::1/128"),
	}
}

var _ Refunder = (*bucket.Buckets)(nil)

// ErrLimited reports a sign-in refused by a rate limit before any
// password was checked (the panel's ErrRateLimited). The error a sign-in
// returns is an *Error, which says when to try again.
var ErrLimited = errors.New("admin: rate limited")

// Error is a sign-in refused by a rate limit (the panel's
// RateLimitError); errors.Is(err, ErrLimited) reports it.
type Error struct {
	// RetryAfter is how long until the limiter lets the next attempt in.
	RetryAfter time.Duration
}

// Error says when to try again.
func (e *Error) Error() string {
	return fmt.Sprintf("admin: rate limited; retry in %s", e.RetryAfter.Round(time.Second))
}

// Is makes errors.Is(err, ErrLimited) true.
func (e *Error) Is(target error) bool { return target == ErrLimited }
