package query

import (
	"encoding/json"
	"strings"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/schema"
)

// What a column's kind allows (OwnKind, Sortable, Filterable), and the
// SQL of the filters that fit a kind: arrays (_contains, _overlaps,
// _empty), inet (_within), JSON keys (_key), with what each dialect can
// run. querystring.go reads their values.

// KeyValue is the value of a _key filter.
type KeyValue struct {
	Key   string
	Value any // string, json.Number, bool or nil
}

// CheckDialect refuses the filters the database cannot run: _within
// needs PostgreSQL's network operators.
func (l *List) CheckDialect(pg bool) error {
	for _, f := range l.Filters {
		if f.Op == Within && !pg {
			e := errorf(CodeInvalidQuery, "%s_within needs PostgreSQL", f.Column.Name)
			e.Column = f.Column.Name
			return e
		}
	}
	return nil
}

// OwnKind reports whether c's values are carried as the database's text
// (an array as a JSON array, a unix time as a time), whatever the Go
// field: they are shown, filtered and written exactly, never through a
// Go type that would round them. Each direction (querystring.go,
// body.go, cells.go) reads them in its own switch.
func OwnKind(c *schema.Column) bool { return ownKind(c) }

// ownKind is OwnKind. A numeric column read into a Go float stays a
// number: the developer chose a float.
func ownKind(c *schema.Column) bool {
	if c.Unix != "" {
		return true
	}
	switch c.Kind {
	case schema.KindArray, schema.KindInet, schema.KindEnum, schema.KindDate, schema.KindTimestampLocal:
		return true
	case schema.KindDecimal:
		return c.DataType != schema.Number && c.DataType != schema.Integer
	}
	return false
}

// Sortable reports whether _sort may name c: not json, bytes or arrays,
// whose order means nothing to a reader.
func Sortable(c *schema.Column) bool {
	if c.Kind == schema.KindArray {
		return false
	}
	return ownKind(c) || (c.DataType != schema.JSON && c.DataType != schema.Bytes)
}

// Filterable reports whether c takes filters other than _null.
func Filterable(c *schema.Column) bool { return ownKind(c) || c.DataType != schema.Bytes }

// arrayFilter adds an array filter: PostgreSQL's array operators on a
// value cast to the column's type (from the catalog, never the request);
// on SQLite, where Bun stores an array as JSON, json_each.
func arrayFilter(q *bun.SelectQuery, pg bool, f Filter) *bun.SelectQuery {
	col := bun.Ident(f.Column.Name)
	if f.Op == Empty {
		// On SQLite a text that is not a JSON array matches nothing.
		n, args := "(CASE WHEN json_valid(?TableAlias.?) THEN json_array_length(?TableAlias.?) END)", []any{col, col}
		if pg {
			n, args = "cardinality(?TableAlias.?)", []any{col}
		}
		if f.Value.(bool) {
			return q.Where("("+n+" = 0)", args...)
		}
		return q.Where("("+n+" > 0)", args...)
	}
	arr := f.Value.(Array)
	if pg {
		typ := f.Column.DBType
		if typ == "" {
			typ = "text[]"
		}
		op := "@>"
		if f.Op == Overlaps {
			op = "&&"
		}
		return q.Where("?TableAlias.? "+op+" CAST(? AS ?)", col, arr, bun.Safe(typ))
	}
	// json_each hands back numbers as numbers: compare them as such.
	vals := make([]any, len(arr))
	for i, e := range arr {
		vals[i] = e
		if n, ok := e.(json.Number); ok {
			if iv, err := n.Int64(); err == nil {
				vals[i] = iv
			} else if fv, err := n.Float64(); err == nil {
				vals[i] = fv
			}
		}
	}
	// json_each fails the statement on a text that is not JSON: it runs
	// only where json_valid holds (a CASE keeps the order).
	if f.Op == Overlaps {
		return q.Where("(CASE WHEN json_valid(?TableAlias.?) THEN EXISTS (SELECT 1 FROM json_each(?TableAlias.?) WHERE value IN (?)) END)", col, col, bun.List(vals))
	}
	return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		for _, e := range vals {
			q = q.Where("(CASE WHEN json_valid(?TableAlias.?) THEN EXISTS (SELECT 1 FROM json_each(?TableAlias.?) WHERE value = ?) END)", col, col, e)
		}
		return q
	})
}

// keyFilter compares a JSON column's top-level key with a value as JSON:
// jsonb equality on PostgreSQL (json is cast), json_extract on SQLite.
// A row whose text is not JSON (a TEXT column) matches nothing, rather
// than failing the statement: SQLite's json functions run only where
// json_valid holds; on PostgreSQL a text column is cast only when it
// reads as an object ({...}), the only JSON a key is found in (a text
// that looks like one and is not is the database's refusal, a 400).
func keyFilter(q *bun.SelectQuery, pg bool, c *schema.Column, kv KeyValue) *bun.SelectQuery {
	col := bun.Ident(c.Name)
	if pg {
		j, _ := json.Marshal(kv.Value)
		if typ := strings.ToLower(c.DBType); typ == "jsonb" || typ == "json" {
			return q.Where("(CAST(?TableAlias.? AS jsonb) -> ?) = CAST(? AS jsonb)", col, kv.Key, string(j))
		}
		return q.Where(`(CASE WHEN ?TableAlias.? ~ '^\s*\{.*\}\s*$' THEN CAST(?TableAlias.? AS jsonb) -> ? END) = CAST(? AS jsonb)`, col, col, kv.Key, string(j))
	}
	path := `$."` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(kv.Key) + `"`
	typ := "(CASE WHEN json_valid(?TableAlias.?) THEN json_type(?TableAlias.?, ?) END)"
	val := "(CASE WHEN json_valid(?TableAlias.?) THEN json_extract(?TableAlias.?, ?) END)"
	switch v := kv.Value.(type) {
	case nil:
		return q.Where(typ+" = 'null'", col, col, path)
	case bool:
		t := "false"
		if v {
			t = "true"
		}
		return q.Where(typ+" = ?", col, col, path, t)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return q.Where(val+" = ?", col, col, path, n)
		}
		f, _ := v.Float64()
		return q.Where(val+" = ?", col, col, path, f)
	}
	return q.Where(typ+" = 'text' AND "+val+" = ?", col, col, path, col, col, path, kv.Value)
}
