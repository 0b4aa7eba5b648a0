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

// MaskEmail is rows.MaskEmail: an email as its first letter and its
// domain.
func MaskEmail(v any) any { return rows.MaskEmail(v) }
