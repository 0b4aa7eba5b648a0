package moderation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
)

var (
	// ErrInvalidRole reports a role other than admin, mod or user.
	ErrInvalidRole = errors.New("admin: invalid role")
	// ErrUnknownResource reports a mod scope naming no resource of the panel.
	ErrUnknownResource = errors.New("admin: unknown resource")
)

// Moderation manages roles and mod scopes. Changes apply on the
// operator's next request: roles are read live, never from the cookie.
// Bans and revocations are Auth's (Sanctions).
type Moderation struct {
	db    *bun.DB
	roles *users.RoleTable
	audit *audit.Log
	// policies are the policies declared for each resource of the panel,
	// by key.
	policies       map[string]authz.Policies
	playersCanRead bool // Options.PlayersCanRead
}

// New returns the moderation of the users and roles of roles, audited in
// log. policies holds the policies each resource of the panel declares,
// by resource key (a resource without any has the zero Policies): they
// are what Can and Allowed apply, and the keys (with "rooms") are the mod
// scopes AssignMod takes. playersCanRead is Options.PlayersCanRead.
func New(db *bun.DB, roles *users.RoleTable, log *audit.Log, policies map[string]authz.Policies, playersCanRead bool) *Moderation {
	return &Moderation{db: db, roles: roles, audit: log, policies: policies, playersCanRead: playersCanRead}
}

// SetRole gives userID the role, keeping any mod scopes on record. A
// "role.set" audit entry by the operator on ctx (OperatorFrom; none when
// the game calls it) is written in the same transaction. Demoting the
// last admin fails (409 last_admin over HTTP): with no admin, bootstrap
// would open again to anyone.
func (m *Moderation) SetRole(ctx context.Context, userID string, role authz.Role) error {
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
		op, _ := authz.From(ctx)
		return m.audit.RecordTx(ctx, tx, audit.Entry{OperatorID: op.UserID, Action: "role.set", Resource: "roles", TargetID: userID,
			Payload: map[string]any{"changes": map[string]any{"role": map[string]any{"before": ra.Role, "after": role}}}})
	})
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
		before := users.RoleAssignment{Role: ra.Role, Scopes: slices.Clone(ra.Scopes)}
		if add {
			if ra.Role == authz.RoleUser {
				ra.Role = authz.RoleMod
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
		op, _ := authz.From(ctx)
		return m.audit.RecordTx(ctx, tx, audit.Entry{OperatorID: op.UserID, Action: action, Resource: "roles", TargetID: userID,
			Payload: map[string]any{"scope": resource, "changes": changes}})
	})
}

// SetRowScope sets the values of the resources' ScopeColumn whose rows
// the mod userID may see and touch (authz.Operator.Rows); nil clears it,
// leaving the mod unscoped to rows, and an empty list lets the mod see
// none. An admin's row scope is kept on record but not applied. A
// "role.set_row_scope" audit entry by the operator on ctx is written in
// the same transaction.
func (m *Moderation) SetRowScope(ctx context.Context, userID string, values []string) error {
	if values != nil {
		values = slices.Compact(slices.Sorted(slices.Values(values)))
		if values == nil {
			values = []string{}
		}
		for _, v := range values {
			if v == "" {
				return errors.New("admin: SetRowScope: an empty value")
			}
		}
	}
	return m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := m.roles.UserExists(ctx, tx, userID); err != nil {
			return err
		}
		// The roles row, locked, serializes this change with the others
		// of the same user's role on every node.
		if _, err := m.roles.LockRole(ctx, tx, userID); err != nil {
			return err
		}
		before, err := m.roles.ReadRowScope(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := m.roles.WriteRowScope(ctx, tx, userID, values); err != nil {
			return err
		}
		op, _ := authz.From(ctx)
		return m.audit.RecordTx(ctx, tx, audit.Entry{OperatorID: op.UserID, Action: "role.set_row_scope", Resource: "roles", TargetID: userID,
			Payload: map[string]any{"changes": map[string]any{"row_scope": map[string]any{"before": before, "after": values}}}})
	})
}

// Role returns the user's current role and scopes, or users.ErrNotFound.
func (m *Moderation) Role(ctx context.Context, userID string) (authz.Operator, error) {
	_, op, err := m.roles.SessionState(ctx, m.db, userID)
	return op, err
}

// Can reports whether userID may perform action on resource right now, by
// the resource's policy for that action or else the standard rule: admin
// everything; mod list, read and update on its scoped resources, never
// roles; user nothing (list and read with Options.PlayersCanRead).
func (m *Moderation) Can(ctx context.Context, userID string, action authz.Op, resource string) (bool, error) {
	if !action.Valid() {
		return false, fmt.Errorf("admin: Can: unknown action %q", action)
	}
	op, err := m.Role(ctx, userID)
	if errors.Is(err, users.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return m.Allowed(op, action, resource), nil
}

// Allowed applies a resource's policy for the action, or the standard
// rule, to op: Can without the read of the user's role, for the panel's
// endpoints, whose operator is read already.
func (m *Moderation) Allowed(op authz.Operator, action authz.Op, resource string) bool {
	if p := m.policies[resource].ForOp(action); p.IsSet() {
		return p.Allows(op.Role, m.playersCanRead)
	}
	return authz.Standard(op, action, resource, m.playersCanRead)
}

// isResourceKey reports whether key names a table of the panel or "rooms".
func (m *Moderation) isResourceKey(key string) bool {
	if key == "rooms" {
		return true
	}
	_, ok := m.policies[key]
	return ok
}
