package redisstore

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
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

// redisServer is a redis-server of the test's own on a free port, which
// the test stops and starts again (the shared Redis is never stopped).
type redisServer struct {
	t    testing.TB
	bin  string
	port int
	cmd  *exec.Cmd
	done chan struct{}
}

// newRedisServer finds redis-server and a free port; the server is not
// started yet. Without redis-server the test is skipped, as without Redis,
// unless ADMIN_REQUIRE_REDIS or ADMIN_REQUIRE_PG is 1.
func newRedisServer(t testing.TB) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("ADMIN_REQUIRE_REDIS") == "1" || os.Getenv("ADMIN_REQUIRE_PG") == "1" {
			t.Fatalf("redis-server not found and ADMIN_REQUIRE_REDIS or ADMIN_REQUIRE_PG is 1: %v", err)
		}
		t.Skipf("redis-server not found (set ADMIN_REQUIRE_REDIS=1 to fail instead): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &redisServer{t: t, bin: bin, port: port}
	t.Cleanup(s.stop)
	return s
}

// url is the server's address as redisstore.NewClient takes it.
func (s *redisServer) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.port) }

// client is a client of the server with NewClient's short timeouts, closed
// at the test's end.
func (s *redisServer) client() *redis.Client {
	rdb, err := NewClient(s.url())
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { rdb.Close() })
	return rdb
}

// start runs the server, empty (no persistence), and waits until a client
// of its own gets an answer.
func (s *redisServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(s.cmd, s.done)
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", s.port), MaxRetries: -1})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for rdb.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on port %d does not answer", s.port)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop kills the server and waits until it is gone; the port refuses
// connections from then on.
func (s *redisServer) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}
