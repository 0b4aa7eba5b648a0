package engine

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/gameadmin/admin/internal/migrate"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/users"

	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Resource is how one table looks and behaves in the panel. Create it with
// DefineResource and put it in Options.Resources under the table's key.
type Resource struct {
	model any
	cfg   ResourceConfig
}

// DefineResource describes the panel's view of a Bun model. model is the
// table's model, as in Options.Tables: a Resource needs no Tables entry,
// and New fails when the Tables entry under its key is another model.
// Names in List.Columns, Form.Fields, Show.Fields, Search,
// List.DefaultSort and the keys of Columns are SQL column names, and the
// keys of Relations are relation names; New fails on a name that is none
// (a Go field name included), naming the closest valid one.
func DefineResource(model any, cfg ResourceConfig) *Resource {
	for _, act := range cfg.Actions {
		if act.Name == "" || act.Handler == nil {
			panic(fmt.Sprintf("admin: DefineResource: action %q needs a Name and a Handler", act.Name))
		}
	}
	return &Resource{model: model, cfg: cfg}
}

// The declaration of a resource is package rows'; these are its names
// here, and the root converts its own structs to them.
type (
	ResourceConfig  = rows.ResourceConfig
	ListConfig      = rows.ListConfig
	FormConfig      = rows.FormConfig
	ShowConfig      = rows.ShowConfig
	CreateConfig    = rows.CreateConfig
	DefaultsContext = rows.DefaultsContext
	ColumnConfig    = rows.ColumnConfig
	RelationConfig  = rows.RelationConfig
	// Sort is a column and a direction (the catalog shows a list's default).
	Sort = rows.Sort
	// LinkTo makes a column a link to a row of another resource (as the
	// catalog tells the UI).
	LinkTo = rows.LinkTo
	// UnixUnit is the unit of an integer column holding unix times.
	UnixUnit = schema.UnixUnit
)

// The units of ColumnConfig.UnixTime.
const (
	UnixSeconds = schema.UnixSeconds
	UnixMillis  = schema.UnixMillis
)

// RelationKind says how many target rows a relation reaches from one row.
type RelationKind = schema.Kind

// The relation kinds.
const (
	One  RelationKind = schema.One
	Many RelationKind = schema.Many
)

// Relation is admin.Relation, field for field (the root converts one to the
// other); its documentation is there.
type Relation struct {
	Name   string
	Target string
	Kind   RelationKind
	FK     string
}

// IconNames returns the built-in icon set a ResourceConfig.Icon names from,
// a new slice each call.
func IconNames() []string { return schema.IconNames() }

// resource is a table as the panel serves it (package rows).
type resource = rows.Resource

// EraseRule says what erasing a user does to a resource's rows that refer
// to the user: set it as ResourceConfig.Erase. Without one, rows whose
// reference is NOT NULL are deleted and nullable references are cleared.
// A player's data requests are internal/userdata's.
type EraseRule = rows.EraseRule

var (
	// EraseDelete deletes the rows.
	EraseDelete = rows.EraseDelete
	// EraseKeep keeps the rows as they are: a legal hold (purchases kept
	// for the tax office). They stay linked to the erased account, whose
	// own personal values are gone.
	EraseKeep = rows.EraseKeep
)

// EraseAnonymize keeps the rows and clears Columns in them: NULL, or
// "[erased]" in a NOT NULL text column.
type EraseAnonymize = rows.EraseAnonymize

// reservedKeys are path segments of the API that no table key may take.
var reservedKeys = []string{"auth", "rooms", "_dashboard", "_health"}

// compiler is the Admin as New sees it while it compiles the declarations
// (Options, the resources, their columns and relations) into the
// engine's forms and checks them against the database.
type compiler Admin

