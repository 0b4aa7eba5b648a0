package engine

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/gameadmin/admin/internal/schema"
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

// checkConfig reports the first name in res's configuration that names
// no column, relation or resource. Column names are SQL names; a Go field
// name is refused with the SQL name it stands for.
func (a *compiler) checkConfig(res *resource, tables map[string]*schema.Table) error {
	t, cfg := res.table, res.cfg
	fail := func(field, format string, args ...any) error {
		return fmt.Errorf("admin: resource %q: %s: %s", res.key, field, fmt.Sprintf(format, args...))
	}
	column := func(field, name string, tb *schema.Table, visible bool) error {
		if tb.ByName[name] != nil {
			if visible && tb == t && res.hidden[name] {
				return fail(field, "column %q is hidden (ColumnConfig.Hidden)", name)
			}
			return nil
		}
		if c, ok := tb.Lookup(name); ok {
			return fail(field, "no column %q in %s (names are SQL column names: %q)", name, tb.Name, c.Name)
		}
		return fail(field, "no column %q in %s%s", name, tb.Name, schema.ClosestHint(name, tb.ColumnNames()))
	}
	for _, f := range []struct {
		field string
		names []string
	}{{"List.Columns", cfg.List.Columns}, {"Form.Fields", cfg.Form.Fields}, {"Show.Fields", cfg.Show.Fields}, {"Search", cfg.Search}} {
		for _, n := range f.names {
			if err := column(f.field, n, t, true); err != nil {
				return err
			}
		}
	}
	if s := cfg.List.DefaultSort; s.Field != "" {
		if err := column("List.DefaultSort.Field", s.Field, t, true); err != nil {
			return err
		}
		if s.Order != "" && s.Order != "asc" && s.Order != "desc" {
			return fail("List.DefaultSort.Order", "%q is neither \"asc\" nor \"desc\"", s.Order)
		}
	}
	keys := slices.Sorted(maps.Keys(tables))
	for _, name := range slices.Sorted(maps.Keys(cfg.Columns)) {
		field := fmt.Sprintf("Columns[%q]", name)
		if err := column(field, name, t, false); err != nil {
			return err
		}
		link := cfg.Columns[name].LinkTo
		if link == nil {
			continue
		}
		if link.Resource != "" {
			target, ok := tables[link.Resource]
			if !ok {
				return fail(field+".LinkTo.Resource", "no resource %q%s", link.Resource, schema.ClosestHint(link.Resource, keys))
			}
			if link.LabelColumn != "" {
				if err := column(field+".LinkTo.LabelColumn", link.LabelColumn, target, false); err != nil {
					return err
				}
			}
		}
		if link.ResourceFromColumn != "" {
			if err := column(field+".LinkTo.ResourceFromColumn", link.ResourceFromColumn, t, false); err != nil {
				return err
			}
		}
	}
	seen := map[string]bool{}
	for _, act := range cfg.Actions {
		field := fmt.Sprintf("Actions[%q]", act.Name)
		if seen[act.Name] {
			return fail(field, "two actions have this name")
		}
		seen[act.Name] = true
		if act.PerRow && act.LoadRows {
			return fail(field+".LoadRows", "a per-row action receives its row; LoadRows is for bulk actions")
		}
	}
	if anon, ok := cfg.Erase.(EraseAnonymize); ok {
		if len(anon.Columns) == 0 {
			return fail("Erase", "EraseAnonymize names no column")
		}
		for _, name := range anon.Columns {
			if err := column("Erase.Columns", name, t, false); err != nil {
				return err
			}
			if c := t.ByName[name]; c.NotNull && c.DataType != schema.String {
				return fail("Erase.Columns", "column %q is NOT NULL and not text: it cannot be cleared", name)
			}
		}
	}
	rels := make([]string, len(t.Relations))
	for i, r := range t.Relations {
		rels[i] = r.Name
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Relations)) {
		if !slices.Contains(rels, name) {
			return fail(fmt.Sprintf("Relations[%q]", name), "no relation %q (relations: %v)%s", name, rels, schema.ClosestHint(name, rels))
		}
	}
	return nil
}
