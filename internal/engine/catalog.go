package engine

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// The catalog (GET /admin-api) tells the UI every resource the operator
// may list, with its columns, relations, actions and the operator's own
// permissions, so the UI offers only what will work.

type catalogEntry struct {
	Name        string            `json:"name"`
	Label       string            `json:"label"`
	Icon        string            `json:"icon"`
	PrimaryKey  []string          `json:"primaryKey"`
	Columns     []catalogColumn   `json:"columns"`
	ListColumns []string          `json:"listColumns,omitempty"`
	FormFields  []string          `json:"formFields,omitempty"`
	ShowFields  []string          `json:"showFields,omitempty"`
	DefaultSort *Sort             `json:"defaultSort,omitempty"`
	Actions     []catalogAction   `json:"actions"`
	Relations   []catalogRelation `json:"relations"`
	Permissions map[Op]bool       `json:"permissions"`
	// BanColumn, on the users resource, is the column holding the ban
	// (UserColumns.Ban), when bans are on: the UI's badge, quick filter
	// (_banned) and moderation read it.
	BanColumn string `json:"banColumn,omitempty"`
	// EmailColumn, on the users resource, is UserColumns.Email: what an
	// erase asks the operator to type back.
	EmailColumn string `json:"emailColumn,omitempty"`
}

type catalogColumn struct {
	Name       string          `json:"name"`
	Label      string          `json:"label"`
	Type       string          `json:"type"`
	DataType   schema.DataType `json:"dataType"`
	NotNull    bool            `json:"notNull"`
	Primary    bool            `json:"primary"`
	HasDefault bool            `json:"hasDefault"`
	ReadOnly   bool            `json:"readOnly"`
	// Sortable and Filterable say what _sort and filters accept: json and
	// bytes columns cannot be sorted, bytes columns only tested for null.
	Sortable   bool `json:"sortable"`
	Filterable bool `json:"filterable"`
	// Masked columns show the operator their values through a mask
	// (ColumnConfig.Mask): read-only, not sortable nor filterable.
	Masked bool    `json:"masked,omitempty"`
	LinkTo *LinkTo `json:"linkTo,omitempty"`
	// Choices are ColumnConfig.Choices, else an enum's labels from the
	// database: the UI's select.
	Choices []string `json:"choices,omitempty"`
	// Kind is how the panel shows, filters and writes the column (see
	// schema.ValueKind); Elem the element kind of an array.
	Kind schema.ValueKind `json:"kind"`
	Elem schema.ValueKind `json:"elem,omitempty"`
	// Required: a create must give a value (NOT NULL, no default).
	Required bool `json:"required"`
	// MaxLength is the most characters the panel writes: a varchar(n)'s
	// n, else for text Options.MaxTextLength.
	MaxLength int `json:"maxLength,omitempty"`
}

type catalogAction struct {
	Name    string   `json:"name"`
	Label   string   `json:"label"`
	PerRow  bool     `json:"perRow"`
	Confirm *Confirm `json:"confirm,omitempty"`
}

type catalogRelation struct {
	Name   string      `json:"name"`
	Label  string      `json:"label"`
	Target string      `json:"target"`
	Kind   schema.Kind `json:"kind"`
	FK     string      `json:"fk"`
}

// GET /admin-api
func (a viewsAPI) handleCatalog(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	writeJSON(w, http.StatusOK, a.catalog(op))
	return nil
}

// catalog is what GET /admin-api answers op, an operator.
func (a viewsAPI) catalog(op Operator) []catalogEntry {
	out := []catalogEntry{}
	for _, key := range a.order {
		res := a.resourceAs(op, key)
		perms := map[Op]bool{}
		for _, o := range []Op{OpList, OpRead, OpCreate, OpUpdate, OpDelete} {
			perms[o] = a.allowed(op, o, key)
		}
		if !perms[OpList] && !perms[OpRead] {
			continue
		}
		out = append(out, a.catalogEntry(res, perms, op.Role))
	}
	return out
}

