package query

import (
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/schema"
)

// Rendering a page in the database: on PostgreSQL a list page whose sent
// columns all have a plain JSON form comes back as one cell, the page's
// rows as JSON text, which the panel appends to its answer after one
// compacting pass, without a value of it turned into Go (PostgREST's
// approach). Reading and scanning a page's cells, building its rows and
// encoding them were most of the CPU a page cost the game's process;
// PostgreSQL spends more instead, which a database on its own machine
// can spare.
//
// The text is, byte for byte, what AppendRowsJSON writes of the rows
// ScanFrom, List.Page and List.Unasked make of the same page: keys
// sorted, integers and booleans as themselves, strings and labels escaped
// as encoding/json escapes them, timestamps in RFC 3339 UTC, JSON
// columns as values. A column of any other kind (decimals, floats,
// arrays, enums, dates, bytes, a Go type with a Scanner or Valuer of its
// own) leaves the page to ScanFrom (Render is nil), and so does a row
// with a value the Go path shows with a note or as stored text (a
// timestamp RFC 3339 cannot write: AppendPage's ok is false).

// Rendered is a list page that PostgreSQL writes as the panel's JSON
// (List.Render).
type Rendered struct {
	l      *List
	t      *schema.Table    // the page's table, as ScanFrom reads it
	view   *schema.Table    // the list's, whose order the cursor names
	outer  string           // the select list over "_x" (Text)
	inner  string           // the select list over the page's rows, "_r" (Text)
	keys   []*schema.Column // a keyset page's order columns, whose last sent values make the cursor
	hidden map[string]bool
}

// Render is the page l.Query builds of t (view the table l was parsed
// on, hidden the columns left out, labels its joined labels) as
// PostgreSQL renders it; nil when the dialect or a sent column rules it
// out (see the comment above Rendered).
func (l *List) Render(db bun.IDB, t, view *schema.Table, hidden map[string]bool, labels []Label) *Rendered {
	if db.Dialect().Name() != dialect.PG {
		return nil
	}
	type entry struct{ key, expr string }
	var entries []entry
	// PostgreSQL's text of a database whose encoding is not UTF-8 may
	// hold bytes that are not UTF-8, which the Go path shows replaced.
	odd := []string{"current_setting('server_encoding') <> 'UTF8'"}
	for _, c := range l.Sent(t) {
		if hidden[c.Name] {
			continue
		}
		expr, oddIf := renderedCell(c)
		if expr == "" || !plainName(c.Name) {
			return nil
		}
		entries = append(entries, entry{c.Name, expr})
		if oddIf != "" {
			odd = append(odd, oddIf)
		}
	}
	if len(labels) > 0 {
		expr := renderedLabels(labels)
		if expr == "" {
			return nil
		}
		entries = append(entries, entry{"_labels", expr})
	}
	// concat_ws takes at most 100 arguments, and leaves out the NULL
	// ones (the labels of a row without any).
	if len(entries) == 0 || len(entries) > 99 {
		return nil
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	var in strings.Builder
	in.WriteString(`'{' || concat_ws(','`)
	for _, e := range entries {
		in.WriteString(`, '"` + e.key + `":' || ` + e.expr)
	}
	in.WriteString(`) || '}' AS "j", ` + strings.Join(odd, " OR ") + ` AS "o", row_number() OVER () AS "n"`)
	// One row: the page's rows joined (the first Limit of a keyset
	// page, which reads one more), whether one is odd, how many were
	// read, and the order's keys of the last row sent, for the cursor.
	// row_number() numbers the page's rows in the order its ORDER BY
	// gives them, as PostgREST's json_agg over its page relies on.
	pageRows := ""
	if l.Limit > 0 {
		pageRows = ` FILTER (WHERE "_x"."n" <= ` + strconv.Itoa(l.Limit) + `)`
	}
	out := `'[' || COALESCE(string_agg("_x"."j", ',' ORDER BY "_x"."n")` + pageRows + `, '') || ']', COALESCE(bool_or("_x"."o"), false), count(*)`
	r := &Rendered{l: l, t: t, view: view, hidden: hidden}
	// The last sent row: a keyset page's Limit-th, an offset page's
	// last (OffsetCursor's, when its order allows a cursor).
	last := `FILTER (WHERE "_x"."n" = ` + strconv.Itoa(l.Limit) + `)`
	if l.Limit == 0 {
		last = `ORDER BY "_x"."n" DESC`
	}
	if l.Limit > 0 || l.checkKeyset(view) == nil {
		for i, k := range l.orderKeys(view) {
			c := t.ByName[k.Column]
			if c == nil || !plainName(c.Name) {
				return nil
			}
			r.keys = append(r.keys, c)
			key := `"k` + strconv.Itoa(i) + `"`
			in.WriteString(`, "_r"."` + c.Name + `" AS ` + key)
			if l.Limit > 0 {
				out += `, (array_agg("_x".` + key + `) ` + last + `)[1]`
			} else {
				out += `, (array_agg("_x".` + key + ` ` + last + `))[1]`
			}
		}
	}
	r.outer, r.inner = out, in.String()
	return r
}

// renderedLabels is the SQL giving a row's _labels from the page's label
// columns ("_r"."_l0", …): {"fk": "label", …}, its keys sorted as
// encoding/json sorts a map's, of the labels that are not NULL
// (LabelExpr gives NULL for an empty one), and NULL when none is, which
// leaves _labels out. It is "" when a key's name is not a plain one.
func renderedLabels(labels []Label) string {
	order := make([]int, len(labels))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(labels[a].FK, labels[b].FK) })
	var obj, present []string
	for _, i := range order {
		if !plainName(labels[i].FK) {
			return ""
		}
		alias := `"_r"."_l` + strconv.Itoa(i) + `"`
		obj = append(obj, "'"+labels[i].FK+"', "+alias+"::text")
		present = append(present, alias+" IS NOT NULL")
	}
	return "CASE WHEN " + strings.Join(present, " OR ") + " THEN json_strip_nulls(json_build_object(" + strings.Join(obj, ", ") + "))::text END"
}

