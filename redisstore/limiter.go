package redisstore

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/gameadmin/admin"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix starts every Redis key and channel of this package unless
// an option sets another; give each deployment (or test run) sharing one
// Redis its own.
const DefaultPrefix = "gameadmin:"

// LimiterOptions configure a Limiter.
type LimiterOptions struct {
	// Prefix starts the limiter's keys (after redis_rate's own "rate:").
	// Default DefaultPrefix.
	Prefix string
	// Outage is what the limiter answers while Redis cannot be reached.
	// Default OutageLocal: this node's own bucket, so that every node
	// keeps limiting (N nodes allow at most N times the limit) instead of
	// refusing every sign-in for the length of the outage.
	Outage Outage
	// Logger receives one warning when the limiter loses Redis and one
	// line when it has it back. Default slog.Default().
	Logger *slog.Logger
	// KeySecret keys the hash that names buckets in Redis (HMAC-SHA256):
	// without it, whoever reads Redis can test a guessed email or address
	// against the keys. Give every node the same one, e.g. the panel's
	// Options.Secret. Default none: plain SHA-256.
	KeySecret []byte
}

// Limiter is an admin.Limiter (and admin.Refunder) whose buckets live in
// Redis, shared by every node: the GCRA of github.com/go-redis/redis_rate,
// which is one atomic Lua script per call. It behaves like
// admin.NewTokenBucket: a bucket holds at most capacity tokens, starts
// full and gets refillPerSec back per second, and a refusal comes with the
// time until a token is back.
//
// Keys are stored as a hash of the caller's key, so emails and addresses
// never reach Redis and every bucket costs the same memory; a bucket's key
// expires once it is full again.
//
// While Redis cannot be reached the limiter answers as
// LimiterOptions.Outage says (by default from an in-memory bucket of this
// node's own with the same figures) and tries Redis again at most every
// probeEvery, through one of its calls, until Redis answers.
type Limiter struct {
	rl     *redis_rate.Limiter
	limit  redis_rate.Limit
	name   string
	prefix string
	opts   LimiterOptions
	local  admin.Limiter // the node's own buckets, for OutageLocal
	link   *link
}

var (
	_ admin.Limiter  = (*Limiter)(nil)
	_ admin.Refunder = (*Limiter)(nil)
)

// NewLimiter returns a Redis limiter named name (a part of its keys: give
// each limiter its own) with the bucket of admin.NewTokenBucket. It panics
// if capacity < 1 or refillPerSec is not a positive, finite number.
func NewLimiter(rdb redis.UniversalClient, name string, capacity int, refillPerSec float64, opts LimiterOptions) *Limiter {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return newLimiter(rdb, name, capacity, refillPerSec, opts, newLink(opts.Logger))
}

