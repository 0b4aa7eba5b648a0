package query

import (
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	bunschema "github.com/uptrace/bun/schema"

	"github.com/gameadmin/admin/internal/schema"
)

// Label is a foreign key of a listed table whose target rows' labels are
// read in the page query itself (WithLabels) instead of a query of their
// own: a LEFT JOIN on one column of each side.
type Label struct {
	FK      string   // the listed table's column
	Table   string   // the target table
	Ref     string   // the target's column FK points at
	Columns []string // the target's label columns, in order of preference
	// ByKey says Ref is the target's primary key, which the database
	// indexes: the join reads one target row per page row through that
	// index (List.Bounded).
	ByKey bool
	// Scope, when set, is the target rows the reader may see: the label
	// of any other is NULL, as if the row did not exist.
	Scope *Scope
}

// Scope narrows the rows of a table to those whose Column holds one of
// Values (none for no values): an operator's row scope.
type Scope struct {
	Column string
	Values []string
}

// On is s as a condition on the columns of table (a name or an alias).
func (s *Scope) On(table bun.Ident) (string, []any) {
	if len(s.Values) == 0 {
		return "1 = 0", nil
	}
	return "?.? IN (?)", []any{table, bun.Ident(s.Column), bun.List(s.Values)}
}

// Joinable reports whether fk (of one table) and ref (of another) can be
// compared in a join without a cast on both databases: both integers, both
// text, or both uuid, as their models declare them. Anything else (a text
// owner id against a bigint key, a uuid against text) needs the value
// converted first, and is labelled by a query of its own.
func Joinable(fk, ref *schema.Column) bool {
	if fk == nil || ref == nil || fk.DataType != ref.DataType {
		return false
	}
	f, r := sqlFamily(fk.SQLType), sqlFamily(ref.SQLType)
	return f != "" && f == r
}

// sqlFamily groups the SQL types PostgreSQL compares with each other
// without a cast.
func sqlFamily(sqlType string) string {
	t := strings.ToLower(strings.TrimSpace(sqlType))
	if i := strings.IndexByte(t, '('); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	switch t {
	case "smallint", "integer", "int", "bigint", "int2", "int4", "int8", "smallserial", "serial", "bigserial":
		return "integer"
	case "varchar", "character varying", "text":
		return "text"
	case "uuid":
		return "uuid"
	}
	return ""
}

// WithLabels wraps q, a page Apply built on t, into
//
//	SELECT "_p".*, COALESCE(NULLIF("_l0"."name", ''), …, NULL) AS "_l0", …
//	FROM (q) AS "_p" LEFT JOIN target AS "_l0" ON "_l0".ref = "_p".fk …
//	ORDER BY "_p".key, …
//
// so the labels come with the page in one statement. The join is outside
// the page's LIMIT/OFFSET: only the page's rows are looked up, however
// deep the offset. ScanPage reads the result. Every name is an
// identifier from the schema; none comes from the request.
func (l *List) WithLabels(db bun.IDB, q *bun.SelectQuery, t *schema.Table, labels []Label) *bun.SelectQuery {
	return JoinLabels(db, q, labels, l.orderKeys(t))
}

// Query is the list's page of t's rows as ScanPage reads it (view is the
// table the list was parsed on): Apply on the stored columns, narrowed by
// where when given, with the conversions Select makes and the labels
// outside the page's window. So an offset, or a sort without an index,
// converts only the page's rows rather than every row it passes over
// (the text cast of a timestamp over 500,000 skipped rows was most of a deep
// page's time, and of each batch of an export sorted by a column without
// an index). With _fields it names only the columns the page needs (the
// asked ones, the key, the order's, Also): a large column left out is
// not read.
func (l *List) Query(db bun.IDB, t, view *schema.Table, labels []Label, where func(*bun.SelectQuery) *bun.SelectQuery) *bun.SelectQuery {
	cols := l.read(t)
	q := raw(db, t, cols)
	if where != nil {
		q = where(q)
	}
	q = l.Apply(q, view)
	switch db.Dialect().Name() {
	case dialect.MySQL:
		// The server ends the statement wherever it is (LimitedMySQL), as
		// on PostgreSQL, and the dates' text cast (raw) costs a deep
		// page no time to measure (MariaDB 10.11, 400,000 rows skipped).
		return l.WithLabels(db, q, view, labels)
	case dialect.SQLite:
		if where == nil && l.Bounded(t, labels) {
			return l.WithLabels(db, q, view, labels) // a bounded page finds its rows at once
		}
		return l.WithLabels(db, Whole(db, q, l.orderKeys(view)), view, labels) // Select converts nothing else
	}
	if !slices.ContainsFunc(cols, func(c *schema.Column) bool { return c.DataType == schema.Datetime }) {
		return l.WithLabels(db, q, view, labels)
	}
	return wrapPage(db, q, cols, labels, l.orderKeys(view))
}

