package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/dberr"
	"github.com/gameadmin/admin/internal/schema"
)

// CountMode is how a list counts its total (the _count parameter).
type CountMode string

// The count modes. CountAuto is the default: exact when the statistics
// say the result is small, estimated otherwise.
const (
	CountAuto     CountMode = ""
	CountExact    CountMode = "exact"
	CountEstimate CountMode = "estimate"
	CountNone     CountMode = "none"
)

// DefaultBudget is the time an automatic count may take before the
// estimate answers instead (CountOptions.Budget).
const DefaultBudget = 500 * time.Millisecond

// CountOptions bound the cost of counting.
type CountOptions struct {
	// Mode picks exact, estimated or automatic counting. CountNone is the
	// caller's business: Count treats it as CountAuto.
	Mode CountMode
	// ExactBelow is the estimated row count under which CountAuto counts
	// exactly; at or past it the estimate is the answer, and no COUNT(*)
	// runs. Default 100,000; negative: CountAuto always counts exactly.
	ExactBelow int64
	// Budget is the time an automatic COUNT(*) may take before it is
	// cancelled and the estimate returned instead. Default 500ms.
	Budget time.Duration
	// ExactBudget bounds a requested exact count (CountExact) the same
	// way. Default 0: no bound but Limit.
	ExactBudget time.Duration
	// Limit is the most time the count's statements may take (the
	// caller's time limit, Limited): an exact count it ends answers an
	// error wrapping ErrTimeout, while an automatic one, whose budget it
	// shortens, answers the estimate. Default 0: none.
	Limit time.Duration
	// Estimates, if set, keeps estimates for a moment, by table and
	// filter, saving the statistics query (the planner's EXPLAIN,
	// SQLite's sample) on most pages: a large result is answered from it,
	// a small one goes straight to its exact count.
	Estimates *Estimates
	// NoEstimate never answers an estimate, whose statistics are the
	// whole table's (a reader who sees only some of its rows): the count
	// is exact, under Budget (ExactBudget for CountExact), and one that
	// runs out of it answers an error wrapping ErrTimeout.
	NoEstimate bool
}

func (o CountOptions) withDefaults() CountOptions {
	if o.ExactBelow == 0 {
		o.ExactBelow = 100_000
	}
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	return o
}

// Count counts the rows q selects. q carries only WHERE clauses (build it
// with Select and ApplyFilters, never with ORDER BY or LIMIT); filtered
// says whether it has any. The estimate comes first and costs no scan:
// on PostgreSQL the table statistics (unfiltered) or EXPLAIN (filtered);
// on SQLite the rowid span or sqlite_stat1 (unfiltered) scaled by the
// share of matching rows in a small rowid sample (filtered). CountAuto
// answers that estimate when it reaches opts.ExactBelow, and otherwise
// counts exactly under opts.Budget; CountEstimate answers the estimate;
// CountExact counts under opts.ExactBudget. A count cancelled by its
// budget falls back to the estimate; one cancelled by opts.Limit, when
// that is the shorter, answers an error wrapping ErrTimeout if it was
// asked for exactly. estimated reports an estimate. db runs the queries
// (q's own connection is replaced).
func Count(ctx context.Context, db bun.IDB, t *schema.Table, q *bun.SelectQuery, filtered bool, opts CountOptions) (n int64, estimated bool, err error) {
	opts = opts.withDefaults()
	budget := opts.Budget
	var est int64
	var ok bool
	if opts.Mode == CountExact {
		budget = opts.ExactBudget
	}
	// hard: the limit, not a budget, bounds a count asked for exactly;
	// running out of it is the caller's error, not an estimate.
	hard := false
	if opts.Limit > 0 && (budget <= 0 || opts.Limit < budget) {
		budget, hard = opts.Limit, opts.Mode == CountExact
	}
	if opts.NoEstimate {
		if n, err = exactCount(ctx, db, q, budget); err != nil {
			return 0, false, fmt.Errorf("query: count %s: %w", t.Name, err)
		}
		return n, false, nil
	}
	if opts.Mode != CountExact {
		key := ""
		if opts.Estimates != nil {
			// A filtered estimate is kept under its WHERE clause: paging
			// through one filtered list asks for the same estimate on
			// every page.
			key = t.Name
			if filtered {
				key += "\x00" + q.String()
			}
			est, ok = opts.Estimates.get(key)
		}
		if !ok {
			if est, ok, err = estimate(ctx, db, t, q, filtered); err != nil {
				return 0, false, fmt.Errorf("query: estimate %s: %w", t.Name, err)
			}
			if ok && key != "" {
				opts.Estimates.put(key, est)
			}
		}
		if ok && (opts.Mode == CountEstimate || (opts.ExactBelow > 0 && est >= opts.ExactBelow)) {
			return est, true, nil
		}
	}
	n, err = exactCount(ctx, db, q, budget)
	if err == nil {
		return n, false, nil
	}
	if hard || !errors.Is(err, ErrTimeout) {
		return 0, false, fmt.Errorf("query: count %s: %w", t.Name, err)
	}
	if opts.Mode == CountExact {
		if est, ok, err = estimate(ctx, db, t, q, filtered); err != nil {
			return 0, false, fmt.Errorf("query: estimate %s: %w", t.Name, err)
		}
	}
	if !ok {
		// No statistics: PostgreSQL always has a plan, so this is SQLite
		// without rowids, where the only answer is the count itself.
		if n, err = exactCount(ctx, db, q, opts.Limit); err != nil {
			return 0, false, fmt.Errorf("query: count %s: %w", t.Name, err)
		}
		return n, false, nil
	}
	return est, true, nil
}

