package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/gameadmin/admin/rooms"
)

// ErrInvalidValue reports a state edit whose value does not fit the room
// state: not JSON, or not decodable into the Go type it replaces (a string
// for an int field, an unknown struct field). Errors carrying it also wrap
// rooms.ErrInvalidPath, so the panel answers them as a bad request.
// It is rooms.ErrInvalidStateValue, which the panel answers 400
// invalid_value.
var ErrInvalidValue = rooms.ErrInvalidStateValue

// stateEdit is one EditState or DeleteState request: the path, and the
// JSON value to set (nil for a delete).
type stateEdit struct {
	path  []any
	value json.RawMessage
	// useNumber decodes numbers as json.Number. It is set inside a JSON
	// round trip, where the decoded tree is marshaled again, so 64-bit
	// integers keep their digits; a live map state gets float64 numbers,
	// as encoding/json gives them.
	useNumber bool
}

func (e stateEdit) delete() bool { return e.value == nil }

// editState applies e to state and returns the new state. The edit is atomic:
// on error nothing was changed. A map[string]any or []any is walked and
// changed in place; any other Go value on the way (a pointer to a struct, a
// typed map or slice) is edited through its JSON and decoded back into the
// same Go value, so a pointer's pointee and a map the game holds see the edit.
func editState(state any, e stateEdit) (any, error) {
	if len(e.path) == 0 {
		return nil, pathError(e.path, 0, "the whole state cannot be replaced or deleted")
	}
	if !e.delete() && !json.Valid(e.value) {
		return nil, valueError("the value is not JSON")
	}
	return editAt(state, e, 0)
}

// editAt applies e to v, the value found at e.path[:i].
func editAt(v any, e stateEdit, i int) (any, error) {
	if i == len(e.path) {
		return assign(v, e)
	}
	switch d := v.(type) {
	case map[string]any:
		key, ok := e.path[i].(string)
		if !ok {
			return nil, pathError(e.path, i, "%v is not an object key", e.path[i])
		}
		child, found := d[key]
		last := i == len(e.path)-1
		if !found && !(last && !e.delete()) {
			return nil, pathError(e.path, i, "no key %q", key)
		}
		if last && e.delete() {
			delete(d, key)
			return d, nil
		}
		nc, err := editAt(child, e, i+1)
		if err != nil {
			return nil, err
		}
		d[key] = nc
		return d, nil
	case []any:
		n, ok := arrayIndex(e.path[i])
		if !ok || n >= len(d) {
			return nil, pathError(e.path, i, "%v is not an index of an array of %d", e.path[i], len(d))
		}
		if i == len(e.path)-1 && e.delete() {
			return slices.Delete(d, n, n+1), nil
		}
		nc, err := editAt(d[n], e, i+1)
		if err != nil {
			return nil, err
		}
		d[n] = nc
		return d, nil
	case nil, bool, float64, string, json.Number:
		return nil, pathError(e.path, i, "cannot descend into %s", jsonKind(v))
	}
	return roundTrip(v, e, i)
}

// assign returns the value that replaces old at the end of the path. A
// generic JSON value is replaced by the decoded value; a Go value keeps its
// type: the JSON is decoded into it.
func assign(old any, e stateEdit) (any, error) {
	switch old.(type) {
	case nil, bool, float64, string, json.Number, map[string]any, []any:
		return decodeJSON(e.value, e.useNumber)
	}
	if err := checkFits(reflect.TypeOf(old), e, len(e.path)); err != nil {
		return nil, err
	}
	return fit(old, e.value)
}

// roundTrip edits a Go value the walker cannot descend: its JSON is decoded
// to a generic tree, edited, and decoded back into the value's type.
func roundTrip(v any, e stateEdit, i int) (any, error) {
	if err := checkFits(reflect.TypeOf(v), e, i); err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("live: marshal room state: %w", err)
	}
	doc, err := decodeJSON(b, true)
	if err != nil {
		return nil, fmt.Errorf("live: decode room state: %w", err)
	}
	switch doc.(type) {
	case map[string]any, []any:
	default:
		return nil, pathError(e.path, i, "cannot descend into %s", jsonKind(doc))
	}
	e.useNumber = true
	if doc, err = editAt(doc, e, i); err != nil {
		return nil, err
	}
	if b, err = json.Marshal(doc); err != nil {
		return nil, fmt.Errorf("live: marshal edited state: %w", err)
	}
	return fit(v, b)
}

