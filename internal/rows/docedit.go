package rows

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	bunschema "github.com/uptrace/bun/schema"
)

// A DocEdit is an update's change to a JSON column that the database
// applies to the stored document, in the UPDATE statement itself, rather
// than a value that replaces the document: a merge patch (RFC 7396) of
// the keys an operator changed, or a revert's path edits. A write of
// the game to other keys of the document between the operator's read
// and the update survives it.
//
// UpdateRow also applies it in Go to the document of the locked row, to
// check the result (it still fits the model: FitsModel) and to leave a
// document it does not change unwritten.
type DocEdit interface {
	// Apply is doc (decoded with UseNumber; nil for NULL) after the edit.
	Apply(doc any) any
	// exprs are the SQL expressions of the column's new value, applied
	// one after the other (a long edit in several statements, each one
	// of a size the database parses), each over the value the last left.
	exprs(d dialect.Name, c *schema.Column, ident string) []query.Expr
}

// MergePatch is an RFC 7396 merge patch of a JSON document, decoded
// with UseNumber: its keys set (a non-object value replaces, an object
// merges into the stored object, recursively), a null removes; arrays
// are replaced whole; a stored value that is not an object is taken for
// {}.
type MergePatch map[string]any

// Merge patch bounds: its nesting (PostgreSQL builds one expression per
// level) and its objects and removed keys (a parameter or a call each).
const (
	maxPatchDepth = 32
	maxPatchNodes = 500
)

// CheckMergePatch refuses, with 400 invalid_value naming col, a merge
// patch past the bounds the database takes in one statement.
func CheckMergePatch(col string, p MergePatch) error {
	nodes := 0
	var walk func(m map[string]any, depth int) bool
	walk = func(m map[string]any, depth int) bool {
		if depth > maxPatchDepth {
			return false
		}
		for _, v := range m {
			sub, isObj := v.(map[string]any)
			if isObj || v == nil {
				nodes++
			}
			if nodes > maxPatchNodes || isObj && !walk(sub, depth+1) {
				return false
			}
		}
		return true
	}
	if !walk(p, 1) {
		return errbody.Field(http.StatusBadRequest, "invalid_value", col, "column %q: a merge patch nests at most %d objects deep and sets at most %d objects or removals; send the whole value instead", col, maxPatchDepth, maxPatchNodes)
	}
	return nil
}

// Apply is RFC 7396's MergePatch(doc, p).
func (p MergePatch) Apply(doc any) any { return mergePatch(doc, map[string]any(p)) }

