package users

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/uptrace/bun"
)

// SessionState is what verifying a session reads: the token version and
// the live role and scopes, in one query (SessionQuery); ErrNotFound when
// there is no such user.
func (rs *RoleTable) SessionState(ctx context.Context, db bun.IDB, userID string) (int64, authz.Operator, error) {
	var row SessionRow
	if err := rs.SessionQuery(db, userID).Scan(ctx, row.Dest()...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, authz.Operator{}, ErrNotFound
		}
		return 0, authz.Operator{}, err
	}
	return row.State(userID)
}

// LiveSession is SessionState for the session check: ErrBanned when the
// user has an active row in the bans table (UserColumns.BanTable), so a
// ban the game writes there ends their sessions at the next check.
func (rs *RoleTable) LiveSession(ctx context.Context, db bun.IDB, userID string) (int64, authz.Operator, error) {
	var row SessionRow
	if err := rs.SessionQuery(db, userID).Scan(ctx, row.Dest()...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, authz.Operator{}, ErrNotFound
		}
		return 0, authz.Operator{}, err
	}
	return row.Live(userID)
}

// ErrBanned reports that a session's user is banned by a row of the bans
// table (LiveSession, SessionRow.Live).
var ErrBanned = errors.New("admin: banned")

// SessionQuery is the session check's one statement: the role, scopes and
// token version (0 without that column) of the user whose id is id, a
// value or a placeholder (a prepared statement's), and whether an active
// row of the bans table names them (an EXISTS subquery; FALSE without a
// BanTable).
func (rs *RoleTable) SessionQuery(db bun.IDB, id any) *bun.SelectQuery {
	u := rs.Users
	q := db.NewSelect().TableExpr("? AS u", u.Ident()).
		Join("LEFT JOIN ? AS r ON r.user_id = ?", rs.ident(), u.Col(u.Cols.ID, "u")).
		Join("LEFT JOIN ? AS rs ON rs.user_id = ?", bun.Ident(rs.RowScopes), u.Col(u.Cols.ID, "u")).
		ColumnExpr("r.role").ColumnExpr("r.scopes").ColumnExpr("rs.scope_values").
		Where("? = ?", u.Col(u.Cols.ID, "u"), id)
	if u.HasTokenVersion {
		q = q.ColumnExpr("?", u.Col(u.Cols.TokenVersion, "u"))
	} else {
		q = q.ColumnExpr("0")
	}
	if u.Bans != nil {
		return q.ColumnExpr("CASE WHEN EXISTS (SELECT 1 FROM " + u.Bans.from() + " WHERE " + u.Bans.activeOf(string(u.Col(u.Cols.ID, "u"))) + ") THEN 1 ELSE 0 END")
	}
	return q.ColumnExpr("0")
}

// SessionRow is the session check's row (SessionQuery's columns): scan
// into Dest, then read it with State.
type SessionRow struct {
	role   sql.NullString
	scopes NullJSON
	rows   NullJSON
	tv     int64
	banned int64
}

// Dest are the scan destinations of SessionQuery's columns.
func (r *SessionRow) Dest() []any { return []any{&r.role, &r.scopes, &r.rows, &r.tv, &r.banned} }

// Live is State for the session check: ErrBanned when an active row of
// the bans table names the user.
func (r *SessionRow) Live(userID string) (int64, authz.Operator, error) {
	if r.banned != 0 {
		return 0, authz.Operator{}, ErrBanned
	}
	return r.State(userID)
}

// State is the row's token version and Operator: a plain user without a
// roles row or with a role this version does not know.
func (r *SessionRow) State(userID string) (int64, authz.Operator, error) {
	op := authz.Operator{UserID: userID, Role: authz.RoleUser, Scopes: []string{}}
	if r.role.Valid && authz.Role(r.role.String).Valid() {
		op.Role = authz.Role(r.role.String)
	}
	if len(r.scopes) > 0 && string(r.scopes) != "null" {
		if err := json.Unmarshal(r.scopes, &op.Scopes); err != nil {
			return r.tv, op, fmt.Errorf("admin: roles of %s: malformed scopes: %w", userID, err)
		}
	}
	if len(r.rows) > 0 && string(r.rows) != "null" {
		if err := json.Unmarshal(r.rows, &op.Rows); err != nil {
			return r.tv, op, fmt.Errorf("admin: roles of %s: malformed row scope: %w", userID, err)
		}
		if op.Rows == nil {
			op.Rows = []string{}
		}
	}
	return r.tv, op, nil
}
