package querytest

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

func count(t *testing.T, db *bun.DB, tb *schema.Table, qs string, opts query.CountOptions) (int64, bool) {
	t.Helper()
	v, _ := url.ParseQuery(qs)
	l, err := query.Parse(tb, v, nil)
	if err != nil {
		t.Fatalf("Parse(%q): %v", qs, err)
	}
	q := l.ApplyFilters(query.Select(db, tb), tb)
	n, est, err := query.Count(context.Background(), db, tb, q, len(l.Filters) > 0 || l.Q != "", opts)
	if err != nil {
		t.Fatalf("Count(%q): %v", qs, err)
	}
	return n, est
}

func TestCountExact(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		tb, _ := setup(t, db)
		tests := []struct {
			q    string
			want int64
		}{
			{"", 6},
			{"score_eq=20", 2},
			{"_q=alice", 2},
			{"score_gt=1000", 0},
		}
		for _, tt := range tests {
			if n, est := count(t, db, tb, tt.q, query.CountOptions{}); n != tt.want || est {
				t.Errorf("Count(%q) = %d, estimated %v; want %d, exact", tt.q, n, est, tt.want)
			}
		}
	})
}

// fillBig inserts n items with generate_series and analyzes the table.
func fillBig(t testing.TB, db *bun.DB, n int) *schema.Table {
	t.Helper()
	ctx := context.Background()
	if _, err := db.NewCreateTable().Model((*item)(nil)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO items (id, name, note, score, ratio, active, at)
SELECT g, 'name ' || g, CASE WHEN g % 10 = 0 THEN NULL ELSE 'note ' || g END, g % 1000, g / 7.0, g % 2 = 0,
	timestamptz '2024-01-01' + g * interval '1 second'
FROM generate_series(1, ?) AS g`, n); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE INDEX items_score_idx ON items (score, id)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "ANALYZE items"); err != nil {
		t.Fatal(err)
	}
	tb, err := schema.Inspect(db, "items", (*item)(nil))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestCountEstimatePG(t *testing.T) {
	db := testdb.PG(t)
	const rows = 20_000
	tb := fillBig(t, db, rows)

	// Past the threshold, an unfiltered count is the statistics' estimate.
	n, est := count(t, db, tb, "", query.CountOptions{ExactBelow: 1000})
	if !est || n < rows*9/10 || n > rows*11/10 {
		t.Errorf("Count(unfiltered, ExactBelow 1000) = %d, estimated %v; want about %d, estimated", n, est, rows)
	}
	// Below it, or filtered, the count is exact.
	if n, est := count(t, db, tb, "", query.CountOptions{}); n != rows || est {
		t.Errorf("Count(unfiltered) = %d, estimated %v; want %d, exact", n, est, rows)
	}
	if n, est := count(t, db, tb, "", query.CountOptions{ExactBelow: -1}); n != rows || est {
		t.Errorf("Count(unfiltered, ExactBelow -1) = %d, estimated %v; want %d, exact", n, est, rows)
	}
	// Filtered, the plan decides: about 2,000 rows is past 1,000 and
	// estimated, below the default and counted.
	if n, est := count(t, db, tb, "score_lt=100", query.CountOptions{ExactBelow: 1000}); !est || n < rows/20 || n > rows/5 {
		t.Errorf("Count(score_lt=100, ExactBelow 1000) = %d, estimated %v; want about %d, estimated", n, est, rows/10)
	}
	if n, est := count(t, db, tb, "score_lt=100", query.CountOptions{}); n != rows/10 || est {
		t.Errorf("Count(score_lt=100) = %d, estimated %v; want %d, exact", n, est, rows/10)
	}
	// Asked for, the count is exact whatever the size.
	if n, est := count(t, db, tb, "score_gt=-1", query.CountOptions{Mode: query.CountExact, ExactBelow: 1000}); n != rows || est {
		t.Errorf("Count(score_gt=-1, exact) = %d, estimated %v; want %d, exact", n, est, rows)
	}
}

func TestCountBudgetPG(t *testing.T) {
	db := testdb.PG(t)
	const rows = 300_000
	tb := fillBig(t, db, rows)
	// A substring search cannot use an index; under a 1ms budget it is
	// usually cancelled and estimated. Either outcome must be consistent:
	// exact and right, or estimated and plausible.
	const want = rows / 10 * 9 // rows with a note
	estimates := 0
	for i := 0; i < 3; i++ {
		n, est := count(t, db, tb, "note_like=note", query.CountOptions{Mode: query.CountExact, ExactBudget: time.Millisecond})
		if est {
			estimates++
			if n <= 0 || n > rows {
				t.Errorf("Count(note_like, 1ms) = %d, estimated; want a plausible estimate in 1..%d", n, rows)
			}
		} else if n != want {
			t.Errorf("Count(note_like, 1ms) = %d, exact; want %d", n, want)
		}
	}
	t.Logf("%d of 3 counts hit the 1ms budget and were estimated", estimates)
	// The pooled connection kept its normal timeout: a slow count without
	// a budget problem is exact.
	if n, est := count(t, db, tb, "note_like=note", query.CountOptions{Mode: query.CountExact, ExactBudget: time.Minute}); n != want || est {
		t.Errorf("Count(note_like, 1m) = %d, estimated %v; want %d, exact", n, est, want)
	}
	var timeout string
	if err := db.QueryRowContext(context.Background(), "SHOW statement_timeout").Scan(&timeout); err != nil || timeout != "0" {
		t.Errorf("statement_timeout after Count = %q, %v; want 0 (SET LOCAL ends with the transaction)", timeout, err)
	}
}
