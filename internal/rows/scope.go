package rows

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
)

// Row scopes: a resource may name a scope column (ResourceConfig.
// ScopeColumn, e.g. game_id in a table holding several games), and a mod
// may have a row scope (authz.Operator.Rows, the roles table's
// row_scope): the values of that column whose rows the mod sees and
// touches. Every other row of the resource is, for that mod, as if it did
// not exist: absent from lists, counts, search and exports, 404 by key.
// A resource without a scope column is not narrowed; admins never are.

// checkScopeColumn is New's check of cfg.ScopeColumn on res's table: a
// visible text or integer column.
func (res *Resource) checkScopeColumn() error {
	name := res.Config.ScopeColumn
	c, fail, err := res.configColumn("ScopeColumn", name)
	if c == nil {
		return err
	}
	if c.DataType != schema.String && c.DataType != schema.Integer {
		return fail("column %q is %s: a scope is a text or integer column", name, c.DataType)
	}
	res.scope = c
	return nil
}

// ScopeColumn is the column a mod's row scope reads (ResourceConfig.
// ScopeColumn), or nil.
func (res *Resource) ScopeColumn() *schema.Column { return res.scope }

// Scoped reports whether op sees only some of res's rows.
func (res *Resource) Scoped(op authz.Operator) bool {
	return res.scope != nil && op.RowScoped()
}

// Scope narrows q, a select of res's table under its ?TableAlias, to the
// rows op may see: unchanged unless Scoped.
func (res *Resource) Scope(q *bun.SelectQuery, op authz.Operator) *bun.SelectQuery {
	if c, ok := res.ScopeCond(op); ok {
		return q.Where(c.Expr, c.Args...)
	}
	return q
}

// InScope reports whether row, as read, is one op may see: true unless
// Scoped; its scope column compared as text.
func (res *Resource) InScope(row map[string]any, op authz.Operator) bool {
	if !res.Scoped(op) {
		return true
	}
	v, ok := row[res.scope.Name]
	if !ok || v == nil {
		return false
	}
	return slices.Contains(op.Rows, fmt.Sprint(v))
}

// outOfScope refuses a write that would put a row outside the
// operator's row scope (its scope column set to another value).
func outOfScope(col string) error {
	return errbody.Field(http.StatusForbidden, "out_of_scope", col, "outside your row scope")
}

// CheckScope refuses vals, the values a create or update writes, when
// they set res's scope column to a value op may not use.
func (res *Resource) CheckScope(vals map[string]any, op authz.Operator) error {
	if !res.Scoped(op) {
		return nil
	}
	v, ok := vals[res.scope.Name]
	if !ok {
		return nil
	}
	if v == nil || !slices.Contains(op.Rows, fmt.Sprint(v)) {
		return outOfScope(res.scope.Name)
	}
	return nil
}

// ScopeCond is the condition a list of res's rows takes for op (a
// query.List's Where: page, count and export alike): the scope column
// among op's values, none for an empty scope; ok is false when op is
// not Scoped.
func (res *Resource) ScopeCond(op authz.Operator) (c query.Cond, ok bool) {
	if !res.Scoped(op) {
		return query.Cond{}, false
	}
	if len(op.Rows) == 0 {
		return query.Cond{Expr: "1 = 0"}, true
	}
	return query.Cond{Expr: "?TableAlias.? IN (?)", Args: []any{bun.Ident(res.scope.Name), bun.List(op.Rows)}}, true
}

// LabelScope is the scope a label of one of res's rows (a relation's
// target) is read under for op: a row op may not see has no label. nil
// when op is not Scoped.
func (res *Resource) LabelScope(op authz.Operator) *query.Scope {
	if !res.Scoped(op) {
		return nil
	}
	return &query.Scope{Column: res.scope.Name, Values: op.Rows}
}

// Missing is the answer for a row of res op may not see: exactly what a
// key naming no row answers (404 not_found), so the answer tells nothing
// of the row.
func (res *Resource) Missing() error {
	return errbody.New(http.StatusNotFound, "not_found", "no %s row with that id", res.Key).WithParams("resource", res.Key).Because(errNotFound)
}

// CheckCreate is CheckScope for a new row: a row op creates must be in
// op's scope, so a body leaving the scope column out takes op's value
// when op has exactly one, and is refused (403 out_of_scope) otherwise.
func (res *Resource) CheckCreate(vals map[string]any, op authz.Operator) error {
	if !res.Scoped(op) {
		return nil
	}
	if _, ok := vals[res.scope.Name]; !ok {
		if len(op.Rows) != 1 {
			return errbody.Field(http.StatusForbidden, "out_of_scope", res.scope.Name, "outside your row scope: set %s to one of your values", res.scope.Name)
		}
		v, err := query.ConvertValue(res.scope, op.Rows[0])
		if err != nil {
			return outOfScope(res.scope.Name)
		}
		vals[res.scope.Name] = v
	}
	return res.CheckScope(vals, op)
}

// ReadScoped is ReadRow for op: a row outside op's row scope answers as
// a missing one (Missing).
func (s Store) ReadScoped(ctx context.Context, db bun.IDB, op authz.Operator, res *Resource, id map[string]any, lock bool) (map[string]any, error) {
	row, err := s.readRow(ctx, db, res, id, lock, false)
	if err != nil {
		return nil, err
	}
	if !res.InScope(row, op) {
		return nil, res.Missing()
	}
	res.Unreadable(row)
	return row, nil
}
