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

// allowed is Moderation.Allowed, for the panel's endpoints; no one
// creates, updates or deletes in a resource the panel only reads (a
// view, a table without a primary key: notWritable).
func (a *Admin) allowed(op Operator, action Op, resource string) bool {
	if notWritable(a.resources[resource]) != "" && writes(action) {
		return false
	}
	return a.moderation.Allowed(op, action, resource)
}

// writes reports whether o writes rows.
func writes(o Op) bool { return o == OpCreate || o == OpUpdate || o == OpDelete }

// notWritable says why the panel only reads res ("" when it writes it
// too, or res is nil).
func notWritable(res *resource) string {
	if res == nil {
		return ""
	}
	return res.Table.NotWritable
}

// auditPolicies make the audit log admin-only to read and append-only.
var auditPolicies = Policies{
	List: Roles(RoleAdmin), Read: Roles(RoleAdmin),
	Create: Deny(), Update: Deny(), Delete: Deny(),
}