func mergePatch(target any, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if ok {
		t = maps.Clone(t)
	} else {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

func (p MergePatch) exprs(d dialect.Name, c *schema.Column, ident string) []query.Expr {
	var e exprBuf
	if d == dialect.MySQL {
		// JSON_MERGE_PATCH is RFC 7396's algorithm, as SQLite's json_patch.
		e.WriteString("JSON_MERGE_PATCH(COALESCE(" + ident + ", '{}'), ?)")
		e.args = append(e.args, jsonText(map[string]any(p)))
		return []query.Expr{e.expr()}
	}
	if d != dialect.PG {
		// SQLite's json_patch is RFC 7396's algorithm; a NULL document
		// would make its result NULL.
		e.WriteString("json_patch(COALESCE(" + ident + ", '{}'), ?)")
		e.args = append(e.args, jsonText(map[string]any(p)))
		return []query.Expr{e.expr()}
	}
	target, wrap := pgDocument(c, ident)
	e.WriteString(wrap[0])
	pgMerge(&e, func(e *exprBuf) { e.WriteString(target) }, p)
	e.WriteString(wrap[1])
	return []query.Expr{e.expr()}
}

// pgMerge writes MergePatch(target, p) as a jsonb expression: target
// (written by target, of type jsonb) taken for {} unless an object, the
// keys p removes taken out, its other values laid over it, and its
// objects merged into the stored ones by the same rule, recursively.
// Keys and values are parameters.
func pgMerge(e *exprBuf, target func(*exprBuf), p map[string]any) {
	var removed, nested []string
	plain := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(p)) {
		switch v := p[k].(type) {
		case nil:
			removed = append(removed, k)
		case map[string]any:
			nested = append(nested, k)
		default:
			plain[k] = v
		}
	}
	for range nested {
		e.WriteString("jsonb_set(")
	}
	if len(plain) > 0 {
		e.WriteString("(")
	}
	if len(removed) > 0 {
		e.WriteString("(")
	}
	e.WriteString("CASE WHEN jsonb_typeof(")
	target(e)
	e.WriteString(") = 'object' THEN ")
	target(e)
	e.WriteString(" ELSE '{}'::jsonb END")
	if len(removed) > 0 {
		e.WriteString(" - ")
		e.textArray(removed)
		e.WriteString(")")
	}
	if len(plain) > 0 {
		e.WriteString(" || ?::jsonb)")
		e.args = append(e.args, jsonText(plain))
	}
	for _, k := range nested {
		e.WriteString(", ")
		e.textArray([]string{k})
		e.WriteString(", ")
		pgMerge(e, func(e *exprBuf) {
			e.WriteString("(")
			target(e)
			e.WriteString(" -> ?::text)")
			e.args = append(e.args, k)
		}, p[k].(map[string]any))
		e.WriteString(", true)")
	}
}

// PathEdit puts one place of a JSON document back: Path is object keys
// (strings) and array indexes (ints) from the top; the place is set to
// Value, or taken out when Remove.
type PathEdit struct {
	Path   []any
	Value  any // decoded with UseNumber
	Remove bool
}

// PathEdits are edits of distinct places of one document (none inside
// another), as an audit entry's paths record them.
type PathEdits []PathEdit

// Apply is doc with each edit made whose place exists: a removal of a
// place that is not there, and a set of one whose parent is not there
// (or is not an object for a key, an array long enough for an index),
// change nothing. Placed drops those, so that both databases do the same.
func (pe PathEdits) Apply(doc any) any {
	doc = deepCopy(doc)
	for _, ed := range pe {
		doc = setPath(doc, ed)
	}
	return doc
}

// Placed are the edits of pe that change a place that exists in doc (a
// removal, the place itself; a set, its parent).
func (pe PathEdits) Placed(doc any) PathEdits {
	var out PathEdits
	for _, ed := range pe {
		if len(ed.Path) == 0 {
			continue
		}
		parent, ok := At(doc, ed.Path[:len(ed.Path)-1])
		if !ok {
			continue
		}
		_, there := At(parent, ed.Path[len(ed.Path)-1:])
		_, isArray := parent.([]any)
		switch {
		case ed.Remove && !there, ed.Remove && isArray: // an index taken out would move the ones after it
		case !ed.Remove && !there && !isObject(parent):
		default:
			out = append(out, ed)
		}
	}
	return out
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }

// At is the value at path in doc, and whether there is one.
func At(doc any, path []any) (any, bool) {
	for _, step := range path {
		switch k := step.(type) {
		case string:
			m, ok := doc.(map[string]any)
			if !ok {
				return nil, false
			}
			if doc, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			a, ok := doc.([]any)
			if !ok || k < 0 || k >= len(a) {
				return nil, false
			}
			doc = a[k]
		default:
			return nil, false
		}
	}
	return doc, true
}

// setPath is doc with ed made (doc is a copy the caller owns).
func setPath(doc any, ed PathEdit) any {
	if len(ed.Path) == 0 {
		return doc
	}
	parent, ok := At(doc, ed.Path[:len(ed.Path)-1])
	if !ok {
		return doc
	}
	switch k := ed.Path[len(ed.Path)-1].(type) {
	case string:
		m, ok := parent.(map[string]any)
		switch {
		case !ok:
		case ed.Remove:
			delete(m, k)
		default:
			m[k] = ed.Value
		}
	case int:
		if a, ok := parent.([]any); ok && !ed.Remove && k >= 0 && k < len(a) {
			a[k] = ed.Value
		}
	}
	return doc
}

// deepCopy copies the objects and arrays of a decoded document.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// jsonFuncs are the functions that edit a JSON document in place on
// SQLite and on MySQL: a path's removal, a path's value set (value is
// the SQL that makes the new value's JSON text, the argument, a JSON
// value), and how a path is written.
type jsonFuncs struct {
	remove, set, value string
	path               func([]any) string
}

var (
	sqliteJSON = jsonFuncs{remove: "json_remove", set: "json_set", value: "json(?)", path: sqlitePath}
	// JSON_EXTRACT(…, '$') makes the text a JSON value, not a string.
	mysqlJSON = jsonFuncs{remove: "JSON_REMOVE", set: "JSON_SET", value: "JSON_EXTRACT(?, '$')", path: mysqlPath}
)

// editsPerStatement bounds the edits one expression nests: PostgreSQL's
// parser takes about a thousand nested calls.
const editsPerStatement = 200

func (pe PathEdits) exprs(d dialect.Name, c *schema.Column, ident string) []query.Expr {
	var out []query.Expr
	for chunk := range slices.Chunk(pe, editsPerStatement) {
		// Each edit wraps the expression of the ones before it.
		var acc exprBuf
		if d != dialect.PG {
			f := sqliteJSON
			if d == dialect.MySQL {
				f = mysqlJSON
			}
			acc.WriteString(ident)
			for _, ed := range chunk {
				inner := acc
				acc = exprBuf{}
				if ed.Remove {
					acc.WriteString(f.remove + "(")
					acc.append(&inner)
					acc.WriteString(", ?)")
					acc.args = append(acc.args, f.path(ed.Path))
					continue
				}
				acc.WriteString(f.set + "(")
				acc.append(&inner)
				acc.WriteString(", ?, " + f.value + ")")
				acc.args = append(acc.args, f.path(ed.Path), jsonText(ed.Value))
			}
			out = append(out, acc.expr())
			continue
		}
		target, wrap := pgDocument(c, ident)
		acc.WriteString(target)
		for _, ed := range chunk {
			inner := acc
			acc = exprBuf{}
			if ed.Remove {
				acc.WriteString("(")
				acc.append(&inner)
				acc.WriteString(" #- ")
				acc.textArray(pathText(ed.Path))
				acc.WriteString(")")
				continue
			}
			acc.WriteString("jsonb_set(")
			acc.append(&inner)
			acc.WriteString(", ")
			acc.textArray(pathText(ed.Path))
			acc.WriteString(", ?::jsonb, true)")
			acc.args = append(acc.args, jsonText(ed.Value))
		}
		var e exprBuf
		e.WriteString(wrap[0])
		e.append(&acc)
		e.WriteString(wrap[1])
		out = append(out, e.expr())
	}
	return out
}

// pgDocument is the jsonb form of column ident of c, and the text around
// an expression that casts it back to c's type (a json or text column
// edited as jsonb).
func pgDocument(c *schema.Column, ident string) (string, [2]string) {
	typ := strings.ToLower(cmp.Or(c.DBType, c.SQLType))
	if typ == "jsonb" {
		return ident, [2]string{"", ""}
	}
	return "CAST(" + ident + " AS jsonb)", [2]string{"CAST(", " AS " + typ + ")"}
}

// pathText is a path as PostgreSQL's text[] paths name places: keys as
// they are, indexes in decimal.
func pathText(path []any) []string {
	out := make([]string, len(path))
	for i, p := range path {
		switch k := p.(type) {
		case string:
			out[i] = k
		case int:
			out[i] = strconv.Itoa(k)
		}
	}
	return out
}

// sqlitePath is a path as SQLite's JSON functions take it: $, then ."key"
// (the key as a JSON string, which SQLite decodes) or [index] per step.
func sqlitePath(path []any) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, p := range path {
		switch k := p.(type) {
		case string:
			b.WriteByte('.')
			b.WriteString(jsonText(k))
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		}
	}
	return b.String()
}

