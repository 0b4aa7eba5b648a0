package engine

import "github.com/gameadmin/admin/internal/rows"

// Field visibility per role is package rows' (RoleViews, As); the
// engine keeps each resource's variants, built once at New.

// buildRoleViews makes the variants of the resources that restrict a
// column to a role.
func (a *compiler) buildRoleViews() error {
	a.roleViews = map[string]map[Role]*resource{}
	for _, key := range a.order {
		views, err := a.resources[key].RoleViews()
		if err != nil {
			return err
		}
		if views != nil {
			a.roleViews[key] = views
		}
	}
	return nil
}

// resourceAs is the resource key as op sees it: its role's variant when
// the resource restricts columns, else the resource; nil when there is
// none.
func (a *Admin) resourceAs(op Operator, key string) *resource {
	return rows.As(a.resources, a.roleViews, op, key)
}

// redactAudit is the audit log's redaction per entry: each entry as op
// may read it, by the resource it is about (auditScope).
//   - About a resource op may neither list nor read (outside a mod's
//     scopes, or denied by its policies), the payload holds nothing of
//     it (rows.OutOfScope), as the catalog, the OpenAPI document and the
//     search show nothing of it; the entry's who, what, when, resource
//     key and row id stay, and its target keeps no label (history's
//     TargetLabels names only rows op may read), nor a kick its player.
//   - About one op reads, the payload loses the columns op's role may
//     not read, by the resource's variant (RedactPayload), and an
//     export's recorded query their values (exportQuery).
//
// Entries about no resource of the panel (a game's own keys) are as the
// game wrote them.
func (a viewsAPI) redactAudit(op Operator, entries []map[string]any) {
	for _, row := range entries {
		key, _ := row["resource"].(string)
		scope := auditScope(key)
		if a.scoped(scope) && !a.readsRows(op, scope) {
			row["payload"] = rows.OutOfScope(row["payload"])
			if l, ok := row["_labels"].(map[string]string); ok {
				delete(l, "player")
			}
			continue
		}
		v := a.resourceAs(op, key)
		export := row["action"] == "export"
		if v == nil || (len(v.Restricted) == 0 && !export) {
			continue
		}
		p, ok := rows.PayloadMap(row["payload"])
		if !ok {
			continue
		}
		if q, ok := p["query"].(string); ok && export {
			p["query"] = a.exportQuery(op, v, q)
		}
		if len(v.Restricted) > 0 {
			v.RedactPayload(p)
		}
		row["payload"] = p
	}
}

// exportQuery is q, the list query an export of v recorded, as op reads
// it (rows.RedactQuery). The audit log's own export holds more that op
// may not read: its payload column, when payloads hide values from op,
// and its _q, which also finds users by the users' search (SearchUsers)
// and so may be an email op's role does not read.
func (a viewsAPI) exportQuery(op Operator, v *resource, q string) string {
	var secret map[string]bool
	searched := false
	if v.Key == "adminAudit" {
		if a.payloadsHide(op) {
			secret = map[string]bool{"payload": true}
		}
		u := a.resourceAs(op, "users")
		searched = u != nil && (!a.readsRows(op, "users") || u.SearchesRestricted())
	}
	return v.RedactQuery(q, secret, searched, bannedParam, headersParam)
}

// auditScope is the resource whose scope decides who reads an audit
// entry about key: a sign-in's (auth) and a role's entries are about a
// user, as their targets are (history's TargetLabels).
func auditScope(key string) string {
	if key == "auth" || key == "roles" {
		return "users"
	}
	return key
}

// scoped reports whether key is a resource of the panel, or its live
// rooms: what a role, a mod's scopes and the policies decide who reads.
func (a viewsAPI) scoped(key string) bool {
	return a.resources[key] != nil || (key == "rooms" && a.opts.Rooms != nil)
}

// readsRows reports whether op may list or read the rows of resource
// key: whether the catalog shows it to op.
func (a viewsAPI) readsRows(op Operator, key string) bool {
	return a.allowed(op, OpList, key) || a.allowed(op, OpRead, key)
}

// payloadsHide reports whether the audit log's payloads hold values op
// may not read: op's role may not read some column of some resource, or
// some resource (or the live rooms) is outside op's reach. Filtering or
// searching the payloads would then tell those values. The audit log's
// own entries (its exports) count only for who may read the log: a
// row's history, the one way to entries without that, never lists them.
func (a viewsAPI) payloadsHide(op Operator) bool {
	for _, key := range a.order {
		if v := a.resourceAs(op, key); v != nil && len(v.Restricted) > 0 {
			return true
		}
		if scope := auditScope(key); scope != "adminAudit" && !a.readsRows(op, scope) {
			return true
		}
	}
	return a.scoped("rooms") && !a.readsRows(op, "rooms")
}

// MaskEmail is rows.MaskEmail: an email as its first letter and its
// domain.
func MaskEmail(v any) any { return rows.MaskEmail(v) }
