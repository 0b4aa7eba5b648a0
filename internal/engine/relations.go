package engine

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"slices"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun"
)

// labelColumn is the column that names rows of res, or "".
func labelColumn(res *resource) string {
	if len(res.Labels) > 0 {
		return res.Labels[0]
	}
	return ""
}

// labeler reads the labels of the rows a resource's One relations point
// at, as an operator's role may read them: the list and read join what
// they can (labelJoins) and add the rest (addLabels); the dashboard and
// the history answer labels with it too.
type labeler struct {
	db      *bun.DB
	as      func(op Operator, key string) *resource            // resource key as op's role sees it (resourceAs)
	allowed func(op Operator, action Op, resource string) bool // the policy (Admin.allowed)
}

// relationTarget is the resource rel points at when it is one of the
// panel's and op may read it, else nil: the one check before a relation's
// rows, counts or labels are read.
func (l labeler) relationTarget(op Operator, rel schema.Relation) *resource {
	target := l.as(op, rel.Target)
	if target == nil || !l.allowed(op, OpRead, target.Key) {
		return nil
	}
	return target
}

// keyedByRestricted reports a relation of res (to target, both as one
// role sees them) whose key column that role may not read: its foreign
// key in res (One) or in target (Many). Its rows, labels and counts
// would tell the column's values, so the role gets none of them.
func keyedByRestricted(res, target *resource, rel schema.Relation) bool {
	if rel.Kind == schema.Many {
		return target.Restricted[rel.FK]
	}
	return res.Restricted[rel.FK]
}

// labelRel is a One relation whose target's label an operator may read.
type labelRel struct {
	rel    schema.Relation
	target *resource
	// scope, for a row-scoped mod, is the target rows whose labels they
	// may read (rows.LabelScope): any other row has none.
	scope *query.Scope
}

// labelRels are the One relations of res whose targets have a label op
// may read, and whose key op may see.
func (l labeler) labelRels(op Operator, res *resource) []labelRel {
	var out []labelRel
	for _, rel := range res.Table.Relations {
		target := l.relationTarget(op, rel)
		if rel.Kind != schema.One || target == nil || res.Hidden[rel.FK] || keyedByRestricted(res, target, rel) || len(target.Labels) == 0 {
			continue
		}
		out = append(out, labelRel{rel: rel, target: target, scope: target.LabelScope(op)})
	}
	return out
}

// labelJoins splits the label relations of res for op: those the page
// query can join (query.Joinable keys; the panel's resources share one
// database) and the rest, for addLabels.
func (l labeler) labelJoins(op Operator, res *resource) (joins []query.Label, rest []labelRel) {
	for _, lr := range l.labelRels(op, res) {
		if !query.Joinable(res.Table.ByName[lr.rel.FK], lr.target.Table.ByName[lr.rel.Ref]) {
			rest = append(rest, lr)
			continue
		}
		pk := lr.target.Table.PK
		joins = append(joins, query.Label{FK: lr.rel.FK, Table: lr.target.Table.Name, Ref: lr.rel.Ref, Columns: lr.target.Labels,
			ByKey: len(pk) == 1 && pk[0].Name == lr.rel.Ref && lr.target.Table.KeyOrdered, Scope: lr.scope})
	}
	return joins, rest
}

// addLabels sets row["_labels"][fk] to the target's label for every
// relation in rels: one query per relation. Lists join what they can
// (labelJoins) and come here for the rest.
func (l labeler) addLabels(ctx context.Context, rels []labelRel, rows []map[string]any) error {
	if len(rows) == 0 {
		return nil
	}
	for _, lr := range rels {
		rel, target := lr.rel, lr.target
		expr, exprArgs := query.LabelExpr(bun.Ident(target.Table.Name), target.Labels)
		// Keys are typed by the target column (query.ReferenceKey), so the IN list
		// uses its index; a value that cannot be such a key has no label.
		refCol := target.Table.ByName[rel.Ref]
		seen := map[string]bool{}
		var keys []any
		for _, row := range rows {
			v := row[rel.FK]
			if v == nil || seen[fmt.Sprint(v)] || refCol == nil {
				continue
			}
			seen[fmt.Sprint(v)] = true
			if v, ok := query.ReferenceKey(refCol, v); ok {
				keys = append(keys, v)
			}
		}
		if len(keys) == 0 {
			continue
		}
		var found []struct {
			Key   string         `bun:"k"`
			Label sql.NullString `bun:"l"`
		}
		q := l.db.NewSelect().TableExpr("?", bun.Ident(target.Table.Name)).
			ColumnExpr("? AS k", sqldialect.AsText(bun.Ident(rel.Ref))).ColumnExpr(expr+" AS l", exprArgs...).
			Where("? IN (?)", bun.Ident(rel.Ref), bun.List(keys))
		if lr.scope != nil {
			cond, args := lr.scope.On(bun.Ident(target.Table.Name))
			q = q.Where(cond, args...)
		}
		err := q.Scan(ctx, &found)
		if err != nil {
			return err
		}
		labels := make(map[string]string, len(found))
		for _, f := range found {
			if f.Label.Valid && f.Label.String != "" {
				labels[f.Key] = f.Label.String
			}
		}
		for _, row := range rows {
			l, ok := labels[fmt.Sprint(row[rel.FK])]
			if !ok {
				continue
			}
			m, _ := row["_labels"].(map[string]string)
			if m == nil {
				m = map[string]string{}
				row["_labels"] = m
			}
			m[rel.FK] = l
		}
	}
	return nil
}

