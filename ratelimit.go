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

// RateLimitOptions holds the limiters of the auth endpoints. A nil slot is
// the default in-memory token bucket named below; NoLimit{} disables the
// slot.
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
	// LoginFailuresPerEmail is the account's ceiling over guesses spread
	// across many networks, keyed by email alone. Each sign-in (panel,
	// Authenticate, AuthenticateFrom) spends a token before its password is
	// checked, whatever the parallelism, and a right password gives it back
	// (Refunder): only failures stay spent. Past it, every sign-in at that
	// account is refused with 429 and Retry-After — except from a browser
	// holding the account's device cookie, whose attempts spend
	// LoginFailuresPerDevice instead, so guesses from elsewhere cannot lock
	// the owner out. Default: a burst of 100, refilled at 1 every 30
	// seconds.
	LoginFailuresPerEmail Limiter
	// LoginFailuresPerNetwork is spent like LoginFailuresPerEmail, keyed by
	// email and the client's network (its /24 for IPv4, /48 for IPv6), so
	// that guesses from one place lock that account from that place first:
	// a network that has not failed is not refused for another's until the
	// account's ceiling. Default: a burst of 10, refilled at 1 every 30
	// seconds.
	LoginFailuresPerNetwork Limiter
	// LoginFailuresPerDevice is the budget of a browser that signed in to
	// the account before (its signed device cookie, OWASP's "device
	// cookies"), keyed by that cookie: its attempts spend neither of the
	// two above, so the owner signs in during an attack on their account.
	// Past it the browser is a stranger again. Default: a burst of 10,
	// refilled at 1 every 30 seconds.
	LoginFailuresPerDevice Limiter
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
	// Reports is spent by every player report the game files
	// (Admin.FileReport), keyed by the reporter's user id, so that one
	// player cannot flood the reports queue; a duplicate that folds into
	// an open report spends a token too. Default: a burst of 10, refilled
	// at 5 a minute.
	Reports Limiter
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
