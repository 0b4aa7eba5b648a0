// Package authz is who may do what: the role hierarchy admin > mod > user,
// the five resource operations, the policies a resource declares, the
// standard rule that applies where it declares none, and the operator a
// request acts as. It imports nothing of the panel.
package authz

import (
	"context"
	"fmt"
	"slices"
)

// Role is an operator's place in the hierarchy admin > mod > user.
type Role string

// The three roles. A user with no row in the roles table has RoleUser.
const (
	RoleAdmin Role = "admin"
	RoleMod   Role = "mod"
	RoleUser  Role = "user"
)

func (r Role) rank() int {
	switch r {
	case RoleAdmin:
		return 3
	case RoleMod:
		return 2
	case RoleUser:
		return 1
	}
	return 0
}

// Valid reports whether r is admin, mod or user.
func (r Role) Valid() bool { return r.rank() > 0 }

// AtLeast reports whether r is min or above it in the hierarchy.
func (r Role) AtLeast(min Role) bool { return r.Valid() && r.rank() >= min.rank() }

// IsOperator reports whether r may open the panel (admin or mod).
func (r Role) IsOperator() bool { return r.AtLeast(RoleMod) }

// MayChangeAccountOf reports whether an operator of role r may change
// (write, ban, unban, revoke) the account of a user whose role is
// target: only an admin changes an operator's account.
func (r Role) MayChangeAccountOf(target Role) bool {
	return r == RoleAdmin || !target.IsOperator()
}

// ChangesAccountsOf are the roles whose accounts r may change
// (MayChangeAccountOf), highest first: what GET /auth/me tells the UI.
func (r Role) ChangesAccountsOf() []Role {
	var out []Role
	for _, t := range []Role{RoleAdmin, RoleMod, RoleUser} {
		if r.MayChangeAccountOf(t) {
			out = append(out, t)
		}
	}
	return out
}

// Op is one of the five resource operations a policy governs.
type Op string

// The resource operations.
const (
	OpList   Op = "list"
	OpRead   Op = "read"
	OpCreate Op = "create"
	OpUpdate Op = "update"
	OpDelete Op = "delete"
)

// Valid reports whether a is one of the five operations.
func (a Op) Valid() bool {
	switch a {
	case OpList, OpRead, OpCreate, OpUpdate, OpDelete:
		return true
	}
	return false
}

// RolesResource is the key of the built-in roles table, always blocked for mods.
const RolesResource = "roles"

// Standard is the standard RBAC rule: admin may do
// everything; a mod may list, read and update the resources in its scopes,
// never the roles table; a plain user may list and read when
// playersCanRead is set (Options.PlayersCanRead), else nothing.
func Standard(op Operator, action Op, resource string, playersCanRead bool) bool {
	switch op.Role {
	case RoleAdmin:
		return true
	case RoleMod:
		if resource == RolesResource {
			return false
		}
		if action != OpList && action != OpRead && action != OpUpdate {
			return false
		}
		return slices.Contains(op.Scopes, resource)
	case RoleUser:
		return playersCanRead && (action == OpList || action == OpRead)
	}
	return false
}

// Policy overrides the standard rule for one action on one resource. The zero
// value means "no policy": the standard rule applies. Build one with Roles,
// or use Everyone() or Deny().
type Policy struct {
	kind  policyKind
	roles []Role
}

type policyKind uint8

const (
	policyUnset policyKind = iota
	policyRoles
	policyEveryone
	policyDeny
)

// Everyone lets every signed-in role through: admins and mods, and plain
// users too with Options.PlayersCanRead. Anonymous requests still get 401.
func Everyone() Policy { return Policy{kind: policyEveryone} }

// Deny blocks the action entirely, for admins too.
func Deny() Policy { return Policy{kind: policyDeny} }

// Roles lets exactly the listed roles through, whatever their scopes. The list
// is literal: admin is not implied.
func Roles(roles ...Role) Policy {
	for _, r := range roles {
		if !r.Valid() {
			panic(fmt.Sprintf("admin: Roles: invalid role %q", r))
		}
	}
	return Policy{kind: policyRoles, roles: slices.Clone(roles)}
}

// IsSet reports whether p is a policy rather than the zero value.
func (p Policy) IsSet() bool { return p.kind != policyUnset }

// Allows reports whether role passes a set policy.
func (p Policy) Allows(role Role, playersCanRead bool) bool {
	switch p.kind {
	case policyEveryone:
		return role.Valid() && (playersCanRead || role.IsOperator())
	case policyRoles:
		return slices.Contains(p.roles, role)
	}
	return false
}

// String describes p for logs and tests.
func (p Policy) String() string {
	switch p.kind {
	case policyEveryone:
		return "everyone"
	case policyDeny:
		return "deny"
	case policyRoles:
		return fmt.Sprint(p.roles)
	}
	return "standard"
}

// Policies maps each resource operation to a Policy; unset fields fall back to
// the standard rule.
type Policies struct {
	List, Read, Create, Update, Delete Policy
}

// ForOp is the policy of one operation.
func (p Policies) ForOp(a Op) Policy {
	switch a {
	case OpList:
		return p.List
	case OpRead:
		return p.Read
	case OpCreate:
		return p.Create
	case OpUpdate:
		return p.Update
	case OpDelete:
		return p.Delete
	}
	return Policy{}
}

// Operator is the signed-in identity of a request, read live from the
// database: its role and, for mods, the resource keys in its scopes.
type Operator struct {
	UserID string   `json:"userId"`
	Role   Role     `json:"role"`
	Scopes []string `json:"scopes"`
	// Rows, for a mod, are the values of each resource's ScopeColumn
	// whose rows the mod may see and touch; nil leaves the mod unscoped to
	// rows (every row of the resources in Scopes). Admins ignore it.
	Rows []string `json:"rows,omitempty"`
}

// RowScoped reports whether op sees only the rows whose scope column
// holds one of op.Rows: a mod with a row scope (an empty one sees none).
func (op Operator) RowScoped() bool { return op.Role == RoleMod && op.Rows != nil }

type operatorKey struct{}

// From returns the operator a guarded route or an endpoint put on ctx.
func From(ctx context.Context) (Operator, bool) {
	op, ok := ctx.Value(operatorKey{}).(Operator)
	return op, ok
}

// With puts op on ctx.
func With(ctx context.Context, op Operator) context.Context {
	return context.WithValue(ctx, operatorKey{}, op)
}
