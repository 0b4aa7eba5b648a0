// Package sqldialect holds the SQL spellings that differ between
// PostgreSQL, SQLite and MySQL/MariaDB, for the statements the panel
// writes by hand: one place to read what each database is asked.
package sqldialect

import (
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/schema"
)

// Text is the type a CAST to text names: TEXT, or CHAR on MySQL, whose
// CAST knows no TEXT (CHAR without a length keeps the whole value).
func Text(d dialect.Name) string {
	if d == dialect.MySQL {
		return "CHAR"
	}
	return "TEXT"
}

// CastText returns expr cast to text.
func CastText(d dialect.Name, expr string) string {
	return "CAST(" + expr + " AS " + Text(d) + ")"
}

// Quote quotes one identifier: double quotes, or backticks on MySQL.
func Quote(d dialect.Name, name string) string {
	if d == dialect.MySQL {
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// AsText is expr cast to text, spelled for the dialect of the query it is
// formatted into: q.ColumnExpr("?", sqldialect.AsText(col)).
func AsText(expr schema.QueryAppender) schema.QueryAppender { return castText{expr} }

type castText struct{ expr schema.QueryAppender }

func (c castText) AppendQuery(f schema.QueryGen, b []byte) ([]byte, error) {
	b = append(b, "CAST("...)
	b, err := c.expr.AppendQuery(f, b)
	if err != nil {
		return nil, err
	}
	return append(b, " AS "+Text(f.Dialect().Name())+")"...), nil
}

// OnConflictUpdate makes q, an insert into a table whose unique key is
// the columns key, update cols of the row already there: ON CONFLICT … DO
// UPDATE, or ON DUPLICATE KEY UPDATE on MySQL (which reads any unique key).
func OnConflictUpdate(q *bun.InsertQuery, key string, cols ...string) *bun.InsertQuery {
	if q.Dialect().Name() == dialect.MySQL {
		q = q.On("DUPLICATE KEY UPDATE")
		for _, c := range cols {
			q = q.Set("? = VALUES(?)", bun.Ident(c), bun.Ident(c))
		}
		return q
	}
	q = q.On("CONFLICT (" + key + ") DO UPDATE")
	for _, c := range cols {
		q = q.Set("? = EXCLUDED.?", bun.Ident(c), bun.Ident(c))
	}
	return q
}

// OnConflictNothing makes q, an insert into a table whose unique key is
// the columns key ("" for any), leave the row already there and report
// no row affected: ON CONFLICT … DO NOTHING, or on MySQL an update of the
// key to itself (not INSERT IGNORE, which would also turn other errors
// into warnings).
func OnConflictNothing(q *bun.InsertQuery, key string) *bun.InsertQuery {
	if q.Dialect().Name() == dialect.MySQL {
		first, _, _ := strings.Cut(key, ",")
		return q.On("DUPLICATE KEY UPDATE").Set("? = ?", bun.Ident(strings.TrimSpace(first)), bun.Ident(strings.TrimSpace(first)))
	}
	if key == "" {
		return q.On("CONFLICT DO NOTHING")
	}
	return q.On("CONFLICT (" + key + ") DO NOTHING")
}

// DeleteFrom is a delete query's ModelTableExpr: `table AS alias`, or the
// bare table on MySQL, whose single-table DELETE takes no alias (MariaDB
// before 11.6); the query's conditions then name no alias.
func DeleteFrom(d dialect.Name, table schema.QueryAppender, alias string) schema.QueryWithArgs {
	if d == dialect.MySQL {
		return bun.SafeQuery("?", table)
	}
	return bun.SafeQuery("? AS ?", table, bun.Ident(alias))
}
