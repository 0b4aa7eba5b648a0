package admin

import (
	"context"
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
// RateLimitOptions to disable that limiter.
type NoLimit struct{}

// Allow allows key.
func (NoLimit) Allow(context.Context, string) (bool, time.Duration, error) { return true, 0, nil }

// Peeker is a Limiter that can also tell whether key would be allowed,
// without spending a token. Sign-in uses it for the per-email failure
// limiter, which only failed attempts spend: the token bucket implements
// it. A LoginFailuresPerEmail limiter without it is spent by every attempt.
type Peeker interface {
	Peek(ctx context.Context, key string) (allowed bool, retryAfter time.Duration, err error)
}

// RateLimitOptions holds the limiters of the auth endpoints. A nil slot is the
// default in-memory token bucket named below; NoLimit{} disables the slot.
type RateLimitOptions struct {
	// Login is spent by every POST /auth/login, keyed by client IP and email.
	// Default: a burst of 10, refilled at 10 per minute.
	Login Limiter
	// Bootstrap is spent by every POST /auth/bootstrap, keyed by client IP.
	// Default: a burst of 5, refilled at 1 per minute.
	Bootstrap Limiter
	// RequestReset is spent by every POST /auth/request-reset, keyed by client
	// IP and email. Default: a burst of 3, refilled at 1 per minute.
	RequestReset Limiter
	// LoginFailuresPerEmail is spent only by failed sign-ins, keyed by email
	// alone: the ceiling over guesses spread across many networks. Past it
	// a sign-in is not refused (that would let anyone lock the owner out)
	// but stepped up: every attempt on that email, right or wrong, waits
	// LoginStepUpDelay before its password is checked, and its audit row
	// says "stepUp": true. Default: a burst of 100, refilled at 1 every 30
	// seconds.
	LoginFailuresPerEmail Limiter
	// LoginStepUpDelay is the wait of a sign-in on an email over the
	// LoginFailuresPerEmail ceiling. Default 3 s; negative: none.
	LoginStepUpDelay time.Duration
	// LoginFailuresPerNetwork is spent only by failed sign-ins, keyed by
	// email and the client's network (its /24 for IPv4, /48 for IPv6), so
	// that guesses from one place lock that account from that place only:
	// a network that has not failed is never refused for another's.
	// Default: a burst of 10, refilled at 1 every 30 seconds.
	LoginFailuresPerNetwork Limiter
	// PerIP is spent by every POST /auth/login, /auth/bootstrap and
	// /auth/request-reset and every Auth().AuthenticateFrom, keyed by client
	// IP alone, before any hashing or database work: one address rotating
	// emails cannot buy unbounded work. Default: a burst of 30, refilled at
	// 30 per minute.
	PerIP Limiter
	// Actions is spent by every custom action (POST /<key>/_action/<name>),
	// keyed by the operator's user id. Default: a burst of 60, refilled at
	// 60 per minute.
	Actions Limiter
	// ResetDeliveries is spent by every reset or invite link the panel
	// delivers, keyed by the user's id, whatever address asked: a mailbox
	// cannot be flooded from many networks. A reset request past it is
	// answered as any other and only audited; an invite past it is 429.
	// Default: a burst of 5, refilled at 5 per hour.
	ResetDeliveries Limiter
	// Exports is spent by every CSV export, keyed by the operator's user
	// id (one export at a time each, besides). Default: a burst of 5,
	// refilled at 1 every 2 minutes.
	Exports Limiter
	// TOTP is spent by every second-factor code, recovery code and password
	// check of a signed-in or half-signed-in operator (POST /auth/login/totp,
	// /auth/totp/*, /auth/password), once keyed by user and once by client
	// IP. Default: a burst of 10, refilled at 1 every 30 seconds.
	TOTP Limiter
}

// The default buckets of RateLimitOptions (docs/security.md lists them).
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
	defaultLoginStepUpDelay    = 3 * time.Second
	defaultExportsBurst        = 5
	defaultExportsPerSec       = 1.0 / 120
	defaultDeliveriesBurst     = 5
	defaultDeliveriesPerSec    = 5.0 / 3600
)

// defaultLimiters returns o with every nil slot filled with its default
// in-memory bucket. Each call makes new buckets, so each Admin has its own.
func defaultLimiters(o RateLimitOptions) RateLimitOptions {
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
	switch {
	case o.LoginStepUpDelay == 0:
		o.LoginStepUpDelay = defaultLoginStepUpDelay
	case o.LoginStepUpDelay < 0:
		o.LoginStepUpDelay = 0
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

var _ Peeker = (*bucket.Buckets)(nil)
