package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gameadmin/admin/internal/schema"
)

// Field visibility per role: a column whose ColumnConfig.ReadRole is above
// an operator's role is, for that operator, as if it were Hidden: absent
// from rows, forms, the catalog, CSV exports, labels and search, refused
// in filters and sorts (403) and in bodies, and taken out of the audit
// entries (history, audit log) of its resource. Each such resource has a
// variant per lower role, built once at New: every path that reads a
// resource for an operator asks resourceAs for it.

// buildRoleViews makes the variants of the resources that restrict a
// column to a role.
func (a *compiler) buildRoleViews() error {
	a.roleViews = map[string]map[Role]*resource{}
	for _, key := range a.order {
		res := a.resources[key]
		for col, cc := range res.cfg.Columns {
			if cc.ReadRole != "" && !cc.ReadRole.Valid() {
				return fmt.Errorf("admin: resource %q: Columns[%q].ReadRole: %q is no role (admin, mod, user)", key, col, cc.ReadRole)
			}
		}
		for _, role := range []Role{RoleMod, RoleUser} {
			restricted := map[string]bool{}
			for col, cc := range res.cfg.Columns {
				if cc.ReadRole != "" && !role.AtLeast(cc.ReadRole) && !res.hidden[col] {
					restricted[col] = true
				}
			}
			if len(restricted) == 0 {
				continue
			}
			v := *res
			v.hidden = make(map[string]bool, len(res.hidden)+len(restricted))
			for c := range res.hidden {
				v.hidden[c] = true
			}
			v.masks = map[string]func(any) any{}
			for c := range restricted {
				if m := res.cfg.Columns[c].Mask; m != nil {
					v.masks[c] = m
				} else {
					v.hidden[c] = true
				}
			}
			v.restricted = restricted
			v.view = visible(res.table, v.hidden)
			// A masked column names no row: a label is read unmasked, in SQL.
			v.labels = slices.DeleteFunc((*Admin)(a).labelsOf(key, v.view), func(c string) bool { return restricted[c] })
			if a.roleViews[key] == nil {
				a.roleViews[key] = map[Role]*resource{}
			}
			a.roleViews[key][role] = &v
		}
	}
	return nil
}

// resourceAs is the resource key as op sees it: its role's variant when
// the resource restricts columns, else the resource; nil when there is
// none.
func (a *Admin) resourceAs(op Operator, key string) *resource {
	if v := a.roleViews[key][op.Role]; v != nil {
		return v
	}
	if op.Role != RoleAdmin && op.Role != RoleMod {
		if v := a.roleViews[key][RoleUser]; v != nil {
			return v // any other role ranks as a user
		}
	}
	return a.resources[key]
}

// refuseRestricted answers 403 for a list parameter naming a column op may
// not read: a filter (<col>_<op>), a sort, or the column alone.
func (res *resource) refuseRestricted(q url.Values) error {
	if len(res.restricted) == 0 {
		return nil
	}
	if col := namedColumn(q, res.table, res.restricted); col != "" {
		return errorf(http.StatusForbidden, "forbidden", "column %q is not readable for your role", col)
	}
	return nil
}