// exactCount runs COUNT(*) of q, cancelled after budget (0: no bound).
func exactCount(ctx context.Context, db bun.IDB, q *bun.SelectQuery, budget time.Duration) (n int64, err error) {
	err = Limited(ctx, db, budget, func(ctx context.Context, db bun.IDB) error {
		n, err = q.Conn(db).Count(ctx)
		return err
	})
	return n, err
}

// CountAll counts the rows each of qs selects (selects with only WHERE
// clauses, as Count takes) in one statement, cancelled after budget (0: no
// bound). ok is false when the budget ran out first: the caller then has
// no counts, and estimates instead.
func CountAll(ctx context.Context, db bun.IDB, qs []*bun.SelectQuery, budget time.Duration) (ns []int64, ok bool, err error) {
	if len(qs) == 0 {
		return nil, true, nil
	}
	ns = make([]int64, len(qs))
	dest := make([]any, len(qs))
	for i := range ns {
		dest[i] = &ns[i]
	}
	err = Limited(ctx, db, budget, func(ctx context.Context, db bun.IDB) error {
		all := db.NewSelect()
		for i, q := range qs {
			all = all.ColumnExpr("(?) AS ?", q.Conn(db).ExcludeColumn("*").ColumnExpr("count(*)"), bun.Ident("c"+strconv.Itoa(i)))
		}
		return all.Scan(ctx, dest...)
	})
	if errors.Is(err, ErrTimeout) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("query: count: %w", err)
	}
	return ns, true, nil
}

// ErrTimeout reports statements that ran past their time limit
// (Limited, LimitedMySQL). The error that wraps it wraps the database's
// own too: PostgreSQL's query_canceled (SQLSTATE 57014), MariaDB's 1969
// or MySQL's 3024, or the context error SQLite's interrupted statement
// answered.
var ErrTimeout = errors.New("query: the statement ran past its time limit")

// Limited runs fn, whose statements are ended by the database after
// limit (0 or less: no limit), and answers an error wrapping ErrTimeout
// when they were. On PostgreSQL fn runs in a transaction (the tx it is
// given) under SET LOCAL statement_timeout, which stops each statement
// in the server: a context deadline would only drop the connection
// (pgdriver sends no cancel request) and leave the statement running.
// On SQLite, in this process, fn runs under a context deadline, which
// interrupts the running statement (modernc.org/sqlite calls
// sqlite3_interrupt) and also bounds the wait for a pooled connection;
// the driver only watches the context while a statement looks for its
// first row, so a page must be built to do all its work there
// (List.Query does). fn reads its rows before it returns: they are gone
// with the transaction or the deadline.
// On MySQL and MariaDB fn runs under LimitedMySQL, for the server db's
// dialect found (mysqlServer).
func Limited(ctx context.Context, db bun.IDB, limit time.Duration, fn func(context.Context, bun.IDB) error) error {
	if limit <= 0 {
		return fn(ctx, db)
	}
	if db.Dialect().Name() == dialect.MySQL {
		server, err := mysqlServer(ctx, db)
		if err != nil {
			return err
		}
		return LimitedMySQL(ctx, db, server, limit, fn)
	}
	if db.Dialect().Name() != dialect.PG {
		cctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		err := fn(cctx, db)
		if err != nil && ctx.Err() == nil && cctx.Err() != nil {
			return fmt.Errorf("%w (%s): %w", ErrTimeout, limit, err)
		}
		return err
	}
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// SET LOCAL ends with the transaction, so the pooled connection
		// goes back with its usual timeout.
		ms := max(limit.Milliseconds(), 1)
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", ms)); err != nil {
			return err
		}
		return fn(ctx, tx)
	})
	if err != nil && IsQueryCanceled(err) && ctx.Err() == nil {
		return fmt.Errorf("%w (%s): %w", ErrTimeout, limit, err)
	}
	return err
}

