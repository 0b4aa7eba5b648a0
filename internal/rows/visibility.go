package rows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// Field visibility per role: a column whose ColumnConfig.ReadRole is above
// an operator's role is, for that operator, as if it were Hidden: absent
// from rows, forms, the catalog, CSV exports, labels and search, refused
// in filters and sorts (403) and in bodies, and taken out of the audit
// entries (history, audit log) of its resource. Each such resource has a
// variant per lower role, built once when the panel starts (RoleViews):
// every path that reads a resource for an operator asks As for it.

// RoleViews makes res's variants for the roles below admin that a
// column's ReadRole keeps from reading it, by role; none when no column
// is kept from them. It fails on a ReadRole that is no role.
func (res *Resource) RoleViews() (map[authz.Role]*Resource, error) {
	for col, cc := range res.Config.Columns {
		if cc.ReadRole != "" && !cc.ReadRole.Valid() {
			return nil, fmt.Errorf("admin: resource %q: Columns[%q].ReadRole: %q is no role (admin, mod, user)", res.Key, col, cc.ReadRole)
		}
	}
	var views map[authz.Role]*Resource
	for _, role := range []authz.Role{authz.RoleMod, authz.RoleUser} {
		restricted := map[string]bool{}
		for col, cc := range res.Config.Columns {
			if cc.ReadRole != "" && !role.AtLeast(cc.ReadRole) && !res.Hidden[col] {
				restricted[col] = true
			}
		}
		if len(restricted) == 0 {
			continue
		}
		v := *res
		v.Hidden = make(map[string]bool, len(res.Hidden)+len(restricted))
		for c := range res.Hidden {
			v.Hidden[c] = true
		}
		v.Masks = map[string]func(any) any{}
		for c := range restricted {
			if m := res.Config.Columns[c].Mask; m != nil {
				v.Masks[c] = m
			} else {
				v.Hidden[c] = true
			}
		}
		v.Restricted = restricted
		v.View = visible(res.Table, v.Hidden)
		// A masked column names no row: a label is read unmasked, in SQL.
		v.Labels = slices.DeleteFunc(labelColumnsOf(v.View, res.nameColumns), func(c string) bool { return restricted[c] })
		if views == nil {
			views = map[authz.Role]*Resource{}
		}
		views[role] = &v
	}
	return views, nil
}

// As is the resource key as op sees it: its role's variant (views, by
// key, as RoleViews made them) when the resource restricts columns,
// else all[key]; nil when there is none.
func As(all map[string]*Resource, views map[string]map[authz.Role]*Resource, op authz.Operator, key string) *Resource {
	if v := views[key][op.Role]; v != nil {
		return v
	}
	if op.Role != authz.RoleAdmin && op.Role != authz.RoleMod {
		if v := views[key][authz.RoleUser]; v != nil {
			return v // any other role ranks as a user
		}
	}
	return all[key]
}

// RefuseRestricted answers 403 for a list parameter naming a column op may
// not read: a filter (<col>_<op>), a sort, or the column alone.
func (res *Resource) RefuseRestricted(q url.Values) error {
	if len(res.Restricted) == 0 {
		return nil
	}
	if col := NamedColumn(q, res.Table, res.Restricted); col != "" {
		return errbody.New(http.StatusForbidden, "forbidden", "column %q is not readable for your role", col).WithParams("reason", "column_not_readable", "column", col)
	}
	return nil
}

// NamedColumn is the first of cols of t that a list parameter of q
// names: a filter (<col>_<op>), a sort, or the column alone; "" if none.
func NamedColumn(q url.Values, t *schema.Table, cols map[string]bool) string {
	names := []string{}
	for p := range q {
		names = append(names, p)
	}
	for _, v := range q["_sort"] {
		names = append(names, strings.Split(v, ",")...)
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		for col := range cols {
			if n == col || strings.HasPrefix(n, col+"_") && t.ByName[n] == nil {
				return col
			}
		}
	}
	return ""
}

