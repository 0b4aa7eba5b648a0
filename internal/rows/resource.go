package rows

import (
	"cmp"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/schema"
)

// New builds the resource key serves from its table t and its config:
// its label, icon, hidden columns, view and labels, after checking every
// name cfg gives against t and tables (New fails on the first that names
// nothing). nameColumns name rows before the usual label columns, in
// order ("" entries skipped); an unknown icon is logged and replaced.
func New(key string, t *schema.Table, cfg ResourceConfig, tables map[string]*schema.Table, nameColumns []string, log *slog.Logger) (*Resource, error) {
	res := &Resource{Key: key, Table: t, Config: cfg, Hidden: map[string]bool{}, nameColumns: nameColumns}
	res.Label = cmp.Or(cfg.Label, schema.Humanize(key))
	res.Icon = cmp.Or(cfg.Icon, schema.GuessIcon(t.Name))
	if !schema.IsIcon(res.Icon) {
		log.Warn("admin: unknown icon; using database", "key", key, "icon", res.Icon)
		res.Icon = "database"
	}
	for col, cc := range cfg.Columns {
		if cc.Hidden {
			res.Hidden[col] = true
		}
	}
	res.stored = res.Hidden
	if err := res.check(tables); err != nil {
		return nil, err
	}
	if err := res.checkVersionColumn(); err != nil {
		return nil, err
	}
	if err := res.checkScopeColumn(); err != nil {
		return nil, err
	}
	for _, col := range slices.Sorted(maps.Keys(cfg.Columns)) {
		if u := cfg.Columns[col].UnixTime; u != "" {
			if err := t.ByName[col].SetUnix(u); err != nil {
				return nil, fmt.Errorf("admin: resource %q: Columns[%q].UnixTime: %w", key, col, err)
			}
		}
	}
	res.View = visible(t, res.Hidden)
	res.Labels = labelColumnsOf(res.View, nameColumns)
	return res, nil
}

// Resource is a table as the panel serves it: its schema and config,
// and in a role's variant (RoleViews) what that role may read.
type Resource struct {
	// Key is the resource's key: its path segment and Options.Tables key.
	Key string
	// Label and Icon are its name and icon in the sidebar.
	Label string
	Icon  string
	// Builtin marks a built-in table kept in its built-in model: its
	// label, and its columns' and relations' the game did not set, are
	// the panel's own words, which the UI says in the operator's
	// language.
	Builtin bool
	// Table is its table, every column.
	Table *schema.Table
	// Config is its declaration, the game's laid over the built-in one.
	Config ResourceConfig
	// Hidden are the columns no one reads through the panel (and, in a
	// role's variant, the restricted ones it has no mask for).
	Hidden map[string]bool
	// View is table without its hidden columns: what filters, sorts, _q
	// and bodies may name.
	View *schema.Table
	// Labels are the visible text columns that name its rows, in order
	// of preference (labelColumnsOf), decided once when it is built.
	Labels []string
	// Restricted, in a role's variant (visibility.go), are the columns
	// that role may not read (ColumnConfig.ReadRole): hidden, or shown
	// through masks.
	Restricted map[string]bool
	// Masks show the restricted columns the role reads masked.
	Masks map[string]func(any) any
	// Accounts says its rows are the accounts people sign in with (the
	// users table, users.Key): the write gate guards them (a user written
	// only by an operator who outranks them, the last admin kept, an
	// email no other account has), a revert never writes their
	// credentials, and their history holds their room kicks. The
	// engine's users resource sets it.
	Accounts bool
	// AllRows says its rows name rows of every resource, whatever their
	// scope column holds (the audit log): a row-scoped mod never reads
	// it (scope.go). The engine's audit log resource sets it.
	AllRows bool
	// nameColumns are the columns that name rows first (the users'
	// display name, username and email), for the labels of the role
	// variants.
	nameColumns []string
	// stored are the columns no role reads (the resource's own Hidden,
	// in every role's variant too): what a row as stored lacks.
	stored map[string]bool
	// version is the column the game bumps on every write
	// (ResourceConfig.VersionColumn), or nil (version.go).
	version *schema.Column
	// scope is the column a mod's row scope reads, or nil (scope.go).
	scope *schema.Column
}

// StoredHidden are the columns no role reads: a row as stored, as the
// write gate reads and returns it (Store) and its version is computed
// from (Versions.ETag), is read without them. A role's variant hides
// more (Hidden): Answer takes those out.
func (r *Resource) StoredHidden() map[string]bool { return r.stored }

