package engine

import (
	"reflect"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	bunschema "github.com/uptrace/bun/schema"
)

// TestBuiltinModelsMatchDescription: the Go model of each built-in table,
// the panel's own unexported ones too, has exactly the columns the
// table's description (builtinSchema) lists, as Bun reads it in either
// dialect, and a column the description says the model's hook fills has
// a model with that hook. The dbtest module checks the description
// against the live tables New creates (admintest's
// TestBuiltinModelsMatchSchema).
func TestBuiltinModelsMatchDescription(t *testing.T) {
	for _, d := range []bunschema.Dialect{pgdialect.New(), sqlitedialect.New()} {
		tables := d.Tables()
		for _, def := range builtinSchema.Tables {
			bt := tables.Get(reflect.TypeOf(def.Model).Elem())
			if len(bt.Fields) != len(def.Cols) {
				t.Errorf("%s, %s: model %T has %d columns, description %d", d.Name(), def.Base, def.Model, len(bt.Fields), len(def.Cols))
			}
			for _, c := range def.Cols {
				if !bt.HasField(c.Name) {
					t.Errorf("%s, %s.%s: not in model %T", d.Name(), def.Base, c.Name, def.Model)
				}
				if _, hooked := def.Model.(bun.BeforeAppendModelHook); c.Hook && !hooked {
					t.Errorf("%s.%s: the description says the model's hook fills it; %T has no BeforeAppendModel", def.Base, c.Name, def.Model)
				}
			}
		}
	}
}
