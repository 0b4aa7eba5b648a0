package live

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/gameadmin/admin/rooms"
)

// An operator's edit of a Go state must leave a value the game's code can
// run on. encoding/json alone would let through two edits that decode
// without error yet break the game at its next callback: a null for a
// struct, map or scalar (silently ignored, or a nil map the game writes to),
// and the deletion of a struct field (its zero value: a nil map again). Both
// are refused here, before the edit lands.

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// checkFits refuses e on a Go value of type t at e.path[i:]: a null where
// the Go type holds no nil, or the deletion of a struct field. Where the
// type is the game's own (a json.Unmarshaler) or generic (an interface),
// the check stops: the decode decides.
func checkFits(t reflect.Type, e stateEdit, i int) error {
	for ; i < len(e.path); i++ {
		t = deref(t)
		if custom(t) {
			return nil
		}
		last := i == len(e.path)-1
		switch t.Kind() {
		case reflect.Struct:
			key, _ := e.path[i].(string)
			f, ok := jsonField(t, key)
			if !ok {
				return nil // unknown field: the strict decode refuses it
			}
			if last && e.delete() {
				return fmt.Errorf("live: state path %v: field %q of %s cannot be deleted, only set: %w: %w",
					e.path, key, t, rooms.ErrInvalidStateValue, rooms.ErrInvalidPath)
			}
			t = f
		case reflect.Map, reflect.Slice, reflect.Array:
			t = t.Elem()
		default:
			return nil
		}
	}
	if e.delete() {
		return nil
	}
	v, err := decodeJSON(e.value, true)
	if err != nil {
		return err
	}
	if where, ok := nullFits(t, v, ""); !ok {
		return fmt.Errorf("live: state path %v: null at %q where %s holds no null: %w: %w",
			e.path, "value"+where, t, rooms.ErrInvalidStateValue, rooms.ErrInvalidPath)
	}
	return nil
}

// nullFits walks the decoded JSON v beside the Go type t and reports the
// first null that t cannot hold, by its place in v.
func nullFits(t reflect.Type, v any, where string) (string, bool) {
	if v == nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Slice:
			return "", true
		}
		return where, custom(t)
	}
	t = deref(t)
	if custom(t) {
		return "", true
	}
	switch d := v.(type) {
	case map[string]any:
		for k, x := range d {
			var ft reflect.Type
			switch t.Kind() {
			case reflect.Struct:
				f, ok := jsonField(t, k)
				if !ok {
					continue
				}
				ft = f
			case reflect.Map:
				ft = t.Elem()
			default:
				continue
			}
			if w, ok := nullFits(ft, x, where+"."+k); !ok {
				return w, false
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			break
		}
		for n, x := range d {
			if w, ok := nullFits(t.Elem(), x, fmt.Sprintf("%s[%d]", where, n)); !ok {
				return w, false
			}
		}
	}
	return "", true
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// custom reports a type that decodes itself: its rules are its own.
func custom(t reflect.Type) bool {
	return t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)
}

// jsonField returns the type of the field of struct t that encoding/json
// decodes the key name into: by tag or field name, exactly or else without
// regard to case, promoted fields of embedded structs included.
func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	var fold reflect.Type
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Tag.Get("json") == "" && deref(f.Type).Kind() == reflect.Struct {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		n := f.Name
		if tag != "" {
			n = tag
		}
		if n == name {
			return f.Type, true
		}
		if fold == nil && strings.EqualFold(n, name) {
			fold = f.Type
		}
	}
	return fold, fold != nil
}
