package audit

// An update's entry: what changed, column by column, and a JSON
// document's leaf changes as paths (paths.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"

	"github.com/gameadmin/admin/internal/query"
	bunschema "github.com/uptrace/bun/schema"
)

// UpdateRecord describes one update for RecordUpdate. Before and After are
// maps of column to value or Bun models of the same table.
type UpdateRecord struct {
	OperatorID string
	Resource   string
	TargetID   string
	Before     any
	After      any
}

// RecordUpdate appends an "update" entry whose payload holds only the
// columns that changed: {changes: {<column>: {before, after}}}. Nothing is
// written when nothing changed.
func (au *Log) RecordUpdate(ctx context.Context, u UpdateRecord) error {
	before, err := au.columnValues(u.Before)
	if err != nil {
		return err
	}
	after, err := au.columnValues(u.After)
	if err != nil {
		return err
	}
	changes := Changes(before, after)
	if len(changes) == 0 {
		return nil
	}
	return au.Record(ctx, Entry{OperatorID: u.OperatorID, Action: "update", Resource: u.Resource,
		TargetID: u.TargetID, Payload: map[string]any{"changes": changes}})
}

// Changes returns {column: {before, after}} for every column whose value
// differs, comparing JSON encodings so that times and numbers of different Go
// types compare by value: the "changes" of an update's entry. A JSON
// column (a json.RawMessage, as rows carry one) that is an object, or an
// array of one length, before and after records its leaf changes
// instead, {"paths": [...]} (paths.go). A row's notes on its unreadable
// cells (query.InvalidKey) are not a column.
func Changes(before, after map[string]any) map[string]any {
	changes := map[string]any{}
	before, after = withoutNotes(before), withoutNotes(after)
	for col, av := range after {
		bv, had := before[col]
		if had && Unchanged(bv, av) {
			continue
		}
		if had {
			if ch, same, ok := docChange(bv, av); same {
				continue
			} else if ok {
				changes[col] = ch
				continue
			}
		}
		changes[col] = map[string]any{"before": bv, "after": av}
	}
	for col, bv := range before {
		if _, ok := after[col]; !ok {
			changes[col] = map[string]any{"before": bv, "after": nil}
		}
	}
	return changes
}

// withoutNotes is row without its query.InvalidKey.
func withoutNotes(row map[string]any) map[string]any {
	if _, ok := row[query.InvalidKey]; !ok {
		return row
	}
	out := maps.Clone(row)
	delete(out, query.InvalidKey)
	return out
}

// Unchanged reports whether x and y have the same JSON encoding: the
// values Changes leaves out. A value that does not encode is never
// unchanged.
func Unchanged(x, y any) bool {
	bx, errx := json.Marshal(x)
	by, erry := json.Marshal(y)
	return errx == nil && erry == nil && bytes.Equal(bx, by)
}

// columnValues turns a map or a Bun model into column name -> value. Model
// fields tagged json:"-" are left out.
func (au *Log) columnValues(v any) (map[string]any, error) {
	switch m := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return m, nil
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return map[string]any{}, nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("admin: audit: want a map or a Bun model, got %T", v)
	}
	t := au.db.Table(rv.Type())
	out := make(map[string]any, len(t.Fields))
	for _, f := range t.Fields {
		if f.StructField.Tag.Get("json") == "-" {
			continue // secrets such as password_hash stay out of the log
		}
		v := f.Value(rv).Interface()
		if isJSONField(f) {
			// As the panel reads a JSON column: its changes are then
			// recorded as paths (Changes).
			if raw, err := json.Marshal(v); err == nil && string(raw) != "null" {
				v = json.RawMessage(raw)
			}
		}
		out[f.Name] = v
	}
	return out, nil
}

// isJSONField reports whether Bun stores f as JSON.
func isJSONField(f *bunschema.Field) bool {
	for _, t := range []string{f.UserSQLType, f.DiscoveredSQLType} {
		if strings.EqualFold(t, "json") || strings.EqualFold(t, "jsonb") {
			return true
		}
	}
	return false
}
