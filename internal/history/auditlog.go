package history

import (
	"context"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
)

// What the audit log's list adds to a generic one: its targets named by
// their rows' labels, and a search that finds a player's entries by the
// player's email or name.

// TargetLabels labels the targets of audit entries (rows of res, when
// res is the audit log), which may name a row of any resource (its
// "resource" column says which; "auth" and "roles" entries name a user):
// one query per resource on the page, keyed by the target's own column
// type so it uses its index, and only for resources op may read. A
// resource whose labels cannot be read leaves its targets as ids,
// logged: the audit log still answers.
func (h *Handler) TargetLabels(ctx context.Context, op authz.Operator, res *rows.Resource, entries []map[string]any) {
	if res.Key != "adminAudit" || res.Table.ByName["resource"] == nil || res.Table.ByName["target_id"] == nil || res.Hidden["target_id"] {
		return
	}
	byResource := map[string][]map[string]any{}
	for _, row := range entries {
		key, _ := row["resource"].(string)
		if key == "auth" || key == "roles" {
			key = "users" // both name a user by its id
		}
		if row["target_id"] != nil {
			byResource[key] = append(byResource[key], row)
		}
	}
	for key, group := range byResource {
		target := h.As(op, key)
		if target == nil || len(target.Table.PK) != 1 || len(target.Labels) == 0 || !h.Allowed(op, authz.OpRead, key) {
			continue
		}
		rel := schema.Relation{Kind: schema.One, FK: "target_id", Target: key, Ref: target.Table.PK[0].Name}
		if err := h.Labels(ctx, rel, target, group); err != nil {
			h.Log.WarnContext(ctx, "admin: audit target labels", "resource", key, "err", err)
		}
	}
}

// auditSearchLimit bounds the users an audit search looks for: a _q that
// matches more names a player too vaguely to list their history.
const auditSearchLimit = 100

// SearchUsers are the conditions that make the audit log's _q also
// find the entries about the users whose own search (the users list's _q:
// email, name) matches q: as target (of users, roles or auth entries) or
// as operator. None when op may not list users.
func (h *Handler) SearchUsers(ctx context.Context, db bun.IDB, op authz.Operator, q string) ([]query.Cond, error) {
	users := h.As(op, "users")
	if users == nil || !h.Allowed(op, authz.OpList, "users") || len(users.Table.PK) != 1 || users.Hidden[users.Table.PK[0].Name] {
		return nil, nil
	}
	// The users list's own search as op's role has it: a column it may
	// not read is no way to find anyone by it.
	l := &query.List{Q: q, Search: users.SearchColumns()}
	var ids []string
	pk := bun.Ident(users.Table.PK[0].Name)
	t := users.Table
	sel := l.ApplyFilters(query.From(db, t).ColumnExpr("CAST(?TableAlias.? AS TEXT)", pk), users.View).Limit(auditSearchLimit)
	err := query.Whole(db, sel, nil).Conn(db).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return []query.Cond{
		{Expr: "(?TableAlias.resource IN ('users', 'roles', 'auth') AND ?TableAlias.target_id IN (?))", Args: []any{bun.List(ids)}},
		{Expr: "?TableAlias.operator_id IN (?)", Args: []any{bun.List(ids)}},
	}, nil
}
