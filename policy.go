package admin

import (
	"context"

	"github.com/gameadmin/admin/internal/engine"
)

// Moderation manages roles and mod scopes. Changes apply on the
// operator's next request: roles are read live, never from the cookie.
// Bans and revocations are Auth's.
type Moderation struct{ e *engine.Moderation }

// SetRole gives userID the role, keeping any mod scopes on record. A
// "role.set" audit entry by the operator on ctx (OperatorFrom; none when
// the game calls it) is written in the same transaction. Demoting the
// last admin fails (409 last_admin over HTTP): with no admin, bootstrap
// would open again to anyone.
func (m *Moderation) SetRole(ctx context.Context, userID string, role Role) error {
	return m.e.SetRole(ctx, userID, role)
}

// AssignMod adds resource (a canonical key such as "guilds" or "rooms") to
// the user's mod scopes, promoting a plain user to mod. An admin keeps its
// role. A "role.assign_mod" audit entry by the operator on ctx is written in
// the same transaction.
func (m *Moderation) AssignMod(ctx context.Context, userID, resource string) error {
	return m.e.AssignMod(ctx, userID, resource)
}

// UnassignMod removes resource from the user's mod scopes. It never demotes:
// a mod with no scopes left is still a mod and can open the panel. A
// "role.unassign_mod" audit entry by the operator on ctx is written in the
// same transaction.
func (m *Moderation) UnassignMod(ctx context.Context, userID, resource string) error {
	return m.e.UnassignMod(ctx, userID, resource)
}

// SetRowScope narrows the mod userID to the rows whose scope column
// (ResourceConfig.ScopeColumn, e.g. a game_id shared by several games)
// holds one of values, on every resource that names one: the other rows
// are, for that mod, as if they did not exist (404). nil clears the row
// scope (every row of the resources in the mod's scopes); an empty list
// lets the mod see no row of such resources. Admins are never narrowed.
// A "role.set_row_scope" audit entry by the operator on ctx is written in
// the same transaction; the change applies on the mod's next request.
func (m *Moderation) SetRowScope(ctx context.Context, userID string, values []string) error {
	return m.e.SetRowScope(ctx, userID, values)
}

// Role returns the user's current role and scopes, or ErrNotFound.
func (m *Moderation) Role(ctx context.Context, userID string) (Operator, error) {
	return m.e.Role(ctx, userID)
}

// Can reports whether userID may perform action on resource right now, by
// the resource's policy for that action or else the standard rule: admin
// everything; mod list, read and update on its scoped resources, never
// roles; user nothing (list and read with Options.PlayersCanRead).
func (m *Moderation) Can(ctx context.Context, userID string, action Op, resource string) (bool, error) {
	return m.e.Can(ctx, userID, action, resource)
}

// Role is an operator's place in the hierarchy admin > mod > user.
type Role = engine.Role

const RoleAdmin = engine.RoleAdmin

const RoleMod = engine.RoleMod

const RoleUser = engine.RoleUser

// Op is one of the five resource operations a policy governs.
type Op = engine.Op

const OpList = engine.OpList

const OpRead = engine.OpRead

const OpCreate = engine.OpCreate

const OpUpdate = engine.OpUpdate

const OpDelete = engine.OpDelete

// Policy overrides the standard rule for one action on one resource. The zero
// value means "no policy": the standard rule applies. Build one with Roles,
// or use Everyone() or Deny().
type Policy = engine.Policy

// Everyone lets every signed-in role through: admins and mods, and plain
// users too with Options.PlayersCanRead. Anonymous requests still get 401.
func Everyone() Policy {
	return engine.Everyone()
}

// Deny blocks the action entirely, for admins too.
func Deny() Policy {
	return engine.Deny()
}

// Roles lets exactly the listed roles through, whatever their scopes. The list
// is literal: admin is not implied.
func Roles(roles ...Role) Policy {
	return engine.Roles(roles...)
}

// Policies maps each resource operation to a Policy; unset fields fall back to
// the standard rule.
type Policies = engine.Policies
