package engine

import (
	"net/netip"

	"github.com/gameadmin/admin/internal/ratelimit"
)

// Rate limiting is package ratelimit's; these are its names here, and the
// public API's through the root's aliases.
type (
	// Limiter decides whether one more request for key may go through now.
	Limiter = ratelimit.Limiter
	// NoLimit is a Limiter that allows everything.
	NoLimit = ratelimit.NoLimit
	// Refunder is a Limiter that can give back a token Allow spent.
	Refunder = ratelimit.Refunder
	// RateLimitOptions holds the limiters of the auth endpoints.
	RateLimitOptions = ratelimit.Options
)

// NewTokenBucket returns an in-memory Limiter with one token bucket per
// key (ratelimit.NewTokenBucket).
func NewTokenBucket(capacity int, refillPerSec float64) Limiter {
	return ratelimit.NewTokenBucket(capacity, refillPerSec)
}

// DefaultTrustedProxies returns the peers whose forwarding headers are
// believed when Options.TrustedProxies is nil: loopback only.
func DefaultTrustedProxies() []netip.Prefix { return ratelimit.DefaultTrustedProxies() }
