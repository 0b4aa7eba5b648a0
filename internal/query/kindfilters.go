package query

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/schema"
)

// What a column's kind allows (OwnKind, Sortable, Filterable), and the
// SQL of the filters that fit a kind: arrays (_contains, _overlaps,
// _empty), inet (_within), JSON keys (_key), with what each dialect can
// run. querystring.go reads their values.

// KeyValue is the value of a _key filter.
type KeyValue struct {
	Path  []KeyStep // at least one step; one is a top-level key
	Value any       // string, json.Number, bool or nil
}

// KeyStep is one segment of a _key path.
type KeyStep struct {
	Name string
	// Index is set when Name was written as a bare integer (items.0): it
	// names an array's element as well as an object's key.
	Index bool
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
// on SQLite, where Bun stores an array as JSON, json_each; on MySQL,
// JSON_TABLE (mysqlArrayFilter).
func arrayFilter(q *bun.SelectQuery, pg bool, f Filter) *bun.SelectQuery {
	col := bun.Ident(f.Column.Name)
	if q.Dialect().Name() == dialect.MySQL {
		return mysqlArrayFilter(q, col, f)
	}
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

// keyFilter compares the value at a JSON column's key path with a value
// as JSON: jsonb on PostgreSQL (json is cast), the JSON functions on
// SQLite. The path's keys are bound values, never SQL. A step that is
// an index (items.0) takes an array's element or an object's key: #> on
// PostgreSQL; on SQLite, whose paths tell the two apart, json_each's key
// is either. A row whose text is not JSON (a TEXT column) matches
// nothing, rather than failing the statement: SQLite's json functions
// run only where json_valid holds; on PostgreSQL a text column is cast
// only when it reads as an object ({...}), the only JSON a key is found
// in (a text that looks like one and is not is the database's refusal, a
// 400).
func keyFilter(q *bun.SelectQuery, pg bool, c *schema.Column, kv KeyValue) *bun.SelectQuery {
	col := bun.Ident(c.Name)
	if pg {
		j, _ := json.Marshal(kv.Value)
		path, args := "", make([]any, 0, len(kv.Path))
		for _, s := range kv.Path {
			if s.Index {
				path += " #> ARRAY[?]"
			} else {
				path += " -> ?"
			}
			args = append(args, s.Name)
		}
		typ := c.DBType
		if typ == "" { // a table read without the catalog: Bun's type
			typ = c.SQLType
		}
		if typ := strings.ToLower(typ); typ == "jsonb" || typ == "json" {
			return q.Where("(CAST(?TableAlias.? AS jsonb)"+path+") = CAST(? AS jsonb)", append(append([]any{col}, args...), string(j))...)
		}
		return q.Where(`(CASE WHEN ?TableAlias.? ~ '^\s*\{.*\}\s*$' THEN CAST(?TableAlias.? AS jsonb)`+path+` END) = CAST(? AS jsonb)`, append(append([]any{col, col}, args...), string(j))...)
	}
	if q.Dialect().Name() == dialect.MySQL {
		return mysqlKeyFilter(q, col, kv)
	}
	for _, s := range kv.Path {
		if s.Index {
			return keyEach(q, col, kv)
		}
	}
	path := "$"
	for _, s := range kv.Path {
		path += `."` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s.Name) + `"`
	}
	typ := "(CASE WHEN json_valid(?TableAlias.?) THEN json_type(?TableAlias.?, ?) END)"
	val := "(CASE WHEN json_valid(?TableAlias.?) THEN json_extract(?TableAlias.?, ?) END)"
	switch v := kv.Value.(type) {
	case nil:
		return q.Where(typ+" = 'null'", col, col, path)
	case bool:
		return q.Where(typ+" = ?", col, col, path, strconv.FormatBool(v))
	case json.Number:
		return q.Where(val+" = ?", col, col, path, sqliteNumber(v))
	}
	return q.Where(typ+" = 'text' AND "+val+" = ?", col, col, path, col, col, path, kv.Value)
}

// keyEach is keyFilter on SQLite for a path with an index step: a
// json_each per step, joined on the one before, whose key is an
// object's label (text) or an array's index (an integer), and whose
// type and atom are the value's at the last step.
func keyEach(q *bun.SelectQuery, col bun.Ident, kv KeyValue) *bun.SelectQuery {
	var from, where strings.Builder
	var fromArgs, whereArgs []any
	for i, s := range kv.Path {
		alias := bun.Ident("_key" + strconv.Itoa(i))
		if i == 0 {
			from.WriteString("json_each(CASE WHEN json_valid(?TableAlias.?) THEN ?TableAlias.? END) AS ?")
			fromArgs = append(fromArgs, col, col, alias)
		} else {
			prev := bun.Ident("_key" + strconv.Itoa(i-1))
			from.WriteString(", json_each(CASE WHEN ?.type IN ('object', 'array') THEN ?.value END) AS ?")
			fromArgs = append(fromArgs, prev, prev, alias)
			where.WriteString(" AND ")
		}
		if s.Index {
			n, _ := strconv.ParseInt(s.Name, 10, 32)
			where.WriteString("?.key IN (?, ?)")
			whereArgs = append(whereArgs, alias, n, s.Name)
		} else {
			where.WriteString("?.key = ?")
			whereArgs = append(whereArgs, alias, s.Name)
		}
	}
	last := bun.Ident("_key" + strconv.Itoa(len(kv.Path)-1))
	switch v := kv.Value.(type) {
	case nil:
		where.WriteString(" AND ?.type = 'null'")
		whereArgs = append(whereArgs, last)
	case bool:
		where.WriteString(" AND ?.type = ?")
		whereArgs = append(whereArgs, last, strconv.FormatBool(v))
	case json.Number:
		where.WriteString(" AND ?.type IN ('integer', 'real') AND ?.atom = ?")
		whereArgs = append(whereArgs, last, last, sqliteNumber(v))
	default:
		where.WriteString(" AND ?.type = 'text' AND ?.atom = ?")
		whereArgs = append(whereArgs, last, last, v)
	}
	return q.Where("EXISTS (SELECT 1 FROM "+from.String()+" WHERE "+where.String()+")", append(fromArgs, whereArgs...)...)
}

// sqliteNumber is n as SQLite compares it with a JSON number: an integer
// when it is one (exact past 2^53), else a float.
func sqliteNumber(n json.Number) any {
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, _ := n.Float64()
	return f
}

// mysqlIndexSteps is how many of a path's index steps mysqlKeyFilter
// reads both as an array's element and as an object's key (each doubles
// the paths it tries); the later ones name an array's element only.
const mysqlIndexSteps = 4

// mysqlKeyFilter is keyFilter on MySQL and MariaDB: JSON_TYPE and
// JSON_EXTRACT at a path written as bound text, where JSON_VALID holds.
// An index step is tried as [n] and as ."n" (one path per choice, ORed).
// A string compares byte for byte, as JSON's equality does, whatever the
// collation.
func mysqlKeyFilter(q *bun.SelectQuery, col bun.Ident, kv KeyValue) *bun.SelectQuery {
	paths := []string{"$"}
	seen := 0
	for _, s := range kv.Path {
		key := `."` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s.Name) + `"`
		if !s.Index {
			for i := range paths {
				paths[i] += key
			}
			continue
		}
		seen++
		n := len(paths)
		for i := range n {
			if seen <= mysqlIndexSteps {
				paths = append(paths, paths[i]+key)
			}
			paths[i] += "[" + s.Name + "]"
		}
	}
	typ := "(CASE WHEN JSON_VALID(?TableAlias.?) THEN JSON_TYPE(JSON_EXTRACT(?TableAlias.?, ?)) END)"
	val := "(CASE WHEN JSON_VALID(?TableAlias.?) THEN JSON_UNQUOTE(JSON_EXTRACT(?TableAlias.?, ?)) END)"
	return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		for _, path := range paths {
			cond, args := mysqlJSONIs(typ, val, []any{col, col, path}, kv.Value)
			q = q.WhereOr(cond, args...)
		}
		return q
	})
}

