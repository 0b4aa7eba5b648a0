package engine

import (
	"context"
	"net/http"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/history"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
)

// A row's History (_history), its revert (_revert) and what the audit
// log's list adds (its targets' labels, the search of a player's
// entries) are package history's: newHistory builds it over the panel's
// database, audit log and row store, with the answers only the engine
// has.
func (a *Admin) newHistory() *history.Handler {
	api := a.rows
	return &history.Handler{
		DB: a.db, Table: a.tbl("admin_audit"), AuditLog: a.resources[audit.Key],
		Store: a.store, Audit: a.audit, Sanctions: a.sanctions, Log: a.log,
		Resource: api.resource,
		As:       a.resourceAs,
		Allowed:  a.allowed,
		Gate:     a.gate,
		RowID:    rowID,
		List:     api.listRows,
		Labels: func(ctx context.Context, rel schema.Relation, target *rows.Resource, list []map[string]any) error {
			return api.labels.addLabels(ctx, []labelRel{{rel: rel, target: target}}, list)
		},
		Categories:   reportCategoryLabels(a.opts.ReportCategories),
		Meta:         func(r *http.Request) map[string]any { return requestMeta(r, a.clientIPs()) },
		Decode:       func(r *http.Request, v any) error { return readJSON(r, v, strict|numbers) },
		WriteJSON:    writeJSON,
		OperatorOnly: errOperatorOnly, NotFound: errNotFoundRoute,
	}
}

// reportCategoryLabels are the game's report categories' labels by key.
func reportCategoryLabels(cs []ReportCategory) map[string]string {
	m := make(map[string]string, len(cs))
	for _, c := range cs {
		m[c.Key] = c.Label
	}
	return m
}
