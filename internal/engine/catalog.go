package engine

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
)

// The catalog (GET /admin-api) tells the UI every resource the operator
// may list, with its columns, relations, actions and the operator's own
// permissions, so the UI offers only what will work. Its types are
// package catalog's; building it from the resources is the engine's.

// catalogHandler answers the catalog: the resources in the sidebar's
// order, each as an operator's role sees it, with the policy's answers.
// The auth endpoints' /auth/me and the OpenAPI document read it too
// (catalog).
type catalogHandler struct {
	order    []string                                           // sidebar order of the keys
	as       func(op Operator, key string) *resource            // resource key as op's role sees it (resourceAs)
	allowed  func(op Operator, action Op, resource string) bool // the policy (Admin.allowed)
	specials specials                                           // the resources' own entries
	maxText  int                                                // Options.MaxTextLength, defaulted
}

// GET /admin-api
func (h *catalogHandler) handleCatalog(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	writeJSON(w, http.StatusOK, h.catalog(op))
	return nil
}

// catalog is what GET /admin-api answers op, an operator.
func (h *catalogHandler) catalog(op Operator) []catalog.Entry {
	out := []catalog.Entry{}
	for _, key := range h.order {
		res := h.as(op, key)
		perms := map[Op]bool{}
		for _, o := range []Op{OpList, OpRead, OpCreate, OpUpdate, OpDelete} {
			perms[o] = h.allowed(op, o, key)
		}
		if !perms[OpList] && !perms[OpRead] {
			continue
		}
		if len(res.Table.PK) == 0 {
			// No key, no row page: the UI links no row (its relation
			// tabs list the rows all the same).
			perms[OpRead] = false
		}
		out = append(out, h.catalogEntry(res, perms, op.Role))
	}
	return out
}

// catalogEntry describes res to an operator of role: only the actions
// the role may run are listed.
func (h *catalogHandler) catalogEntry(res *resource, perms map[Op]bool, role Role) catalog.Entry {
	t, cfg := res.Table, res.Config
	links := map[string]*LinkTo{}
	for _, rel := range t.Relations {
		if target := h.as(Operator{Role: role}, rel.Target); rel.Kind == schema.One && target != nil && !keyedByRestricted(res, target, rel) {
			links[rel.FK] = &LinkTo{Resource: rel.Target, LabelColumn: labelColumn(target)}
		}
	}
	e := catalog.Entry{
		Name: res.Key, Label: res.Label, Icon: res.Icon, PrimaryKey: t.PKNames(), Builtin: res.Builtin,
		FormFields: res.Shown(cfg.Form.Fields), ShowFields: res.Shown(cfg.Show.Fields),
		Actions: []catalog.Action{}, Relations: []catalog.Relation{}, Permissions: perms,
	}
	if cfg.List.Columns != nil {
		// Primary keys are always listed.
		for _, pk := range t.PKNames() {
			if !slices.Contains(cfg.List.Columns, pk) {
				e.ListColumns = append(e.ListColumns, pk)
			}
		}
		e.ListColumns = append(e.ListColumns, res.Shown(cfg.List.Columns)...)
	}
	e.ReadOnly = t.NotWritable
	if c := res.ScopeColumn(); c != nil {
		e.ScopeColumn = c.Name
	}
	if sd := t.SoftDelete; sd != nil && res.View.ByName[sd.Name] != nil && !res.Restricted[sd.Name] {
		e.SoftDeleteColumn = sd.Name
	}
	if s := cfg.List.DefaultSort; s.Field != "" && res.View.ByName[s.Field] != nil && !res.Restricted[s.Field] {
		e.DefaultSort = &Sort{Field: s.Field, Order: cmp.Or(s.Order, "asc")}
	}
	for _, c := range res.View.Columns {
		cc := cfg.Columns[c.Name]
		col := catalog.Column{
			Name: c.Name, Label: cmp.Or(cc.Label, c.Label), Type: c.SQLType, DataType: catalogDataType(c),
			NotNull: c.NotNull, Primary: c.Primary, HasDefault: c.HasDefault, ReadOnly: res.ReadOnly(c.Name) || res.Restricted[c.Name],
			LinkTo: links[c.Name], Choices: res.Choices(c.Name),
			Sortable:   query.Sortable(c) && !res.Restricted[c.Name],
			Filterable: query.Filterable(c) && !res.Restricted[c.Name],
			Masked:     res.Restricted[c.Name],
			Kind:       c.Kind, Elem: c.Elem, Unix: c.Unix, MaxLength: rows.MaxLength(c, h.maxText),
			Required: c.NotNull && !c.HasDefault && !c.Generated && c != res.VersionColumn(),
		}
		if cc.LinkTo != nil {
			col.LinkTo = cc.LinkTo
		}
		if c.HasScale && (c.Kind == schema.KindDecimal || c.Elem == schema.KindDecimal) {
			col.Scale = &c.Scale
		}
		e.Columns = append(e.Columns, col)
	}
	for _, act := range cfg.Actions {
		if !act.Allows(role) {
			continue
		}
		e.Actions = append(e.Actions, catalog.Action{Name: act.Name, Label: cmp.Or(act.Label, schema.Humanize(act.Name)), PerRow: act.PerRow, Confirm: act.Confirm})
	}
	for _, rel := range t.Relations {
		target := h.as(Operator{Role: role}, rel.Target)
		if target == nil || keyedByRestricted(res, target, rel) {
			continue // a tab keyed by a column the role may not read answers 403
		}
		label := schema.Humanize(rel.Name)
		if rel.Name == rel.Target {
			label = target.Label // a tab named after its resource reads as the sidebar does
		}
		e.Relations = append(e.Relations, catalog.Relation{
			Name: rel.Name, Label: cmp.Or(cfg.Relations[rel.Name].Label, label),
			Target: rel.Target, Kind: rel.Kind, FK: rel.FK,
		})
	}
	h.specials.of(res.Key).catalog(&e, res)
	return e
}

// catalogDataType is the dataType the UI reads: the JSON shape of the
// column's values. A column whose kind carries the database's text (an
// inet read into a net.IP, a numeric with its scale, a wall clock) is a
// string whatever its Go field; an array is JSON.
func catalogDataType(c *schema.Column) schema.DataType {
	switch {
	case c.Unix != "":
		return schema.Datetime // shown and written as a time
	case !query.OwnKind(c):
		return c.DataType
	case c.Kind == schema.KindArray:
		return schema.JSON
	}
	return schema.String
}