// GET /admin-api/{resource}/{id}/_counts: the number of rows of each
// relation tab, and the resource's own counts (special: a user's live
// sessions).
func (h *rowsHandler) handleCounts(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := h.resourceFor(r, op, OpRead)
	if err != nil {
		return err
	}
	row, err := h.pathRow(r, op, res)
	if err != nil {
		return err
	}
	ctx := r.Context()
	counts := map[string]any{}
	var (
		names  []string
		views  []*schema.Table
		scoped []bool // a row-scoped mod's tab: counted, never estimated
		qs     []*bun.SelectQuery
	)
	for _, rel := range res.Table.Relations {
		target := h.labels.relationTarget(op, rel)
		if rel.Kind != schema.Many || target == nil || keyedByRestricted(res, target, rel) {
			continue
		}
		key, ok := query.ReferenceKey(target.Table.ByName[rel.FK], row[rel.Ref])
		if !ok {
			counts[rel.Name] = 0
			continue
		}
		names = append(names, rel.Name)
		views = append(views, target.View)
		scoped = append(scoped, target.Scoped(op))
		qs = append(qs, target.Scope(query.Select(h.db, target.Table).Where("?TableAlias.? = ?", bun.Ident(rel.FK), key), op))
	}
	// One statement counts every tab, within the same budget as a list's
	// automatic count (Options.CountBudget, or QueryTimeout when
	// shorter): a game table whose foreign key has no index (a tab the
	// panel added by itself, see schema.Inverses) must not make each
	// visit of a row scan it. Past the budget the tabs' counts are the
	// statistics' estimates, named in _estimated.
	budget := h.countBudget
	if l := timeLeft(h.queries.queryDeadline()); l > 0 && l < budget {
		budget = l
	}
	ns, exact, err := query.CountAll(ctx, h.db, qs, budget)
	if err != nil {
		return err
	}
	var estimated []string
	for i, name := range names {
		if exact {
			counts[name] = ns[i]
			continue
		}
		if scoped[i] {
			continue // the statistics are the whole table's: no count
		}
		n, ok, err := query.Estimate(ctx, h.db, views[i], qs[i], true)
		if err != nil {
			return err
		}
		if ok {
			counts[name] = n
			estimated = append(estimated, name)
		}
	}
	if len(estimated) > 0 {
		counts["_estimated"] = estimated
	}
	// The resource's own: a user's live sessions.
	if err := h.specials.of(res.Key).counts(ctx, op, res, row, counts); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, counts)
	return nil
}

// GET /admin-api/{resource}/{id}/relations/{name}: the related rows, with
// the target's list language and window.
func (h *rowsHandler) handleRelation(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := h.resourceFor(r, op, OpRead)
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	i := slices.IndexFunc(res.Table.Relations, func(x schema.Relation) bool { return x.Name == name })
	if i < 0 || h.resources[res.Table.Relations[i].Target] == nil {
		return errorf(http.StatusNotFound, "unknown_relation", "resource %q has no relation %q", res.Key, name)
	}
	rel := res.Table.Relations[i]
	target := h.labels.relationTarget(op, rel)
	if target == nil {
		return h.gate(op, OpRead, rel.Target)
	}
	if keyedByRestricted(res, target, rel) {
		return errorf(http.StatusForbidden, "forbidden", "relation %q is keyed by column %q, which is not readable for your role", name, rel.FK).WithParams("reason", "relation_not_readable", "relation", name, "column", rel.FK)
	}
	row, err := h.pathRow(r, op, res)
	if err != nil {
		return err
	}
	col, v := rel.Ref, row[rel.FK] // One: the target row this row's FK names
	if rel.Kind == schema.Many {
		col, v = rel.FK, row[rel.Ref] // Many: the target rows whose FK names this row
	}
	key, ok := query.ReferenceKey(target.Table.ByName[col], v)
	where := func(q *bun.SelectQuery) *bun.SelectQuery {
		if !ok {
			return q.Where("1 = 0")
		}
		return q.Where("?TableAlias.? = ?", bun.Ident(col), key)
	}
	return h.writeList(w, r, op, target, where)
}

// refsInScope refuses vals, the values a create (before nil) or an
// update of the row before writes to res, when they point a foreign key
// at a row a row-scoped op may not see, or at no row: both are 400
// invalid_reference, the database's answer for a key naming no row, so
// the refusal tells nothing of another game's rows. A key the row holds
// already is not checked (it is not written). db is the write's
// transaction, or the panel's.
func (h *rowsHandler) refsInScope(ctx context.Context, db bun.IDB, op Operator, res *resource, vals, before map[string]any) error {
	for _, rel := range res.Table.Relations {
		v, set := vals[rel.FK]
		if rel.Kind != schema.One || !set || v == nil {
			continue
		}
		if b, ok := before[rel.FK]; ok && rows.SameValue(b, v) {
			continue
		}
		target := h.as(op, rel.Target)
		if target == nil || !target.Scoped(op) {
			continue
		}
		key, ok := query.ReferenceKey(target.Table.ByName[rel.Ref], v)
		found := false
		if ok {
			q := target.Scope(query.From(db, target.Table).ColumnExpr("1").Where("?TableAlias.? = ?", bun.Ident(rel.Ref), key), op)
			var err error
			if found, err = q.Exists(ctx); err != nil {
				return err
			}
		}
		if !found {
			return fieldError(http.StatusBadRequest, "invalid_reference", rel.FK, "%s: the row it names does not exist", res.ColumnLabel(res.Table.ByName[rel.FK]))
		}
	}
	return nil
}
