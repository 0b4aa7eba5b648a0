package engine

import (
	"cmp"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
)

// AuditEvent is a committed audit entry as Options.OnAudit receives it.
type AuditEvent = audit.Event

// Options.OnAudit is called from one goroutine fed by a bounded queue, so
// that a slow or failing receiver (a webhook that times out) never slows
// or fails the request whose change it hears of: when the queue is full
// the event is dropped, counted, and a warning says so at most once per
// dropWarnEvery.
const (
	defaultAuditQueue = 1024
	dropWarnEvery     = time.Minute
	// auditDrainWait bounds how long Close waits for the receiver to take
	// what is queued; then the context it is given ends and the rest is
	// dropped.
	auditDrainWait = 5 * time.Second
	// labelLookupWait bounds each look-up of an event's labels.
	labelLookupWait = 2 * time.Second
)

// auditEvents is the queue between the audit log's commits and
// Options.OnAudit.
type auditEvents struct {
	fn    func(ctx context.Context, e AuditEvent)
	label func(ctx context.Context, e *AuditEvent)
	log   *slog.Logger

	mu     sync.RWMutex // guards closed against the send that races Close
	closed bool
	queue  chan AuditEvent

	dropped  atomic.Int64
	lastWarn atomic.Int64 // unix nanoseconds of the last drop warning

	cancel context.CancelFunc // ends the context fn is given, when Close stops waiting
	done   chan struct{}
}

// newAuditEvents starts the goroutine that calls fn; stop it with close.
func newAuditEvents(fn func(ctx context.Context, e AuditEvent), size int, label func(ctx context.Context, e *AuditEvent), log *slog.Logger) *auditEvents {
	ctx, cancel := context.WithCancel(context.Background())
	ae := &auditEvents{fn: fn, label: label, log: log, queue: make(chan AuditEvent, size), cancel: cancel, done: make(chan struct{})}
	go ae.run(ctx)
	return ae
}

// add queues e without ever waiting: a full queue, or a closed one, drops
// it.
func (ae *auditEvents) add(e audit.Entry) {
	ev := audit.NewEvent(e)
	ae.mu.RLock()
	defer ae.mu.RUnlock()
	if !ae.closed {
		select {
		case ae.queue <- ev:
			return
		default:
		}
	}
	n := ae.dropped.Add(1)
	now := time.Now().UnixNano()
	last := ae.lastWarn.Load()
	if now-last >= int64(dropWarnEvery) && ae.lastWarn.CompareAndSwap(last, now) {
		ae.log.Warn("admin: OnAudit is not keeping up; audit events dropped", "dropped", n, "queue", cap(ae.queue))
	}
}

// run calls fn with each queued event in turn until the queue is closed
// and empty, or Close stops waiting.
func (ae *auditEvents) run(ctx context.Context) {
	defer close(ae.done)
	for ev := range ae.queue {
		if ctx.Err() != nil {
			ae.dropped.Add(1)
			continue
		}
		ae.deliver(ctx, ev)
	}
}

// deliver labels ev and calls fn, which may panic without ending the
// queue.
func (ae *auditEvents) deliver(ctx context.Context, ev AuditEvent) {
	defer func() {
		if v := recover(); v != nil {
			ae.log.Error("admin: OnAudit panicked", "action", ev.Action, "err", panicerr.New(v))
		}
	}()
	ae.label(ctx, &ev)
	ae.fn(ctx, ev)
}

// close stops taking events and waits, at most auditDrainWait, for fn to
// have the queued ones; the context fn is given then ends and what is
// left is dropped. It waits for the goroutine to end after fn returns.
func (ae *auditEvents) close() {
	ae.mu.Lock()
	if ae.closed {
		ae.mu.Unlock()
		<-ae.done
		return
	}
	ae.closed = true
	close(ae.queue)
	ae.mu.Unlock()
	t := time.NewTimer(auditDrainWait)
	defer t.Stop()
	select {
	case <-ae.done:
	case <-t.C:
		ae.cancel()
		<-ae.done
	}
	ae.cancel()
}

// eventLabels fills in the words of an event: the names of its operator
// and, for a user, its target. A person is named by their display name;
// an admin or mod without one by their email; anyone else without one is
// left unnamed, for a receiver to name by id. A player's email never
// becomes a label: a webhook posts these labels to a channel, and other
// players decide when a report is posted (five reports pass the
// threshold). A look-up that fails leaves the label empty.
func eventLabels(db *bun.DB, roles *users.RoleTable) func(ctx context.Context, ev *AuditEvent) {
	return func(ctx context.Context, ev *AuditEvent) {
		name := func(id string) string {
			if id == "" {
				return ""
			}
			ctx, cancel := context.WithTimeout(ctx, labelLookupWait)
			defer cancel()
			acc, err := roles.Users.AccountByID(ctx, db, id)
			if err != nil {
				return ""
			}
			if strings.TrimSpace(acc.DisplayName) != "" {
				return acc.DisplayName
			}
			if strings.TrimSpace(acc.Username) != "" {
				return acc.Username
			}
			if acc.Email == "" {
				return ""
			}
			ops, err := roles.OperatorRoles(ctx, db, []string{acc.ID})
			if err != nil || ops[acc.ID] == "" {
				return ""
			}
			return acc.Email
		}
		ev.Operator = name(ev.OperatorID)
		if ev.Resource == users.Key { // an entry about an account
			ev.Target = name(ev.TargetID)
		}
	}
}

// startAuditEvents wires Options.OnAudit (if set) to the commits the
// panel's database sees. NewContext calls it last, so that no failure
// after it leaves the goroutine running, and has checked AuditQueue.
func startAuditEvents(opts Options, commits *audit.Commits, labels func(ctx context.Context, ev *AuditEvent), log *slog.Logger) *auditEvents {
	if opts.OnAudit == nil {
		return nil
	}
	ae := newAuditEvents(opts.OnAudit, cmp.Or(opts.AuditQueue, defaultAuditQueue), labels, log)
	commits.OnCommit(ae.add)
	return ae
}

// AuditEventsDropped is how many audit events a's Options.OnAudit did
// not receive because its queue was full or the panel was closing. A
// function, not a method: Admin's methods are what its handlers share.
func AuditEventsDropped(a *Admin) int64 {
	if a.events == nil {
		return 0
	}
	return a.events.dropped.Load()
}
