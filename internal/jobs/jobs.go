// Package jobs is a bounded background queue: a fixed pool of workers takes
// jobs from a queue with a cap. A job that finds the queue full is dropped
// and counted, never waited for, so a flood of requests that each submit one
// costs a bounded amount of memory and goroutines.
package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// DropLogEvery bounds how often dropped jobs are logged: a flood must not
// turn into a flood of log lines.
const DropLogEvery = 10 * time.Second

// Queue is the bounded queue its workers drain.
type Queue struct {
	log *slog.Logger

	mu     sync.Mutex // guards closed against a send on the closed channel
	closed bool
	ch     chan func(ctx context.Context)

	workers sync.WaitGroup // the goroutines of work

	dropped  atomic.Int64 // jobs dropped since the last log line
	lastDrop atomic.Int64 // unix nanoseconds of the last log line
}

// New returns a queue holding at most capacity jobs, logging to log.
func New(log *slog.Logger, capacity int) *Queue {
	return &Queue{log: log, ch: make(chan func(ctx context.Context), capacity)}
}

// Start runs n workers, each on a goroutine that spawn starts (so that the
// caller can track them); a worker spawn refuses to start is not counted.
func (q *Queue) Start(n int, spawn func(fn func(ctx context.Context)) bool) {
	for range n {
		q.workers.Add(1)
		if !spawn(func(ctx context.Context) {
			defer q.workers.Done()
			q.work(ctx)
		}) {
			q.workers.Done()
		}
	}
}

// Submit queues fn without waiting. It reports false when fn was dropped:
// the queue is full (logged, at most once per DropLogEvery) or closed. ctx
// is only for the log line; fn gets the worker's context.
func (q *Queue) Submit(ctx context.Context, fn func(ctx context.Context)) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	select {
	case q.ch <- fn:
		return true
	default:
	}
	n := q.dropped.Add(1)
	now := time.Now().UnixNano()
	if last := q.lastDrop.Load(); now-last >= int64(DropLogEvery) && q.lastDrop.CompareAndSwap(last, now) {
		q.dropped.Add(-n)
		q.log.WarnContext(ctx, "admin: background queue full; jobs dropped", "dropped", n, "queue", cap(q.ch))
	}
	return false
}

// Close stops submissions; the workers finish what is queued and stop.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
}

// Wait waits for the workers to stop, after Close.
func (q *Queue) Wait() { q.workers.Wait() }

// work runs queued jobs until the queue is closed and drained. A job that
// panics is logged with its stack; the worker goes on.
func (q *Queue) work(ctx context.Context) {
	for fn := range q.ch {
		func() {
			defer func() {
				if p := recover(); p != nil {
					q.log.ErrorContext(ctx, "admin: background job panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				}
			}()
			fn(ctx)
		}()
	}
}
