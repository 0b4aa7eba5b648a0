package history

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
)

// revertKind is what reverting an entry does.
type revertKind int

const (
	revertChanges revertKind = iota // an update (or a revert, or the game's RecordUpdate): its columns back to before
	revertDelete                    // a delete: the row re-created
	revertCreate                    // a create: the row deleted
)

// auditRecord is an audit entry as a revert reads it: its payload decoded
// with numbers kept exact.
type auditRecord struct {
	ID       int64
	Action   string
	Resource string
	TargetID string
	Changes  map[string]struct{ Before, After json.RawMessage }
	Row      map[string]json.RawMessage
}

// Revert answers POST /admin-api/{resource}/{id}/_revert {auditId,
// force?}: the row put back as it was before that entry of its history.
// A row changed since (a column of the entry no longer holds the value
// the entry left) is refused with 409 conflict naming those columns,
// unless an admin says force. It needs update on the resource (create
// to undo a delete, delete to undo a create), passes the same guards as
// an edit, and is audited as "revert" with the source entry's id, in one
// transaction.
func (h *Handler) Revert(w http.ResponseWriter, r *http.Request, op authz.Operator) error {
	res, err := h.Resource(r)
	if err != nil {
		return err
	}
	res = h.As(op, res.Key) // a column op may not read is not op's to put back
	if err := h.Gate(op, authz.OpRead, res.Key); err != nil {
		return err
	}
	id, err := h.RowID(r, res)
	if err != nil {
		return err
	}
	var body struct {
		AuditID any  `json:"auditId"` // a number, or its text
		Force   bool `json:"force"`
	}
	if err := h.Decode(r, &body); err != nil {
		return err
	}
	auditID, err := strconv.ParseInt(strings.TrimSpace(fmt.Sprint(body.AuditID)), 10, 64)
	if _, isBool := body.AuditID.(bool); isBool || err != nil || auditID <= 0 {
		return errbody.Field(http.StatusBadRequest, "invalid_value", "auditId", "auditId must be the id of an entry of this row's history")
	}
	if body.Force && op.Role != authz.RoleAdmin {
		return errbody.New(http.StatusForbidden, "forbidden", "only an admin may force a revert over later changes")
	}
	ctx := r.Context()
	rec, err := h.auditRecord(ctx, auditID)
	if err != nil {
		return err
	}
	if rec == nil || rec.Resource != res.Key || rec.TargetID != query.EncodeID(res.Table, id) {
		return errbody.New(http.StatusNotFound, "not_found", "no entry %d in the history of this row", auditID)
	}
	kind, need, err := rec.kind()
	if err != nil {
		return err
	}
	if err := h.Gate(op, need, res.Key); err != nil {
		return err
	}
	var out map[string]any
	var ended string // the user whose sessions a revert of an email change ended
	err = h.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		entry := audit.Entry{OperatorID: op.UserID, Action: "revert", Resource: res.Key, Payload: audit.Payload(h.Meta(r), "auditId", auditID, "of", rec.Action)}
		switch kind {
		case revertChanges:
			vals, err := h.beforeValues(rec, res)
			if err != nil {
				return err
			}
			_, after, changes, endedFor, err := h.Store.UpdateRow(ctx, tx, op, res, id, maps.Clone(vals), func(now map[string]any) error {
				if body.Force {
					return nil
				}
				return rec.conflicts(res, vals, now)
			})
			if err != nil {
				return err
			}
			ended = endedFor
			out = after
			if len(changes) == 0 {
				return nil // already as before: nothing to record
			}
			entry.TargetID, entry.Payload["changes"] = query.EncodeID(res.Table, after), changes
		case revertDelete:
			if res.Table.SoftDelete != nil {
				// The row was kept: the undo of its delete is its restore.
				if out, err = h.Store.RestoreRow(ctx, tx, op, res, id); err != nil {
					if ae := (*errbody.Error)(nil); errors.As(err, &ae) && ae.Code == "not_deleted" {
						return errbody.New(http.StatusConflict, "conflict", "the row exists again since entry %d: nothing to re-create", auditID)
					}
					return err
				}
				entry.TargetID, entry.Payload["row"] = query.EncodeID(res.Table, out), out
				break
			}
			vals, err := h.rowValues(rec, res)
			if err != nil {
				return err
			}
			if u := h.Store.Users; res.Key == "users" {
				if u.HashNotNull {
					vals[u.Cols.PasswordHash] = users.UnusableHash // a password is never in the log: set one by reset
				}
				// Past the logged version: no session of the row as it was
				// verifies against the row re-created.
				if tv := u.Cols.TokenVersion; u.HasTokenVersion {
					n, _ := strconv.ParseInt(string(rec.Row[tv]), 10, 64)
					vals[tv] = n + 1
				}
			}
			switch _, err := h.Store.ReadRow(ctx, tx, res, id, true); {
			case err == nil:
				return errbody.New(http.StatusConflict, "conflict", "the row exists again since entry %d: nothing to re-create", auditID)
			case !isNotFound(err):
				return err
			}
			if out, err = h.Store.InsertRow(ctx, tx, res, vals); err != nil {
				return err
			}
			entry.TargetID, entry.Payload["row"] = query.EncodeID(res.Table, out), out
		case revertCreate:
			row, err := h.Store.DeleteRow(ctx, tx, op, res, id, func(now map[string]any) error {
				if body.Force {
					return nil
				}
				return rec.rowConflicts(res, now)
			})
			if err != nil {
				return err
			}
			out = map[string]any{"deleted": true}
			entry.TargetID, entry.Payload["row"] = query.EncodeID(res.Table, row), row
		}
		return h.Audit.RecordTx(ctx, tx, entry)
	})
	if err != nil {
		return err
	}
	if ended != "" {
		h.Sanctions.SessionsEnded(ctx, ended, "email changed")
	}
	h.WriteJSON(w, http.StatusOK, res.Answer(out))
	return nil
}