// mysqlJSONIs is the condition, with its arguments, that a JSON value
// on MySQL is v (a string, json.Number, bool or nil) as JSON's equality
// has it: typ is SQL of the value's JSON_TYPE, val of its unquoted text,
// each taking args. A number compares exactly (MySQL compares the text
// with an integer as a decimal), a string byte for byte whatever the
// collation.
func mysqlJSONIs(typ, val string, args []any, v any) (string, []any) {
	both := append(append([]any{}, args...), args...)
	switch v := v.(type) {
	case nil:
		return typ + " = 'NULL'", args
	case bool:
		return typ + " = 'BOOLEAN' AND " + val + " = ?", append(both, strconv.FormatBool(v))
	case json.Number:
		return typ + " IN ('INTEGER', 'UNSIGNED INTEGER', 'DOUBLE', 'DECIMAL') AND " + val + " = ?", append(both, sqliteNumber(v))
	}
	return typ + " = 'STRING' AND CAST(" + val + " AS BINARY) = CAST(? AS BINARY)", append(both, v)
}

// mysqlArrayFilter is arrayFilter on MySQL and MariaDB, where an array
// is stored as a JSON array in a JSON or text column: each element, from
// JSON_TABLE, compared as mysqlJSONIs does (JSON_CONTAINS and
// JSON_OVERLAPS compare numbers as doubles, so 2^53+1 would match 2^53,
// and look inside nested arrays). A text that is not a JSON array (an
// object, malformed text, NULL) matches none of _contains, _overlaps or
// _empty.
func mysqlArrayFilter(q *bun.SelectQuery, col bun.Ident, f Filter) *bun.SelectQuery {
	if f.Op == Empty {
		n := "(CASE WHEN JSON_VALID(?TableAlias.?) AND JSON_TYPE(?TableAlias.?) = 'ARRAY' THEN JSON_LENGTH(?TableAlias.?) END)"
		if f.Value.(bool) {
			return q.Where(n+" = 0", col, col, col)
		}
		return q.Where(n+" > 0", col, col, col)
	}
	const elems = "EXISTS (SELECT 1 FROM JSON_TABLE(CASE WHEN JSON_VALID(?TableAlias.?) THEN ?TableAlias.? END, '$[*]' COLUMNS (j JSON PATH '$')) AS _elem WHERE "
	is := func(e any) (string, []any) {
		if r, ok := e.(json.RawMessage); ok {
			// An element of a JSON array: parseArrayFilter's JSON string.
			var s string
			_ = json.Unmarshal(r, &s)
			e = s
		}
		return mysqlJSONIs("JSON_TYPE(_elem.j)", "JSON_UNQUOTE(_elem.j)", nil, e)
	}
	arr := f.Value.(Array)
	if f.Op == Overlaps {
		conds, args := make([]string, len(arr)), []any{col, col}
		for i, e := range arr {
			var a []any
			conds[i], a = is(e)
			args = append(args, a...)
		}
		return q.Where(elems+"("+strings.Join(conds, ") OR (")+"))", args...)
	}
	return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		for _, e := range arr {
			cond, args := is(e)
			q = q.Where(elems+cond+")", append([]any{col, col}, args...)...)
		}
		return q
	})
}
