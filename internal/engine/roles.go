package engine

import (
	"context"
	"fmt"
)

// The roles table and the last-admin rule are package users' (RoleTable);
// the panel's users list reads operators' roles through it.

// addOperatorRoles sets row["_role"] ("admin" or "mod") on the users rows
// of operators, for an operator below admin: the UI hides the edits and
// moderation the hierarchy (RoleTable.CanWriteUser) would refuse them, instead of
// offering a form that ends in a 403. Players' rows get none; an admin,
// who may change every account, is spared the query.
func (a usersAPI) addOperatorRoles(ctx context.Context, op Operator, res *resource, rows []map[string]any) error {
	if res.Key != "users" || op.Role == RoleAdmin || len(rows) == 0 {
		return nil
	}
	ids := make([]string, 0, len(rows))
	for _, row := range rows {
		if id, ok := row[a.users.Cols.ID]; ok && id != nil {
			ids = append(ids, fmt.Sprint(id))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	roles, err := a.roles.OperatorRoles(ctx, a.db, ids)
	if err != nil {
		return fmt.Errorf("admin: operators' roles: %w", err)
	}
	for _, row := range rows {
		if role, ok := roles[fmt.Sprint(row[a.users.Cols.ID])]; ok {
			row["_role"] = role
		}
	}
	return nil
}
