package users

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"

	bunschema "github.com/uptrace/bun/schema"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// RoleAssignment is a row of game_roles: a user's role and, for mods, the
// resource keys they may work on. A user without a row has RoleUser.
type RoleAssignment struct {
	bun.BaseModel `bun:"table:game_roles,alias:r"`

	UserID    string     `bun:"user_id,pk" json:"user_id"`
	Role      authz.Role `bun:"role,notnull" json:"role"`
	Scopes    []string   `bun:"scopes,notnull" json:"scopes"`
	UpdatedAt time.Time  `bun:"updated_at,notnull" json:"updated_at"`
}

// ErrLastAdmin refuses a change that would leave no admin (Moderation's
// SetRole, a delete or demotion over HTTP): bootstrap would open again
// to anyone who asks.
var ErrLastAdmin = errbody.New(http.StatusConflict, "last_admin", "the last admin cannot be removed or demoted; make another admin first")

// bootstrapLockID serializes concurrent bootstraps, and the writes that
// can remove an admin, on PostgreSQL.
const bootstrapLockID = 0x67616d6561646e

// RoleTable reads and writes the roles table, for Auth (bootstrap),
// Moderation and the panel's writes to users and roles rows.
type RoleTable struct {
	// Name is the roles table's SQL name (Options.TablePrefix + "roles").
	Name string
	// RowScopes is the row scopes table's SQL name (Options.TablePrefix +
	// "row_scopes", rowscope.go).
	RowScopes string
	// Users is the users table the roles are of.
	Users *Table
}

// ident is the quoted name of the roles table.
func (rs *RoleTable) ident() bun.Ident { return bun.Ident(rs.Name) }

// AdminExists reports whether any user is an admin.
func (rs *RoleTable) AdminExists(ctx context.Context, db bun.IDB) (bool, error) {
	return db.NewSelect().TableExpr("?", rs.ident()).Where("role = ?", authz.RoleAdmin).Exists(ctx)
}

// LockAdmins takes, on PostgreSQL, the transaction-scoped lock that
// serializes bootstraps and the writes that can remove an admin (SQLite
// has one writer). MySQL has no lock that ends with the transaction but
// row locks: the admins' roles rows, read FOR UPDATE (with InnoDB's gap
// locks where there are none yet).
func (rs *RoleTable) LockAdmins(ctx context.Context, tx bun.Tx) error {
	switch tx.Dialect().Name() {
	case dialect.PG:
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", bootstrapLockID); err != nil {
			return err
		}
	case dialect.MySQL:
		var ids []string
		if err := tx.NewSelect().TableExpr("?", rs.ident()).Column("user_id").Where("role = ?", authz.RoleAdmin).For("UPDATE").Scan(ctx, &ids); err != nil {
			return err
		}
	}
	return nil
}

// GuardAdmins serializes the transactions that can remove an admin with
// each other and with bootstrap (LockAdmins), so two admins removing each
// other at once cannot both succeed. The check it returns, run after the
// write, refuses it with ErrLastAdmin when it took away the last admin (a
// change on a database that had none yet is not refused).
func (rs *RoleTable) GuardAdmins(ctx context.Context, tx bun.Tx) (check func() error, err error) {
	if err := rs.LockAdmins(ctx, tx); err != nil {
		return nil, err
	}
	had, err := rs.AdminExists(ctx, tx)
	if err != nil {
		return nil, err
	}
	return func() error {
		if !had {
			return nil
		}
		q := tx.NewSelect().TableExpr("?", rs.ident()).Where("role = ?", authz.RoleAdmin)
		if tx.Dialect().Name() == dialect.MySQL {
			// A locking read sees what the transaction that held the
			// lock committed; a plain one, the snapshot taken before.
			q = q.For("UPDATE")
		}
		left, err := q.Exists(ctx)
		if err != nil {
			return err
		}
		if !left {
			return ErrLastAdmin
		}
		return nil
	}, nil
}

// LockRole makes sure userID has a roles row and reads it locked until the
// transaction ends, so concurrent changes on several nodes do not lose
// each other's scopes and each audit entry's "before" is true.
func (rs *RoleTable) LockRole(ctx context.Context, tx bun.Tx, userID string) (RoleAssignment, error) {
	if _, err := sqldialect.OnConflictNothing(tx.NewInsert().Model(&RoleAssignment{UserID: userID, Role: authz.RoleUser, Scopes: []string{}, UpdatedAt: time.Now().UTC()}).ModelTableExpr("?", rs.ident()),
		"user_id").Exec(ctx); err != nil {
		return RoleAssignment{}, err
	}
	var ra RoleAssignment
	q := tx.NewSelect().Model(&ra).ModelTableExpr("?", rs.aliased()).Where("user_id = ?", userID)
	if tx.Dialect().Name() == dialect.PG {
		q = q.For("UPDATE")
	}
	return ra, q.Scan(ctx)
}