// isNotFound reports ReadRow's answer for a row that is not there.
func isNotFound(err error) bool {
	var ae *errbody.Error
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}

// auditRecord reads entry id of the audit log; nil when there is none.
func (h *Handler) auditRecord(ctx context.Context, id int64) (*auditRecord, error) {
	rec := &auditRecord{ID: id}
	var target sql.NullString
	var payload users.NullJSON
	err := h.DB.NewSelect().TableExpr("? AS aa", h.Table).
		Column("action", "resource", "target_id", "payload").Where("id = ?", id).
		Scan(ctx, &rec.Action, &rec.Resource, &target, &payload)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec.TargetID = target.String
	if len(payload) == 0 || string(payload) == "null" {
		return rec, nil
	}
	var p struct {
		Changes map[string]struct {
			Before json.RawMessage `json:"before"`
			After  json.RawMessage `json:"after"`
		} `json:"changes"`
		Row map[string]json.RawMessage `json:"row"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return rec, nil // a game's own entry of another shape: not revertible
	}
	rec.Row = p.Row
	if p.Changes != nil {
		rec.Changes = make(map[string]struct{ Before, After json.RawMessage }, len(p.Changes))
		for k, v := range p.Changes {
			rec.Changes[k] = struct{ Before, After json.RawMessage }{v.Before, v.After}
		}
	}
	return rec, nil
}

// kind is what reverting rec does, and the operation it needs.
func (rec *auditRecord) kind() (revertKind, authz.Op, error) {
	switch {
	case len(rec.Changes) > 0:
		return revertChanges, authz.OpUpdate, nil
	case rec.Action == "delete" && len(rec.Row) > 0:
		return revertDelete, authz.OpCreate, nil
	case rec.Action == "create" && len(rec.Row) > 0:
		return revertCreate, authz.OpDelete, nil
	}
	return 0, "", errbody.New(http.StatusBadRequest, "not_revertible", "entry %d (%s) records no change of this row to put back", rec.ID, rec.Action)
}

// revertColumn is the write gate's word on a column a revert would put
// back, for res as the caller's role sees it. An undo of changes passes
// the gate of an update: a column that role may not read is refused as a
// PATCH naming it is (403), a read-only one too (400 read_only). An undo
// of a delete restores the row as it was, those columns included: its
// operator chooses no value. Either way a revert leaves keys (of
// changes), columns the database computes, hidden ones and credentials —
// the users table's password hash and token version — as they are: a
// revert never brings back a session that a change ended.
func (h *Handler) revertColumn(res *rows.Resource, name string, recreate bool) (*schema.Column, bool, error) {
	c := res.Table.ByName[name]
	switch {
	case c == nil || c.Generated || c.Primary && !recreate || h.credential(res, name):
		return nil, false, nil
	case res.Hidden[name] && !res.Restricted[name]:
		return nil, false, nil
	case !recreate:
		if err := res.RefuseWrite(name); err != nil {
			return nil, false, err
		}
	}
	return c, true, nil
}

// credential reports a column of res that proves who someone is: no
// revert writes it.
func (h *Handler) credential(res *rows.Resource, name string) bool {
	cols := h.Store.Users.Cols
	return res.Key == "users" && name != "" && (name == cols.PasswordHash || name == cols.TokenVersion)
}

// beforeValues are the typed values rec's changes had before it, each
// through the write gate (revertColumn).
func (h *Handler) beforeValues(rec *auditRecord, res *rows.Resource) (map[string]any, error) {
	vals := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(rec.Changes)) {
		c, ok, err := h.revertColumn(res, name, false)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		v, err := decodeLogged(c, rec.Changes[name].Before)
		if err != nil {
			return nil, err
		}
		vals[name] = v
	}
	if len(vals) == 0 {
		return nil, errbody.New(http.StatusBadRequest, "not_revertible", "entry %d changed no column a revert may write", rec.ID)
	}
	return vals, nil
}

// rowValues are the typed values of the row rec deleted, each through
// the write gate (revertColumn).
func (h *Handler) rowValues(rec *auditRecord, res *rows.Resource) (map[string]any, error) {
	vals := map[string]any{}
	for name, raw := range rec.Row {
		c, ok, err := h.revertColumn(res, name, true)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		v, err := decodeLogged(c, raw)
		if err != nil {
			return nil, err
		}
		vals[name] = v
	}
	return vals, nil
}

// decodeLogged types a value as the audit log holds it (JSON) for c.
func decodeLogged(c *schema.Column, raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if len(raw) > 0 {
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("admin: revert: the logged value of %s: %w", c.Name, err)
		}
	}
	out, err := query.ConvertValue(c, v)
	if err != nil {
		// The column's type changed since: the old value no longer fits.
		return nil, errbody.New(http.StatusConflict, "conflict", "column %q: its logged value no longer fits the column", c.Name)
	}
	return out, nil
}

// SameValue compares a value of a row as read now with a value as the log
// holds it, as JSON: the log holds what the row read then, marshalled.
func SameValue(now any, logged json.RawMessage) bool {
	b, err := json.Marshal(now)
	if err != nil {
		return false
	}
	var x, y any
	dx, dy := json.NewDecoder(bytes.NewReader(b)), json.NewDecoder(bytes.NewReader(logged))
	dx.UseNumber()
	dy.UseNumber()
	if dx.Decode(&x) != nil || dy.Decode(&y) != nil {
		return false
	}
	bx, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return bytes.Equal(bx, by)
}

// conflicts refuses a revert of rec's changes when the row (now, locked)
// no longer holds what rec left in one of the columns the revert writes.
func (rec *auditRecord) conflicts(res *rows.Resource, writes map[string]any, now map[string]any) error {
	fields := map[string]string{}
	for name := range writes {
		if !SameValue(now[name], rec.Changes[name].After) {
			fields[name] = res.ColumnLabel(res.Table.ByName[name]) + " changed since"
		}
	}
	return changedSince(rec, fields)
}

// rowConflicts refuses deleting the row rec created when it changed since.
func (rec *auditRecord) rowConflicts(res *rows.Resource, now map[string]any) error {
	fields := map[string]string{}
	for name, raw := range rec.Row {
		if c := res.View.ByName[name]; c != nil && !SameValue(now[name], raw) {
			fields[name] = res.ColumnLabel(c) + " changed since"
		}
	}
	return changedSince(rec, fields)
}

func changedSince(rec *auditRecord, fields map[string]string) error {
	if len(fields) == 0 {
		return nil
	}
	names := slices.Sorted(maps.Keys(fields))
	e := errbody.New(http.StatusConflict, "conflict", "the row changed since entry %d (%s): an admin may force the revert", rec.ID, strings.Join(names, ", "))
	e.Fields = fields
	return e
}
