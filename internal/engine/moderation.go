package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
)

// Moderation manages roles and mod scopes. Changes apply on the
// operator's next request: roles are read live, never from the cookie.
// Bans and revocations are Auth's (sanctions.go).
type Moderation struct {
	db        *bun.DB
	roles     *users.RoleTable
	audit     *Audit
	resources map[string]*resource // the panel's tables and their policies
	// state reads a user's live role and scopes.
	state          func(ctx context.Context, userID string) (int64, Operator, error)
	playersCanRead bool // Options.PlayersCanRead
	log            *slog.Logger
}

// SetRole gives userID the role, keeping any mod scopes on record. A
// "role.set" audit entry by the operator on ctx (OperatorFrom; none when
// the game calls it) is written in the same transaction. Demoting the
// last admin fails (409 last_admin over HTTP): with no admin, bootstrap
// would open again to anyone.
func (m *Moderation) SetRole(ctx context.Context, userID string, role Role) error {
	if !role.Valid() {
		return fmt.Errorf("%w: %q", ErrInvalidRole, role)
	}
	return m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := m.roles.UserExists(ctx, tx, userID); err != nil {
			return err
		}
		keepsAdmin, err := m.roles.GuardAdmins(ctx, tx)
		if err != nil {
			return err
		}
		ra, err := m.roles.LockRole(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := m.roles.UpsertRole(ctx, tx, userID, role); err != nil {
			return err
		}
		if err := keepsAdmin(); err != nil {
			return err
		}
		op, _ := OperatorFrom(ctx)
		return m.audit.RecordTx(ctx, tx, AuditEntry{OperatorID: op.UserID, Action: "role.set", Resource: "roles", TargetID: userID,
			Payload: map[string]any{"changes": map[string]any{"role": map[string]any{"before": ra.Role, "after": role}}}})
	})
}

// touchesAdmins reports whether a write to res can take away an admin:
// deleting a user (its role goes with it) or a roles row, or editing one.
func touchesAdmins(res *resource) bool {
	return res.key == "users" || res.key == "roles"
}

// AssignMod adds resource (a canonical key such as "guilds" or "rooms") to
// the user's mod scopes, promoting a plain user to mod. An admin keeps its
// role. A "role.assign_mod" audit entry by the operator on ctx is written in
// the same transaction.
func (m *Moderation) AssignMod(ctx context.Context, userID, resource string) error {
	return m.changeScopes(ctx, userID, resource, true)
}

// UnassignMod removes resource from the user's mod scopes. It never demotes:
// a mod with no scopes left is still a mod and can open the panel. A
// "role.unassign_mod" audit entry by the operator on ctx is written in the
// same transaction.
func (m *Moderation) UnassignMod(ctx context.Context, userID, resource string) error {
	return m.changeScopes(ctx, userID, resource, false)
}

func (m *Moderation) changeScopes(ctx context.Context, userID, resource string, add bool) error {
	if !m.isResourceKey(resource) {
		return fmt.Errorf("%w: %q", ErrUnknownResource, resource)
	}
	return m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := m.roles.UserExists(ctx, tx, userID); err != nil {
			return err
		}
		ra, err := m.roles.LockRole(ctx, tx, userID)
		if err != nil {
			return err
		}
		before := RoleAssignment{Role: ra.Role, Scopes: slices.Clone(ra.Scopes)}
		if add {
			if ra.Role == RoleUser {
				ra.Role = RoleMod
			}
			if !slices.Contains(ra.Scopes, resource) {
				ra.Scopes = append(ra.Scopes, resource)
			}
		} else {
			ra.Scopes = slices.DeleteFunc(ra.Scopes, func(s string) bool { return s == resource })
		}
		if ra.Scopes == nil {
			ra.Scopes = []string{}
		}
		ra.UpdatedAt = time.Now().UTC()
		if err := m.roles.SaveRole(ctx, tx, &ra); err != nil {
			return err
		}
		action := "role.unassign_mod"
		if add {
			action = "role.assign_mod"
		}
		changes := audit.Changes(map[string]any{"role": before.Role, "scopes": before.Scopes}, map[string]any{"role": ra.Role, "scopes": ra.Scopes})
		op, _ := OperatorFrom(ctx)
		return m.audit.RecordTx(ctx, tx, AuditEntry{OperatorID: op.UserID, Action: action, Resource: "roles", TargetID: userID,
			Payload: map[string]any{"scope": resource, "changes": changes}})
	})
}

// Role returns the user's current role and scopes, or ErrNotFound.
func (m *Moderation) Role(ctx context.Context, userID string) (Operator, error) {
	_, op, err := m.state(ctx, userID)
	return op, err
}

// Can reports whether userID may perform action on resource right now, by
// the resource's policy for that action or else the standard rule: admin
// everything; mod list, read and update on its scoped resources, never
// roles; user nothing (list and read with Options.PlayersCanRead).
func (m *Moderation) Can(ctx context.Context, userID string, action Op, resource string) (bool, error) {
	if !action.Valid() {
		return false, fmt.Errorf("admin: Can: unknown action %q", action)
	}
	op, err := m.Role(ctx, userID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return m.allowed(op, action, resource), nil
}

// allowed applies a resource's policy for the action, or the standard rule.
func (m *Moderation) allowed(op Operator, action Op, resource string) bool {
	if p := m.policies(resource).ForOp(action); p.IsSet() {
		return p.Allows(op.Role, m.playersCanRead)
	}
	return authz.Standard(op, action, resource, m.playersCanRead)
}

// allowed is Moderation.allowed, for the panel's endpoints.
func (a *Admin) allowed(op Operator, action Op, resource string) bool {
	return a.moderation.allowed(op, action, resource)
}

// auditPolicies make the audit log admin-only to read and append-only.
var auditPolicies = Policies{
	List: Roles(RoleAdmin), Read: Roles(RoleAdmin),
	Create: Deny(), Update: Deny(), Delete: Deny(),
}

// policies returns the policies declared for a resource.
func (m *Moderation) policies(resource string) Policies {
	if r, ok := m.resources[resource]; ok {
		return r.cfg.Policies
	}
	return Policies{}
}

// isResourceKey reports whether key names a table of the panel or "rooms".
func (m *Moderation) isResourceKey(key string) bool {
	if key == "rooms" {
		return true
	}
	_, ok := m.resources[key]
	return ok
}
