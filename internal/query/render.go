package query

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/schema"
)

// Rendering a page in the database: on PostgreSQL, a page whose columns
// all have a plain JSON form comes back from the database as each row's
// JSON text, which the panel appends to its answer without decoding a
// value (PostgREST's approach). The text is the answer ScanPage and
// AppendRowsJSON would give, byte for byte: keys sorted, integers as
// numbers, timestamps in RFC 3339 UTC, JSON columns as values, compacted
// and HTML-escaped as encoding/json writes them. Columns of any other kind
// (decimals, arrays, enums, floats, bytes, a Go type with its own
// Scanner or Valuer) leave the page to the Go path, and so does a row
// whose timestamp RFC 3339 cannot write (a year past 9999 or BC), which
// the Go path shows as stored text with a note.

// renderedCell is the SQL giving c's JSON text from "_r".c (as Select
// reads it), or "" when c has no plain JSON form in the database.
func renderedCell(c *schema.Column) string {
	if c.DBType == "" || c.Field == nil {
		return "" // the catalog was not read: the true type is unknown
	}
	typ := c.Field.IndirectType
	if c.Kind != schema.KindJSON && (reflect.PointerTo(typ).Implements(scannerIface) || typ.Implements(valuerIface) || reflect.PointerTo(typ).Implements(valuerIface)) {
		return "" // the model's own conversion decides what is shown
	}
	col := `"_r".` + quoteIdent(c.Name)
	plain := "COALESCE(to_json(" + col + ")::text, 'null')"
	db := strings.ToLower(c.DBType)
	switch c.Kind {
	case schema.KindNumber:
		if c.DataType == schema.Integer && isIntKind(typ.Kind()) && (db == "smallint" || db == "integer" || db == "bigint") {
			return plain
		}
	case schema.KindBool:
		if typ.Kind() == reflect.Bool && db == "boolean" {
			return plain
		}
	case schema.KindText, schema.KindUUID:
		if typ.Kind() == reflect.String && (db == "text" || db == "uuid" || strings.HasPrefix(db, "character varying")) {
			return plain
		}
	case schema.KindTime:
		// Select reads it as to_json's text in UTC, without an offset:
		// RFC 3339 is that and a Z; 'infinity' stays a string.
		if typ == timeType && schema.Zoned(db) {
			return "CASE WHEN " + col + " IS NULL THEN 'null' WHEN " + ordinaryTime(col) + " THEN '\"' || " + col + " || 'Z\"' ELSE to_json(" + col + ")::text END"
		}
	case schema.KindJSON:
		if c.DataType == schema.JSON && (db == "json" || db == "jsonb") {
			return "COALESCE(" + col + "::text, 'null')"
		}
	}
	return ""
}

var (
	valuerIface  = reflect.TypeFor[driver.Valuer]()
	scannerIface = reflect.TypeFor[sql.Scanner]()
)

func isIntKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// ordinaryTime is true for a timestamp text with a four-digit year of
// the common era: what RFC 3339 writes.
func ordinaryTime(col string) string {
	return "substr(" + col + ", 5, 1) = '-' AND strpos(" + col + ", ' ') = 0"
}

// Rendered is a page query whose rows come back as JSON text (Render).
type Rendered struct {
	q     *bun.SelectQuery
	t     *schema.Table
	keys  []*schema.Column // the order keys, read beside the text for the cursor
	odd   bool             // a column reads "odd" beside the text
	limit int
}

