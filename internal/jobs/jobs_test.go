package jobs

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// spawn runs each worker on a goroutine tracked by wg, like Admin.goBackground.
func spawn(wg *sync.WaitGroup) func(fn func(context.Context)) bool {
	return func(fn func(context.Context)) bool {
		wg.Go(func() { fn(context.Background()) })
		return true
	}
}

func TestFullQueueDropsAndLogsOnce(t *testing.T) {
	var logs syncBuf
	q := New(slog.New(slog.NewTextHandler(&logs, nil)), 3)
	block := make(chan struct{})
	var ran atomic.Int32
	job := func(context.Context) { <-block; ran.Add(1) }
	accepted := 0
	for range 10 {
		if q.Submit(context.Background(), job) {
			accepted++
		}
	}
	if accepted != 3 {
		t.Fatalf("accepted %d of 10 with no worker and a cap of 3", accepted)
	}
	if n := strings.Count(logs.String(), "background queue full"); n != 1 {
		t.Errorf("%d log lines for 7 drops; want 1:\n%s", n, logs.String())
	}
	var wg sync.WaitGroup
	q.Start(2, spawn(&wg))
	close(block)
	q.Close()
	q.Wait()
	wg.Wait()
	if ran.Load() != 3 {
		t.Errorf("%d jobs ran; want the 3 queued before Close", ran.Load())
	}
	if q.Submit(context.Background(), job) {
		t.Error("Submit after Close accepted a job")
	}
	q.Close() // twice is fine
}

func TestPanickingJobLoggedWorkerGoesOn(t *testing.T) {
	var logs syncBuf
	q := New(slog.New(slog.NewTextHandler(&logs, nil)), 4)
	var wg sync.WaitGroup
	q.Start(1, spawn(&wg))
	done := make(chan struct{})
	q.Submit(context.Background(), func(context.Context) { panic("boom") })
	q.Submit(context.Background(), func(context.Context) { close(done) })
	<-done
	q.Close()
	q.Wait()
	wg.Wait()
	if s := logs.String(); !strings.Contains(s, "background job panicked") || !strings.Contains(s, "boom") {
		t.Errorf("log = %s", s)
	}
}

func TestStartCountsOnlyStartedWorkers(t *testing.T) {
	q := New(slog.Default(), 1)
	q.Start(3, func(func(context.Context)) bool { return false }) // closing: nothing starts
	q.Close()
	q.Wait() // must not hang
}
