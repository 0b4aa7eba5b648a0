package engine

import (
	"context"

	"github.com/gameadmin/admin/internal/jobs"
)

// The panel's background work is bounded (internal/jobs): fixed pools of
// workers, one for reset-link deliveries (which wait on the game's
// OnResetRequest) and one for the audit rows of failed sign-ins, so slow
// deliveries cannot starve the audit. The request that submitted a dropped
// job is answered exactly as if it had been queued, so a flood of anonymous
// requests reveals nothing by its timing.
const (
	backgroundWorkers  = 4 // per queue
	backgroundQueueCap = 1024
)

// startBackground starts the workers, the failure log's flusher and the
// catalog's refresh (livecatalog.go), tracked by a.bg so that Close waits
// for them; stopBackground ends them.
func (a *Admin) startBackground() {
	ctx := context.Background()
	for _, q := range []*jobs.Queue{a.jobs, a.auditJobs} {
		q.Start(backgroundWorkers, func(fn func(ctx context.Context)) bool { return a.goBackground(ctx, fn) })
	}
	a.goBackground(ctx, func(ctx context.Context) { a.failures.Flush(ctx, a.audit) })
	a.stopSampling = make(chan struct{})
	if a.opts.Rooms != nil {
		a.goBackground(ctx, func(ctx context.Context) { a.dashboard.SampleOnline(ctx, a.stopSampling) })
	}
	a.stopLive = a.live.start(a.opts.CatalogRefresh, a.goBackground)
}

// stopBackground closes the queue, waits for the workers to finish what
// was queued (which may still count failures), then stops the flusher,
// which writes the last collapsed rows, the catalog's refresh and the
// players-online sampling.
func (a *Admin) stopBackground() {
	for _, q := range []*jobs.Queue{a.jobs, a.auditJobs} {
		q.Close()
	}
	for _, q := range []*jobs.Queue{a.jobs, a.auditJobs} {
		q.Wait()
	}
	a.failures.Stop()
	a.stopLive()
	select {
	case <-a.stopSampling: // a second Close
	default:
		close(a.stopSampling)
	}
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
