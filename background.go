package admin

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// The panel's background work is bounded: fixed pools of workers take jobs
// from queues with a cap, one for reset-link deliveries (which wait on the
// game's OnResetRequest) and one for the audit rows of failed sign-ins, so
// slow deliveries cannot starve the audit. A job that finds the queue full is dropped and counted,
// and the request that submitted it is answered exactly as if it had been
// queued, so a flood of anonymous requests costs a bounded amount of memory
// and goroutines, and reveals nothing by its timing.
const (
	backgroundWorkers  = 4 // per queue
	backgroundQueueCap = 1024
	// dropLogEvery bounds how often dropped jobs are logged: a flood must
	// not turn into a flood of log lines.
	dropLogEvery = 10 * time.Second
)

// jobQueue is the bounded queue the background workers drain.
type jobQueue struct {
	log *slog.Logger

	mu     sync.Mutex // guards closed against a send on the closed channel
	closed bool
	ch     chan func(ctx context.Context)

	workers sync.WaitGroup // the goroutines of work

	dropped  atomic.Int64 // jobs dropped since the last log line
	lastDrop atomic.Int64 // unix nanoseconds of the last log line
}

func newJobQueue(log *slog.Logger, capacity int) *jobQueue {
	return &jobQueue{log: log, ch: make(chan func(ctx context.Context), capacity)}
}

// submit queues fn without waiting. It reports false when fn was dropped:
// the queue is full (logged, at most once per dropLogEvery) or closed. ctx
// is only for the log line; fn gets a context of its own.
func (q *jobQueue) submit(ctx context.Context, fn func(ctx context.Context)) bool {
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
	if last := q.lastDrop.Load(); now-last >= int64(dropLogEvery) && q.lastDrop.CompareAndSwap(last, now) {
		q.dropped.Add(-n)
		q.log.WarnContext(ctx, "admin: background queue full; jobs dropped", "dropped", n, "queue", cap(q.ch))
	}
	return false
}

// close stops submissions; the workers finish what is queued and stop.
func (q *jobQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
}

// work runs queued jobs until the queue is closed and drained. A job that
// panics is logged with its stack; the worker goes on.
func (q *jobQueue) work(ctx context.Context) {
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

// startBackground starts the workers and the failure log's flusher, tracked
// by a.bg so that Close waits for them; stopBackground ends them.
func (a *Admin) startBackground() {
	ctx := context.Background()
	for _, q := range []*jobQueue{a.jobs, a.auditJobs} {
		for range backgroundWorkers {
			q.workers.Add(1)
			a.goBackground(ctx, func(ctx context.Context) {
				defer q.workers.Done()
				q.work(ctx)
			})
		}
	}
	a.goBackground(ctx, func(ctx context.Context) { a.failures.flush(ctx, a.audit) })
}

// stopBackground closes the queue, waits for the workers to finish what
// was queued (which may still count failures), then stops the flusher,
// which writes the last collapsed rows.
func (a *Admin) stopBackground() {
	for _, q := range []*jobQueue{a.jobs, a.auditJobs} {
		q.close()
	}
	for _, q := range []*jobQueue{a.jobs, a.auditJobs} {
		q.workers.Wait()
	}
	a.failures.stop()
}

// goBackground runs fn on a goroutine of its own, at once, with ctx's
// values but not its end (the request that started it may answer and end
// first), tracked so that Close waits for it. It reports false when the
// panel is closing and fn did not run.
func (a *Admin) goBackground(ctx context.Context, fn func(ctx context.Context)) bool {
	a.bgMu.Lock()
	defer a.bgMu.Unlock()
	if a.closed.Load() {
		return false
	}
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		fn(context.WithoutCancel(ctx))
	}()
	return true
}
