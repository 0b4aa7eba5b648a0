package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Moderation manages roles and mod scopes. Changes apply on the operator's
// next request: roles are read live, never from the cookie.
type Moderation struct{ a *Admin }

// ErrUnknownResource reports a mod scope naming no resource of the panel.
var ErrUnknownResource = errors.New("admin: unknown resource")

// SetRole gives userID the role, keeping any mod scopes on record.
func (m *Moderation) SetRole(ctx context.Context, userID string, role Role) error {
	if !role.Valid() {
		return fmt.Errorf("%w: %q", ErrInvalidRole, role)
	}
	if err := m.a.userExists(ctx, userID); err != nil {
		return err
	}
	return upsertRole(ctx, m.a.db, userID, role)
}

// AssignMod adds resource (a canonical key such as "guilds" or "rooms") to
// the user's mod scopes, promoting a plain user to mod. An admin keeps its
// role.
func (m *Moderation) AssignMod(ctx context.Context, userID, resource string) error {
	return m.changeScopes(ctx, userID, resource, true)
}

// UnassignMod removes resource from the user's mod scopes. It never demotes:
// a mod with no scopes left is still a mod and can open the panel.
func (m *Moderation) UnassignMod(ctx context.Context, userID, resource string) error {
	return m.changeScopes(ctx, userID, resource, false)
}

func (m *Moderation) changeScopes(ctx context.Context, userID, resource string, add bool) error {
	if !m.a.isResourceKey(resource) {
		return fmt.Errorf("%w: %q", ErrUnknownResource, resource)
	}
	if err := m.a.userExists(ctx, userID); err != nil {
		return err
	}
	db := m.a.db
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// Make sure the row exists, then lock it, so concurrent changes on
		// several nodes do not lose each other's scopes.
		if _, err := tx.NewInsert().Model(&RoleAssignment{UserID: userID, Role: RoleUser, Scopes: []string{}, UpdatedAt: time.Now().UTC()}).
			On("CONFLICT (user_id) DO NOTHING").Exec(ctx); err != nil {
			return err
		}
		var ra RoleAssignment
		q := tx.NewSelect().Model(&ra).Where("user_id = ?", userID)
		if db.Dialect().Name() == dialect.PG {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return err
		}
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
		_, err := tx.NewUpdate().Model(&ra).Column("role", "scopes", "updated_at").WherePK().Exec(ctx)
		return err
	})
}

// Role returns the user's current role and scopes, or ErrNotFound.
func (m *Moderation) Role(ctx context.Context, userID string) (Operator, error) {
	_, op, err := m.a.sessionState(ctx, userID)
	return op, err
}

// Can reports whether userID may perform action on resource right now, by
// the resource's policy for that action or else the standard rule: admin
// everything; mod list, read and update on its scoped resources, never
// roles; user list and read (nothing with Options.OperatorsOnly).
func (m *Moderation) Can(ctx context.Context, userID string, action Op, resource string) (bool, error) {
	if !action.valid() {
		return false, fmt.Errorf("admin: Can: unknown action %q", action)
	}
	op, err := m.Role(ctx, userID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return m.a.allowed(op, action, resource), nil
}

// allowed applies a resource's policy for the action, or the standard rule.
func (a *Admin) allowed(op Operator, action Op, resource string) bool {
	if p := a.policies(resource).forOp(action); p.IsSet() {
		return p.allows(op.Role, a.opts.OperatorsOnly)
	}
	return standardCan(op, action, resource, a.opts.OperatorsOnly)
}

// auditPolicies make the audit log admin-only to read and append-only.
var auditPolicies = Policies{
	List: Roles(RoleAdmin), Read: Roles(RoleAdmin),
	Create: Deny, Update: Deny, Delete: Deny,
}

// policies returns the policies declared for a resource.
func (a *Admin) policies(resource string) Policies {
	if r, ok := a.resources[resource]; ok {
		return r.cfg.Policies
	}
	return Policies{}
}

// isResourceKey reports whether key names a table of the panel or "rooms".
func (a *Admin) isResourceKey(key string) bool {
	if key == "rooms" {
		return true
	}
	_, ok := a.opts.Tables[key]
	return ok
}

func (a *Admin) userExists(ctx context.Context, userID string) error {
	if _, err := a.users.accountByID(ctx, a.db, userID); err != nil {
		return fmt.Errorf("admin: user %q: %w", userID, err)
	}
	return nil
}

func upsertRole(ctx context.Context, db bun.IDB, userID string, role Role) error {
	_, err := db.NewInsert().Model(&RoleAssignment{UserID: userID, Role: role, Scopes: []string{}, UpdatedAt: time.Now().UTC()}).
		On("CONFLICT (user_id) DO UPDATE").Set("role = EXCLUDED.role").Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return err
}
