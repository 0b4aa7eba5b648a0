package engine

import (
	"net/http"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/moderation"
)

// The permission check every endpoint makes (gate): the resource's
// policy or the standard rule, through package moderation's Moderation
// (roles, mod scopes), and the refusal of a write to a resource the panel
// only reads. Here too is Moderation's public name.

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
// view, a table without a primary key: notWritable), and a row-scoped
// mod reads no resource whose rows name every game's (AllRows).
func (a *Admin) allowed(op Operator, action Op, resource string) bool {
	if notWritable(a.resources[resource]) != "" && writes(action) {
		return false
	}
	if res := a.resources[resource]; res != nil && res.AllRows && op.RowScoped() {
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

// gate refuses op on res unless its policy or the standard rule allows it;
// a write the role could make, on a resource the panel only reads, is
// refused saying why.
func (a *Admin) gate(op Operator, o Op, res string) error {
	if why := notWritable(a.resources[res]); why != "" && writes(o) && a.moderation.Allowed(op, o, res) {
		return errorf(http.StatusForbidden, "read_only", "%q is read-only: %s", res, why)
	}
	if !a.allowed(op, o, res) {
		return errorf(http.StatusForbidden, "forbidden", "%s on %q is not allowed for role %q", o, res, op.Role).WithParams("reason", "permission", "op", string(o), "resource", res, "role", string(op.Role))
	}
	return nil
}
