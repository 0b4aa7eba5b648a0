package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// roleStore reads and writes the roles table, for Auth (bootstrap),
// Moderation and the panel's writes to users and roles rows.
type roleStore struct {
	tableNames
	users *userTable
}

// adminExists reports whether any user is an admin.
func (rs roleStore) adminExists(ctx context.Context, db bun.IDB) (bool, error) {
	return db.NewSelect().TableExpr("?", rs.tbl("roles")).Where("role = ?", RoleAdmin).Exists(ctx)
}

// guardAdmins serializes the transactions that can remove an admin with
// each other and with bootstrap (PostgreSQL; SQLite has one writer), so
// two admins removing each other at once cannot both succeed. The check
// it returns, run after the write, refuses it when it took away the last
// admin (a change on a database that had none yet is not refused).
func (rs roleStore) guardAdmins(ctx context.Context, tx bun.Tx) (check func() error, err error) {
	if tx.Dialect().Name() == dialect.PG {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", bootstrapLockID); err != nil {
			return nil, err
		}
	}
	had, err := rs.adminExists(ctx, tx)
	if err != nil {
		return nil, err
	}
	return func() error {
		if !had {
			return nil
		}
		left, err := rs.adminExists(ctx, tx)
		if err != nil {
			return err
		}
		if !left {
			return ErrLastAdmin
		}
		return nil
	}, nil
}

// lockRole makes sure userID has a roles row and reads it locked until the
// transaction ends, so concurrent changes on several nodes do not lose
// each other's scopes and each audit entry's "before" is true.
func (rs roleStore) lockRole(ctx context.Context, tx bun.Tx, userID string) (RoleAssignment, error) {
	if _, err := tx.NewInsert().Model(&RoleAssignment{UserID: userID, Role: RoleUser, Scopes: []string{}, UpdatedAt: time.Now().UTC()}).ModelTableExpr("?", rs.tbl("roles")).
		On("CONFLICT (user_id) DO NOTHING").Exec(ctx); err != nil {
		return RoleAssignment{}, err
	}
	var ra RoleAssignment
	q := tx.NewSelect().Model(&ra).ModelTableExpr("?", rs.aliased("roles", "r")).Where("user_id = ?", userID)
	if tx.Dialect().Name() == dialect.PG {
		q = q.For("UPDATE")
	}
	return ra, q.Scan(ctx)
}

func (rs roleStore) userExists(ctx context.Context, db bun.IDB, userID string) error {
	if _, err := rs.users.accountByID(ctx, db, userID); err != nil {
		return fmt.Errorf("admin: user %q: %w", userID, err)
	}
	return nil
}

func (rs roleStore) upsertRole(ctx context.Context, db bun.IDB, userID string, role Role) error {
	_, err := db.NewInsert().Model(&RoleAssignment{UserID: userID, Role: role, Scopes: []string{}, UpdatedAt: time.Now().UTC()}).ModelTableExpr("?", rs.tbl("roles")).
		On("CONFLICT (user_id) DO UPDATE").Set("role = EXCLUDED.role").Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return err
}

// userRole is the target's current role, read through db (a transaction
// when the caller holds one); 404 when there is no such user.
func (rs roleStore) userRole(ctx context.Context, db bun.IDB, userID string) (Role, error) {
	if _, err := rs.users.accountByID(ctx, db, userID); err != nil {
		if errors.Is(err, ErrNotFound) {
			return "", errorf(http.StatusNotFound, "not_found", "no such user")
		}
		return "", err
	}
	var role sql.NullString
	err := db.NewSelect().TableExpr("?", rs.tbl("roles")).Column("role").Where("user_id = ?", userID).Scan(ctx, &role)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	if r := Role(role.String); role.Valid && r.Valid() {
		return r, nil
	}
	return RoleUser, nil
}

// addOperatorRoles sets row["_role"] ("admin" or "mod") on the users rows
// of operators, for an operator below admin: the UI hides the edits and
// moderation the hierarchy (canWriteUser) would refuse them, instead of
// offering a form that ends in a 403. Players' rows get none; an admin,
// who may change every account, is spared the query.
func (a usersAPI) addOperatorRoles(ctx context.Context, op Operator, res *resource, rows []map[string]any) error {
	if res.key != "users" || op.Role == RoleAdmin || len(rows) == 0 {
		return nil
	}
	ids := make([]string, 0, len(rows))
	for _, row := range rows {
		if id, ok := row[a.users.cols.ID]; ok && id != nil {
			ids = append(ids, fmt.Sprint(id))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var found []struct {
		UserID string `bun:"user_id"`
		Role   Role   `bun:"role"`
	}
	err := a.db.NewSelect().TableExpr("? AS r", a.tbl("roles")).ColumnExpr("CAST(r.user_id AS TEXT) AS user_id, r.role").
		Where("r.user_id IN (?) AND r.role IN (?)", bun.List(ids), bun.List([]Role{RoleAdmin, RoleMod})).Scan(ctx, &found)
	if err != nil {
		return fmt.Errorf("admin: operators' roles: %w", err)
	}
	roles := make(map[string]Role, len(found))
	for _, f := range found {
		roles[f.UserID] = f.Role
	}
	for _, row := range rows {
		if role, ok := roles[fmt.Sprint(row[a.users.cols.ID])]; ok {
			row["_role"] = role
		}
	}
	return nil
}

// canWriteUser applies the hierarchy to every write on a users row
// (update, delete, custom actions, moderation): whatever a resource policy
// allows, only an admin touches an operator's account. Otherwise a mod with
// the users scope could set an admin's email to their own, request a reset
// and sign in as the admin. It returns the target's role.
func (rs roleStore) canWriteUser(ctx context.Context, db bun.IDB, op Operator, userID string) (Role, error) {
	role, err := rs.userRole(ctx, db, userID)
	if err != nil {
		return "", err
	}
	if op.Role != RoleAdmin && role.IsOperator() {
		return "", errorf(http.StatusForbidden, "forbidden", "only an admin can change an operator's account")
	}
	return role, nil
}