// builtinConfig is how the built-in tables without behaviour of their
// own look (the special resources' look is their build).
func builtinConfig(key string) ResourceConfig {
	switch key {
	case "configs":
		return ResourceConfig{Icon: "setting"}
	case "leaderboards":
		return ResourceConfig{Icon: "trophy"}
	case "analyticsEvents":
		return ResourceConfig{Icon: "line-chart", List: ListConfig{DefaultSort: Sort{Field: "id", Order: "desc"}}}
	case "cloudSaves":
		return ResourceConfig{Icon: "cloud"}
	case "leaderboardEntries":
		return ResourceConfig{Icon: "star", List: ListConfig{DefaultSort: Sort{Field: "score", Order: "desc"}}}
	case "roles":
		return ResourceConfig{Icon: "key",
			Columns: map[string]ColumnConfig{"role": {Choices: []string{string(RoleAdmin), string(RoleMod), string(RoleUser)}}},
			// The table has no default for scopes; a role made in the panel
			// without any starts with none.
			Create: CreateConfig{Defaults: func(context.Context, DefaultsContext) (map[string]any, error) {
				return map[string]any{"scopes": []any{}}, nil
			}}}
	case "userNotes":
		return ResourceConfig{Icon: "file-text",
			Columns: map[string]ColumnConfig{"author_id": {ReadOnly: true}},
			Create: CreateConfig{Defaults: func(_ context.Context, c DefaultsContext) (map[string]any, error) {
				return map[string]any{"author_id": c.OperatorID}, nil
			}},
			List: ListConfig{DefaultSort: Sort{Field: "id", Order: "desc"}}}
	}
	return ResourceConfig{}
}

// builtinRelations are the relations among the built-in tables.
var builtinRelations = map[string][]schema.Relation{
	"users": {
		{Name: "cloudSaves", Target: "cloudSaves", Kind: schema.Many, FK: "user_id"},
		{Name: "leaderboardEntries", Target: "leaderboardEntries", Kind: schema.Many, FK: "user_id"},
		{Name: "analyticsEvents", Target: "analyticsEvents", Kind: schema.Many, FK: "user_id"},
		{Name: "userNotes", Target: "userNotes", Kind: schema.Many, FK: "user_id"},
	},
	"leaderboards":       {{Name: "entries", Target: "leaderboardEntries", Kind: schema.Many, FK: "leaderboard_id"}},
	"userNotes":          {{Name: "user", Target: "users", Kind: schema.One, FK: "user_id"}, {Name: "author", Target: "users", Kind: schema.One, FK: "author_id"}},
	"roles":              {{Name: "user", Target: "users", Kind: schema.One, FK: "user_id"}},
	"adminAudit":         {{Name: "operator", Target: "users", Kind: schema.One, FK: "operator_id"}},
	"leaderboardEntries": {{Name: "leaderboard", Target: "leaderboards", Kind: schema.One, FK: "leaderboard_id"}, {Name: "user", Target: "users", Kind: schema.One, FK: "user_id"}},
	"cloudSaves":         {{Name: "user", Target: "users", Kind: schema.One, FK: "user_id"}},
	"analyticsEvents":    {{Name: "user", Target: "users", Kind: schema.One, FK: "user_id"}},
}

