package engine

import (
	"context"
	"fmt"

	"github.com/uptrace/bun/dialect"
)

// mmapAdvisedBytes is the SQLite database size from which New says, at
// Info, that it runs without memory mapping: below it the page cache
// holds most of it anyway.
const mmapAdvisedBytes = 64 << 20

// checkSQLite tells, on SQLite, what the DSN left out: a warning when
// the foreign keys the built-in tables declare are not enforced (PRAGMA
// foreign_keys is per connection and off by default: add
// _pragma=foreign_keys(1)), and a note when a large database is read
// without memory mapping (_pragma=mmap_size(268435456)), which makes a
// deep page or an exact count several times faster
// (docs/performance.md#sqlite).
func (a *compiler) checkSQLite(ctx context.Context) {
	if a.db.Dialect().Name() != dialect.SQLite {
		return
	}
	var on int
	if err := a.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&on); err != nil || on != 1 {
		a.log.Warn("admin: SQLite foreign_keys is off, so references to missing rows are not refused; add _pragma=foreign_keys(1) to the DSN")
	}
	var pages, pageSize, mmap int64
	if a.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages) != nil ||
		a.db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize) != nil ||
		a.db.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&mmap) != nil {
		return
	}
	if size := pages * pageSize; size >= mmapAdvisedBytes && mmap == 0 {
		a.log.Info(fmt.Sprintf("admin: the SQLite database is %d MiB and read without memory mapping; _pragma=mmap_size(268435456) in the DSN makes deep pages and exact counts several times faster (docs/performance.md#sqlite)", size>>20))
	}
}
