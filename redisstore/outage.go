package redisstore

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"
)

// Outage is what a Limiter answers while Redis cannot be reached.
type Outage int

const (
	// OutageLocal answers from an in-memory bucket of this node's own
	// with the limiter's capacity and refill (admin.NewTokenBucket) until
	// Redis answers again. Every node keeps limiting, each on its own: N
	// nodes allow at most N times the limit during the outage. The
	// default.
	OutageLocal Outage = iota
	// OutageClosed refuses with an error, which the panel answers with
	// 503 rate_limiter_unavailable, until Redis answers again.
	OutageClosed
	// OutageOpen allows every request until Redis answers again. It suits
	// limiters that protect capacity rather than secrets.
	OutageOpen
)

// String names the outage answer as the logs do: "local", "closed" or
// "open".
func (o Outage) String() string {
	switch o {
	case OutageLocal:
		return "local"
	case OutageClosed:
		return "closed"
	case OutageOpen:
		return "open"
	}
	return "Outage(" + strconv.Itoa(int(o)) + ")"
}

// probeEvery is how often, at most, limiters that lost Redis try it again.
// Between tries their calls never touch Redis, so a Redis that does not
// answer at all (a dropped route, where each try waits out the dial
// timeout) costs one call per probeEvery, not every sign-in. It also
// bounds how long the limits stay per node once Redis and go-redis' pool
// answer again.
const probeEvery = 500 * time.Millisecond

// errRedisDown is an OutageClosed limiter's error for the calls that did
// not try Redis themselves.
var errRedisDown = errors.New("no answer from Redis at the last try")

// link is what the limiters of one client know of Redis: whether it
// answered last, and when the next call may try it during an outage.
//
// go-redis has a wait of its own, which is why a limiter keeps its outage
// answer until a call of its own gets through: once PoolSize dials in a
// row have failed, the client's pool fails every dial at once with the
// last dial error, without dialling, until a background probe of its own
// connects, and that probe tries once a second. So for up to a second
// after Redis is back, every command of the client still fails; a limiter
// that returned to Redis when Redis answered someone else would refuse
// sign-ins for that second.
type link struct {
	log       *slog.Logger
	down      atomic.Bool
	probing   atomic.Bool  // a call is trying Redis during an outage
	nextProbe atomic.Int64 // unix nanoseconds before which no call tries
}

func newLink(log *slog.Logger) *link { return &link{log: log} }

// up reports whether Redis answered the last call that tried it.
func (k *link) up() bool { return !k.down.Load() }

// try reports whether a call goes to Redis (ok), and whether it is the one
// call that probes Redis during an outage (probe), which must report its
// outcome to done.
func (k *link) try() (probe, ok bool) {
	if !k.down.Load() {
		return false, true
	}
	if time.Now().UnixNano() < k.nextProbe.Load() || !k.probing.CompareAndSwap(false, true) {
		return false, false
	}
	return true, true
}

// done records the outcome of a call of l that went to Redis.
func (k *link) done(ctx context.Context, probe bool, l *Limiter, err error) {
	if probe {
		defer k.probing.Store(false)
	}
	switch {
	case err == nil:
		if k.down.Swap(false) {
			k.log.InfoContext(ctx, "redisstore: Redis answers again; rate limits are shared by every node again", "limiter", l.name)
		}
	case ctx.Err() != nil:
		// The caller gave up, which says nothing of Redis.
	default:
		k.nextProbe.Store(time.Now().Add(probeEvery).UnixNano())
		if !k.down.Swap(true) {
			k.log.WarnContext(ctx, "redisstore: Redis unreachable; rate limits answer without it until it is back",
				"limiter", l.name, "outage", l.opts.Outage.String(), "err", err)
		}
	}
}
