package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/schema"
)

// CountOptions bound the cost of counting on PostgreSQL (DESIGN.md 7).
// SQLite always counts exactly.
type CountOptions struct {
	// EstimateAbove is the row estimate past which an unfiltered count is
	// answered from the planner's statistics instead of COUNT(*).
	// Default 100,000; negative: always count.
	EstimateAbove int64
	// Budget is the time a COUNT(*) may take before it is cancelled and
	// the planner's estimate of the filtered rows is returned instead.
	// Default 500ms.
	Budget time.Duration
}

func (o CountOptions) withDefaults() CountOptions {
	if o.EstimateAbove == 0 {
		o.EstimateAbove = 100_000
	}
	if o.Budget <= 0 {
		o.Budget = 500 * time.Millisecond
	}
	return o
}

// Count counts the rows q selects. q carries only WHERE clauses (build it
// with Select and ApplyFilters, never with ORDER BY or LIMIT); filtered
// says whether it has any. On PostgreSQL an unfiltered count of a table the
// statistics put past opts.EstimateAbove rows is that estimate, and any
// count that runs past opts.Budget falls back to the planner's row estimate
// of q; estimated reports either. db runs the queries (q's own connection
// is replaced).
func Count(ctx context.Context, db bun.IDB, t *schema.Table, q *bun.SelectQuery, filtered bool, opts CountOptions) (n int64, estimated bool, err error) {
	if db.Dialect().Name() != dialect.PG {
		n, err = q.Conn(db).Count(ctx)
		if err != nil {
			return 0, false, fmt.Errorf("query: count %s: %w", t.Name, err)
		}
		return n, false, nil
	}
	opts = opts.withDefaults()
	if !filtered && opts.EstimateAbove >= 0 {
		est, err := tableEstimate(ctx, db, t)
		if err != nil {
			return 0, false, err
		}
		if est > opts.EstimateAbove {
			return est, true, nil
		}
	}
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// SET LOCAL ends with the transaction, so the pooled connection
		// goes back with its usual timeout.
		ms := max(opts.Budget.Milliseconds(), 1)
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", ms)); err != nil {
			return err
		}
		n, err = q.Conn(tx).Count(ctx)
		return err
	})
	if err == nil {
		return n, false, nil
	}
	if !isQueryCanceled(err) || ctx.Err() != nil {
		return 0, false, fmt.Errorf("query: count %s: %w", t.Name, err)
	}
	n, err = planEstimate(ctx, db, q)
	if err != nil {
		return 0, false, fmt.Errorf("query: estimate %s: %w", t.Name, err)
	}
	return n, true, nil
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
	if err := json.Unmarshal([]byte(out), &plan); err != nil || len(plan) == 0 {
		return 0, fmt.Errorf("unexpected EXPLAIN output: %v", err)
	}
	return int64(math.Round(plan[0].Plan.Rows)), nil
}

// isQueryCanceled reports a PostgreSQL statement_timeout (SQLSTATE 57014)
// without importing a driver: pgdriver errors have Field, pgx errors have
// SQLState.
func isQueryCanceled(err error) bool {
	var field interface{ Field(byte) string }
	if errors.As(err, &field) && field.Field('C') == "57014" {
		return true
	}
	var state interface{ SQLState() string }
	if errors.As(err, &state) && state.SQLState() == "57014" {
		return true
	}
	return strings.Contains(err.Error(), "57014")
}
