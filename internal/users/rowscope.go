package users

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"github.com/gameadmin/admin/internal/sqldialect"
	"net/http"
	"time"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/uptrace/bun"
)

// RowScope is a row of the row_scopes table: the values of the
// resources' ScopeColumn whose rows the mod UserID sees and touches
// (authz.Operator.Rows). A user without a row is unscoped to rows.
type RowScope struct {
	bun.BaseModel `bun:"table:game_row_scopes,alias:rsc"`

	UserID    string    `bun:"user_id,pk" json:"user_id"`
	Values    []string  `bun:"scope_values,notnull" json:"scope_values"`
	UpdatedAt time.Time `bun:"updated_at,notnull" json:"updated_at"`
}

// ReadRowScope is userID's row scope through db (a transaction when the
// caller holds one): nil when it has none.
func (rs *RoleTable) ReadRowScope(ctx context.Context, db bun.IDB, userID string) ([]string, error) {
	var raw []byte
	err := db.NewSelect().TableExpr("?", bun.Ident(rs.RowScopes)).Column("scope_values").Where("user_id = ?", userID).Scan(ctx, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	vals := []string{}
	return vals, json.Unmarshal(raw, &vals)
}

// WriteRowScope sets userID's row scope to values; nil deletes it.
func (rs *RoleTable) WriteRowScope(ctx context.Context, db bun.IDB, userID string, values []string) error {
	if values == nil {
		_, err := db.NewDelete().TableExpr("?", bun.Ident(rs.RowScopes)).Where("user_id = ?", userID).Exec(ctx)
		return err
	}
	_, err := sqldialect.OnConflictUpdate(db.NewInsert().Model(&RowScope{UserID: userID, Values: values, UpdatedAt: time.Now().UTC()}).ModelTableExpr("?", bun.Ident(rs.RowScopes)),
		"user_id", "scope_values", "updated_at").Exec(ctx)
	return err
}

// NoSuchUser is the answer about a user who is not there, or whom the
// operator's row scope leaves out (OutOfScope): the same status, code and
// message, so that a mod cannot tell the two apart. A new error each
// time: an answer's error may be completed on its way out.
func NoSuchUser() error { return errbody.New(http.StatusNotFound, "not_found", "no such user") }

// RowScoped reports whether op sees only some of the users: the users
// resource names a scope column (Table.Scope) and op is a mod with a row
// scope.
func (u *Table) RowScoped(op authz.Operator) bool { return u.Scope != "" && op.RowScoped() }

// WhereInScope narrows q to the rows whose idExpr (a users id, as in a
// reports or audit table: "?TableAlias.player_id") names a user op may
// see: unchanged unless RowScoped. An empty row scope matches nothing.
func (u *Table) WhereInScope(q *bun.SelectQuery, op authz.Operator, idExpr string) *bun.SelectQuery {
	if !u.RowScoped(op) {
		return q
	}
	expr, args := u.ScopeCond(op, idExpr)
	return q.Where(expr, args...)
}

// ScopeCond is the condition "idExpr names a user op may see" and its
// arguments, for a caller that combines it (WhereInScope); it holds for
// every id unless RowScoped.
func (u *Table) ScopeCond(op authz.Operator, idExpr string) (string, []any) {
	switch {
	case !u.RowScoped(op):
		return "1 = 1", nil
	case len(op.Rows) == 0:
		return "1 = 0", nil
	}
	return idExpr + " IN (SELECT ? FROM ? AS rsu WHERE ? IN (?))",
		[]any{u.Col(u.Cols.ID, "rsu"), u.Ident(), u.Col(u.Scope, "rsu"), bun.List(op.Rows)}
}

// InScope reports whether userID is a user op may see: true unless
// RowScoped; false for a user who is not there.
func (u *Table) InScope(ctx context.Context, db bun.IDB, op authz.Operator, userID string) (bool, error) {
	if !u.RowScoped(op) {
		return true, nil
	}
	if len(op.Rows) == 0 {
		return false, nil
	}
	return db.NewSelect().TableExpr("? AS u", u.Ident()).ColumnExpr("1").
		Where("? = ? AND ? IN (?)", u.Col(u.Cols.ID, "u"), userID, u.Col(u.Scope, "u"), bun.List(op.Rows)).Exists(ctx)
}

// OutOfScope is NoSuchUser when op's row scope leaves userID out
// (InScope), nil otherwise.
func (u *Table) OutOfScope(ctx context.Context, db bun.IDB, op authz.Operator, userID string) error {
	ok, err := u.InScope(ctx, db, op, userID)
	if err != nil {
		return err
	}
	if !ok {
		return NoSuchUser()
	}
	return nil
}
