package rows

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
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
	if name == "" {
		return nil
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("admin: resource %q: ScopeColumn: %s", res.Key, fmt.Sprintf(format, args...))
	}
	c := res.Table.ByName[name]
	switch {
	case c == nil:
		if gc, ok := res.Table.Lookup(name); ok {
			return fail("no column %q in %s (names are SQL column names: %q)", name, res.Table.Name, gc.Name)
		}
		return fail("no column %q in %s%s", name, res.Table.Name, schema.ClosestHint(name, res.Table.ColumnNames()))
	case res.Hidden[name]:
		return fail("column %q is hidden: the panel never reads it", name)
	case c.DataType != schema.String && c.DataType != schema.Integer:
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
	if !res.Scoped(op) {
		return q
	}
	if len(op.Rows) == 0 {
		return q.Where("1 = 0")
	}
	return q.Where("?TableAlias.? IN (?)", bun.Ident(res.scope.Name), bun.List(op.Rows))
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
