package admin

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"slices"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
)

// labelColumns are the columns that name a row, in order of preference.
var labelColumns = []string{"display_name", "name", "email", "title"}

// labelColumnsOf are the visible text columns of res that can name its
// rows, in order of preference.
func labelColumnsOf(res *resource) []string {
	var out []string
	for _, c := range labelColumns {
		if col := res.view.ByName[c]; col != nil && col.DataType == schema.String {
			out = append(out, c)
		}
	}
	return out
}

// labelColumn is the column that names rows of res, or "".
func labelColumn(res *resource) string {
	if cols := labelColumnsOf(res); len(cols) > 0 {
		return cols[0]
	}
	return ""
}

// labelExpr is the first non-empty label column of a row: a user without
// a display name is labelled by its email rather than its raw id. The
// trailing NULL keeps COALESCE at two arguments, which SQLite requires.
func labelExpr(cols []string) (string, []any) {
	expr := "COALESCE("
	args := make([]any, len(cols))
	for i, c := range cols {
		expr += "NULLIF(?, ''), "
		args[i] = bun.Ident(c)
	}
	return expr + "NULL) AS l", args
}

// addLabels sets row["_labels"][fk] to the target's label for every One
// relation of res the operator may read: one query per relation per page.
func (a *Admin) addLabels(ctx context.Context, op Operator, res *resource, rows []map[string]any) error {
	if len(rows) == 0 {
		return nil
	}
	for _, rel := range res.table.Relations {
		target := a.resources[rel.Target]
		if rel.Kind != schema.One || target == nil || res.hidden[rel.FK] || !a.allowed(op, OpRead, target.key) {
			continue
		}
		labelCols := labelColumnsOf(target)
		if len(labelCols) == 0 {
			continue
		}
		expr, exprArgs := labelExpr(labelCols)
		// Keys are typed by the target column, so the IN list uses its
		// index; a value that cannot be such a key has no label.
		refCol := target.table.ByName[rel.Ref]
		seen := map[string]bool{}
		var keys []any
		for _, row := range rows {
			v := row[rel.FK]
			if v == nil || seen[fmt.Sprint(v)] || refCol == nil {
				continue
			}
			seen[fmt.Sprint(v)] = true
			if s, ok := v.(string); ok && refCol.DataType != schema.String {
				cv, err := query.ConvertValue(refCol, s)
				if err != nil {
					continue
				}
				v = cv
			}
			keys = append(keys, v)
		}
		if len(keys) == 0 {
			continue
		}
		var found []struct {
			Key   string         `bun:"k"`
			Label sql.NullString `bun:"l"`
		}
		err := a.db.NewSelect().TableExpr("?", bun.Ident(target.table.Name)).
			ColumnExpr("CAST(? AS TEXT) AS k", bun.Ident(rel.Ref)).ColumnExpr(expr, exprArgs...).
			Where("? IN (?)", bun.Ident(rel.Ref), bun.List(keys)).Scan(ctx, &found)
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

// GET /admin-api/{resource}/{id}/{sub}: only _counts so far.
func (a *Admin) handleRowSub(w http.ResponseWriter, r *http.Request, op Operator) error {
	if r.PathValue("sub") != "_counts" {
		return errNotFoundRoute
	}
	res, err := a.resourceFor(r, op, OpRead)
	if err != nil {
		return err
	}
	row, err := a.pathRow(r, res)
	if err != nil {
		return err
	}
	ctx := r.Context()
	counts := map[string]any{}
	for _, rel := range res.table.Relations {
		target := a.resources[rel.Target]
		if rel.Kind != schema.Many || target == nil || !a.allowed(op, OpRead, target.key) {
			continue
		}
		n, err := a.db.NewSelect().TableExpr("?", bun.Ident(target.table.Name)).
			Where("? = ?", bun.Ident(rel.FK), row[rel.Ref]).Count(ctx)
		if err != nil {
			return err
		}
		counts[rel.Name] = n
	}
	if res.key == "users" && a.opts.Rooms != nil {
		n, err := a.activeSessions(ctx, fmt.Sprint(row["id"]))
		if err != nil {
			return err
		}
		counts["activeSessions"] = n
	}
	writeJSON(w, http.StatusOK, counts)
	return nil
}

// GET /admin-api/{resource}/{id}/relations/{name}: the related rows, with
// the target's list language and window.
func (a *Admin) handleRelation(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := a.resourceFor(r, op, OpRead)
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	i := slices.IndexFunc(res.table.Relations, func(x schema.Relation) bool { return x.Name == name })
	if i < 0 {
		return errorf(http.StatusNotFound, "unknown_relation", "resource %q has no relation %q", res.key, name)
	}
	rel := res.table.Relations[i]
	target := a.resources[rel.Target]
	if target == nil {
		return errorf(http.StatusNotFound, "unknown_relation", "resource %q has no relation %q", res.key, name)
	}
	if err := a.gate(op, OpRead, target.key); err != nil {
		return err
	}
	row, err := a.pathRow(r, res)
	if err != nil {
		return err
	}
	where := func(q *bun.SelectQuery) *bun.SelectQuery {
		if rel.Kind == schema.Many {
			return q.Where("?TableAlias.? = ?", bun.Ident(rel.FK), row[rel.Ref])
		}
		return q.Where("?TableAlias.? = ?", bun.Ident(rel.Ref), row[rel.FK])
	}
	rows, err := a.listRows(w, r, op, target, where)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rows)
	return nil
}