// mysqlPath is a path as MySQL's JSON functions take it: $, then ."key"
// (the key as it is, which therefore holds no " or \: mysqlPathKey) or
// [index] per step.
func mysqlPath(path []any) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, p := range path {
		switch k := p.(type) {
		case string:
			b.WriteString(`."` + k + `"`)
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		}
	}
	return b.String()
}

// mysqlPathKey reports whether key can be a step of mysqlPath: MariaDB
// reads no escapes in a quoted key, so one with " or \ cannot be named.
func mysqlPathKey(key string) bool { return !strings.ContainsAny(key, `"\`) }

// jsonText is v's JSON, without encoding/json's HTML escapes.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null" // a decoded document always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// exprBuf builds a query.Expr: SQL text with ? for each argument, in
// order.
type exprBuf struct {
	strings.Builder
	args []any
}

// textArray writes ARRAY[?::text, ...] of keys.
func (e *exprBuf) textArray(keys []string) {
	e.WriteString("ARRAY[")
	for i, k := range keys {
		if i > 0 {
			e.WriteString(", ")
		}
		e.WriteString("?::text")
		e.args = append(e.args, k)
	}
	e.WriteString("]::text[]")
}

// append writes inner's text and arguments.
func (e *exprBuf) append(inner *exprBuf) {
	e.WriteString(inner.String())
	e.args = append(e.args, inner.args...)
}

func (e *exprBuf) expr() query.Expr { return query.Expr{SQL: e.String(), Args: e.args} }

// docWrites are vals, an update's values, with each DocEdit applied to
// before (the locked row, as stored): an edit that changes nothing is
// taken out of vals, one whose result does not fit the model is refused
// (400 invalid_value), and the others are returned as SQL expressions
// (one per statement, the last in the UPDATE that returns the row), keyed
// by column, for UpdateRow to write. A stored value that is not JSON
// (text the game wrote) cannot be edited: 400, send the whole value.
func docWrites(db bun.IDB, res *Resource, before, vals map[string]any) (map[string][]query.Expr, error) {
	var keys []string
	for k, v := range vals {
		if _, ok := v.(DocEdit); ok {
			keys = append(keys, k)
		}
	}
	if keys == nil {
		return nil, nil // a plain update, the most of them: no work here
	}
	slices.Sort(keys)
	var out map[string][]query.Expr
	for _, k := range keys {
		ed, ok := vals[k].(DocEdit)
		if !ok {
			continue
		}
		col := res.Table.ByName[k]
		if strings.ContainsRune(k, '?') {
			// Its name in the statement would read as a parameter.
			return nil, errbody.Field(http.StatusBadRequest, "invalid_value", k, "column %q cannot be patched (its name holds a ?): send the whole value", k)
		}
		doc, err := DecodeDoc(before[k])
		if err != nil {
			return nil, errbody.Field(http.StatusBadRequest, "invalid_value", k, "%s holds text that is not JSON: a patch cannot apply to it; send the whole value", res.ColumnLabel(col))
		}
		if pe, isPaths := ed.(PathEdits); isPaths {
			ed = pe.Placed(doc)
			if db.Dialect().Name() == dialect.MySQL && slices.ContainsFunc(ed.(PathEdits), func(e PathEdit) bool {
				return slices.ContainsFunc(e.Path, func(p any) bool { k, ok := p.(string); return ok && !mysqlPathKey(k) })
			}) {
				return nil, errbody.Field(http.StatusBadRequest, "invalid_value", k, "%s: a key holding \" or \\ cannot be edited by path on MySQL; send the whole value", res.ColumnLabel(col))
			}
		}
		after := ed.Apply(doc)
		raw := json.RawMessage(jsonText(after))
		if sameDoc(doc, after) {
			delete(vals, k)
			continue
		}
		if !FitsModel(col, raw) {
			return nil, errbody.Field(http.StatusBadRequest, "invalid_value", k, "%s: the value with this patch does not have the shape this field takes", res.ColumnLabel(col))
		}
		if out == nil {
			out = map[string][]query.Expr{}
		}
		out[k] = ed.exprs(db.Dialect().Name(), col, string(bunschema.NewQueryGen(db.Dialect()).AppendIdent(nil, k)))
	}
	return out, nil
}

// sameDoc reports whether two decoded documents are the same JSON.
func sameDoc(x, y any) bool { return jsonText(x) == jsonText(y) }

// DecodeDoc is a JSON column's value as a row carries it (a
// json.RawMessage, nil for NULL), decoded with UseNumber; an error for
// text that is not JSON (a string: rows carry such a cell as its text).
func DecodeDoc(v any) (any, error) {
	var raw []byte
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		raw = x
	case string:
		return nil, fmt.Errorf("rows: not JSON")
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}