// Whole is q, a select of a table's rows in order (none: any), made to
// find every row before it returns its first: on SQLite it reads q's
// rows from a MATERIALIZED common table expression, in a subquery,
// again in order. modernc.org/sqlite interrupts a statement whose
// context ends only while the statement looks for its first row; the
// later rows of a page, each perhaps after a long scan of its own (a
// search whose few matches lie far apart), were found outside the time
// limit (Limited). On PostgreSQL, whose limit ends the statement in the
// server wherever it is, Whole is q, as on MySQL and MariaDB
// (LimitedMySQL).
func Whole(db bun.IDB, q *bun.SelectQuery, order []SortKey) *bun.SelectQuery {
	if db.Dialect().Name() != dialect.SQLite {
		return q
	}
	w := bun.Ident("_w")
	return orderAs(db.NewSelect().TableExpr("(?) AS ?", materialized{q}, w).ColumnExpr("?.*", w), w, order)
}

// orderAs orders q by order, whose columns are those of the subquery
// alias.
func orderAs(q *bun.SelectQuery, alias bun.Ident, order []SortKey) *bun.SelectQuery {
	for _, k := range order {
		dir := "ASC"
		if k.Desc {
			dir = "DESC"
		}
		q = q.OrderExpr("?.? "+dir, alias, bun.Ident(k.Column))
	}
	return q
}

// materialized is q as SQLite's MATERIALIZED common table expression,
// read whole: Bun writes the keyword on PostgreSQL only.
type materialized struct{ q *bun.SelectQuery }

func (m materialized) AppendQuery(gen bunschema.QueryGen, b []byte) ([]byte, error) {
	b = append(b, `WITH "_m" AS MATERIALIZED (`...)
	b, err := m.q.AppendQuery(gen, b)
	if err != nil {
		return nil, err
	}
	return append(b, `) SELECT * FROM "_m"`...), nil
}

// JoinLabels is WithLabels for any select of a table's rows (q), ordered
// by order (none for one row read by its key).
func JoinLabels(db bun.IDB, q *bun.SelectQuery, labels []Label, order []SortKey) *bun.SelectQuery {
	if len(labels) == 0 {
		return q
	}
	return wrapPage(db, q, nil, labels, order)
}

// wrapPage selects q's rows from outside it ("_p"): cols as Select
// converts them (every column as it is when cols is nil), then the
// labels, in order.
func wrapPage(db bun.IDB, q *bun.SelectQuery, cols []*schema.Column, labels []Label, order []SortKey) *bun.SelectQuery {
	p := bun.Ident("_p")
	out := db.NewSelect().TableExpr("(?) AS ?", q, p)
	if cols == nil {
		out = out.ColumnExpr("?.*", p)
	} else {
		for _, c := range cols {
			e, args := column(db.Dialect().Name(), c, `"_p".`)
			out = out.ColumnExpr(e, args...)
		}
	}
	for i, lb := range labels {
		alias := bun.Ident("_l" + strconv.Itoa(i))
		expr, args := LabelExpr(alias, lb.Columns)
		on, onArgs := "?.? = ?.?", []any{alias, bun.Ident(lb.Ref), p, bun.Ident(lb.FK)}
		if lb.Scope != nil {
			cond, condArgs := lb.Scope.On(alias)
			on, onArgs = on+" AND "+cond, append(onArgs, condArgs...)
		}
		out = out.ColumnExpr(expr+" AS ?", append(args, alias)...).
			Join("LEFT JOIN ? AS ? ON "+on, append([]any{bun.Ident(lb.Table), alias}, onArgs...)...)
	}
	return orderAs(out, p, order)
}

// LabelExpr is a row's label: the first of cols (of the table or alias
// table) that is neither NULL nor empty, so a user without a display name
// is labelled by its email rather than its raw id; NULL when none is.
func LabelExpr(table bun.Ident, cols []string) (string, []any) {
	var b strings.Builder
	args := make([]any, 0, 2*len(cols))
	b.WriteString("COALESCE(")
	for _, c := range cols {
		b.WriteString("NULLIF(?.?, ''), ")
		args = append(args, table, bun.Ident(c))
	}
	// The trailing NULL keeps COALESCE at two arguments or more, which
	// SQLite requires.
	b.WriteString("NULL)")
	return b.String(), args
}
