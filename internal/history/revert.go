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
	Changes  map[string]columnChange
	Row      map[string]json.RawMessage
	// TooLarge names what the entry could not keep because it was too
	// large (a column whose change was cut, with its size), "" when it
	// kept everything.
	TooLarge string
}

// columnChange is one column's change in an entry: before and after,
// or, for a JSON document, its leaf changes (Paths).
type columnChange struct {
	Before, After json.RawMessage
	Paths         []pathChange // nil unless the change is paths
}

// pathChange is one leaf change of a document: the value at Path before
// and after it, each absent (nil) when the place was not there.
type pathChange struct {
	Path          []any // string keys, int indexes
	Before, After json.RawMessage
}

// Revert answers POST /admin-api/{resource}/{id}/_revert {auditId,
// force?}: the row put back as it was before that entry of its history.
// A row changed since (a column of the entry no longer holds the value
// the entry left; for a document's paths, a path) is refused with 409
// conflict naming those columns and carrying the row, unless an admin
// says force. A row whose version is not the If-Match the client sent is
// refused alike, force or not. It needs update on the resource (create
// to undo a delete, delete to undo a create), passes the same guards as
// an edit, and is audited as "revert" with the source entry's id, in one
// transaction. A document's paths are put back in the database, each
// place set to its value before or taken out, never the document
// rewritten.
func (h *Handler) Revert(w http.ResponseWriter, r *http.Request, op authz.Operator) error {
	base, err := h.Resource(r)
	if err != nil {
		return err
	}
	res := h.As(op, base.Key) // a column op may not read is not op's to put back
	if err := h.Gate(op, authz.OpRead, res.Key); err != nil {
		return err
	}
	id, err := h.RowID(r, res)
	if err != nil {
		return err
	}
	// A row op's row scope leaves out is not there for op (scope.go): its
	// entries are no one's op may revert.
	if err := h.checkScope(r.Context(), op, base, id, query.EncodeID(res.Table, id)); err != nil {
		return err
	}
	match, err := rows.ParseIfMatch(r.Header)
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
		return errbody.New(http.StatusForbidden, "forbidden", "only an admin may force a revert over later changes").WithParams("reason", "admin_only")
	}
	ctx := r.Context()
	rec, err := h.auditRecord(ctx, auditID)
	if err != nil {
		return err
	}
	if rec == nil || rec.Resource != res.Key || rec.TargetID != query.EncodeID(res.Table, id) {
		return errbody.New(http.StatusNotFound, "not_found", "no entry %d in the history of this row", auditID).WithParams("auditId", auditID)
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
			// Put back, the row stays in op's row scope.
			if err := base.CheckScope(vals, op); err != nil {
				return err
			}
			_, after, changes, endedFor, err := h.Store.UpdateRow(ctx, tx, op, res, id, maps.Clone(vals), rows.Write{IfMatch: match, Check: func(now map[string]any) error {
				if body.Force {
					return nil
				}
				return h.withRow(res, now, rec.conflicts(res, vals, now))
			}})
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
				if out, err = h.Store.RestoreRow(ctx, tx, op, res, id, rows.Write{IfMatch: match}); err != nil {
					if ae := (*errbody.Error)(nil); errors.As(err, &ae) && ae.Code == "not_deleted" {
						return errbody.New(http.StatusConflict, "conflict", "the row exists again since entry %d: nothing to re-create", auditID).WithParams("reason", "revert_exists", "auditId", auditID)
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
			// Re-created, the row stays in op's row scope.
			if err := base.CheckScope(vals, op); err != nil {
				return err
			}
			if u := h.Store.Users; res.Accounts {
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
				return errbody.New(http.StatusConflict, "conflict", "the row exists again since entry %d: nothing to re-create", auditID).WithParams("reason", "revert_exists", "auditId", auditID)
			case !isNotFound(err):
				return err
			}
			if out, err = h.Store.InsertRow(ctx, tx, res, vals); err != nil {
				return err
			}
			entry.TargetID, entry.Payload["row"] = query.EncodeID(res.Table, out), out
		case revertCreate:
			row, err := h.Store.DeleteRow(ctx, tx, op, res, id, rows.Write{IfMatch: match, Check: func(now map[string]any) error {
				if body.Force {
					return nil
				}
				return h.withRow(res, now, rec.rowConflicts(res, now))
			}})
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
	if kind != revertCreate {
		rows.SetETag(w.Header(), h.Store.ETag(res, out))
	}
	h.WriteJSON(w, http.StatusOK, res.Answer(out))
	return nil
}

// withRow is err, a revert's conflict (or nil), carrying row (the row as
// it is now, locked, as stored) as res's role reads it, and its ETag.
func (h *Handler) withRow(res *rows.Resource, row map[string]any, err error) error {
	var ae *errbody.Error
	if !errors.As(err, &ae) {
		return err
	}
	c := h.Store.Conflict(res, row)
	ae.Row, ae.ETag = c.Row, c.ETag
	return ae
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
		Changes   json.RawMessage            `json:"changes"`
		Row       map[string]json.RawMessage `json:"row"`
		Truncated *payloadMark               `json:"_truncated"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return rec, nil // a game's own entry of another shape: not revertible
	}
	rec.Row = p.Row
	var changes map[string]json.RawMessage
	switch {
	case len(p.Changes) > 0 && p.Changes[0] == '"':
		// An entry of before paths were kept: the changes cut whole.
		rec.TooLarge = fmt.Sprintf("its changes, %d bytes", p.Truncated.size())
		return rec, nil
	case len(p.Changes) == 0 && p.Truncated != nil && (rec.Action == "update" || rec.Action == "revert"):
		rec.TooLarge = fmt.Sprintf("its payload, %d bytes", p.Truncated.size())
		return rec, nil
	case len(p.Changes) > 0 && json.Unmarshal(p.Changes, &changes) != nil:
		return rec, nil
	}
	for _, k := range slices.Sorted(maps.Keys(changes)) {
		ch, tooLarge, ok := decodeChange(changes[k])
		switch {
		case tooLarge > 0:
			rec.TooLarge = fmt.Sprintf("the change of %s, %d bytes", k, tooLarge)
			return rec, nil
		case !ok:
			return rec, nil // not a shape of ours: not revertible
		}
		if rec.Changes == nil {
			rec.Changes = map[string]columnChange{}
		}
		rec.Changes[k] = ch
	}
	return rec, nil
}

// decodeChange reads one column's change: {before, after}, {paths}, or
// the mark of one too large to keep ({truncated: true, bytes}: tooLarge
// is its size).
func decodeChange(raw json.RawMessage) (ch columnChange, tooLarge int64, ok bool) {
	var c struct {
		Before    json.RawMessage              `json:"before"`
		After     json.RawMessage              `json:"after"`
		Paths     []map[string]json.RawMessage `json:"paths"`
		Truncated bool                         `json:"truncated"`
		Bytes     int64                        `json:"bytes"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return ch, 0, false
	}
	if c.Truncated {
		return ch, max(c.Bytes, 1), true
	}
	ch.Before, ch.After = c.Before, c.After
	if c.Paths == nil {
		return ch, 0, true
	}
	ch.Paths = make([]pathChange, 0, len(c.Paths))
	for _, pc := range c.Paths {
		path, ok := decodePath(pc["path"])
		if !ok {
			return ch, 0, false
		}
		ch.Paths = append(ch.Paths, pathChange{Path: path, Before: pc["before"], After: pc["after"]})
	}
	return ch, 0, true
}

// decodePath reads a recorded path: strings (object keys) and
// non-negative integers (array indexes), at least one.
func decodePath(raw json.RawMessage) ([]any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var steps []any
	if d.Decode(&steps) != nil || len(steps) == 0 {
		return nil, false
	}
	for i, s := range steps {
		switch k := s.(type) {
		case string:
		case json.Number:
			n, err := strconv.Atoi(k.String())
			if err != nil || n < 0 {
				return nil, false
			}
			steps[i] = n
		default:
			return nil, false
		}
	}
	return steps, true
}

// payloadMark is the audit log's mark on a payload it cut
// ("_truncated"): the size of the payload as it was.
type payloadMark struct {
	Bytes int64 `json:"bytes"`
}

// size is the payload's size before it was cut, 0 without a mark.
func (m *payloadMark) size() int64 {
	if m == nil {
		return 0
	}
	return m.Bytes
}

// kind is what reverting rec does, and the operation it needs.
func (rec *auditRecord) kind() (revertKind, authz.Op, error) {
	switch {
	case rec.TooLarge != "":
		return 0, "", errbody.New(http.StatusBadRequest, "not_revertible", "entry %d (%s) was too large to record what changed (%s were cut from the log), so it cannot be put back", rec.ID, rec.Action, rec.TooLarge)
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
	case c == res.VersionColumn() && !recreate:
		return nil, false, nil // the revert's update bumps it
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
	return res.Accounts && name != "" && (name == cols.PasswordHash || name == cols.TokenVersion)
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
		ch := rec.Changes[name]
		if ch.Paths != nil {
			if c.DataType != schema.JSON {
				return nil, errbody.New(http.StatusBadRequest, "not_revertible", "entry %d records paths of %s, which is not a JSON column", rec.ID, name)
			}
			edits, err := pathEdits(ch.Paths)
			if err != nil {
				return nil, fmt.Errorf("admin: revert: entry %d, %s: %w", rec.ID, name, err)
			}
			vals[name] = edits
			continue
		}
		v, err := decodeLogged(c, ch.Before)
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
		return nil, errbody.New(http.StatusConflict, "conflict", "column %q: its logged value no longer fits the column", c.Name).WithParams("reason", "revert_misfit", "column", c.Name)
	}
	return out, nil
}

// SameValue compares a value of a row as read now with a value as the log
// holds it, as JSON: the log holds what the row read then, marshalled.
func SameValue(now any, logged json.RawMessage) bool { return rows.SameValue(now, logged) }

// conflicts refuses a revert of rec's changes when the row (now, locked)
// no longer holds what rec left in one of the columns the revert writes:
// for a document's paths, a path whose value is not the one rec left
// (or that is there when rec took it out), or whose place is gone (its
// parent no longer an object or array that holds it).
func (rec *auditRecord) conflicts(res *rows.Resource, writes map[string]any, now map[string]any) error {
	fields := map[string]string{}
	for name := range writes {
		label := res.ColumnLabel(res.Table.ByName[name])
		ch := rec.Changes[name]
		if ch.Paths == nil {
			if !SameValue(now[name], ch.After) {
				fields[name] = label + " changed since"
			}
			continue
		}
		if changed := pathsChanged(ch.Paths, now[name]); len(changed) > 0 {
			more := ""
			if len(changed) > 3 {
				more = fmt.Sprintf(" and %d more", len(changed)-3)
				changed = changed[:3]
			}
			fields[name] = label + ": " + strings.Join(changed, ", ") + more + " changed since"
		}
	}
	return changedSince(rec, fields)
}

// pathsChanged are the paths of changes (as dotted text) whose value in
// doc (a JSON column's value as rows carry it) is no longer the one the
// entry left.
func pathsChanged(changes []pathChange, doc any) []string {
	cur, err := rows.DecodeDoc(doc)
	var out []string
	for _, pc := range changes {
		v, there := rows.At(cur, pc.Path)
		parent, parentThere := rows.At(cur, pc.Path[:len(pc.Path)-1])
		switch {
		case err != nil, !parentThere || !holds(parent, pc.Path[len(pc.Path)-1]),
			pc.After == nil && there,
			pc.After != nil && (!there || !SameValue(v, pc.After)):
			out = append(out, pathString(pc.Path))
		}
	}
	return out
}

// holds reports whether parent is a place for step: an object for a
// key, an array long enough for an index.
func holds(parent, step any) bool {
	switch k := step.(type) {
	case string:
		_, ok := parent.(map[string]any)
		return ok
	case int:
		a, ok := parent.([]any)
		return ok && k < len(a)
	}
	return false
}

// pathString is a path for a message: inventory.slots[3].
func pathString(path []any) string {
	var b strings.Builder
	for i, p := range path {
		switch k := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, k)
		}
	}
	return b.String()
}

// pathEdits are the edits that put changes' places back as they were
// before: each set to its value before, or taken out when it had none.
func pathEdits(changes []pathChange) (rows.PathEdits, error) {
	edits := make(rows.PathEdits, 0, len(changes))
	for _, pc := range changes {
		if pc.Before == nil {
			edits = append(edits, rows.PathEdit{Path: pc.Path, Remove: true})
			continue
		}
		v, err := rows.DecodeDoc(pc.Before)
		if err != nil {
			return nil, err
		}
		edits = append(edits, rows.PathEdit{Path: pc.Path, Value: v})
	}
	return edits, nil
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
	e := errbody.New(http.StatusConflict, "conflict", "the row changed since entry %d (%s): an admin may force the revert", rec.ID, strings.Join(names, ", ")).WithParams("reason", "revert_changed", "auditId", rec.ID, "columns", names)
	e.Fields = fields
	return e
}
