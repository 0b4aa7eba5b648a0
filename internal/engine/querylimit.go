package engine

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/slots"
	"github.com/gameadmin/admin/internal/stmtcache"
)

// No signed-in account can run the database out of time: the statements
// of a list (its page and its count), and each batch of an export, end
// after Options.QueryTimeout, and each operator runs at most
// Options.QueryConcurrency expensive requests at once (a search, an
// exact count, an export). And the panel, all operators together, takes
// no more of the machine than Options.DatabaseConcurrency statements at
// once: the rest wait their turn in the gate.

const (
	defaultQueryTimeout     = 5 * time.Second
	defaultQueryConcurrency = 2
)

// errQueryTimeout answers a request whose statements ran past
// QueryTimeout: the database ended them, and a narrower filter is the
// way to an answer.
var errQueryTimeout = errorf(http.StatusServiceUnavailable, "query_timeout",
	"the query took longer than the panel allows; narrow the filter (an exact value, a shorter time range, a column with an index) or count with _count=estimate, and try again").
	WithParams("reason", "timeout")

// errQueryBusy answers a request that waited its whole QueryTimeout for
// the panel's share of the database (DatabaseConcurrency): others'
// work held it.
var errQueryBusy = func() *APIError {
	e := errorf(http.StatusServiceUnavailable, "query_timeout",
		"the panel's share of the database was taken by other operators' work for longer than the panel waits; try again in a moment").
		WithParams("reason", "busy")
	e.RetryAfterSec = 1
	return e
}()

// queryRunner runs the panel's reads within those bounds, through the
// statement cache: the time limit of a request's statements, the slots
// of each operator's expensive requests, and the prepared statements of
// the texts that repeat. The handlers of the rows, the export, the
// search and the reports take it, and the audit log's list.
type queryRunner struct {
	db          *bun.DB
	stmts       *stmtcache.Cache
	timeout     time.Duration // Options.QueryTimeout, defaulted; negative: no limit
	concurrency int           // Options.QueryConcurrency, defaulted; negative: no limit
	slots       slots.Slots   // the expensive requests each operator holds
	gate        *slots.Gate   // the panel's statements at once, DatabaseConcurrency; nil: no bound
}

// newQueryRunner is the runner of db's reads through stmts, under
// Options.QueryTimeout and QueryConcurrency (defaulted), each read in
// gate (DatabaseConcurrency).
func newQueryRunner(db *bun.DB, stmts *stmtcache.Cache, timeout time.Duration, concurrency int, gate *slots.Gate) *queryRunner {
	return &queryRunner{db: db, stmts: stmts, timeout: timeout, concurrency: concurrency, gate: gate}
}

// queryDeadline is when the statements of a request starting now must
// have ended: Options.QueryTimeout from now, or zero (no limit) when it
// is negative.
func (q *queryRunner) queryDeadline() time.Time {
	if q.timeout < 0 {
		return time.Time{}
	}
	return time.Now().Add(q.timeout)
}

// timeLeft is what is left of deadline for the next statement: 0 (no
// limit) for a zero deadline, else at least a millisecond, so a spent
// deadline still ends the statement in the database instead of lifting
// the limit.
func timeLeft(deadline time.Time) time.Duration {
	if deadline.IsZero() {
		return 0
	}
	return max(time.Until(deadline), time.Millisecond)
}

// enter waits, until deadline, for a place in the gate of the panel's
// statements; past it the answer is 503 (errQueryBusy). Work already
// inside passes.
func (q *queryRunner) enter(ctx context.Context, deadline time.Time) (context.Context, func(), error) {
	in, leave, err := q.gate.Enter(ctx, deadline)
	if errors.Is(err, slots.ErrBusy) {
		return nil, nil, errQueryBusy
	}
	return in, leave, err
}

// gated runs fn inside the gate (enter), for the statements that do not
// go through limited: a list's count, a dashboard widget's.
func (q *queryRunner) gated(ctx context.Context, deadline time.Time, fn func(context.Context) error) error {
	ctx, leave, err := q.enter(ctx, deadline)
	if err != nil {
		return err
	}
	defer leave()
	return fn(ctx)
}

// limited runs fn's statements inside the gate, under what is left of
// deadline (query.Limited). A prepared statement that failed inside the
// limit's transaction (stmtcache.ErrRetry) has been dropped: fn runs
// once more, and its text goes plain.
func (q *queryRunner) limited(ctx context.Context, deadline time.Time, fn func(context.Context, bun.IDB) error) error {
	ctx, leave, err := q.enter(ctx, deadline)
	if err != nil {
		return err
	}
	defer leave()
	return q.run(ctx, deadline, fn)
}

// cheap runs fn's statements without a time limit, for a page as cheap
// as a read by id (query.List.Bounded), inside the gate all the same:
// many cheap pages at once (a script walking a table) take the cores as
// surely as one deep page, on SQLite in the game's own process.
func (q *queryRunner) cheap(ctx context.Context, deadline time.Time, fn func(context.Context, bun.IDB) error) error {
	ctx, leave, err := q.enter(ctx, deadline)
	if err != nil {
		return err
	}
	defer leave()
	return q.run(ctx, time.Time{}, fn)
}

// run is limited's statements, without the gate.
func (q *queryRunner) run(ctx context.Context, deadline time.Time, fn func(context.Context, bun.IDB) error) error {
	err := query.Limited(ctx, q.db, timeLeft(deadline), fn)
	if errors.Is(err, stmtcache.ErrRetry) {
		err = query.Limited(ctx, q.db, timeLeft(deadline), fn)
	}
	return err
}

// warm prepares text, when it repeats, before the limit's transaction
// takes a connection (stmtcache.Warm), waiting for a pooled connection no
// longer than deadline: the statement's time is spent waiting, too.
func (q *queryRunner) warm(ctx context.Context, deadline time.Time, text string) {
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	q.stmts.Warm(ctx, text)
}

// scanBatch reads the rows of q, a page of res, under a time limit of
// their own: an export is one statement per batch, each given
// QueryTimeout, however long the download takes. Each batch is
// followed by a pause as long as it took (the gate's Pause, outside the
// gate): an export takes about half a core, and leaves the rest to the
// game and the other operators.
func (q *queryRunner) scanBatch(ctx context.Context, res *resource, sel *bun.SelectQuery) (rows []map[string]any, err error) {
	start := time.Now()
	err = q.limited(ctx, q.queryDeadline(), func(ctx context.Context, db bun.IDB) error {
		rows, err = query.ScanRows(ctx, sel.Conn(db), res.Table, res.Hidden)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rows, q.gate.Pause(ctx, time.Since(start))
}

// holdQuery takes one of op's QueryConcurrency slots for an expensive
// request until release; past them it answers 429 rate_limited, to be
// tried again in a second (a running request ends within QueryTimeout).
func (q *queryRunner) holdQuery(op Operator) (release func(), err error) {
	n := q.concurrency
	if n < 0 {
		return func() {}, nil
	}
	release, ok := q.slots.Hold(op.UserID, n)
	if !ok {
		e := errorf(http.StatusTooManyRequests, "rate_limited", "%d searches, exact counts or exports of yours are running; retry when one has finished", n).WithParams("running", n)
		e.RetryAfterSec = 1
		return nil, e
	}
	return release, nil
}
