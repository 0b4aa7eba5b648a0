package querytest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// fillSQLite inserts n items with ids first, first+step, ... in one
// recursive statement.
func fillSQLite(t *testing.T, db *bun.DB, n, first, step int) *schema.Table {
	t.Helper()
	ctx := context.Background()
	if _, err := db.NewCreateTable().Model((*item)(nil)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i + 1 < ?)
INSERT INTO items (id, name, score, ratio, active, at) SELECT ? + i * ?, 'name ' || i, i % 10, 0, 0, '2024-01-01' FROM g`, n, first, step); err != nil {
		t.Fatal(err)
	}
	tb, err := schema.Inspect(db, "items", (*item)(nil))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestCountEstimateSQLite: the rowid span answers unfiltered totals, a
// rowid sample filtered ones, and sparse keys fall back to sqlite_stat1.
func TestCountEstimateSQLite(t *testing.T) {
	t.Run("dense", func(t *testing.T) {
		db := testdb.SQLite(t)
		const rows = 50_000
		tb := fillSQLite(t, db, rows, 1, 1)
		if n, est := count(t, db, tb, "", query.CountOptions{ExactBelow: 1000}); !est || n != rows {
			t.Errorf("Count(unfiltered) = %d, estimated %v; want %d from the rowid span, estimated", n, est, rows)
		}
		if n, est := count(t, db, tb, "score_eq=3", query.CountOptions{ExactBelow: 1000}); !est || n < rows/10*8/10 || n > rows/10*12/10 {
			t.Errorf("Count(score_eq=3) = %d, estimated %v; want about %d, estimated", n, est, rows/10)
		}
		// A generous budget: under -race on a loaded machine the count of
		// 50,000 rows can pass the default 500 ms, and the budget is not
		// what this checks.
		if n, est := count(t, db, tb, "score_eq=3", query.CountOptions{Budget: time.Minute}); est || n != rows/10 {
			t.Errorf("Count(score_eq=3, default) = %d, estimated %v; want %d, exact", n, est, rows/10)
		}
		if n, est := count(t, db, tb, "", query.CountOptions{Mode: query.CountExact, ExactBelow: 1000}); est || n != rows {
			t.Errorf("Count(exact) = %d, estimated %v; want %d, exact", n, est, rows)
		}
	})
	t.Run("sparse", func(t *testing.T) {
		db := testdb.SQLite(t)
		const rows = 5_000
		tb := fillSQLite(t, db, rows, 1, 1_000_000)
		// Without statistics the span would claim billions: ANALYZE's
		// count is believed instead.
		if _, err := db.ExecContext(context.Background(), "CREATE INDEX items_score ON items (score)"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(context.Background(), "ANALYZE"); err != nil {
			t.Fatal(err)
		}
		if n, est := count(t, db, tb, "", query.CountOptions{ExactBelow: 1000}); !est || n != rows {
			t.Errorf("Count(unfiltered, sparse ids) = %d, estimated %v; want %d from sqlite_stat1, estimated", n, est, rows)
		}
	})
}

// TestCountEstimatesKept: a large table's estimates, unfiltered and per
// filter, are reused until they expire; a small result's exact count never
// is.
func TestCountEstimatesKept(t *testing.T) {
	db := testdb.SQLite(t)
	ctx := context.Background()
	const rows = 50_000 // past the filtered sample, so a filter is estimated
	tb := fillSQLite(t, db, rows, 1, 1)
	more := func(n int) {
		t.Helper()
		if _, err := db.ExecContext(ctx, `WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i + 1 < ?)
INSERT INTO items (name, score, ratio, active, at) SELECT 'more', 3, 0, 0, '2024-01-01' FROM g`, n); err != nil {
			t.Fatal(err)
		}
	}
	// The cache's clock stands still until the test moves it: the checks
	// within the ttl hold however long they take.
	const ttl = time.Second
	cache := query.NewEstimates(ttl)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	cache.Now = func() time.Time { return now }
	large := query.CountOptions{ExactBelow: 1000, Estimates: cache}
	if n, est := count(t, db, tb, "", large); !est || n != rows {
		t.Fatalf("Count = %d, estimated %v; want %d, estimated", n, est, rows)
	}
	score3, _ := count(t, db, tb, "score_eq=3", large)
	score4, _ := count(t, db, tb, "score_eq=4", large)
	more(100)
	if n, est := count(t, db, tb, "", large); !est || n != rows {
		t.Errorf("Count within the ttl = %d, estimated %v; want the kept %d", n, est, rows)
	}
	if n, est := count(t, db, tb, "", query.CountOptions{Mode: query.CountExact, Estimates: cache}); est || n != rows+100 {
		t.Errorf("Count(exact) = %d, estimated %v; want %d, exact", n, est, rows+100)
	}
	small := query.CountOptions{ExactBelow: 1_000_000, Estimates: cache}
	if n, est := count(t, db, tb, "", small); est || n != rows+100 {
		t.Errorf("Count(small table) = %d, estimated %v; want %d, exact", n, est, rows+100)
	}
	// The table grows by 1,000 rows: a kept estimate does not see it, a
	// new one scales to it.
	more(1000)
	if n, est := count(t, db, tb, "score_eq=3", large); !est || n != score3 {
		t.Errorf("Count(score_eq=3) within the ttl = %d, estimated %v; want the kept %d", n, est, score3)
	}
	if n, _ := count(t, db, tb, "score_eq=4", large); n != score4 {
		t.Errorf("Count(score_eq=4) within the ttl = %d; want the kept %d", n, score4)
	}
	// At the ttl an estimate is still kept; past it, asked anew.
	now = now.Add(ttl)
	if n, _ := count(t, db, tb, "score_eq=4", large); n != score4 {
		t.Errorf("Count(score_eq=4) at the ttl = %d; want the kept %d", n, score4)
	}
	now = now.Add(time.Nanosecond)
	if n, est := count(t, db, tb, "score_eq=3", large); !est || n == score3 {
		t.Errorf("Count(score_eq=3) after the ttl = %d, estimated %v; want a new estimate, not the kept %d", n, est, score3)
	}
	if n, est := count(t, db, tb, "", large); !est || n != rows+1100 {
		t.Errorf("Count after the ttl = %d, estimated %v; want %d from the statistics", n, est, rows+1100)
	}
}

// statements counts the statements a bun.DB runs.
type statements struct{ n atomic.Int64 }

func (s *statements) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	s.n.Add(1)
	return ctx
}
func (s *statements) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestCountSmallSkipsEstimate: once the kept estimate says a table is
// small, the next count is the exact COUNT(*) alone.
func TestCountSmallSkipsEstimate(t *testing.T) {
	db := testdb.SQLite(t)
	tb := fillSQLite(t, db, 500, 1, 1)
	hook := &statements{}
	db = db.WithQueryHook(hook)
	opts := query.CountOptions{Estimates: query.NewEstimates(time.Minute)}
	if n, est := count(t, db, tb, "", opts); est || n != 500 {
		t.Fatalf("Count = %d, estimated %v; want 500, exact", n, est)
	}
	first := hook.n.Swap(0)
	if n, est := count(t, db, tb, "", opts); est || n != 500 {
		t.Fatalf("Count again = %d, estimated %v; want 500, exact", n, est)
	}
	if again := hook.n.Load(); again != 1 || first < 2 {
		t.Errorf("statements: %d on the first count, %d on the second; want the estimate's and the count's, then the count's alone", first, again)
	}
}