// newLimiter is NewLimiter on a link that other limiters of the same
// client may share: one of them finding Redis gone sends them all to their
// outage answer at once, with one warning.
func newLimiter(rdb redis.UniversalClient, name string, capacity int, refillPerSec float64, opts LimiterOptions, l *link) *Limiter {
	if capacity < 1 {
		panic(fmt.Sprintf("redisstore: NewLimiter: capacity %d must be at least 1", capacity))
	}
	if !(refillPerSec > 0) || math.IsInf(refillPerSec, 0) {
		panic(fmt.Sprintf("redisstore: NewLimiter: refillPerSec %v must be positive and finite", refillPerSec))
	}
	if opts.Outage < OutageLocal || opts.Outage > OutageOpen {
		panic(fmt.Sprintf("redisstore: NewLimiter: unknown Outage %d", opts.Outage))
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	// One token every Period: GCRA's emission interval is Period/Rate.
	period := time.Duration(math.Ceil(float64(time.Second) / refillPerSec))
	return &Limiter{
		rl:     redis_rate.NewLimiter(rdb),
		limit:  redis_rate.Limit{Rate: 1, Period: period, Burst: capacity},
		name:   name,
		prefix: opts.Prefix + "limit:" + name + ":",
		opts:   opts,
		local:  admin.NewTokenBucket(capacity, refillPerSec),
		link:   l,
	}
}

// key hashes the caller's key: fixed size, and no emails or IPs in Redis;
// under KeySecret, no way to test a guess against them either.
func (l *Limiter) key(key string) string {
	var sum []byte
	if len(l.opts.KeySecret) > 0 {
		m := hmac.New(sha256.New, l.opts.KeySecret)
		m.Write([]byte(key))
		sum = m.Sum(nil)
	} else {
		s := sha256.Sum256([]byte(key))
		sum = s[:]
	}
	return l.prefix + base64.RawURLEncoding.EncodeToString(sum[:15])
}

// Allow spends a token of key's bucket if one is there, else reports how
// long until one is. While Redis cannot be reached it answers as
// LimiterOptions.Outage says.
func (l *Limiter) Allow(ctx context.Context, key string) (bool, time.Duration, error) {
	var err error
	if probe, ok := l.link.try(); ok {
		var res *redis_rate.Result
		res, err = l.rl.Allow(ctx, l.key(key), l.limit)
		l.link.done(ctx, probe, l, err)
		if err == nil {
			if res.Allowed > 0 {
				return true, 0, nil
			}
			return false, max(res.RetryAfter, time.Nanosecond), nil
		}
	}
	switch l.opts.Outage {
	case OutageOpen:
		return true, 0, nil
	case OutageClosed:
		return false, 0, l.unavailable(err)
	}
	return l.local.Allow(ctx, key)
}

// Refund gives back a token Allow spent for key. In redis_rate's GCRA a
// negative cost moves the bucket's theoretical arrival time back by one
// emission interval; on a bucket that is full already it changes nothing,
// so a refund never lifts a bucket past its capacity. While Redis cannot
// be reached the token goes back to the node's own bucket (OutageLocal),
// nowhere (OutageOpen), or the error is returned (OutageClosed). A refund
// never probes Redis during an outage: the next Allow does.
func (l *Limiter) Refund(ctx context.Context, key string) error {
	var err error
	if l.link.up() {
		_, err = l.rl.AllowN(ctx, l.key(key), l.limit, -1)
		l.link.done(ctx, false, l, err)
		if err == nil {
			return nil
		}
	}
	switch l.opts.Outage {
	case OutageOpen:
		return nil
	case OutageClosed:
		return l.unavailable(err)
	}
	return l.local.(admin.Refunder).Refund(ctx, key)
}

// unavailable is the error of an OutageClosed limiter: Redis' own when
// this call tried it, else the outage's.
func (l *Limiter) unavailable(err error) error {
	if err == nil {
		err = errRedisDown
	}
	return fmt.Errorf("redisstore: limiter %s: %w", l.name, err)
}

// RateLimits returns the panel's limiters (admin.RateLimitOptions) on
// Redis, with the buckets of the in-memory defaults, sharing one view of
// whether Redis answers: one warning per outage, and one probe at a time.
// During an outage each answers as opts.Outage says (by default from this
// node's own buckets), except that Actions never refuses: it bounds an
// operator's custom actions, guards no secret, and OutageClosed on it
// would stop the panel's actions for the length of an outage, so it uses
// this node's own buckets then. Replace a slot to tune it, e.g. a TOTP
// limiter that refuses during an outage:
//
//	rl := redisstore.RateLimits(rdb, redisstore.LimiterOptions{})
//	rl.TOTP = redisstore.NewLimiter(rdb, "totp", 10, 1.0/30, redisstore.LimiterOptions{Outage: redisstore.OutageClosed})
func RateLimits(rdb redis.UniversalClient, opts LimiterOptions) admin.RateLimitOptions {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	shared := newLink(opts.Logger)
	actions := opts
	if actions.Outage == OutageClosed {
		actions.Outage = OutageLocal
	}
	lim := func(name string, capacity int, perSec float64, o LimiterOptions) *Limiter {
		return newLimiter(rdb, name, capacity, perSec, o, shared)
	}
	// The figures of admin.RateLimitOptions' defaults.
	return admin.RateLimitOptions{
		Login:                   lim("login", 10, 10.0/60, opts),
		Bootstrap:               lim("bootstrap", 5, 1.0/60, opts),
		RequestReset:            lim("reset", 3, 1.0/60, opts),
		LoginFailuresPerEmail:   lim("login-failures", 100, 1.0/30, opts),
		LoginFailuresPerNetwork: lim("login-failures-net", 10, 1.0/30, opts),
		LoginFailuresPerDevice:  lim("login-failures-device", 10, 1.0/30, opts),
		PerIP:                   lim("ip", 30, 30.0/60, opts),
		Actions:                 lim("actions", 60, 60.0/60, actions),
		TOTP:                    lim("totp", 10, 1.0/30, opts),
		ResetDeliveries:         lim("reset-deliveries", 5, 5.0/3600, opts),
	}
}

// HealthCheck is an admin.HealthCheck named "redis" that pings rdb, for
// admin.Options.HealthChecks.
func HealthCheck(rdb redis.UniversalClient) admin.HealthCheck {
	return admin.HealthCheck{Name: "redis", Check: func(ctx context.Context) error {
		return rdb.Ping(ctx).Err()
	}}
}
