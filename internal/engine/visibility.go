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

// redactRestricted takes the columns op may not read out of audit rows'
// payloads, each by its own resource's variant (RedactPayload).
func (a *Admin) redactRestricted(op Operator, entries []map[string]any) {
	if len(a.roleViews) == 0 {
		return
	}
	for _, row := range entries {
		key, _ := row["resource"].(string)
		v := (*Admin)(a).resourceAs(op, key)
		if v == nil || len(v.Restricted) == 0 {
			continue
		}
		p, ok := rows.PayloadMap(row["payload"])
		if !ok {
			continue
		}
		v.RedactPayload(p)
		row["payload"] = p
	}
}

// restrictsColumns reports whether op's role may not read some column of
// some resource: the audit log's payloads then hold values op may not
// read.
func (a *Admin) restrictsColumns(op Operator) bool {
	for _, key := range a.order {
		if v := a.resourceAs(op, key); v != nil && len(v.Restricted) > 0 {
			return true
		}
	}
	return false
}

// MaskEmail is rows.MaskEmail: an email as its first letter and its
// domain.
func MaskEmail(v any) any { return rows.MaskEmail(v) }
