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
// exact count, an export).

const (
	defaultQueryTimeout     = 5 * time.Second
	defaultQueryConcurrency = 2
)

// errQueryTimeout answers a request whose statements ran past
// QueryTimeout: the database ended them, and a narrower filter is the
// way to an answer.
var errQueryTimeout = errorf(http.StatusServiceUnavailable, "query_timeout",
	"the query took longer than the panel allows; narrow the filter (an exact value, a shorter time range, a column with an index) or count with _count=estimate, and try again")

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
}

// newQueryRunner is the runner of db's reads through stmts, under
// Options.QueryTimeout and QueryConcurrency (defaulted).
func newQueryRunner(db *bun.DB, stmts *stmtcache.Cache, timeout time.Duration, concurrency int) *queryRunner {
	return &queryRunner{db: db, stmts: stmts, timeout: timeout, concurrency: concurrency}
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

// limited runs fn's statements under what is left of deadline
// (query.Limited). A prepared statement that failed inside the limit's
// transaction (stmtcache.ErrRetry) has been dropped: fn runs once more,
// and its text goes plain.
func (q *queryRunner) limited(ctx context.Context, deadline time.Time, fn func(context.Context, bun.IDB) error) error {
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
// QueryTimeout, however long the download takes.
func (q *queryRunner) scanBatch(ctx context.Context, res *resource, sel *bun.SelectQuery) (rows []map[string]any, err error) {
	err = q.limited(ctx, q.queryDeadline(), func(ctx context.Context, db bun.IDB) error {
		rows, err = query.ScanRows(ctx, sel.Conn(db), res.Table, res.Hidden)
		return err
	})
	return rows, err
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
		e := errorf(http.StatusTooManyRequests, "rate_limited", "%d searches, exact counts or exports of yours are running; retry when one has finished", n)
		e.RetryAfterSec = 1
		return nil, e
	}
	return release, nil
}
