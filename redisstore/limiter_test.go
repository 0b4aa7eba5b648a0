package redisstore

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin"
)

// TestLimiterSharedBucket: two limiters on two clients (two nodes) spend
// one bucket: the burst is shared, the refusal says how long until the next
// token (1/refill), and a refund gives one back.
func TestLimiterSharedBucket(t *testing.T) {
	rdb, prefix := testRedis(t)
	other, _ := testRedis(t)
	ctx := context.Background()
	a := NewLimiter(rdb, "login", 4, 1.0/60, LimiterOptions{Prefix: prefix})
	b := NewLimiter(other, "login", 4, 1.0/60, LimiterOptions{Prefix: prefix})
	for i := range 4 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if ok, _, err := l.Allow(ctx, "1.2.3.4|ann@example.com"); !ok || err != nil {
			t.Fatalf("attempt %d = %v, %v; want allowed (burst 4)", i+1, ok, err)
		}
	}
	ok, retry, err := b.Allow(ctx, "1.2.3.4|ann@example.com")
	if ok || err != nil || retry <= 55*time.Second || retry > 60*time.Second {
		t.Fatalf("fifth attempt = %v, %v, %v; want refused for about 60s", ok, retry, err)
	}
	// A refund on one node gives the token back to both.
	if err := a.Refund(ctx, "1.2.3.4|ann@example.com"); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := b.Allow(ctx, "1.2.3.4|ann@example.com"); !ok || err != nil {
		t.Fatalf("attempt after a refund = %v, %v; want the refunded token", ok, err)
	}
	if ok, _, _ := a.Allow(ctx, "1.2.3.4|ann@example.com"); ok {
		t.Fatal("a second attempt after one refund = allowed; want refused")
	}
	// Refunds never lift a bucket past its capacity: a full bucket stays
	// at 4 however often it is refunded.
	for range 10 {
		if err := a.Refund(ctx, "bob@example.com"); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		if ok, _, _ := b.Allow(ctx, "bob@example.com"); ok != (i < 4) {
			t.Fatalf("bob's attempt %d after refunds = %v; want a capacity of 4", i+1, ok)
		}
	}
	// Another limiter name is another bucket.
	if ok, _, _ := NewLimiter(rdb, "reset", 1, 1, LimiterOptions{Prefix: prefix}).Allow(ctx, "1.2.3.4|ann@example.com"); !ok {
		t.Fatal("a limiter of another name shares the login bucket")
	}
}

// TestLimiterRefill: a token comes back after 1/refillPerSec, as Retry-After
// said. The bucket is spent until its first refusal rather than by its
// capacity, since a token may come back while a loaded machine sends.
func TestLimiterRefill(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := context.Background()
	l := NewLimiter(rdb, "fast", 2, 1, LimiterOptions{Prefix: prefix}) // a token every second
	var retry time.Duration
	for i := 0; ; i++ {
		ok, r, err := l.Allow(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			retry = r
			break
		}
		if i == 1000 {
			t.Fatal("1,000 requests allowed; want a refusal past the capacity of 2")
		}
	}
	if retry <= 0 || retry > time.Second {
		t.Fatalf("refused for %v; want at most a second", retry)
	}
	time.Sleep(retry + 20*time.Millisecond)
	if ok, _, _ := l.Allow(ctx, "k"); !ok {
		t.Fatal("Allow after Retry-After: want a token back")
	}
}

// TestLimiterKeysHashed: no email or address reaches Redis, and a bucket's
// key expires once it would be full again.
func TestLimiterKeysHashed(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := context.Background()
	l := NewLimiter(rdb, "login", 3, 1, LimiterOptions{Prefix: prefix})
	l.Allow(ctx, "10.0.0.1|secret.person@example.com")
	keys, err := rdb.Keys(ctx, "*"+prefix+"*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys = %v, %v; want one", keys, err)
	}
	if strings.Contains(keys[0], "example.com") || strings.Contains(keys[0], "10.0.0.1") {
		t.Fatalf("key %q holds the caller's key in clear", keys[0])
	}
	if ttl := rdb.TTL(ctx, keys[0]).Val(); ttl <= 0 || ttl > 2*time.Second {
		t.Fatalf("TTL of a bucket 1s from full = %v", ttl)
	}
}

