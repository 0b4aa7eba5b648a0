package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/rows"
)

// Action is admin.Action, field for field; its documentation is there.
type Action = rows.Action

// Confirm is an action's confirmation prompt (the catalog tells the UI).
type Confirm = catalog.Confirm

// ActionContext is admin.ActionContext, field for field; its documentation is there.
type ActionContext = rows.ActionContext

// maxActionIDs bounds a bulk action's selection.
const maxActionIDs = 1000

// NewError returns an error that the panel answers with status and message
// as they are: for Action handlers and Defaults functions to refuse with a
// reason the operator should read. code is a snake_case identifier; a
// status outside 400-599 becomes 400.
func NewError(status int, code, message string) *APIError {
	if status < 400 || status > 599 {
		status = http.StatusBadRequest
	}
	return &APIError{Status: status, Code: code, Message: message}
}

// POST /admin-api/{resource}/_action/{name}
func (h *rowsHandler) handleAction(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := h.resource(r)
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	i := slices.IndexFunc(res.Config.Actions, func(x Action) bool { return x.Name == name })
	if i < 0 {
		return errorf(http.StatusNotFound, "unknown_action", "resource %q has no action %q", res.Key, name)
	}
	act := res.Config.Actions[i]
	if err := limit(r.Context(), h.actionLimit, op.UserID); err != nil {
		return err // RateLimit.Actions: an operator's actions, and their audit rows, are bounded
	}
	if !act.Allows(op.Role) || !h.playersCanRead && !op.Role.IsOperator() {
		return errorf(http.StatusForbidden, "forbidden", "action %q is not allowed for role %q", name, op.Role).WithParams("reason", "action", "action", name, "role", string(op.Role))
	}
	var args map[string]any
	if err := decodeAny(r, &args); err != nil {
		return err
	}
	if args == nil {
		args = map[string]any{}
	}
	ctx := r.Context()
	var row map[string]any
	var target string
	if act.PerRow {
		raw, ok := args["id"]
		if !ok {
			return errorf(http.StatusBadRequest, "missing_field", "a per-row action needs {id}").WithParams("field", "id")
		}
		id, err := rowIDFromBody(res, raw)
		if err != nil {
			return err
		}
		if row, err = h.store.ReadScoped(ctx, h.db, op, res, id, false); err != nil { // outside a mod's row scope: missing
			return err
		}
		if userID, ok := rows.UserRowID(res, row); ok {
			if _, err := h.roles.CanWriteUser(ctx, h.db, op, userID); err != nil {
				return err
			}
		}
		target = encodeRowID(res, row)
	}
	ac := ActionContext{UserID: op.UserID, Role: op.Role, Resource: res.Key, Args: args}
	payload := map[string]any{"name": name, "args": args}
	if raw, ok := args["ids"]; ok {
		if act.PerRow {
			return errorf(http.StatusBadRequest, "invalid_value", "a per-row action takes {id}, not {ids}")
		}
		ids, rows, err := h.selection(ctx, op, res, raw)
		if err != nil {
			return err
		}
		ac.IDs = ids
		if act.LoadRows {
			ac.Rows = rows
		}
		encoded := make([]string, len(rows))
		for i, row := range rows {
			encoded[i] = encodeRowID(res, row)
		}
		payload["ids"] = encoded
	}
	result, err := runAction(ctx, act, row, ac)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("admin: action %s/%s: result does not marshal to JSON: %w", res.Key, name, err)
	}
	// The handler ran outside any transaction of the panel (it may call
	// anything), so its entry is written once it returns; when that write
	// fails, the answer is a 500 and the log line has the action's result.
	payload["result"] = json.RawMessage(raw)
	if err := h.audit.Record(ctx, AuditEntry{OperatorID: op.UserID, Action: "custom", Resource: res.Key, TargetID: target,
		Payload: payload}); err != nil {
		return fmt.Errorf("admin: action %s/%s ran but its audit entry was not written (result %.500s): %w", res.Key, name, raw, err)
	}
	// The handler had the rows as the panel reads them; the operator is
	// answered them as their role reads them (the entry keeps the values).
	answer, err := h.as(op, res.Key).RedactJSON(raw)
	if err != nil {
		return fmt.Errorf("admin: action %s/%s: its result: %w", res.Key, name, err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": answer})
	return nil
}

// selection decodes a bulk action's {ids: [...]} and reads the rows they
// name in one query: 400 for an ids that is not a non-empty array of at
// most maxActionIDs ids, for a malformed id and for one naming no row. A
// user row the operator may not act on (a mod and an admin) answers as a
// per-row action does. Repeated ids count once.
func (h *rowsHandler) selection(ctx context.Context, op Operator, res *resource, raw any) ([]map[string]any, []map[string]any, error) {
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, nil, errorf(http.StatusBadRequest, "invalid_value", "ids must be a non-empty array of row ids")
	}
	if len(list) > maxActionIDs {
		return nil, nil, errorf(http.StatusBadRequest, "invalid_value", "ids names more than %d rows", maxActionIDs).WithParams("field", "ids", "max", maxActionIDs)
	}
	var ids []map[string]any
	var keys []string
	seen := map[string]bool{}
	for i, v := range list {
		id, err := rowIDFromBody(res, v)
		if err != nil {
			var ae *APIError
			if errors.As(err, &ae) {
				return nil, nil, errorf(ae.Status, ae.Code, "ids[%d]: %s", i, ae.Message)
			}
			return nil, nil, err
		}
		if k := encodeRowID(res, id); !seen[k] {
			seen[k] = true
			ids, keys = append(ids, id), append(keys, k)
		}
	}
	found, err := h.store.ReadRows(ctx, res, ids)
	if err != nil {
		return nil, nil, err
	}
	byKey := make(map[string]map[string]any, len(found))
	for _, row := range found {
		if res.InScope(row, op) { // a row outside a mod's row scope names no row
			byKey[encodeRowID(res, row)] = row
		}
	}
	ordered := make([]map[string]any, len(ids))
	for i, k := range keys {
		if ordered[i] = byKey[k]; ordered[i] == nil {
			return nil, nil, errorf(http.StatusBadRequest, "unknown_id", "ids: no %s row with id %q", res.Key, errbody.Truncate(k, 80))
		}
		// An admin may act on any user: no role to read per row.
		if userID, ok := rows.UserRowID(res, ordered[i]); ok && op.Role != RoleAdmin {
			if _, err := h.roles.CanWriteUser(ctx, h.db, op, userID); err != nil {
				return nil, nil, err
			}
		}
	}
	return ids, ordered, nil
}

// runAction calls the handler, turning a panic into an error so a bug in
// one action cannot take the server down.
func runAction(ctx context.Context, act Action, row map[string]any, c ActionContext) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("admin: action %s/%s: %w", c.Resource, act.Name, recovered(p))
		}
	}()
	result, err = act.Handler(ctx, row, c)
	var ae *APIError
	if err != nil && !errors.As(err, &ae) {
		err = fmt.Errorf("admin: action %s/%s: %w", c.Resource, act.Name, err)
	}
	return result, err
}
