package engine

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// Configuration mistakes fail New: a name in Options that names nothing
// would otherwise show a page without the column the game asked for, and
// nobody would know why. Each error names the key, the field and the
// closest valid name.

// resourceTables is opts.Tables with the model of every Resource added:
// DefineResource's model is the table's model, so a Resource needs no
// Tables entry, and one whose Tables entry is another model is an error.
// opts.Tables is not modified.
func resourceTables(tables map[string]any, resources map[string]*Resource) (map[string]any, error) {
	out := maps.Clone(tables)
	for _, key := range slices.Sorted(maps.Keys(resources)) {
		r := resources[key]
		if r == nil {
			return nil, fmt.Errorf("admin: Resources[%q] is nil", key)
		}
		if r.model == nil {
			return nil, fmt.Errorf("admin: Resources[%q]: DefineResource needs the table's Bun model, e.g. (*Guild)(nil)", key)
		}
		m, ok := out[key]
		if !ok {
			out[key] = r.model
			continue
		}
		if reflect.TypeOf(m) != reflect.TypeOf(r.model) {
			return nil, fmt.Errorf("admin: Resources[%q]: DefineResource's model is %T but Tables[%q] is %T; give one model (the Tables entry may be left out)", key, r.model, key, m)
		}
	}
	return out, nil
}
