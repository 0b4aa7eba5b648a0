package query

import (
	"slices"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/sqldialect"
)

// Apply adds the list's WHERE, ORDER BY (with the primary key after the
// sort, so pages are stable) and window to q, a select whose model is t's
// (see Select). In keyset mode it fetches Limit+1 rows: pass the rows to
// Page.
func (l *List) Apply(q *bun.SelectQuery, t *schema.Table) *bun.SelectQuery {
	keys := l.orderKeys(t)
	// The cursor's bound comes first: SQLite seeks by the first bound of
	// a column it meets, so a filter on the sort key written before it
	// (id_lte=…) made every batch of an export scan from the filter's
	// bound down to the cursor, and a 1M-row export took 80 s. After the
	// first page the cursor's bound is the tighter one.
	if l.Limit > 0 && l.after != nil {
		q = whereAfter(q, keys, l.after)
	}
	q = l.ApplyFilters(q, t)
	for _, k := range keys {
		if k.Desc {
			q = q.OrderExpr("?TableAlias.? DESC", bun.Ident(k.Column))
		} else {
			q = q.OrderExpr("?TableAlias.? ASC", bun.Ident(k.Column))
		}
	}
	if l.Limit > 0 && l.offsetWalk {
		return q.Limit(int64(l.Limit + 1)).Offset(int64(l.walked))
	}
	if l.Limit > 0 {
		return q.Limit(int64(l.Limit + 1))
	}
	if l.End == l.Start {
		// Bun leaves out LIMIT 0, and SQLite refuses OFFSET without LIMIT.
		return q.Where("1 = 0")
	}
	return q.Limit(int64(l.End - l.Start)).Offset(int64(l.Start))
}

// whereAfter keeps the rows after the cursor position. With one direction
// it is a row-value comparison, which PostgreSQL matches to a composite
// index and SQLite (3.15+) understands; with mixed directions it is the
// expanded form (a > ?) OR (a = ? AND b < ?) OR ...
func whereAfter(q *bun.SelectQuery, keys []SortKey, after []any) *bun.SelectQuery {
	cmp := func(k SortKey) string {
		if k.Desc {
			return "<"
		}
		return ">"
	}
	uniform := true
	for _, k := range keys {
		uniform = uniform && k.Desc == keys[0].Desc
	}
	if uniform {
		cols := make([]string, len(keys))
		args := make([]any, 0, 2*len(keys))
		for i, k := range keys {
			cols[i] = "?TableAlias.?"
			args = append(args, bun.Ident(k.Column))
		}
		args = append(args, after...)
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(keys)), ", ")
		return q.Where("("+strings.Join(cols, ", ")+") "+cmp(keys[0])+" ("+marks+")", args...)
	}
	return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		for i := range keys {
			var b strings.Builder
			var args []any
			b.WriteString("(")
			for j := 0; j < i; j++ {
				b.WriteString("?TableAlias.? = ? AND ")
				args = append(args, bun.Ident(keys[j].Column), after[j])
			}
			b.WriteString("?TableAlias.? " + cmp(keys[i]) + " ?)")
			args = append(args, bun.Ident(keys[i].Column), after[i])
			q = q.WhereOr(b.String(), args...)
		}
		return q
	})
}

