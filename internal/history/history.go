// Package history is a row's History and the audit log's view: a row's
// audit entries (GET …/{id}/_history), putting a row back as it was
// before one of them (POST …/{id}/_revert) through the write gate of
// package rows, and what the audit log's list adds to a generic one
// (its targets named by their rows' labels, a search that finds a
// player's entries).
//
// A row's history is its audit entries: the log already holds every
// change with its diff (update: {changes: {column: {before, after}}};
// create and delete: {row}). A revert puts a row back as it was before
// one of them, through the same write path, guards and audit as an edit.
//
// The package never imports the panel (the root package or the engine):
// the engine builds a Handler over its database, audit log and row
// store, with funcs for what only it knows (the resource of a path, the
// list machinery, labels, the request's metadata), and mounts its
// methods in its route table.
package history

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
)

// Handler answers a row's History and its revert, and labels and
// searches the audit log's list. Every field but AuditLog is required;
// the engine fills them once, at New (its newHistory).
type Handler struct {
	// DB is the panel's database.
	DB *bun.DB
	// Table is the audit log's table (the prefixed admin_audit), which a
	// revert reads its entry from.
	Table bun.Ident
	// AuditLog is the audit log's resource (adminAudit), nil when the
	// panel has none: a row's history is its entries.
	AuditLog *rows.Resource
	// Store writes a revert, through the write gate and its guards; its
	// Users table says which columns are credentials.
	Store rows.Store
	// Audit records the revert in its transaction.
	Audit *audit.Log
	// Sanctions end the sessions of a user whose email a revert changed.
	Sanctions *moderation.Sanctions
	// Log receives what fails without failing the answer (a resource
	// whose labels cannot be read).
	Log *slog.Logger

	// Resource is the {resource} of the path, as compiled (not yet as
	// the operator's role sees it).
	Resource func(r *http.Request) (*rows.Resource, error)
	// As is resource key as op's role sees it, nil when there is none.
	As func(op authz.Operator, key string) *rows.Resource
	// Allowed reports whether op may do o on resource key.
	Allowed func(op authz.Operator, o authz.Op, key string) bool
	// Gate is Allowed's refusal: the panel's 403 when op may not do o on
	// key, else nil.
	Gate func(op authz.Operator, o authz.Op, key string) error
	// RowID decodes the {id} of the path for res.
	RowID func(r *http.Request, res *rows.Resource) (map[string]any, error)
	// List answers a list query of r on res narrowed by where, with the
	// list's headers (total, cursor) set on w: the panel's one list.
	List func(w http.ResponseWriter, r *http.Request, op authz.Operator, res *rows.Resource, where func(*bun.SelectQuery) *bun.SelectQuery) ([]map[string]any, error)
	// Labels names the rel keys of list (the One relation rel of the
	// audit log to target) by target's labels, as a list labels its
	// relations.
	Labels func(ctx context.Context, rel schema.Relation, target *rows.Resource, list []map[string]any) error
	// Categories are the labels of the game's report categories by key
	// (Options.ReportCategories): a filed report's entry says its
	// category so. Optional.
	Categories map[string]string
	// Meta is the request's metadata an audit payload carries (address,
	// browser).
	Meta func(r *http.Request) map[string]any
	// Decode reads a fixed-shape JSON object body with numbers kept
	// exact: any mistake is the panel's 400 or 413.
	Decode func(r *http.Request, v any) error
	// WriteJSON answers v as JSON with status.
	WriteJSON func(w http.ResponseWriter, status int, v any)
	// OperatorOnly is the panel's answer to a player where only an
	// operator may go; NotFound its answer to a path it does not serve.
	OperatorOnly, NotFound error
}

// Rows answers GET /admin-api/{resource}/{id}/_history: the audit
// entries of one row, newest first, with the list window and cursor of
// any list (and its filters, on the audit log's columns). An operator who
// may read the row may read its history (a player never: it names
// operators); the request metadata of each entry (address, browser) only
// whoever may list the audit log.
func (h *Handler) Rows(w http.ResponseWriter, r *http.Request, op authz.Operator) error {
	base, err := h.Resource(r)
	if err != nil {
		return err
	}
	res := h.As(op, base.Key)
	if err := h.Gate(op, authz.OpRead, res.Key); err != nil {
		return err
	}
	if !op.Role.IsOperator() {
		return h.OperatorOnly
	}
	if h.AuditLog == nil {
		return h.NotFound
	}
	id, err := h.RowID(r, res)
	if err != nil {
		return err
	}
	target := query.EncodeID(res.Table, id)
	if err := h.checkScope(r.Context(), op, base, id, target); err != nil {
		return err
	}
	// List refuses a filter on the payloads for an op who may not read
	// some column: they hold the values.
	// A player's history has their kicks too: a kick's entry is the
	// room's, naming the player in its payload (userId). Shown to whoever
	// may list the rooms, whose names the entries carry.
	kicks := res.Accounts && h.Allowed(op, authz.OpList, "rooms")
	entries, err := h.List(w, r, op, h.AuditLog, func(q *bun.SelectQuery) *bun.SelectQuery {
		if !kicks {
			return q.Where("?TableAlias.resource = ? AND ?TableAlias.target_id = ?", res.Key, target)
		}
		return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("?TableAlias.resource = ? AND ?TableAlias.target_id = ?", res.Key, target).
				WhereOr("?TableAlias.resource = 'rooms' AND ?TableAlias.action = 'room.kick' AND "+KickedUser(h.DB.Dialect().Name())+" = ?", target)
		})
	})
	if err != nil {
		return err
	}
	if err := h.scopeEntries(r.Context(), op, entries); err != nil {
		return err
	}
	if !h.Allowed(op, authz.OpList, audit.Key) {
		for _, row := range entries {
			row["payload"] = WithoutRequestMeta(row["payload"])
		}
	}
	h.WriteJSON(w, http.StatusOK, entries)
	return nil
}

// WithoutRequestMeta is an audit payload without the address and browser
// of the request that made it.
func WithoutRequestMeta(payload any) any {
	p, ok := rows.PayloadMap(payload)
	if !ok {
		return payload
	}
	delete(p, "ip")
	delete(p, "userAgent")
	return p
}
