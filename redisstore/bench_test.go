package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gameadmin/admin"
)

// The benchmarks report latency percentiles (p50-µs, p99-µs) beside ns/op:
//
//	cd redisstore && go test -run '^$' -bench . -benchtime 2000x
//
// docs/cluster.md quotes them.

// latencies times each call of fn and reports p50 and p99.
func latencies(b *testing.B, fn func(i int)) { prepared(b, func(int) {}, fn) }

// prepared is latencies with an untimed prep before each call.
func prepared(b *testing.B, prep, fn func(i int)) {
	b.Helper()
	var d []time.Duration
	for i := 0; b.Loop(); i++ {
		prep(i)
		start := time.Now()
		fn(i)
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// BenchmarkLimiter compares one Allow of the in-memory token bucket with
// one of the Redis limiter (a round trip and the GCRA script).
func BenchmarkLimiter(b *testing.B) {
	ctx := context.Background()
	b.Run("memory", func(b *testing.B) {
		l := admin.NewTokenBucket(1<<30, 1e6)
		latencies(b, func(i int) { l.Allow(ctx, "k"+strconv.Itoa(i%1000)) })
	})
	b.Run("redis", func(b *testing.B) {
		rdb, prefix := testRedis(b)
		l := NewLimiter(rdb, "bench", 1<<30, 1e6, LimiterOptions{Prefix: prefix})
		latencies(b, func(i int) {
			if _, _, err := l.Allow(ctx, "k"+strconv.Itoa(i%1000)); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkLimiterMemory spends one token of 100,000 distinct keys and
// reports the Redis memory they take (INFO memory, used_memory).
func BenchmarkLimiterMemory(b *testing.B) {
	rdb, prefix := testRedis(b)
	ctx := context.Background()
	used := func() int64 {
		info := rdb.InfoMap(ctx, "memory").Val()["Memory"]
		n, _ := strconv.ParseInt(info["used_memory"], 10, 64)
		return n
	}
	const keys = 100_000
	l := NewLimiter(rdb, "mem", 10, 10.0/60, LimiterOptions{Prefix: prefix})
	for range b.N {
		before := used()
		var wg sync.WaitGroup
		for w := range 16 {
			wg.Go(func() {
				for i := w; i < keys; i += 16 {
					l.Allow(ctx, fmt.Sprintf("203.0.113.%d|player%06d@example.com", i%256, i))
				}
			})
		}
		wg.Wait()
		after := used()
		b.ReportMetric(float64(after-before)/(1<<20), "MiB/100k-keys")
		b.ReportMetric(float64(after-before)/keys, "B/key")
		iter := rdb.Scan(ctx, 0, "rate:"+prefix+"*", 5000).Iterator()
		var batch []string
		for iter.Next(ctx) {
			if batch = append(batch, iter.Val()); len(batch) == 5000 {
				rdb.Del(ctx, batch...)
				batch = batch[:0]
			}
		}
		if len(batch) > 0 {
			rdb.Del(ctx, batch...)
		}
	}
}

// BenchmarkRoomOps compares inspect and kick of a room on this node with
// the same on another node (through Redis pub/sub), two nodes in one
// process sharing one Redis.
func BenchmarkRoomOps(b *testing.B) {
	rdb, prefix := testRedis(b)
	ctx := context.Background()
	a := startNode(b, rdb, prefix, "a", 10*time.Second)
	other := startNode(b, rdb, prefix, "b", 10*time.Second)
	p := other.join(b, "u0")
	for _, n := range []struct {
		name string
		via  *node
	}{{"local", other}, {"remote", a}} {
		b.Run("inspect/"+n.name, func(b *testing.B) {
			latencies(b, func(int) {
				if _, err := n.via.cluster.Inspect(ctx, p.room); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("kick/"+n.name, func(b *testing.B) {
			// Each kick closes a client that joined, untimed, just before.
			var session string
			prepared(b, func(i int) { session = other.join(b, "k"+strconv.Itoa(i)).session }, func(int) {
				if err := n.via.cluster.Kick(ctx, p.room, session, "bench"); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