// ApplyFilters adds only the list's WHERE clauses (filters and _q) to q:
// for counting.
func (l *List) ApplyFilters(q *bun.SelectQuery, t *schema.Table) *bun.SelectQuery {
	pg := q.Dialect().Name() == dialect.PG
	// Bun leaves a soft-delete model's deleted rows out by itself.
	switch l.Deleted {
	case DeletedOnly:
		q = q.WhereDeleted()
	case DeletedInclude:
		q = q.WhereAllWithDeleted()
	}
	for _, f := range l.Filters {
		col := bun.Ident(f.Column.Name)
		day, isDay := f.Value.(DayRange)
		switch {
		case isDay && f.Op == Eq:
			q = q.Where("?TableAlias.? >= ? AND ?TableAlias.? < ?", col, day.From, col, day.To)
			continue
		case isDay && f.Op == Ne:
			// NULL is outside every day, so it is kept.
			q = q.Where("(?TableAlias.? < ? OR ?TableAlias.? >= ? OR ?TableAlias.? IS NULL)", col, day.From, col, day.To, col)
			continue
		}
		switch f.Op {
		case Eq:
			q = q.Where("?TableAlias.? = ?", col, f.Value)
		case Ne:
			// NULL differs from every value, so it is kept.
			switch {
			case pg:
				q = q.Where("?TableAlias.? IS DISTINCT FROM ?", col, f.Value)
			case q.Dialect().Name() == dialect.MySQL:
				q = q.Where("NOT (?TableAlias.? <=> ?)", col, f.Value)
			default:
				q = q.Where("?TableAlias.? IS NOT ?", col, f.Value)
			}
		case Gt:
			q = q.Where("?TableAlias.? > ?", col, f.Value)
		case Gte:
			q = q.Where("?TableAlias.? >= ?", col, f.Value)
		case Lt:
			q = q.Where("?TableAlias.? < ?", col, f.Value)
		case Lte:
			q = q.Where("?TableAlias.? <= ?", col, f.Value)
		case In:
			q = q.Where("?TableAlias.? IN (?)", col, bun.List(f.Value.([]any)))
		case Null:
			// Bun writes a nil map or slice as the JSON null, so for json
			// columns that counts as null too.
			isJSON := f.Column.DataType == schema.JSON
			switch {
			case f.Value.(bool) && isJSON:
				q = q.Where("(?TableAlias.? IS NULL OR ? = 'null')", col, sqldialect.AsText(bun.SafeQuery("?TableAlias.?", col)))
			case f.Value.(bool):
				q = q.Where("?TableAlias.? IS NULL", col)
			case isJSON:
				q = q.Where("(?TableAlias.? IS NOT NULL AND ? <> 'null')", col, sqldialect.AsText(bun.SafeQuery("?TableAlias.?", col)))
			default:
				q = q.Where("?TableAlias.? IS NOT NULL", col)
			}
		case Like:
			q = q.Where(likeExpr(q.Dialect().Name()), col, f.Value)
		case Contains, Overlaps, Empty:
			q = arrayFilter(q, pg, f)
		case Within:
			q = q.Where("?TableAlias.? <<= CAST(? AS inet)", col, f.Value)
		case Key:
			q = keyFilter(q, pg, f.Column, f.Value.(KeyValue))
		}
	}
	for _, c := range l.Where {
		q = q.Where(c.Expr, c.Args...)
	}
	if l.Q != "" {
		pattern := "%" + escapeLike(l.Q) + "%"
		searched := false
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			for _, c := range l.searched(t) {
				searched = true
				q = q.WhereOr(likeExpr(q.Dialect().Name()), bun.Ident(c.Name), pattern)
			}
			for _, c := range l.SearchAlso {
				searched = true
				q = q.WhereOr(c.Expr, c.Args...)
			}
			if !searched {
				q = q.Where("1 = 0") // no text column can contain it
			}
			return q
		})
	}
	return q
}

// Expensive reports a list that no index can be counted on to serve: a
// text search (_q, or a _like filter, a substring anywhere in the
// column) or an exact count (_count=exact), each of which may read the
// whole table.
func (l *List) Expensive() bool {
	return l.Q != "" || l.Count == CountExact || slices.ContainsFunc(l.Filters, func(f Filter) bool { return f.Op == Like })
}

// Bounded reports a page whose statement reads no more rows than its
// window, through the primary key's index, whatever the table holds: no
// search, filter or condition; in the primary key's order (one
// direction); a keyset page or a window ending within MaxWindow rows of
// the start; a table (not a view, which may hide any amount of work)
// whose primary key the database indexes (KeyOrdered), with no
// soft-delete column (the rows not deleted, or the deleted ones, may lie
// past any number of the others); each label read by its target's
// indexed primary key (ByKey). Such a page costs what a read by id
// costs, and runs, as that read does, without Limited's time limit and
// the transaction it takes on PostgreSQL. A caller that narrows the page
// further (Query's where) has no bounded page.
func (l *List) Bounded(t *schema.Table, labels []Label) bool {
	if l.Q != "" || len(l.Filters) > 0 || len(l.Where) > 0 || len(l.SearchAlso) > 0 || l.Deleted != "" ||
		t.NotWritable != "" || !t.KeyOrdered || t.SoftDelete != nil || (l.Limit == 0 && l.End > MaxWindow) {
		return false
	}
	keys := l.orderKeys(t)
	if len(keys) != len(t.PK) {
		return false
	}
	for i, k := range keys {
		if k.Column != t.PK[i].Name || k.Desc != keys[0].Desc {
			return false
		}
	}
	return !slices.ContainsFunc(labels, func(lb Label) bool { return !lb.ByKey })
}

// searched are the columns _q searches: Search, or every string column.
func (l *List) searched(t *schema.Table) []*schema.Column {
	if l.Search != nil {
		return l.Search
	}
	var cols []*schema.Column
	for _, c := range t.Columns {
		if c.DataType == schema.String {
			cols = append(cols, c)
		}
	}
	return cols
}

