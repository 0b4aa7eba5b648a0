package history

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/users"
)

// A mod narrowed to some rows (rows.Resource.Scoped) reads the history
// of, and reverts, only the rows its row scope lets it see: the row as it
// is now or, gone, as its newest logged copy (a create's or delete's
// payload row) was. Any other row answers as a key naming no row does:
// 404, whether it is another game's or was never there.

// missing is the answer for a row op may not see: ReadRow's for a key
// naming no row.
func missing(res *rows.Resource) error {
	return errbody.New(http.StatusNotFound, "not_found", "no %s row with that id", res.Key).WithParams("resource", res.Key)
}

// checkScope is nil when op may see row id of res (compiled, not a role's
// view, so that the scope column is read whoever asks), whose audit
// target is target; missing(res) otherwise.
func (h *Handler) checkScope(ctx context.Context, op authz.Operator, res *rows.Resource, id map[string]any, target string) error {
	if !res.Scoped(op) {
		return nil
	}
	row, err := h.Store.ReadRow(ctx, h.DB, res, id, false)
	switch {
	case err == nil:
		if res.InScope(row, op) {
			return nil
		}
		return missing(res)
	case !isNotFound(err):
		return err
	}
	v, ok, err := h.loggedScope(ctx, res, target)
	if err != nil {
		return err
	}
	if ok && slices.Contains(op.Rows, v) {
		return nil
	}
	return missing(res)
}

// loggedScope is the scope column's value, as text, in the newest row the
// audit log holds of target (a create's or a delete's payload); ok is
// false when it holds none.
func (h *Handler) loggedScope(ctx context.Context, res *rows.Resource, target string) (string, bool, error) {
	var payload users.NullJSON
	err := h.DB.NewSelect().TableExpr("? AS aa", h.Table).Column("payload").
		Where("resource = ? AND target_id = ? AND action IN ('create', 'delete')", res.Key, target).
		OrderExpr("id DESC").Limit(1).Scan(ctx, &payload)
	if errors.Is(err, sql.ErrNoRows) || err == nil && len(payload) == 0 {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	var p struct {
		Row map[string]json.RawMessage `json:"row"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return "", false, nil
	}
	raw, ok := p.Row[res.ScopeColumn().Name]
	if !ok {
		return "", false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || v == nil {
		return "", false, nil
	}
	return fmt.Sprint(v), true, nil
}

// scopeEntries takes out of entries, a row's history as op reads it, the
// reporter of a report.file entry whom op's row scope leaves out (a
// player of another game): the entry stays, as it is about this row, but
// names no one op may not see.
func (h *Handler) scopeEntries(ctx context.Context, op authz.Operator, entries []map[string]any) error {
	u := h.Store.Users
	if u == nil || !u.RowScoped(op) {
		return nil
	}
	for _, e := range entries {
		if e["action"] != "report.file" {
			continue
		}
		p, ok := rows.PayloadMap(e["payload"])
		id, _ := p["reporterId"].(string)
		if !ok || id == "" {
			continue
		}
		in, err := u.InScope(ctx, h.DB, op, id)
		if err != nil {
			return err
		}
		if !in {
			delete(p, "reporterId")
			e["payload"] = p
			if l, _ := e["_labels"].(map[string]string); l != nil {
				delete(l, "reporterId")
			}
		}
	}
	return nil
}