// Estimate is the statistics' idea of how many rows q selects (a select
// with only WHERE clauses; filtered says whether it has any), without a
// scan, for a caller whose exact count ran out of time. ok is false when
// there are no statistics to ask (a SQLite table without rowids that was
// never analyzed).
func Estimate(ctx context.Context, db bun.IDB, t *schema.Table, q *bun.SelectQuery, filtered bool) (n int64, ok bool, err error) {
	n, ok, err = estimate(ctx, db, t, q, filtered)
	if err != nil {
		return 0, false, fmt.Errorf("query: estimate %s: %w", t.Name, err)
	}
	return n, ok, nil
}

// estimate is the statistics' idea of how many rows q selects, without a
// scan; ok is false when there are no statistics to ask.
func estimate(ctx context.Context, db bun.IDB, t *schema.Table, q *bun.SelectQuery, filtered bool) (n int64, ok bool, err error) {
	switch db.Dialect().Name() {
	case dialect.MySQL:
		return mysqlEstimate(ctx, db, t, q, filtered)
	case dialect.SQLite:
		return sqliteEstimate(ctx, db, t, q, filtered)
	}
	if !filtered {
		est, err := tableEstimate(ctx, db, t)
		if err != nil {
			return 0, false, err
		}
		if est >= 0 {
			return est, true, nil
		}
	}
	est, err := planEstimate(ctx, db, q)
	if err != nil {
		return 0, false, err
	}
	return est, true, nil
}

// tableEstimate is the planner's idea of the table's row count: the
// density of the last ANALYZE scaled to the table's current size, as the
// planner itself computes it. A table never analyzed gives -1.
func tableEstimate(ctx context.Context, db bun.IDB, t *schema.Table) (int64, error) {
	var est float64
	err := db.QueryRowContext(ctx, `SELECT CASE
	WHEN c.reltuples < 0 THEN -1
	WHEN c.relpages > 0 THEN c.reltuples / c.relpages * (pg_relation_size(c.oid) / current_setting('block_size')::int)
	ELSE c.reltuples END
FROM pg_class c WHERE c.oid = to_regclass(?)`, `"`+strings.ReplaceAll(t.Name, `"`, `""`)+`"`).Scan(&est)
	if errors.Is(err, sql.ErrNoRows) {
		return -1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("query: estimate %s: %w", t.Name, err)
	}
	return int64(math.Round(est)), nil
}

// planEstimate asks the planner how many rows q returns.
func planEstimate(ctx context.Context, db bun.IDB, q *bun.SelectQuery) (int64, error) {
	var out string
	if err := db.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) ?", q).Scan(&out); err != nil {
		return 0, err
	}
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		return 0, fmt.Errorf("query: unexpected EXPLAIN output: %w", err)
	} else if len(plan) == 0 {
		return 0, errors.New("query: EXPLAIN returned no plan")
	}
	return int64(math.Round(plan[0].Plan.Rows)), nil
}

// IsQueryCanceled reports a PostgreSQL statement ended by
// statement_timeout or a cancel request (SQLSTATE 57014), from either
// driver's error (dberr.SQLState), or a MySQL or MariaDB one ended by its
// time limit or a KILL QUERY (errors 1969, 3024, 1317:
// dberr.IsMySQLTimeout).
func IsQueryCanceled(err error) bool {
	return dberr.SQLState(err) == "57014" || strings.Contains(err.Error(), "57014") || dberr.IsMySQLTimeout(err)
}

// EpochBucket is the SQL for the start of the step (of length step) that
// the timestamp col holds falls in, in seconds since the epoch: an
// integer on every database, for counting rows per step in the
// database. col is SQL: a column's name, or Bun's "?TableAlias.?" with
// the column as its argument. On MySQL col is a DATETIME holding UTC,
// counted from the epoch without the session's time zone.
func EpochBucket(d dialect.Name, step time.Duration, col string) string {
	sec := strconv.FormatInt(int64(step.Seconds()), 10)
	switch d {
	case dialect.PG:
		return "(floor(extract(epoch FROM " + col + ") / " + sec + ") * " + sec + ")::bigint"
	case dialect.MySQL:
		return "(TIMESTAMPDIFF(SECOND, '1970-01-01', " + col + ") DIV " + sec + ") * " + sec
	}
	return "(unixepoch(" + col + ") / " + sec + ") * " + sec
}
