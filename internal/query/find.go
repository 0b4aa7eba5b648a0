package query

import (
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/schema"
)

// FindTitle is the column a Find query's rows carry their label in, after
// t's key columns: ScanFrom reads it as the label of a Label whose FK is
// FindTitle (row["_labels"][FindTitle]).
const FindTitle = "_title"

// FindLabel is the Label ScanFrom needs to read a Find query's rows.
var FindLabel = []Label{{FK: FindTitle}}

// Find is the statement of the panel's search box (GET /_search) on one
// table: at most limit rows of t (soft-deleted rows left out) whose label
// columns cols (the ones the operator may read) start with text, ignoring
// case, each as its key columns and its label (LabelExpr).
//
// It is a prefix match on purpose, so an index can serve it: on
// PostgreSQL lower(col) LIKE 'text%' uses an index on lower(col) with
// text_pattern_ops (or on a column of the C collation); on SQLite col
// LIKE 'text%' uses an index on col COLLATE NOCASE. Without one it reads
// the table until it has limit rows (no ORDER BY, so a common prefix
// stops early and a rare one may read every row); the caller runs it
// under a time limit and skips the table when it runs out. where, when
// given, narrows the rows further (an operator's row scope).
func Find(db bun.IDB, t *schema.Table, cols []string, text string, limit int, where func(*bun.SelectQuery) *bun.SelectQuery) *bun.SelectQuery {
	return find(db, t, cols, escapeLike(text)+"%", limit, where)
}

// FindWords is Find by the start of a later word of the label: a column
// holding a space followed by text ("Player 23" for "23"), ignoring case.
// No index serves it: the search runs it only when Find gave fewer than
// limit rows, for the rest, under the same time limit, and ranks its rows
// after Find's.
func FindWords(db bun.IDB, t *schema.Table, cols []string, text string, limit int, where func(*bun.SelectQuery) *bun.SelectQuery) *bun.SelectQuery {
	return find(db, t, cols, "% "+escapeLike(text)+"%", limit, where)
}

// find is Find and FindWords: the rows whose label columns match the
// LIKE pattern.
func find(db bun.IDB, t *schema.Table, cols []string, pattern string, limit int, where func(*bun.SelectQuery) *bun.SelectQuery) *bun.SelectQuery {
	pg, mysql := db.Dialect().Name() == dialect.PG, db.Dialect().Name() == dialect.MySQL
	q := From(db, t)
	for _, c := range t.PK {
		q = q.ColumnExpr("?TableAlias.?", bun.Ident(c.Name))
	}
	expr, args := LabelExpr(bun.Ident(t.Alias), cols)
	q = q.ColumnExpr(expr+" AS ?", append(args, bun.Ident(FindTitle))...)
	q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		for _, c := range cols {
			switch {
			case pg:
				// No cast: an expression index on lower(col) matches
				// this expression only as written.
				q = q.WhereOr(`lower(?TableAlias.?) LIKE lower(?) ESCAPE '\'`, bun.Ident(c), pattern)
			case mysql:
				// The column's own collation decides case (the default
				// _ci ones ignore it), so its index serves the prefix;
				// '\\' is the string literal of one backslash.
				q = q.WhereOr(`?TableAlias.? LIKE ? ESCAPE '\\'`, bun.Ident(c), pattern)
			default:
				q = q.WhereOr(`?TableAlias.? LIKE ? ESCAPE '\'`, bun.Ident(c), pattern)
			}
		}
		return q
	})
	if where != nil {
		q = where(q)
	}
	return Whole(db, q.Limit(int64(limit)), nil)
}