// aliased is `"<roles table>" AS "r"`, the ModelTableExpr of the
// RoleAssignment model's select and update queries.
func (rs *RoleTable) aliased() bunschema.QueryWithArgs {
	return bun.SafeQuery("? AS r", bun.Ident(rs.Name))
}

// SaveRole writes ra's role, scopes and update time to its row (one
// LockRole read).
func (rs *RoleTable) SaveRole(ctx context.Context, db bun.IDB, ra *RoleAssignment) error {
	_, err := db.NewUpdate().Model(ra).ModelTableExpr("?", rs.aliased()).Column("role", "scopes", "updated_at").WherePK().Exec(ctx)
	return err
}

// UserExists is nil when userID has a users row, else ErrNotFound (or
// the database's error) naming the user.
func (rs *RoleTable) UserExists(ctx context.Context, db bun.IDB, userID string) error {
	if _, err := rs.Users.AccountByID(ctx, db, userID); err != nil {
		return fmt.Errorf("admin: user %q: %w", userID, err)
	}
	return nil
}

// UpsertRole gives userID the role, keeping the scopes of an existing row.
func (rs *RoleTable) UpsertRole(ctx context.Context, db bun.IDB, userID string, role authz.Role) error {
	_, err := sqldialect.OnConflictUpdate(db.NewInsert().Model(&RoleAssignment{UserID: userID, Role: role, Scopes: []string{}, UpdatedAt: time.Now().UTC()}).ModelTableExpr("?", rs.ident()),
		"user_id", "role", "updated_at").Exec(ctx)
	return err
}

// UserRole is the target's current role, read through db (a transaction
// when the caller holds one); 404 when there is no such user.
func (rs *RoleTable) UserRole(ctx context.Context, db bun.IDB, userID string) (authz.Role, error) {
	if _, err := rs.Users.AccountByID(ctx, db, userID); err != nil {
		if errors.Is(err, ErrNotFound) {
			return "", NoSuchUser()
		}
		return "", err
	}
	var role sql.NullString
	err := db.NewSelect().TableExpr("?", rs.ident()).Column("role").Where("user_id = ?", userID).Scan(ctx, &role)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	if r := authz.Role(role.String); role.Valid && r.Valid() {
		return r, nil
	}
	return authz.RoleUser, nil
}

// CanWriteUser applies the hierarchy to every write on a users row
// (update, delete, custom actions, moderation): whatever a resource policy
// allows, only an admin touches an operator's account. Otherwise a mod with
// the users scope could set an admin's email to their own, request a reset
// and sign in as the admin. A user the operator's row scope leaves out
// (Table.OutOfScope) is 404, as a missing one. It returns the target's
// role.
func (rs *RoleTable) CanWriteUser(ctx context.Context, db bun.IDB, op authz.Operator, userID string) (authz.Role, error) {
	role, err := rs.UserRole(ctx, db, userID)
	if err != nil {
		return "", err
	}
	// A user the operator's row scope leaves out is not there for them:
	// 404 as UserRole answers, before the hierarchy could say 403.
	if err := rs.Users.OutOfScope(ctx, db, op, userID); err != nil {
		return "", err
	}
	if !op.Role.MayChangeAccountOf(role) {
		return "", errbody.New(http.StatusForbidden, "forbidden", "only an admin can change an operator's account").WithParams("reason", "admin_only")
	}
	return role, nil
}

// OperatorRoles returns the role of each of the users ids that is an
// admin or a mod; players are absent.
func (rs *RoleTable) OperatorRoles(ctx context.Context, db bun.IDB, ids []string) (map[string]authz.Role, error) {
	var found []struct {
		UserID string     `bun:"user_id"`
		Role   authz.Role `bun:"role"`
	}
	err := db.NewSelect().TableExpr("? AS r", rs.ident()).ColumnExpr("? AS user_id, r.role", sqldialect.AsText(bun.Safe("r.user_id"))).
		Where("r.user_id IN (?) AND r.role IN (?)", bun.List(ids), bun.List([]authz.Role{authz.RoleAdmin, authz.RoleMod})).Scan(ctx, &found)
	if err != nil {
		return nil, err
	}
	roles := make(map[string]authz.Role, len(found))
	for _, f := range found {
		roles[f.UserID] = f.Role
	}
	return roles, nil
}

// HasPlayers reports whether the users table holds an account without a
// panel role (admin or mod): a player, most likely. The query stops at
// the first such row.
func (rs *RoleTable) HasPlayers(ctx context.Context, db bun.IDB) (bool, error) {
	u := rs.Users
	return db.NewSelect().TableExpr("? AS u", u.Ident()).ColumnExpr("1").
		Where("NOT EXISTS (SELECT 1 FROM ? AS r WHERE r.user_id = ? AND r.role IN ('admin', 'mod'))", rs.ident(), u.Col(u.Cols.ID, "u")).
		Limit(1).Exists(ctx)
}