// namedColumn is the first of cols of t that a list parameter of q
// names: a filter (<col>_<op>), a sort, or the column alone; "" if none.
func namedColumn(q url.Values, t *schema.Table, cols map[string]bool) string {
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

// redactRestricted takes the columns op may not read out of audit rows'
// payloads, each by its own resource's variant: the changes' before and
// after masked or left out, and the rest of the payload (a row, an
// invite's email, an action's args and result) through redact.
func (a *Admin) redactRestricted(op Operator, rows []map[string]any) {
	if len(a.roleViews) == 0 {
		return
	}
	for _, row := range rows {
		key, _ := row["resource"].(string)
		v := (*Admin)(a).resourceAs(op, key)
		if v == nil || len(v.restricted) == 0 {
			continue
		}
		p, ok := payloadMap(row["payload"])
		if !ok {
			continue
		}
		changes, isChanges := p["changes"].(map[string]any)
		if isChanges {
			delete(p, "changes")
			for col := range v.restricted {
				ch, _ := changes[col].(map[string]any)
				if mask := v.masks[col]; mask != nil && ch != nil {
					changes[col] = map[string]any{"before": maskValue(mask, ch["before"]), "after": maskValue(mask, ch["after"])}
				} else {
					delete(changes, col)
				}
			}
		}
		v.redact(p)
		if isChanges {
			p["changes"] = changes
		}
		row["payload"] = p
	}
}

// restrictsColumns reports whether op's role may not read some column of
// some resource: the audit log's payloads then hold values op may not
// read.
func (a *Admin) restrictsColumns(op Operator) bool {
	for _, key := range a.order {
		if v := a.resourceAs(op, key); v != nil && len(v.restricted) > 0 {
			return true
		}
	}
	return false
}

// redact shows v, a value the panel did not read itself (an action's
// result, a widget's rows, an audit payload) as res's role may see it:
// in every object, at any depth, a key naming a column that role reads
// masked is masked, and one naming a column it may not read at all
// (Hidden, or restricted without a mask) is left out. Rows name their
// columns so; a value kept under another name is the game's to keep.
func (res *resource) redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch {
			case res.masks[k] != nil:
				x[k] = maskValue(res.masks[k], e)
			case res.hidden[k]:
				delete(x, k)
			default:
				x[k] = res.redact(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = res.redact(e)
		}
	}
	return v
}

// redactJSON is redact of raw, JSON, as JSON again; raw as it is when res
// hides and masks nothing.
func (res *resource) redactJSON(raw []byte) (json.RawMessage, error) {
	if len(res.hidden) == 0 && len(res.masks) == 0 {
		return raw, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(res.redact(v))
}

// payloadMap is an audit payload as a map, decoded when it is still the
// stored JSON.
func payloadMap(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case json.RawMessage:
		var m map[string]any
		return m, json.Unmarshal(x, &m) == nil && m != nil
	}
	return nil, false
}

// mask shows the masked columns of rows through their masks.
func (res *resource) mask(rows []map[string]any) {
	if len(res.masks) == 0 {
		return
	}
	for _, row := range rows {
		for col, m := range res.masks {
			if v, ok := row[col]; ok {
				row[col] = maskValue(m, v)
			}
		}
	}
}

// answer is a row a write returned, as the caller's role may see it:
// masked columns through their masks (hidden ones were never read). The
// create, update, delete and revert answers all go through it; their
// audit entries, written before, keep the values.
func (res *resource) answer(row map[string]any) map[string]any {
	if row != nil {
		res.mask([]map[string]any{row})
	}
	return row
}

// maskValue is v through m; NULL stays NULL.
func maskValue(m func(any) any, v any) any {
	if v == nil {
		return nil
	}
	return m(v)
}

// searchColumns are the columns _q searches for res as its role sees it,
// for every search of it (its list, and the audit log's search for its
// users): the configured ones (Search) or else its text columns, none
// that role may not read. nil means every text column of the view.
func (res *resource) searchColumns() []*schema.Column {
	var l []*schema.Column
	for _, name := range res.cfg.Search {
		if c := res.view.ByName[name]; c != nil {
			l = append(l, c)
		}
	}
	return res.searchable(l)
}

// searchable are the columns of l (nil: the text ones) that res's role
// may read.
func (res *resource) searchable(l []*schema.Column) []*schema.Column {
	if len(res.restricted) == 0 {
		return l
	}
	if l == nil {
		for _, c := range res.view.Columns {
			if c.DataType == schema.String {
				l = append(l, c)
			}
		}
	}
	out := []*schema.Column{}
	for _, c := range l {
		if !res.restricted[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// MaskEmail shows an email as its first letter and its domain:
// "alice@example.com" reads "a***@example.com". Anything else reads "***".
func MaskEmail(v any) any {
	s, ok := v.(string)
	at := strings.LastIndexByte(s, '@')
	if !ok || at < 1 {
		return "***"
	}
	return s[:1] + "***" + s[at:]
}
