package engine

import (
	"context"

	"github.com/gameadmin/admin/internal/authz"
)

// The vocabulary of permissions is package authz's; these are its names
// here, and the public API's through the root's aliases.
type (
	// Role is an operator's place in the hierarchy admin > mod > user.
	Role = authz.Role
	// Op is one of the five resource operations a policy governs.
	Op = authz.Op
	// Policy overrides the standard rule for one action on one resource.
	Policy = authz.Policy
	// Policies maps each resource operation to a Policy.
	Policies = authz.Policies
	// Operator is the signed-in identity of a request.
	Operator = authz.Operator
)

// The roles and operations.
const (
	RoleAdmin = authz.RoleAdmin
	RoleMod   = authz.RoleMod
	RoleUser  = authz.RoleUser

	OpList   = authz.OpList
	OpRead   = authz.OpRead
	OpCreate = authz.OpCreate
	OpUpdate = authz.OpUpdate
	OpDelete = authz.OpDelete
)

// Everyone lets every signed-in role through: admins and mods, and plain
// users too with Options.PlayersCanRead. Anonymous requests still get 401.
func Everyone() Policy { return authz.Everyone() }

// Deny blocks the action entirely, for admins too.
func Deny() Policy { return authz.Deny() }

// Roles lets exactly the listed roles through, whatever their scopes. The list
// is literal: admin is not implied.
func Roles(roles ...Role) Policy { return authz.Roles(roles...) }

// OperatorFrom returns the operator that Guard or an admin endpoint put on ctx.
func OperatorFrom(ctx context.Context) (Operator, bool) { return authz.From(ctx) }

func withOperator(ctx context.Context, op Operator) context.Context { return authz.With(ctx, op) }