// plainName reports whether s, a column's name from the schema, is
// written as it is in both SQL and JSON: letters, digits and
// underscores. Another name leaves the page to the Go path.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// renderedCell is the SQL giving c's JSON text from "_r".c, the page's
// column as Query reads it, and the condition under which a row's value
// is one only the Go path shows (none: ""); expr is "" when c has no
// plain JSON form in the database. It follows ScanFrom's path for each
// kind: a plain cell (plainKinds) or a JSON column's text.
func renderedCell(c *schema.Column) (expr, odd string) {
	if c.Field == nil || c.DBType == "" || !plainName(c.Name) {
		return "", "" // the catalog was not read: the stored type is unknown
	}
	col := `"_r"."` + c.Name + `"`
	db := strings.ToLower(c.DBType)
	if c.DataType == schema.JSON {
		if c.Unix == "" && !ownKind(c) && c.Kind == schema.KindJSON && (c.DBType == "jsonb" || c.DBType == "json") {
			// rawJSON: the stored text, a JSON null as null.
			return "COALESCE(" + col + "::text, 'null')", ""
		}
		return "", ""
	}
	switch plainKinds([]*schema.Column{c})[0] {
	case plainInt:
		if db == "smallint" || db == "integer" || db == "bigint" {
			return "COALESCE(" + col + "::text, 'null')", ""
		}
	case plainBool:
		if db == "boolean" {
			return "COALESCE(" + col + "::text, 'null')", ""
		}
	case plainString:
		if db == "text" || db == "uuid" || strings.HasPrefix(db, "character varying") {
			return "COALESCE(to_json(" + col + ")::text, 'null')", ""
		}
	case plainTime:
		// Select's text of it, without an offset: RFC 3339 is that with
		// a T and a Z, when its year has four digits of the common era.
		// 'infinity' is shown as its text.
		ordinary := "(substr(" + col + ", 5, 1) = '-' AND substr(" + col + ", 11, 1) = ' ' AND " + col + " NOT LIKE '% BC')"
		return "CASE WHEN " + col + " IS NULL THEN 'null' WHEN " + ordinary + " THEN '\"' || replace(" + col + ", ' ', 'T') || 'Z\"' ELSE to_json(" + col + ")::text END",
			"(" + col + " IS NOT NULL AND NOT " + ordinary + " AND " + col + " NOT IN ('infinity', '-infinity'))"
	}
	return "", ""
}

