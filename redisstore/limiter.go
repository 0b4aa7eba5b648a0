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
	// FailOpen allows every request while Redis cannot be reached, instead
	// of answering the error that makes the panel refuse the request with
	// 503 rate_limiter_unavailable. Default false (fail closed): the
	// panel's limiters guard sign-in, bootstrap and password reset, where a
	// Redis outage must not become an unlimited password-guessing window.
	// Fail open suits limiters that protect capacity rather than secrets.
	FailOpen bool
	// Logger receives the Redis errors a fail-open limiter swallows.
	// Default slog.Default().
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
type Limiter struct {
	rl     *redis_rate.Limiter
	limit  redis_rate.Limit
	prefix string
	opts   LimiterOptions
	log    *slog.Logger
}

var (
	_ admin.Limiter  = (*Limiter)(nil)
	_ admin.Refunder = (*Limiter)(nil)
)

// NewLimiter returns a Redis limiter named name (a part of its keys: give
// each limiter its own) with the bucket of admin.NewTokenBucket. It panics
// if capacity < 1 or refillPerSec is not a positive, finite number.
func NewLimiter(rdb redis.UniversalClient, name string, capacity int, refillPerSec float64, opts LimiterOptions) *Limiter {
	if capacity < 1 {
		panic(fmt.Sprintf("redisstore: NewLimiter: capacity %d must be at least 1", capacity))
	}
	if !(refillPerSec > 0) || math.IsInf(refillPerSec, 0) {
		panic(fmt.Sprintf("redisstore: NewLimiter: refillPerSec %v must be positive and finite", refillPerSec))
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	// One token every Period: GCRA's emission interval is Period/Rate.
	period := time.Duration(math.Ceil(float64(time.Second) / refillPerSec))
	return &Limiter{
		rl:     redis_rate.NewLimiter(rdb),
		limit:  redis_rate.Limit{Rate: 1, Period: period, Burst: capacity},
		prefix: opts.Prefix + "limit:" + name + ":",
		opts:   opts,
		log:    log,
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
// long until one is. A Redis error is returned (fail closed) or, with
// FailOpen, logged and the request allowed.
func (l *Limiter) Allow(ctx context.Context, key string) (bool, time.Duration, error) {
	res, err := l.rl.Allow(ctx, l.key(key), l.limit)
	if err != nil {
		return l.failed(ctx, err)
	}
	if res.Allowed > 0 {
		return true, 0, nil
	}
	return false, max(res.RetryAfter, time.Nanosecond), nil
}

// Refund gives back a token Allow spent for key. In redis_rate's GCRA a
// negative cost moves the bucket's theoretical arrival time back by one
// emission interval; on a bucket that is full already it changes nothing,
// so a refund never lifts a bucket past its capacity.
func (l *Limiter) Refund(ctx context.Context, key string) error {
	if _, err := l.rl.AllowN(ctx, l.key(key), l.limit, -1); err != nil {
		_, _, err = l.failed(ctx, err)
		return err
	}
	return nil
}

func (l *Limiter) failed(ctx context.Context, err error) (bool, time.Duration, error) {
	err = fmt.Errorf("redisstore: limiter %s: %w", l.prefix, err)
	if l.opts.FailOpen {
		l.log.WarnContext(ctx, "redisstore: Redis unreachable; limiter fails open", "err", err)
		return true, 0, nil
	}
	return false, 0, err
}

// RateLimits returns the panel's limiters (admin.RateLimitOptions) on
// Redis, with the buckets of the in-memory defaults. All fail closed unless
// opts says otherwise, except Actions, which always fails open: it bounds
// an operator's custom actions, guards no secret, and closing it would stop
// the panel's actions for the length of an outage. Replace a slot to tune
// it, e.g. a fail-open TOTP limiter:
//
//	rl := redisstore.RateLimits(rdb, redisstore.LimiterOptions{})
//	rl.TOTP = redisstore.NewLimiter(rdb, "totp", 10, 1.0/30, redisstore.LimiterOptions{FailOpen: true})
func RateLimits(rdb redis.UniversalClient, opts LimiterOptions) admin.RateLimitOptions {
	open := opts
	open.FailOpen = true
	// The figures of admin.RateLimitOptions' defaults.
	return admin.RateLimitOptions{
		Login:                   NewLimiter(rdb, "login", 10, 10.0/60, opts),
		Bootstrap:               NewLimiter(rdb, "bootstrap", 5, 1.0/60, opts),
		RequestReset:            NewLimiter(rdb, "reset", 3, 1.0/60, opts),
		LoginFailuresPerEmail:   NewLimiter(rdb, "login-failures", 100, 1.0/30, opts),
		LoginFailuresPerNetwork: NewLimiter(rdb, "login-failures-net", 10, 1.0/30, opts),
		LoginFailuresPerDevice:  NewLimiter(rdb, "login-failures-device", 10, 1.0/30, opts),
		PerIP:                   NewLimiter(rdb, "ip", 30, 30.0/60, opts),
		Actions:                 NewLimiter(rdb, "actions", 60, 60.0/60, open),
		TOTP:                    NewLimiter(rdb, "totp", 10, 1.0/30, opts),
		ResetDeliveries:         NewLimiter(rdb, "reset-deliveries", 5, 5.0/3600, opts),
	}
}

// HealthCheck is an admin.HealthCheck named "redis" that pings rdb, for
// admin.Options.HealthChecks.
func HealthCheck(rdb redis.UniversalClient) admin.HealthCheck {
	return admin.HealthCheck{Name: "redis", Check: func(ctx context.Context) error {
		return rdb.Ping(ctx).Err()
	}}
}
