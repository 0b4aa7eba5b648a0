package redisstore

import (
	"context"
	"crypto/rand"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Tests use the Redis at ADMIN_REDIS_URL (default redis://127.0.0.1:6379/0),
// each under a key prefix of its own that is deleted when it ends. When
// Redis cannot be reached they are skipped with a note, unless
// ADMIN_REQUIRE_REDIS=1 or ADMIN_REQUIRE_PG=1 (as CI sets), which make them
// fail.

func redisURL() string {
	if u := os.Getenv("ADMIN_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

var (
	redisOnce sync.Once
	redisErr  error
)

// testRedis returns a client of the test Redis and a fresh key prefix.
func testRedis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	opt, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	redisOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		redisErr = rdb.Ping(ctx).Err()
	})
	if redisErr != nil {
		rdb.Close()
		if os.Getenv("ADMIN_REQUIRE_REDIS") == "1" || os.Getenv("ADMIN_REQUIRE_PG") == "1" {
			t.Fatalf("Redis unreachable at %s and ADMIN_REQUIRE_REDIS or ADMIN_REQUIRE_PG is 1: %v", redisURL(), redisErr)
		}
		t.Skipf("Redis unreachable at %s (set ADMIN_REQUIRE_REDIS=1 to fail instead): %v", redisURL(), redisErr)
	}
	prefix := "gameadmin-test:" + rand.Text()[:10] + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		for _, pattern := range []string{prefix + "*", "rate:" + prefix + "*"} {
			iter := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
			for iter.Next(ctx) {
				rdb.Del(ctx, iter.Val())
			}
		}
		rdb.Close()
	})
	return rdb, prefix
}

// deadRedis is a client of a port nothing listens on.
func deadRedis(t testing.TB) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