// Text is the statement of the page whose text is page (List.Query's,
// perhaps with its cursor as parameters), rendered. The page comes
// first, as a common table expression (inlined, as a subquery would
// be): the statement's start, all that pg_stat_activity keeps of a long
// one, names the table it reads.
func (r *Rendered) Text(page string) string {
	return `WITH "_r" AS (` + page + `) SELECT ` + r.outer + ` FROM (SELECT ` + r.inner + ` FROM "_r") AS "_x"`
}

// Query is the statement of page (List.Query's) rendered, as Bun runs
// it with its values inline: Text's.
func (r *Rendered) Query(db bun.IDB, page *bun.SelectQuery) *bun.SelectQuery {
	return db.NewSelect().With("_r", page).ColumnExpr("?", bun.Safe(r.outer)).
		TableExpr(`(SELECT ? FROM "_r") AS "_x"`, bun.Safe(r.inner))
}

// AppendPage reads rs, the row of Text or Query, closes it, and appends
// the page to b as a JSON array: what AppendRowsJSON writes of the rows
// ScanFrom, List.Page and List.Unasked make of the same page. next is the
// next page's cursor (List.Page's, or an offset page's OffsetCursor). ok is false, and b as it came, when a
// row holds a value only the Go path shows: the caller then reads the
// page with ScanFrom.
func (r *Rendered) AppendPage(rs *sql.Rows, b []byte) (out []byte, next string, ok bool, err error) {
	defer rs.Close()
	var (
		text sql.RawBytes
		odd  bool
		n    int
	)
	keys := make([]any, len(r.keys))
	dest := []any{&text, &odd, &n}
	for i := range keys {
		dest = append(dest, &keys[i])
	}
	if !rs.Next() {
		if err := rs.Err(); err != nil {
			return b, "", false, err
		}
		return b, "", false, fmt.Errorf("query: %s: the rendered page returned no row", r.t.Name)
	}
	if err := rs.Scan(dest...); err != nil {
		return b, "", false, err
	}
	if odd {
		return b, "", false, nil
	}
	start := len(b)
	if b, ok = appendCompactJSON(b, text); !ok {
		return b[:start], "", false, fmt.Errorf("query: %s: the page PostgreSQL rendered is not JSON", r.t.Name)
	}
	if err := rs.Close(); err != nil {
		return b[:start], "", false, err
	}
	switch {
	case r.l.Limit > 0 && n > r.l.Limit:
		// A row past the page: there is a next one, after the last
		// row sent.
		next = r.cursor(keys)
	case r.l.Limit == 0 && len(r.keys) > 0 && n > 0 && n >= r.l.End-r.l.Start:
		next = r.cursor(keys) // OffsetCursor's: the way on past MaxOffset
	}
	return b, next, true, nil
}

// cursor is the cursor after the row whose order keys are keys, as
// List.Page makes it of the row ScanFrom reads.
func (r *Rendered) cursor(keys []any) string {
	last := make(map[string]any, len(keys))
	model := reflect.New(r.t.Model).Elem()
	plain := plainKinds(r.keys)
	for i, c := range r.keys {
		if r.hidden[c.Name] {
			continue // not in ScanFrom's row: no cursor, as there
		}
		if v, ok := plainCell(plain[i], keys[i]); ok {
			last[c.Name] = v
			continue
		}
		model.SetZero()
		last[c.Name], _ = cellValue(c, model, keys[i])
	}
	return r.l.NextCursor(r.view, last)
}