// TestLimiterOutage: with Redis unreachable a limiter fails closed by
// default (the error makes the panel answer 503), and allows with a logged
// warning when FailOpen is set.
func TestLimiterOutage(t *testing.T) {
	rdb := deadRedis(t)
	ctx := context.Background()
	closed := NewLimiter(rdb, "login", 10, 1, LimiterOptions{})
	if ok, _, err := closed.Allow(ctx, "k"); ok || err == nil {
		t.Fatalf("fail-closed Allow = %v, %v; want refused with an error", ok, err)
	}
	if err := closed.Refund(ctx, "k"); err == nil {
		t.Fatal("fail-closed Refund during an outage = nil; want the error")
	}
	var logs bytes.Buffer
	open := NewLimiter(rdb, "game", 10, 1, LimiterOptions{FailOpen: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if ok, _, err := open.Allow(ctx, "k"); !ok || err != nil {
		t.Fatalf("fail-open Allow = %v, %v; want allowed", ok, err)
	}
	if !strings.Contains(logs.String(), "fails open") {
		t.Fatalf("fail-open outage not logged: %q", logs.String())
	}
	rl := RateLimits(rdb, LimiterOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for name, l := range map[string]admin.Limiter{"Login": rl.Login, "Bootstrap": rl.Bootstrap, "RequestReset": rl.RequestReset,
		"LoginFailuresPerEmail": rl.LoginFailuresPerEmail, "LoginFailuresPerNetwork": rl.LoginFailuresPerNetwork, "LoginFailuresPerDevice": rl.LoginFailuresPerDevice, "PerIP": rl.PerIP, "TOTP": rl.TOTP, "ResetDeliveries": rl.ResetDeliveries} {
		if ok, _, err := l.Allow(ctx, "k"); ok || err == nil {
			t.Fatalf("RateLimits.%s = %v, %v during an outage; want fail closed", name, ok, err)
		}
	}
	if ok, _, err := rl.Actions.Allow(ctx, "k"); !ok || err != nil {
		t.Fatalf("RateLimits.Actions = %v, %v during an outage; want fail open", ok, err)
	}
}

// TestLimiterMatchesTokenBucket: over a burst the Redis limiter answers
// like the in-memory default with the same figures.
func TestLimiterMatchesTokenBucket(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := context.Background()
	mem := admin.NewTokenBucket(10, 10.0/60)
	red := RateLimits(rdb, LimiterOptions{Prefix: prefix}).Login
	for i := range 12 {
		mok, mretry, _ := mem.Allow(ctx, "k")
		rok, rretry, err := red.Allow(ctx, "k")
		if err != nil || mok != rok || (mretry-rretry).Abs() > time.Second {
			t.Fatalf("attempt %d: memory %v %v, redis %v %v %v", i+1, mok, mretry, rok, rretry, err)
		}
	}
}

// TestLimiterKeySecret: under KeySecret a bucket's Redis key is an HMAC,
// which a reader of Redis cannot compute for a guessed email; nodes with
// the same secret share the bucket.
func TestLimiterKeySecret(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := context.Background()
	a := NewLimiter(rdb, "login", 1, 1.0/60, LimiterOptions{Prefix: prefix, KeySecret: []byte("node secret")})
	b := NewLimiter(rdb, "login", 1, 1.0/60, LimiterOptions{Prefix: prefix, KeySecret: []byte("node secret")})
	plain := NewLimiter(rdb, "login", 1, 1.0/60, LimiterOptions{Prefix: prefix})
	if a.key("p@example.com") == plain.key("p@example.com") {
		t.Fatal("KeySecret did not change the key")
	}
	if ok, _, err := a.Allow(ctx, "p@example.com"); !ok || err != nil {
		t.Fatalf("first Allow = %v, %v", ok, err)
	}
	if ok, _, _ := b.Allow(ctx, "p@example.com"); ok {
		t.Fatal("a node with the same secret did not share the bucket")
	}
	if ok, _, _ := plain.Allow(ctx, "p@example.com"); !ok {
		t.Fatal("the unkeyed limiter shared the keyed bucket")
	}
}