// Render wraps page, a page of t built with Apply (and WithLabels with
// labels), so each row comes back as its JSON text; nil when the dialect
// or a visible column rules it out (see renderedCell).
func (l *List) Render(db bun.IDB, page *bun.SelectQuery, t *schema.Table, hidden map[string]bool, labels []Label) *Rendered {
	if db.Dialect().Name() != dialect.PG {
		return nil
	}
	type entry struct{ key, expr string }
	var entries []entry
	var odd []string
	for _, c := range t.Columns {
		if hidden[c.Name] {
			continue
		}
		expr := renderedCell(c)
		if expr == "" {
			return nil
		}
		entries = append(entries, entry{c.Name, expr})
		if c.Kind == schema.KindTime {
			col := `"_r".` + quoteIdent(c.Name)
			odd = append(odd, "("+col+" IS NOT NULL AND NOT ("+ordinaryTime(col)+") AND lower("+col+") NOT IN ('infinity', '-infinity'))")
		}
	}
	if len(labels) > 0 {
		// {"fk": "label", …} of the labels that are not NULL (LabelExpr
		// gives NULL for an empty one), the key left out when none is.
		fks := make([]string, len(labels))
		for i, lb := range labels {
			fks[i] = lb.FK
		}
		slices.Sort(fks)
		var obj, present []string
		for _, fk := range fks {
			i := slices.IndexFunc(labels, func(lb Label) bool { return lb.FK == fk })
			alias := `"_r"."_l` + fmt.Sprint(i) + `"`
			obj = append(obj, stringLiteral(fk)+", "+alias)
			present = append(present, alias+" IS NOT NULL")
		}
		entries = append(entries, entry{"_labels", "CASE WHEN " + strings.Join(present, " OR ") + " THEN json_strip_nulls(json_build_object(" + strings.Join(obj, ", ") + "))::text END"})
	}
	// concat_ws takes at most 100 arguments, and leaves out the NULL
	// ones (the labels of a row without any).
	if len(entries) > 99 {
		return nil
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	var b strings.Builder
	b.WriteString("'{' || concat_ws(','")
	for _, e := range entries {
		b.WriteString(", ")
		b.WriteString(stringLiteral(`"` + e.key + `":`))
		b.WriteString(" || ")
		b.WriteString(e.expr)
	}
	b.WriteString(") || '}'")
	q := db.NewSelect().TableExpr("(?) AS \"_r\"", page).ColumnExpr(b.String())
	if len(odd) > 0 {
		q = q.ColumnExpr(strings.Join(odd, " OR "))
	}
	r := &Rendered{t: t, odd: len(odd) > 0, limit: l.Limit}
	for _, k := range l.orderKeys(t) {
		c := t.ByName[k.Column]
		if c == nil {
			return nil
		}
		r.keys = append(r.keys, c)
		q = q.ColumnExpr(`"_r".?`, bun.Ident(c.Name))
	}
	r.q = q
	return r
}

// quoteIdent quotes a column name from the schema as an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// stringLiteral quotes s as an SQL string; s is a column name from the
// schema, never the request.
func stringLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Page runs the rendered query and appends its rows to b as a JSON array,
// as AppendRowsJSON would write ScanPage's rows after List.Page. next is
// the next page's cursor (keyset pages). ok is false when a row holds a
// value only the Go path shows (see Render): b is then as it came, and
// the caller reads the page with ScanPage.
func (r *Rendered) Page(ctx context.Context, l *List, b []byte) (out []byte, n int, next string, ok bool, err error) {
	rs, err := r.q.Rows(ctx)
	if err != nil {
		return b, 0, "", false, err
	}
	defer rs.Close()
	var (
		text sql.RawBytes
		odd  bool
	)
	dest := []any{&text}
	if r.odd {
		dest = append(dest, &odd)
	}
	keys := make([]any, len(r.keys))
	for i := range keys {
		dest = append(dest, &keys[i])
	}
	start := len(b)
	b = append(b, '[')
	var last map[string]any
	for rs.Next() {
		if err := rs.Scan(dest...); err != nil {
			return b[:start], 0, "", false, err
		}
		if odd {
			return b[:start], 0, "", false, nil
		}
		if r.limit > 0 && n == r.limit {
			// The row past the page: there is a next page, which starts
			// after the last row written.
			next = l.NextCursor(r.t, last)
			break
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = appendCompactJSON(b, text)
		n++
		if r.limit > 0 && len(r.keys) > 0 {
			if last == nil {
				last = make(map[string]any, len(r.keys))
			}
			model := reflect.New(r.t.Model).Elem()
			for i, c := range r.keys {
				v, _ := cellValue(c, model, keys[i])
				last[c.Name] = v
			}
		}
	}
	if err := rs.Err(); err != nil {
		return b[:start], 0, "", false, err
	}
	return append(b, ']'), n, next, true, nil
}

// appendCompactJSON appends the JSON text src as encoding/json writes
// it: no whitespace between tokens (jsonb's text and json_build_object's
// have some), and <, >, &, U+2028 and U+2029 escaped in strings.
func appendCompactJSON(b, src []byte) []byte {
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !inString {
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			case '"':
				inString = true
			}
			b = append(b, c)
			continue
		}
		switch c {
		case '\\':
			b = append(b, c)
			if i+1 < len(src) {
				i++
				b = append(b, src[i])
			}
			continue
		case '"':
			inString = false
		case '<':
			b = append(b, `\u003c`...)
			continue
		case '>':
			b = append(b, `\u003e`...)
			continue
		case '&':
			b = append(b, `\u0026`...)
			continue
		case 0xE2:
			if i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9) {
				b = append(b, `\u202`...)
				b = append(b, "89"[src[i+2]-0xA8])
				i += 2
				continue
			}
		}
		b = append(b, c)
	}
	return b
}
