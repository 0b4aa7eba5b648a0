package engine

import (
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/moderation"
)

// Roles, mod scopes and the sanctions on users are package moderation's;
// here are the public name of Moderation and what the panel's endpoints
// ask of it.

// Moderation manages roles and mod scopes. Changes apply on the
// operator's next request: roles are read live, never from the cookie.
// Bans and revocations are Auth's.
type Moderation = moderation.Moderation

// resourcePolicies are the policies each resource declares, by key: what
// Moderation applies, and the keys it takes as mod scopes.
func resourcePolicies(resources map[string]*resource) map[string]authz.Policies {
	out := make(map[string]authz.Policies, len(resources))
	for key, r := range resources {
		out[key] = r.Config.Policies
	}
	return out
}

// allowed is Moderation.Allowed, for the panel's endpoints.
func (a *Admin) allowed(op Operator, action Op, resource string) bool {
	return a.moderation.Allowed(op, action, resource)
}

// auditPolicies make the audit log admin-only to read and append-only.
var auditPolicies = Policies{
	List: Roles(RoleAdmin), Read: Roles(RoleAdmin),
	Create: Deny(), Update: Deny(), Delete: Deny(),
}
