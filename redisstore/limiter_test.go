package redisstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameadmin/admin"
	"github.com/redis/go-redis/v9"
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

// TestLimiterOutage: with Redis unreachable a limiter answers from this
// node's own bucket by default (the same capacity and refill: refused past
// it, with the time until a token is back, and never an error), refuses
// with an error under OutageClosed (the panel's 503) and allows under
// OutageOpen; each says so once in the log, not once per call. RateLimits'
// limiters follow its options, but Actions never refuses.
func TestLimiterOutage(t *testing.T) {
	rdb := deadRedis(t)
	ctx := context.Background()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	local := NewLimiter(rdb, "login", 3, 1.0/60, LimiterOptions{Logger: logger})
	for i := range 4 {
		ok, retry, err := local.Allow(ctx, "k")
		if err != nil || ok != (i < 3) || (!ok && (retry <= 55*time.Second || retry > 60*time.Second)) {
			t.Fatalf("local Allow %d during an outage = %v, %v, %v; want the node's own bucket of 3, refilled 1 a minute", i+1, ok, retry, err)
		}
	}
	if err := local.Refund(ctx, "k"); err != nil {
		t.Fatalf("local Refund during an outage = %v", err)
	}
	if ok, _, err := local.Allow(ctx, "k"); !ok || err != nil {
		t.Fatalf("local Allow after a refund = %v, %v; want the refunded token", ok, err)
	}
	if n := strings.Count(logs.String(), "Redis unreachable"); n != 1 {
		t.Fatalf("the outage was logged %d times; want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "outage=local") {
		t.Fatalf("the log does not say what the limiter answers: %q", logs.String())
	}

	closed := NewLimiter(rdb, "login", 10, 1, LimiterOptions{Outage: OutageClosed, Logger: quiet()})
	for i := range 3 {
		if ok, _, err := closed.Allow(ctx, "k"); ok || err == nil {
			t.Fatalf("closed Allow %d = %v, %v; want refused with an error", i+1, ok, err)
		}
	}
	if err := closed.Refund(ctx, "k"); err == nil {
		t.Fatal("closed Refund during an outage = nil; want the error")
	}
	open := NewLimiter(rdb, "game", 1, 1.0/60, LimiterOptions{Outage: OutageOpen, Logger: quiet()})
	for i := range 3 {
		if ok, _, err := open.Allow(ctx, "k"); !ok || err != nil {
			t.Fatalf("open Allow %d = %v, %v; want allowed", i+1, ok, err)
		}
	}

	for _, tt := range []struct {
		name   string
		outage Outage
	}{{"default", OutageLocal}, {"closed", OutageClosed}} {
		t.Run(tt.name, func(t *testing.T) {
			rl := RateLimits(rdb, LimiterOptions{Outage: tt.outage, Logger: quiet()})
			for name, l := range map[string]admin.Limiter{"Login": rl.Login, "Bootstrap": rl.Bootstrap, "RequestReset": rl.RequestReset,
				"LoginFailuresPerEmail": rl.LoginFailuresPerEmail, "LoginFailuresPerNetwork": rl.LoginFailuresPerNetwork, "LoginFailuresPerDevice": rl.LoginFailuresPerDevice,
				"PerIP": rl.PerIP, "TOTP": rl.TOTP, "ResetDeliveries": rl.ResetDeliveries} {
				ok, _, err := l.Allow(ctx, "k")
				if tt.outage == OutageLocal && (!ok || err != nil) {
					t.Fatalf("RateLimits.%s = %v, %v during an outage; want this node's bucket's token", name, ok, err)
				}
				if tt.outage == OutageClosed && (ok || err == nil) {
					t.Fatalf("RateLimits.%s = %v, %v during an outage; want refused with an error", name, ok, err)
				}
			}
			// Actions: this node's bucket of 60 either way.
			for i := range 61 {
				if ok, _, err := rl.Actions.Allow(ctx, "op"); ok != (i < 60) || err != nil {
					t.Fatalf("RateLimits.Actions %d = %v, %v during an outage; want this node's bucket of 60", i+1, ok, err)
				}
			}
		})
	}
}

// TestLimiterOutageProbes: during an outage a limiter's calls do not each
// go to Redis (a Redis that drops packets would hold every sign-in for the
// dial timeout): one call per probeEvery tries it, the others answer at
// once. Counted with a go-redis hook on the client.
func TestLimiterOutageProbes(t *testing.T) {
	rdb := deadRedis(t)
	var sent atomic.Int64
	rdb.AddHook(countHook{&sent})
	ctx := context.Background()
	rl := RateLimits(rdb, LimiterOptions{Logger: quiet()})
	start := time.Now()
	const calls = 300
	for i := range calls {
		l := rl.Login
		if i%2 == 1 {
			l = rl.PerIP // the limiters of one RateLimits share the probe
		}
		if _, _, err := l.Allow(ctx, strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	// The first call finds the outage; after it, one probe per probeEvery.
	most := 2 + int64(elapsed/probeEvery)
	if n := sent.Load(); n > most || n < 1 {
		t.Fatalf("%d calls over %v sent %d commands to Redis; want 1 to %d (one per %v)", calls, elapsed, n, most, probeEvery)
	}
}

// countHook counts the commands a client sends.
type countHook struct{ n *atomic.Int64 }

func (countHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// TestLimiterOutageTwoNodes: two nodes' limiters on a redis-server of the
// test's own. While it is down each node limits on its own (two nodes: at
// most twice the burst in all), and no call errs (no 503) through the
// outage nor in the second after Redis is back, while go-redis' pool still
// fails every command of the client that saw the outage without dialling;
// once a call of the node gets through, the nodes share the bucket again.
func TestLimiterOutageTwoNodes(t *testing.T) {
	srv := newRedisServer(t)
	srv.start()
	prefix := "gameadmin-test:" + rand.Text()[:10] + ":"
	ca, cb := srv.client(), srv.client()
	ctx := context.Background()
	var logs bytes.Buffer
	a := NewLimiter(ca, "login", 3, 1.0/60, LimiterOptions{Prefix: prefix, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	b := NewLimiter(cb, "login", 3, 1.0/60, LimiterOptions{Prefix: prefix, Logger: quiet()})
	spend := func(l *Limiter, key string) (allowed int) {
		t.Helper()
		for range 5 {
			ok, _, err := l.Allow(ctx, key)
			if err != nil {
				t.Fatalf("Allow(%q) = %v; want no error, Redis up or down", key, err)
			}
			if ok {
				allowed++
			}
		}
		return allowed
	}
	if got := spend(a, "shared") + spend(b, "shared"); got != 3 {
		t.Fatalf("two nodes with Redis up allowed %d; want the shared burst of 3", got)
	}

	srv.stop()
	if got := spend(a, "outage") + spend(b, "outage"); got != 6 {
		t.Fatalf("two nodes with Redis down allowed %d; want 3 each (each node's own bucket), 6 in all", got)
	}
	// The rest of the game keeps using the client meanwhile, which opens
	// go-redis' dial breaker (PoolSize failed dials in a row).
	for range 2 * ca.Options().PoolSize {
		ca.Ping(ctx)
	}

	srv.start()
	breakerSeen := ca.Ping(ctx).Err() != nil
	fresh := NewLimiter(srv.client(), "login", 3, 1.0/60, LimiterOptions{Prefix: prefix, Logger: quiet()})
	var calls int
	eventually(t, "node A's limiter back on Redis", func() bool {
		calls++
		key := "back-" + strconv.Itoa(calls)
		if ok, _, err := a.Allow(ctx, key); !ok || err != nil {
			t.Fatalf("Allow on node A after Redis came back = %v, %v; want allowed, never an error", ok, err)
		}
		// Spent in Redis when a client that never lost Redis finds the
		// bucket one token short.
		for range 2 {
			fresh.Allow(ctx, key)
		}
		ok, _, _ := fresh.Allow(ctx, key)
		return !ok
	})
	t.Logf("the client still failed at once after Redis was back: %v; node A answered %d calls from its own bucket meanwhile", breakerSeen, calls-1)
	if !strings.Contains(logs.String(), "Redis answers again") {
		t.Fatalf("the return is not logged: %q", logs.String())
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