// RedactPayload takes the columns res's role may not read out of p, an
// audit entry's payload about a row of res: the changes' before and
// after masked or left out, and the rest of the payload (a row, an
// invite's email, an action's args and result) through Redact.
func (res *Resource) RedactPayload(p map[string]any) {
	changes, isChanges := p["changes"].(map[string]any)
	if isChanges {
		delete(p, "changes")
		for col := range res.Restricted {
			ch, _ := changes[col].(map[string]any)
			mask := res.Masks[col]
			switch {
			case mask == nil || ch == nil:
				delete(changes, col)
			case ch[audit.PathsKey] != nil:
				changes[col] = map[string]any{audit.PathsKey: maskPaths(mask, ch[audit.PathsKey])}
			case ch[audit.TruncatedKey] != nil:
				// no value in it
			default:
				changes[col] = map[string]any{"before": maskValue(mask, ch["before"]), "after": maskValue(mask, ch["after"])}
			}
		}
	}
	res.Redact(p)
	if isChanges {
		p["changes"] = changes
	}
}

// Redact shows v, a value the panel did not read itself (an action's
// result, a widget's rows, an audit payload) as res's role may see it:
// in every object, at any depth, a key naming a column that role reads
// masked is masked, and one naming a column it may not read at all
// (Hidden, or restricted without a mask) is left out. Rows name their
// columns so; a value kept under another name is the game's to keep.
func (res *Resource) Redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch {
			case res.Masks[k] != nil:
				x[k] = maskValue(res.Masks[k], e)
			case res.Hidden[k]:
				delete(x, k)
			default:
				x[k] = res.Redact(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = res.Redact(e)
		}
	}
	return v
}

// RedactJSON is Redact of raw, JSON, as JSON again; raw as it is when res
// hides and masks nothing.
func (res *Resource) RedactJSON(raw []byte) (json.RawMessage, error) {
	if len(res.Hidden) == 0 && len(res.Masks) == 0 {
		return raw, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(res.Redact(v))
}

// Redacted is what a value its reader may not read becomes in a list
// query an audit entry recorded (RedactQuery).
const Redacted = "[redacted]"

// RedactQuery is raw, a list query string of res that an audit entry
// recorded (an export's), as res's role may read it. The value of a
// parameter becomes Redacted when it may hold a value of a column that
// role may not read (hidden, restricted or masked; secret adds more):
//   - a filter on such a column, in every spelling the list's parser
//     reads (query.FilterColumn: pin, pin_eq, pin_ne, pin_like, pin_in,
//     a JSON column's pin_key, the name percent-encoded). A masked
//     column's value is redacted too, not masked: a filter value is a
//     guess, a pattern or a list, which a mask made for one stored value
//     does not read;
//   - _q, when the columns it searches (the resource's search as an
//     admin runs it: Config.Search, or every text column) hold such a
//     column, or searched says it searched more that the role may not
//     read (the audit log's _q also finds users by their own search);
//   - _cursor, which holds a row's values, when the role may not read
//     some column of res;
//   - a parameter the parser would not have read as written (a bad
//     escape, a semicolon) or that names no column today (it may have
//     named one since renamed).
//
// Names, sorts, windows, the parameters in own (the caller's own, which
// hold no row values: the users list's _banned) and their order stay.
func (res *Resource) RedactQuery(raw string, secret map[string]bool, searched bool, own ...string) string {
	hides := func(c string) bool { return res.Hidden[c] || res.Restricted[c] || secret[c] }
	parts := strings.Split(raw, "&")
	changed := false
	for i, part := range parts {
		rawName, value, _ := strings.Cut(part, "=")
		if value == "" {
			continue // nothing to read
		}
		name, err := url.QueryUnescape(rawName)
		redact := false
		switch {
		case err != nil || strings.Contains(part, ";"):
			redact = true // the list ignored it: not a value it typed, or one we can place
		case name == "_q":
			redact = searched || res.searches(hides)
		case name == "_cursor":
			redact = len(res.Restricted) > 0 || len(secret) > 0
		case query.Reserved(name) || slices.Contains(own, name):
		default:
			c, _, ok := query.FilterColumn(res.Table, name)
			redact = !ok || hides(c.Name)
		}
		if redact {
			parts[i] = rawName + "=" + Redacted
			changed = true
		}
	}
	if !changed {
		return raw
	}
	return strings.Join(parts, "&")
}

// SearchesRestricted reports whether the list's _q on res, as an admin
// runs it, searches a column res's role may not read: that role cannot
// be shown what such a search was for.
func (res *Resource) SearchesRestricted() bool {
	return res.searches(func(c string) bool { return res.Restricted[c] })
}

// searches reports whether the list's _q on res, as an admin runs it
// (Config.Search, or when it names no column every text column, never a
// column its config hides), searches a column hides holds.
func (res *Resource) searches(hides func(col string) bool) bool {
	var names []string
	for _, n := range res.Config.Search {
		if res.Table.ByName[n] != nil && !res.Config.Columns[n].Hidden {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		for _, c := range res.Table.Columns {
			if c.DataType == schema.String && !res.Config.Columns[c.Name].Hidden {
				names = append(names, c.Name)
			}
		}
	}
	return slices.ContainsFunc(names, hides)
}

// OutOfScope is payload, an audit entry's about a resource its reader
// may neither list nor read, as that reader sees it: nothing of the
// resource (rows, changes, an export's query and count, an action's
// arguments and result, the request's address), only "_redacted" saying
// why; a null payload stays null. The entry's other columns (who, what,
// when, the resource's key and the row's id) are the log's own.
func OutOfScope(payload any) any {
	if payload == nil {
		return nil
	}
	if m, ok := payload.(json.RawMessage); ok && (len(m) == 0 || string(m) == "null") {
		return nil
	}
	return map[string]any{"_redacted": "about a resource you may not read"}
}

// PayloadMap is an audit payload as a map, decoded when it is still the
// stored JSON.
func PayloadMap(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case json.RawMessage:
		// UseNumber: a 64-bit id in a payload (a Steam id) stays the
		// number it was; a float64 would round it to a neighbour's.
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(x))
		dec.UseNumber()
		return m, dec.Decode(&m) == nil && m != nil
	}
	return nil, false
}