// buildResources inspects every table, links relations and applies configs.
// The order is builtinKeys' for the built-in keys, then the custom keys in
// alphabetical order (Go maps have none of their own).
func (a *compiler) buildResources(db *bun.DB) error {
	builtins := BuiltinTables()
	var order []string
	for _, k := range builtinKeys {
		if _, ok := a.opts.Tables[k]; ok {
			order = append(order, k)
		}
	}
	var custom []string
	for k := range a.opts.Tables {
		if _, ok := builtins[k]; !ok {
			custom = append(custom, k)
		}
	}
	slices.Sort(custom)
	order = append(order, custom...)

	tables := make(map[string]*schema.Table, len(order))
	for _, key := range order {
		if slices.Contains(reservedKeys, key) || key == "" || strings.ContainsAny(key, "/?#%") {
			return fmt.Errorf("admin: table key %q is reserved or not a path segment", key)
		}
		t, err := schema.Inspect(db, key, a.opts.Tables[key])
		if err != nil {
			return fmt.Errorf("admin: %w", err)
		}
		if def := builtinDef(key, a.opts.Tables[key]); def != nil {
			// A built-in table: its name takes the prefix, and the
			// columns its DDL (or the model's insert hook) fills may be
			// left out of a create.
			t.Name = a.plan.Name(def.Base)
			t.UTCDatetime = true // the built-in DDL's times are UTC instants
			for _, c := range def.Cols {
				if c.Type == migrate.UserID {
					// The model's field is a string; the column has the
					// users id type, which values are checked against.
					t.ByName[c.Name].SQLType = a.plan.UserKind
				}
				if c.Default != "" || c.Hook || c.Type == migrate.Serial {
					if err := t.MarkDefault(c.Name); err != nil {
						return fmt.Errorf("admin: built-in table %s: %w", key, err)
					}
				}
			}
		} else if panelTable(key) != nil {
			return fmt.Errorf("admin: Tables[%q] is the panel's own table; its model cannot be replaced", key)
		}
		tables[key] = t
	}
	declared := map[string][]schema.Relation{}
	for key, rels := range builtinRelations {
		if _, ok := tables[key]; !ok {
			continue
		}
		for _, r := range rels {
			target, ok := tables[r.Target]
			fkTable := tables[key]
			if r.Kind == schema.Many {
				fkTable = target
			}
			if ok && fkTable.ByName[r.FK] != nil {
				declared[key] = append(declared[key], r)
			}
		}
	}
	for key, rels := range a.opts.Relations {
		for _, r := range rels {
			declared[key] = append(declared[key], schema.Relation{Name: r.Name, Target: r.Target, Kind: r.Kind, FK: r.FK})
		}
	}
	if err := schema.Link(tables, declared); err != nil {
		return fmt.Errorf("admin: relations: %w", err)
	}
	// The game's tables that point at a table get a tab on it (a match's
	// winner_id puts a Matches tab on the user page); the built-in
	// tables' tabs are the ones builtinRelations lists.
	schema.Inverses(tables, func(key string) bool { _, builtin := builtins[key]; return !builtin })

	a.resources = make(map[string]*resource, len(order))
	a.order = order
	for _, key := range order {
		t := tables[key]
		var cfg ResourceConfig
		var nameColumns []string
		sp, special := a.specials[key]
		switch {
		case special:
			cfg, nameColumns = sp.build(t)
		case builtinDef(key, a.opts.Tables[key]) != nil:
			// A built-in key the game gave its own model is the game's
			// table: the built-in look (sorts, read-only columns) may
			// name columns it does not have.
			cfg = builtinConfig(key)
		}
		if r, ok := a.opts.Resources[key]; ok && r != nil {
			cfg = rows.Merge(cfg, r.cfg)
		}
		res, err := rows.New(key, t, cfg, tables, nameColumns, a.log)
		if err != nil {
			return err
		}
		res.Builtin = builtinDef(key, a.opts.Tables[key]) != nil
		a.specials.of(key).built(res)
		a.resources[key] = res
	}
	for _, w := range a.opts.Widgets {
		if w.Resource != "" && a.resources[w.Resource] == nil {
			return fmt.Errorf("admin: Widgets[%q]: Resource %q names no resource%s", w.ID, w.Resource, schema.ClosestHint(w.Resource, a.order))
		}
	}
	if err := a.buildRoleViews(); err != nil {
		return err
	}
	a.totals = a.opts.DashboardTotals
	if a.totals == nil {
		a.totals = []string{users.Key}
	}
	for _, key := range a.totals {
		if a.resources[key] == nil {
			return fmt.Errorf("admin: DashboardTotals: no resource %q%s", key, schema.ClosestHint(key, a.order))
		}
	}
	return nil
}

// reflectValue is the struct a model pointer points to.
func reflectValue(model any) reflect.Value { return reflect.ValueOf(model).Elem() }

// readCatalog refines every resource's columns from the database catalog
// (schema.ReadCatalog): the SQL type decides each column's kind. A table
// the database does not have yet keeps what its model says, with a
// warning. On PostgreSQL it also warns when DateStyle does not write ISO
// dates, the text query.Select reads timestamps as.
func (a *compiler) readCatalog(ctx context.Context, db *bun.DB) error {
	if db.Dialect().Name() == dialect.PG {
		var style string
		if err := db.QueryRowContext(ctx, "SELECT current_setting('DateStyle')").Scan(&style); err != nil {
			return fmt.Errorf("admin: reading DateStyle: %w", err)
		}
		if !strings.HasPrefix(style, "ISO") {
			a.log.Warn("admin: PostgreSQL's DateStyle is not ISO; the panel shows timestamps as stored text (set DateStyle to 'ISO, MDY', the default)", "DateStyle", style)
		}
	}
	for _, key := range a.order {
		res := a.resources[key]
		found, err := schema.ReadCatalog(ctx, db, res.Table)
		if err != nil {
			return fmt.Errorf("admin: resource %q: %w", key, err)
		}
		if !found {
			a.log.Warn("admin: table not found in the database; column kinds from the model only", "resource", key, "table", res.Table.Name)
		}
		if why := res.Table.NotWritable; why != "" {
			a.log.Info("admin: resource is read-only: the panel lists, reads and exports it, never writes it", "resource", key, "table", res.Table.Name, "why", why)
		} else if found && len(res.Table.PK) > 0 && !res.Table.KeyOrdered {
			a.log.Info("admin: the table has no index on the model's primary key: each list page sorts the table, under QueryTimeout; an index on the key makes the first page cheap", "resource", key, "table", res.Table.Name)
		}
	}
	return nil
}