// catalogEntry describes res to an operator of role: only the actions
// the role may run are listed.
func (a viewsAPI) catalogEntry(res *resource, perms map[Op]bool, role Role) catalogEntry {
	t, cfg := res.table, res.cfg
	links := map[string]*LinkTo{}
	for _, rel := range t.Relations {
		if target := a.resourceAs(Operator{Role: role}, rel.Target); rel.Kind == schema.One && target != nil && !keyedByRestricted(res, target, rel) {
			links[rel.FK] = &LinkTo{Resource: rel.Target, LabelColumn: labelColumn(target)}
		}
	}
	e := catalogEntry{
		Name: res.key, Label: res.label, Icon: res.icon, PrimaryKey: t.PKNames(),
		FormFields: res.shown(cfg.Form.Fields), ShowFields: res.shown(cfg.Show.Fields),
		Actions: []catalogAction{}, Relations: []catalogRelation{}, Permissions: perms,
	}
	if cfg.List.Columns != nil {
		// Primary keys are always listed.
		for _, pk := range t.PKNames() {
			if !slices.Contains(cfg.List.Columns, pk) {
				e.ListColumns = append(e.ListColumns, pk)
			}
		}
		e.ListColumns = append(e.ListColumns, res.shown(cfg.List.Columns)...)
	}
	if res.key == "users" && res.view.ByName[a.users.cols.Email] != nil {
		e.EmailColumn = a.users.cols.Email
	}
	if res.key == "users" && a.users.hasBan && a.users.hasTokenVer && res.view.ByName[a.users.cols.Ban] != nil {
		e.BanColumn = a.users.cols.Ban
	}
	if s := cfg.List.DefaultSort; s.Field != "" && res.view.ByName[s.Field] != nil && !res.restricted[s.Field] {
		e.DefaultSort = &Sort{Field: s.Field, Order: cmp.Or(s.Order, "asc")}
	}
	for _, c := range res.view.Columns {
		cc := cfg.Columns[c.Name]
		col := catalogColumn{
			Name: c.Name, Label: cmp.Or(cc.Label, c.Label), Type: c.SQLType, DataType: catalogDataType(c),
			NotNull: c.NotNull, Primary: c.Primary, HasDefault: c.HasDefault, ReadOnly: res.readOnly(c.Name) || res.restricted[c.Name],
			LinkTo: links[c.Name], Choices: res.choices(c.Name),
			Sortable:   query.Sortable(c) && !res.restricted[c.Name],
			Filterable: query.Filterable(c) && !res.restricted[c.Name],
			Masked:     res.restricted[c.Name],
			Kind:       c.Kind, Elem: c.Elem, MaxLength: rowsAPI(a).maxLength(c),
			Required: c.NotNull && !c.HasDefault && !c.Generated,
		}
		if cc.LinkTo != nil {
			col.LinkTo = cc.LinkTo
		}
		e.Columns = append(e.Columns, col)
	}
	for _, act := range cfg.Actions {
		if !act.allows(role) {
			continue
		}
		e.Actions = append(e.Actions, catalogAction{Name: act.Name, Label: cmp.Or(act.Label, schema.Humanize(act.Name)), PerRow: act.PerRow, Confirm: act.Confirm})
	}
	for _, rel := range t.Relations {
		if target := a.resourceAs(Operator{Role: role}, rel.Target); target == nil || keyedByRestricted(res, target, rel) {
			continue // a tab keyed by a column the role may not read answers 403
		}
		e.Relations = append(e.Relations, catalogRelation{
			Name: rel.Name, Label: cmp.Or(cfg.Relations[rel.Name].Label, schema.Humanize(rel.Name)),
			Target: rel.Target, Kind: rel.Kind, FK: rel.FK,
		})
	}
	return e
}

// shown are the names of cols the resource (as the operator sees it)
// shows; nil stays nil, "all of them".
func (res *resource) shown(cols []string) []string {
	if cols == nil {
		return nil
	}
	out := make([]string, 0, len(cols))
	for _, c := range cols {
		if !res.hidden[c] {
			out = append(out, c)
		}
	}
	return out
}

// catalogDataType is the dataType the UI reads: the JSON shape of the
// column's values. A column whose kind carries the database's text (an
// inet read into a net.IP, a numeric with its scale, a wall clock) is a
// string whatever its Go field; an array is JSON.
func catalogDataType(c *schema.Column) schema.DataType {
	switch {
	case !query.OwnKind(c):
		return c.DataType
	case c.Kind == schema.KindArray:
		return schema.JSON
	}
	return schema.String
}
