package query

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/schema"
)

// ScanRows runs q (built with Select, or any select whose model is t's) and
// returns its rows as maps keyed by SQL column name, leaving out the
// columns in hidden. Values are scanned into t's model, not into maps, so
// they have the model's types on both dialects (SQLite hands back
// timestamps as text); RowMap then converts them. JSON columns are the
// exception: their stored text is passed through as a json.RawMessage
// (a string when it is not valid JSON) instead of being decoded into the
// model and encoded again, which was most of a list page's cost.
func ScanRows(ctx context.Context, q *bun.SelectQuery, t *schema.Table, hidden map[string]bool) ([]map[string]any, error) {
	return ScanPage(ctx, q, t, hidden, nil)
}

// ScanPage is ScanRows for a query WithLabels built with labels: the label
// columns after t's go to row["_labels"][FK] (a map[string]string), for
// the rows whose target has a non-empty label.
func ScanPage(ctx context.Context, q *bun.SelectQuery, t *schema.Table, hidden map[string]bool, labels []Label) ([]map[string]any, error) {
	rs, err := q.Rows(ctx)
	if err != nil {
		return nil, err
	}
	return ScanFrom(rs, t, hidden, labels)
}

// ScanFrom is ScanPage for rows already queried (a prepared statement's);
// it closes rs.
func ScanFrom(rs *sql.Rows, t *schema.Table, hidden map[string]bool, labels []Label) ([]map[string]any, error) {
	defer rs.Close()
	names, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	if len(names) < len(labels) {
		return nil, fmt.Errorf("query: %d columns for %d labels", len(names), len(labels))
	}
	nt := len(names) - len(labels) // t's columns, then the labels
	cols := make([]*schema.Column, nt)
	for i, n := range names[:nt] {
		if cols[i] = t.ByName[n]; cols[i] == nil {
			return nil, fmt.Errorf("query: %s has no column %q", t.Name, n)
		}
	}
	vals := make([]any, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var rows []map[string]any
	// One model for every row, zeroed before each: RowMap copies values
	// out of it, and a zeroed field keeps nothing of the previous row.
	model := reflect.New(t.Model).Elem()
	plain := plainKinds(cols)
	for rs.Next() {
		clear(vals)
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := scanCells(model, cols, plain, vals[:nt], hidden)
		for i, lb := range labels {
			if s := labelText(vals[nt+i]); s != "" {
				m, _ := row["_labels"].(map[string]string)
				if m == nil {
					m = make(map[string]string, len(labels))
					row["_labels"] = m
				}
				m[lb.FK] = s
			}
		}
		rows = append(rows, row)
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []map[string]any{}
	}
	return rows, nil
}

// labelText is a label column's value as text ("" for NULL).
func labelText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// ScanRow is ScanRows for one row: it returns sql.ErrNoRows when q selects
// nothing.
func ScanRow(ctx context.Context, q *bun.SelectQuery, t *schema.Table, hidden map[string]bool) (map[string]any, error) {
	rows, err := ScanRows(ctx, q, t, hidden)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, sql.ErrNoRows
	}
	return rows[0], nil
}

// RowMap converts a model (a struct or a pointer to one of t.Model) to a
// map keyed by SQL column name, leaving out hidden columns. Values come out
// as JSON-ready Go values:
//
//   - integer columns as int64 (uint64 above MaxInt64), numbers as float64,
//     booleans as bool, strings as string (named types are unwrapped)
//   - datetime columns as time.Time
//   - json columns as the model's Go value (a map, slice or struct), or a
//     json.RawMessage for RawMessage and string fields holding JSON
//   - bytes as []byte (encoding/json writes base64)
//   - NULL (a nil pointer, map or slice, an invalid sql.Null*) as nil
//   - other driver.Valuer types (a UUID type) as their driver value; a
//     Valuer's error is returned, naming the column
func RowMap(t *schema.Table, model any, hidden map[string]bool) (map[string]any, error) {
	v := reflect.ValueOf(model)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	row := make(map[string]any, len(t.Columns))
	for _, c := range t.Columns {
		if hidden[c.Name] {
			continue
		}
		cv, err := columnValue(c, c.Field.Value(v))
		if err != nil {
			return nil, err
		}
		row[c.Name] = cv
	}
	return row, nil
}

var (
	timeType   = reflect.TypeFor[time.Time]()
	rawMsgType = reflect.TypeFor[json.RawMessage]()
	valuerType = reflect.TypeFor[driver.Valuer]()
)

func columnValue(c *schema.Column, fv reflect.Value) (any, error) {
	for fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return nil, nil
		}
		fv = fv.Elem()
	}
	switch fv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Interface:
		if fv.IsNil() {
			return nil, nil
		}
	}
	typ := fv.Type()
	if c.DataType == schema.JSON {
		switch {
		case typ == rawMsgType:
			return json.RawMessage(fv.Bytes()), nil
		case fv.Kind() == reflect.String:
			if s := fv.String(); json.Valid([]byte(s)) {
				return json.RawMessage(s), nil
			}
			return fv.String(), nil
		}
		return fv.Interface(), nil
	}
	if typ == timeType {
		return fv.Interface(), nil
	}
	if typ.Implements(valuerType) && fv.Kind() != reflect.Slice {
		dv, err := fv.Interface().(driver.Valuer).Value()
		if err != nil {
			return nil, fmt.Errorf("column %q: its Go value (%s) did not give a database value: %w", c.Name, fv.Type(), err)
		}
		return dv, nil
	}
	switch fv.Kind() {
	case reflect.Bool:
		return fv.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := fv.Uint(); u <= 1<<63-1 {
			return int64(u), nil
		}
		return fv.Uint(), nil
	case reflect.Float32, reflect.Float64:
		return fv.Float(), nil
	case reflect.String:
		return fv.String(), nil
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.Uint8 {
			return fv.Bytes(), nil
		}
	case reflect.Array:
		if typ.Elem().Kind() == reflect.Uint8 {
			// A fixed-size key without a Valuer: keep its bytes.
			b := make([]byte, fv.Len())
			reflect.Copy(reflect.ValueOf(b), fv)
			return b, nil
		}
	}
	return fv.Interface(), nil
}

// Returned receives the row of a write RETURNING Returning's columns, as
// Bun scans it: pass Dest to the query's Exec, then read Row.
type Returned struct {
	t     *schema.Table
	cells []returnedCell
	Dest  []any
}

// returnedCell keeps one returned value, copying the driver's bytes.
type returnedCell struct {
	v   any
	set bool
}

func (c *returnedCell) Scan(src any) error {
	if b, ok := src.([]byte); ok {
		src = bytes.Clone(b)
	}
	c.v, c.set = src, true
	return nil
}

// NewReturned is a Returned for a write of t.
func NewReturned(t *schema.Table) *Returned {
	r := &Returned{t: t, cells: make([]returnedCell, len(t.Columns)), Dest: make([]any, len(t.Columns))}
	for i := range r.cells {
		r.Dest[i] = &r.cells[i]
	}
	return r
}

// Row is the returned row as ScanRows reads one, without the hidden
// columns; sql.ErrNoRows when the write returned none.
func (r *Returned) Row(hidden map[string]bool) (map[string]any, error) {
	if len(r.cells) == 0 || !r.cells[0].set {
		return nil, sql.ErrNoRows
	}
	vals := make([]any, len(r.cells))
	for i, c := range r.cells {
		vals[i] = c.v
	}
	return scanCells(reflect.New(r.t.Model).Elem(), r.t.Columns, plainKinds(r.t.Columns), vals, hidden), nil
}
