package query

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/schema"
)

// sampleWindows and sampleWidth shape the rowid sample that estimates a
// filtered count on SQLite: that many windows of that many rowids, spread
// evenly over the table, so old and new rows both weigh in.
const (
	sampleWindows = 8
	sampleWidth   = 1250
)

// sqliteEstimate estimates on SQLite, which keeps no per-query row
// estimates. The table's size is the span of its rowids (max - min + 1):
// exact for a table whose rows are appended with automatic rowids, an
// overestimate by the rows deleted since. When the span is more than twice
// sqlite_stat1's count (sparse explicit integer keys), or the table has no
// rowid, sqlite_stat1 answers, as of the last ANALYZE. A filtered count
// scales that size by the share of matching rows in a sample of
// sampleWindows x sampleWidth rowids. ok is false when no statistic
// applies or the table is small enough for the sample to be the table.
func sqliteEstimate(ctx context.Context, db bun.IDB, t *schema.Table, q *bun.SelectQuery, filtered bool) (int64, bool, error) {
	name := bun.Ident(t.Name)
	var lo, hi sql.NullInt64
	// Two subqueries: SQLite answers a lone min() or max() from the b-tree's
	// ends, but scans the table for both in one SELECT.
	rowid := db.QueryRowContext(ctx, "SELECT (SELECT min(rowid) FROM ?), (SELECT max(rowid) FROM ?)", name, name).Scan(&lo, &hi) == nil
	if rowid && !lo.Valid {
		return 0, true, nil // empty table
	}
	stat, hasStat, err := sqliteStat1(ctx, db, t.Name)
	if err != nil {
		return 0, false, err
	}
	var total int64
	switch {
	case rowid && (!hasStat || hi.Int64-lo.Int64+1 <= 2*stat):
		total = hi.Int64 - lo.Int64 + 1
	case hasStat:
		total = stat
	default:
		return 0, false, nil
	}
	if !filtered {
		return total, true, nil
	}
	span := hi.Int64 - lo.Int64 + 1
	if !rowid || span <= sampleWindows*sampleWidth {
		// Without rowids there is nothing cheap to sample; a small table
		// is counted.
		return 0, false, nil
	}
	// One query per window: SQLite turns a single rowid range into a range
	// scan, but an OR of ranges ANDed with a filter into a full scan.
	step := span / sampleWindows
	var seen, hit int64
	for i := int64(0); i < sampleWindows; i++ {
		from := lo.Int64 + i*step
		to := from + sampleWidth - 1
		n, err := Select(db, t).Where("?TableAlias.rowid BETWEEN ? AND ?", from, to).Count(ctx)
		if err != nil {
			return 0, false, err
		}
		seen += n
		if n == 0 {
			continue
		}
		m, err := q.Clone().Conn(db).Where("?TableAlias.rowid BETWEEN ? AND ?", from, to).Count(ctx)
		if err != nil {
			return 0, false, err
		}
		hit += m
	}
	if seen == 0 {
		return 0, false, nil
	}
	return total * hit / seen, true, nil
}

// sqliteStat1 reads the row count ANALYZE stored for table; ok is false
// when it never ran.
func sqliteStat1(ctx context.Context, db bun.IDB, table string) (n int64, ok bool, err error) {
	var stat string
	err = db.QueryRowContext(ctx, "SELECT stat FROM sqlite_stat1 WHERE tbl = ? LIMIT 1", table).Scan(&stat)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) || strings.Contains(err.Error(), "no such table") {
			return 0, false, nil
		}
		return 0, false, err
	}
	first, _, _ := strings.Cut(stat, " ")
	n, err = strconv.ParseInt(first, 10, 64)
	if err != nil {
		return 0, false, nil
	}
	return n, true, nil
}