// Choices are the values a column takes: the resource's Choices, else an
// enum's labels from the database, as its catalog was last read
// (schema.Live).
func (r *Resource) Choices(col string) []string {
	if cc := r.Config.Columns[col].Choices; len(cc) > 0 {
		return cc
	}
	if c := r.Table.ByName[col]; c != nil && c.Kind == schema.KindEnum {
		return c.Labels()
	}
	return nil
}

// Shown are the names of cols the resource (as the operator sees it)
// shows; nil stays nil, "all of them".
func (res *Resource) Shown(cols []string) []string {
	if cols == nil {
		return nil
	}
	out := make([]string, 0, len(cols))
	for _, c := range cols {
		if !res.Hidden[c] {
			out = append(out, c)
		}
	}
	return out
}

// ColumnLabel is how a column is named to the operator: the catalog's
// label, and for a foreign key the row it names ("Player", not "Player
// ID").
func (res *Resource) ColumnLabel(c *schema.Column) string {
	if l := res.Config.Columns[c.Name].Label; l != "" {
		return l
	}
	for _, rel := range res.Table.Relations {
		if rel.Kind == schema.One && rel.FK == c.Name {
			if l, ok := strings.CutSuffix(c.Label, " ID"); ok && l != "" {
				return l
			}
		}
	}
	return c.Label
}

// labelColumns are the columns that name a row, in order of preference.
var labelColumns = []string{"display_name", "name", "email", "title"}

// labelColumnsOf are the text columns of view that can name its rows, in
// order of preference: nameColumns, then labelColumns.
func labelColumnsOf(view *schema.Table, nameColumns []string) []string {
	var out []string
	for _, c := range append(slices.Clip(nameColumns), labelColumns...) {
		if col := view.ByName[c]; col != nil && col.DataType == schema.String && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Merge lays a game's config over a built-in one: set fields win,
// column configs merge per column.
func Merge(base, over ResourceConfig) ResourceConfig {
	out := over
	out.Label = cmp.Or(over.Label, base.Label)
	out.Icon = cmp.Or(over.Icon, base.Icon)
	if over.List.Columns == nil {
		out.List.Columns = base.List.Columns
	}
	if over.Search == nil {
		out.Search = base.Search
	}
	if over.List.DefaultSort.Field == "" {
		out.List.DefaultSort = base.List.DefaultSort
	}
	if over.Create.Defaults == nil {
		out.Create.Defaults = base.Create.Defaults
	}
	// Per operation: a game that opens the audit log's list to mods must
	// not also drop its create, update and delete denials.
	for _, p := range []struct{ out, base *authz.Policy }{
		{&out.Policies.List, &base.Policies.List}, {&out.Policies.Read, &base.Policies.Read},
		{&out.Policies.Create, &base.Policies.Create}, {&out.Policies.Update, &base.Policies.Update},
		{&out.Policies.Delete, &base.Policies.Delete},
	} {
		if !p.out.IsSet() {
			*p.out = *p.base
		}
	}
	out.Columns = map[string]ColumnConfig{}
	for k, v := range base.Columns {
		out.Columns[k] = v
	}
	for k, v := range over.Columns {
		b := out.Columns[k]
		v.Hidden = v.Hidden || b.Hidden
		v.ReadOnly = v.ReadOnly || b.ReadOnly
		if v.LinkTo == nil {
			v.LinkTo = b.LinkTo
		}
		if v.UnixTime == "" {
			v.UnixTime = b.UnixTime
		}
		out.Columns[k] = v
	}
	return out
}

// visible returns t without the hidden columns.
func visible(t *schema.Table, hidden map[string]bool) *schema.Table {
	if len(hidden) == 0 {
		return t
	}
	v := *t
	v.Columns = slices.DeleteFunc(slices.Clone(t.Columns), func(c *schema.Column) bool { return hidden[c.Name] })
	v.ByName = make(map[string]*schema.Column, len(v.Columns))
	for _, c := range v.Columns {
		v.ByName[c.Name] = c
	}
	return &v
}

// check reports the first name in res's configuration that names
// no column, relation or resource. Column names are SQL names; a Go field
// name is refused with the SQL name it stands for.
func (res *Resource) check(tables map[string]*schema.Table) error {
	t, cfg := res.Table, res.Config
	fail := func(field, format string, args ...any) error {
		return fmt.Errorf("admin: resource %q: %s: %s", res.Key, field, fmt.Sprintf(format, args...))
	}
	column := func(field, name string, tb *schema.Table, visible bool) error {
		if tb.ByName[name] != nil {
			if visible && tb == t && res.Hidden[name] {
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