// likeExpr is a case-insensitive LIKE with backslash as the escape
// character: ILIKE on PostgreSQL (on the column cast to text, so uuid and
// jsonb columns work too); LIKE on SQLite, which ignores case for ASCII
// letters only.
//
// On MySQL and MariaDB both sides are lowered (a _bin or binary column
// would match case), the column cast to CHAR (numbers and JSON too), and
// the escape is written '\\', the string literal of one backslash (Bun
// writes the pattern's backslashes the same way).
func likeExpr(d dialect.Name) string {
	switch d {
	case dialect.PG:
		return `CAST(?TableAlias.? AS TEXT) ILIKE ? ESCAPE '\'`
	case dialect.MySQL:
		return `LOWER(CAST(?TableAlias.? AS CHAR)) LIKE LOWER(?) ESCAPE '\\'`
	}
	return `?TableAlias.? LIKE ? ESCAPE '\'`
}

// From starts a select from t with no columns: the caller names them.
// Its model is a new t.Model, so ?TableAlias works; the table is named
// from t, which may differ from the model's tag (a built-in model under
// another table prefix).
func From(db bun.IDB, t *schema.Table) *bun.SelectQuery {
	return db.NewSelect().Model(t.NewModel()).ModelTableExpr("? AS ?", bun.Ident(t.Name), bun.Ident(t.Alias))
}

// raw starts a select of t's rows naming cols, columns of t, as stored:
// for a page that List.Query wraps, which converts what Select converts.
// On MySQL, whose pages are not wrapped, it converts them itself.
func raw(db bun.IDB, t *schema.Table, cols []*schema.Column) *bun.SelectQuery {
	q := From(db, t)
	d := db.Dialect().Name()
	for _, c := range cols {
		if d == dialect.MySQL {
			e, args := column(d, c, "?TableAlias.")
			q = q.ColumnExpr(e, args...)
			continue
		}
		q = q.ColumnExpr("?TableAlias.?", bun.Ident(c.Name))
	}
	return q
}

// Select starts a select of t's rows: its model is a new t.Model, so Apply
// can name the table's alias. Every column is named; on PostgreSQL the
// timestamps are read as text, which holds 'infinity' and '-infinity' as
// well as dates (the driver fails the whole result on them), in UTC for
// timestamptz, so that text order is time order. The text is DateStyle's
// ISO form, PostgreSQL's default (ReadCatalog warns of another); a cast
// costs PostgreSQL about a tenth of a 100-row page less than to_json. On
// MySQL the dates and times are read as text too: the driver turns a
// zero date ('0000-00-00', which a permissive sql_mode stores) into
// year 1 and a zero day or month into another date.
func Select(db bun.IDB, t *schema.Table) *bun.SelectQuery {
	q := From(db, t)
	d := db.Dialect().Name()
	for _, c := range t.Columns {
		e, args := column(d, c, "?TableAlias.")
		q = q.ColumnExpr(e, args...)
	}
	return q
}

// column is Select's expression of c, its column named with prefix.
func column(d dialect.Name, c *schema.Column, prefix string) (string, []any) {
	name := bun.Ident(c.Name)
	switch {
	case d == dialect.MySQL && mysqlTime(c):
		return "CAST(" + prefix + "? AS CHAR) AS ?", []any{name, name}
	case d != dialect.PG || c.DataType != schema.Datetime:
		return prefix + "?", []any{name}
	case schema.Zoned(c.SQLType):
		return "(" + prefix + "? AT TIME ZONE 'UTC')::text AS ?", []any{name, name}
	}
	return prefix + "?::text AS ?", []any{name, name}
}

// mysqlTime reports whether c is a MySQL DATE, DATETIME or TIMESTAMP
// column (as the catalog read it), other than a unix time's.
func mysqlTime(c *schema.Column) bool {
	st := strings.ToLower(c.DBType)
	return c.Unix == "" && (strings.HasPrefix(st, "date") || strings.HasPrefix(st, "timestamp"))
}

// Returning is the RETURNING list of a write that gives back the row as
// Select reads it, for ScanFrom.
func Returning(db bun.IDB, t *schema.Table) (string, []any) {
	d := db.Dialect().Name()
	exprs := make([]string, len(t.Columns))
	var args []any
	for i, c := range t.Columns {
		e, a := column(d, c, "")
		exprs[i] = e
		args = append(args, a...)
	}
	return strings.Join(exprs, ", "), args
}
