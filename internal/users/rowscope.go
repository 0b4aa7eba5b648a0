package users

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

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
	_, err := db.NewInsert().Model(&RowScope{UserID: userID, Values: values, UpdatedAt: time.Now().UTC()}).ModelTableExpr("?", bun.Ident(rs.RowScopes)).
		On("CONFLICT (user_id) DO UPDATE").Set("scope_values = EXCLUDED.scope_values").Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return err
}