// fit decodes b into a value of old's type and returns it. A pointer's
// pointee and a map are updated in place and old itself is returned, so the
// game's references see the change; other values are returned anew. Fields
// JSON does not see (unexported, `json:"-"`) of a pointed-to struct keep
// their values. On error old is unchanged.
func fit(old any, b []byte) (any, error) {
	rv := reflect.ValueOf(old)
	switch {
	case rv.Kind() == reflect.Pointer && !rv.IsNil():
		elem := rv.Elem()
		nv := reflect.New(elem.Type()).Elem()
		if elem.Kind() == reflect.Struct {
			nv.Set(elem)
			clearJSONFields(nv)
		}
		if err := decodeStrict(b, nv.Addr().Interface()); err != nil {
			return nil, err
		}
		elem.Set(nv)
		return old, nil
	case rv.Kind() == reflect.Map && !rv.IsNil():
		nv := reflect.New(rv.Type())
		if err := decodeStrict(b, nv.Interface()); err != nil {
			return nil, err
		}
		rv.Clear()
		for it := nv.Elem().MapRange(); it.Next(); {
			rv.SetMapIndex(it.Key(), it.Value())
		}
		return old, nil
	default:
		nv := reflect.New(rv.Type())
		if err := decodeStrict(b, nv.Interface()); err != nil {
			return nil, err
		}
		return nv.Elem().Interface(), nil
	}
}

// clearJSONFields zeroes the settable fields of struct v that encoding/json
// encodes, so decoding rebuilds them instead of merging into maps and slices
// shared with the original.
func clearJSONFields(v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("json") == "-" || !v.Field(i).CanSet() {
			continue
		}
		v.Field(i).SetZero()
	}
}

func decodeStrict(b []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return valueError(fitMessage(err))
	}
	return nil
}

// stateError is a state edit the room's state refuses. Its text is for
// the operator who typed the edit (the panel shows it as it is), so it
// names the field and the kinds of value, not Go's types or the error
// chain.
type stateError struct {
	msg string
	is  []error
}

func (e *stateError) Error() string   { return e.msg }
func (e *stateError) Unwrap() []error { return e.is }

// valueError is a value that does not fit: ErrInvalidValue and
// rooms.ErrInvalidPath.
func valueError(msg string) error {
	return &stateError{msg: msg, is: []error{ErrInvalidValue, rooms.ErrInvalidPath}}
}

// fitMessage says in words why a value does not decode into the state.
func fitMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "this place"
		}
		return fmt.Sprintf("%s takes %s, not %s", field, typeWords(te.Type), jsonWords(te.Value))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return "the room state has no field " + f
	}
	return "the value does not fit the room state: " + msg
}

// typeWords names what a Go type holds, for an operator.
func typeWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

// jsonWords names what encoding/json's UnmarshalTypeError.Value says was
// found ("string", "number", "number 1.5", "bool", "array", "object").
func jsonWords(v string) string {
	switch {
	case v == "string":
		return "text"
	case v == "bool":
		return "true or false"
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	case strings.HasPrefix(v, "number "):
		return strings.TrimPrefix(v, "number ")
	case v == "number":
		return "a number"
	}
	return v
}

func decodeJSON(b []byte, useNumber bool) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if useNumber {
		dec.UseNumber()
	}
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, valueError("the value is not JSON: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	return v, nil
}

// arrayIndex converts a path element to an array index: a non-negative
// integer given as any Go integer type, an integral float64 (as decoded from
// JSON) or a json.Number.
func arrayIndex(p any) (int, bool) {
	var f float64
	switch v := p.(type) {
	case int:
		return v, v >= 0
	case int32:
		return int(v), v >= 0
	case int64:
		return int(v), v >= 0 && v <= math.MaxInt32
	case uint:
		return int(v), v <= math.MaxInt32
	case uint32:
		return int(v), v <= math.MaxInt32
	case uint64:
		return int(v), v <= math.MaxInt32
	case float32:
		f = float64(v)
	case float64:
		f = v
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil && n >= 0 && n <= math.MaxInt32
	default:
		return 0, false
	}
	return int(f), f >= 0 && f <= math.MaxInt32 && f == math.Trunc(f)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "another kind of value" // never Go's type names in an answer
}

func pathError(path []any, i int, format string, args ...any) error {
	return &stateError{msg: fmt.Sprintf("state path %v, element %d: %s", path, i+1, fmt.Sprintf(format, args...)), is: []error{rooms.ErrInvalidPath}}
}
