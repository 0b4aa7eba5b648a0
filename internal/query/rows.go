package query

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"reflect"
	"time"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/schema"
)

// ScanRows runs q (built with Select, or any select whose model is t's) and
// returns its rows as maps keyed by SQL column name, leaving out the
// columns in hidden. Rows are scanned into t's model, not into maps, so the
// values have the model's types on both dialects (SQLite hands back
// timestamps as text); RowMap then converts them.
func ScanRows(ctx context.Context, q *bun.SelectQuery, t *schema.Table, hidden map[string]bool) ([]map[string]any, error) {
	slice := reflect.New(reflect.SliceOf(reflect.PointerTo(t.Model)))
	if err := q.Scan(ctx, slice.Interface()); err != nil {
		return nil, err
	}
	s := slice.Elem()
	rows := make([]map[string]any, s.Len())
	for i := range rows {
		rows[i] = RowMap(t, s.Index(i).Interface(), hidden)
	}
	return rows, nil
}

// ScanRow is ScanRows for one row: it returns sql.ErrNoRows when q selects
// nothing.
func ScanRow(ctx context.Context, q *bun.SelectQuery, t *schema.Table, hidden map[string]bool) (map[string]any, error) {
	model := t.NewModel()
	if err := q.Scan(ctx, model); err != nil {
		return nil, err
	}
	return RowMap(t, model, hidden), nil
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
//   - other driver.Valuer types (a UUID type) as their driver value
func RowMap(t *schema.Table, model any, hidden map[string]bool) map[string]any {
	v := reflect.ValueOf(model)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	row := make(map[string]any, len(t.Columns))
	for _, c := range t.Columns {
		if hidden[c.Name] {
			continue
		}
		row[c.Name] = columnValue(c, c.Field.Value(v))
	}
	return row
}

var (
	timeType   = reflect.TypeFor[time.Time]()
	rawMsgType = reflect.TypeFor[json.RawMessage]()
	valuerType = reflect.TypeFor[driver.Valuer]()
)

func columnValue(c *schema.Column, fv reflect.Value) any {
	for fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return nil
		}
		fv = fv.Elem()
	}
	switch fv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Interface:
		if fv.IsNil() {
			return nil
		}
	}
	typ := fv.Type()
	if c.DataType == schema.JSON {
		switch {
		case typ == rawMsgType:
			return json.RawMessage(fv.Bytes())
		case fv.Kind() == reflect.String:
			if s := fv.String(); json.Valid([]byte(s)) {
				return json.RawMessage(s)
			}
			return fv.String()
		}
		return fv.Interface()
	}
	if typ == timeType {
		return fv.Interface()
	}
	if typ.Implements(valuerType) && fv.Kind() != reflect.Slice {
		dv, err := fv.Interface().(driver.Valuer).Value()
		if err != nil {
			return nil
		}
		return dv
	}
	switch fv.Kind() {
	case reflect.Bool:
		return fv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := fv.Uint(); u <= 1<<63-1 {
			return int64(u)
		}
		return fv.Uint()
	case reflect.Float32, reflect.Float64:
		return fv.Float()
	case reflect.String:
		return fv.String()
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.Uint8 {
			return fv.Bytes()
		}
	case reflect.Array:
		if typ.Elem().Kind() == reflect.Uint8 {
			// A fixed-size key without a Valuer: keep its bytes.
			b := make([]byte, fv.Len())
			reflect.Copy(reflect.ValueOf(b), fv)
			return b
		}
	}
	return fv.Interface()
}