// Answer is a row as stored (Store's, a read by id's) as the caller's
// role may see it: the columns it may not read left out (with their
// notes in _invalid), the masked ones through their masks. The read by
// id and the create, update, delete, restore and revert answers all go
// through it; their audit entries, written before, keep the values.
func (res *Resource) Answer(row map[string]any) map[string]any {
	if row != nil {
		res.Unreadable(row)
		res.Mask([]map[string]any{row})
	}
	return row
}

// Unreadable takes out of row, a row as stored, the columns res's role
// may not read at all (restricted without a mask), and their notes in
// _invalid: row as a read of res.Hidden's columns gives it.
func (res *Resource) Unreadable(row map[string]any) {
	for c := range res.Restricted {
		if res.Masks[c] != nil {
			continue
		}
		delete(row, c)
		if issues, ok := row[query.InvalidKey].(query.CellIssues); ok {
			delete(issues, c)
			if len(issues) == 0 {
				delete(row, query.InvalidKey)
			}
		}
	}
}

// SearchColumns are the columns _q searches for res as its role sees it,
// for every search of it (its list, and the audit log's search for its
// users): the configured ones (Search) or else its text columns, none
// that role may not read. nil means every text column of the view.
func (res *Resource) SearchColumns() []*schema.Column {
	var l []*schema.Column
	for _, name := range res.Config.Search {
		if c := res.View.ByName[name]; c != nil {
			l = append(l, c)
		}
	}
	return res.Searchable(l)
}

// Searchable are the columns of l (nil: the text ones) that res's role
// may read.
func (res *Resource) Searchable(l []*schema.Column) []*schema.Column {
	if len(res.Restricted) == 0 {
		return l
	}
	if l == nil {
		for _, c := range res.View.Columns {
			if c.DataType == schema.String {
				l = append(l, c)
			}
		}
	}
	out := []*schema.Column{}
	for _, c := range l {
		if !res.Restricted[c.Name] {
			out = append(out, c)
		}
	}
	return out
}
