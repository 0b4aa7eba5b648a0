package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
)

// Action is a custom button on a resource's list page: per row, or a bulk
// action on the toolbar.
type Action struct {
	// Name is the last segment of POST /admin-api/<key>/_action/<name>.
	Name string
	// Label is the button text. Default: the humanized Name.
	Label string
	// PerRow puts the action in each row's menu; it then receives the row.
	// Default false: a bulk action, which receives nil.
	PerRow bool
	// Confirm is the confirmation prompt. Default: the UI asks
	// `Run "<Label>"?`.
	Confirm *Confirm
	// Roles may invoke the action, checked literally (admin is not
	// implied). Empty: any signed-in identity, a plain user too, and the
	// action then bypasses the resource's policies — list admin explicitly
	// for admin-only actions.
	Roles []Role
	// Handler runs the action. Its result must marshal to JSON. Return an
	// error made with NewError to answer the operator with its status and
	// message; any other error is logged and answered with a generic 500.
	Handler func(ctx context.Context, row map[string]any, c ActionContext) (any, error)
}

// Confirm is an action's confirmation prompt.
type Confirm struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

// ActionContext is what an Action's Handler receives besides the row.
type ActionContext struct {
	UserID   string
	Role     Role
	Resource string
	// Args is the full request body.
	Args map[string]any
}

// NewError returns an error that the panel answers with status and message
// as they are: for Action handlers and Defaults functions to refuse with a
// reason the operator should read. code is a snake_case identifier.
func NewError(status int, code, message string) error {
	if status < 400 || status > 599 {
		status = http.StatusBadRequest
	}
	return &apiError{Status: status, Code: code, Message: message}
}

// POST /admin-api/{resource}/_action/{name}
func (a *Admin) handleAction(w http.ResponseWriter, r *http.Request, op Operator) error {
	res, err := a.resource(r)
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	i := slices.IndexFunc(res.cfg.Actions, func(x Action) bool { return x.Name == name })
	if i < 0 {
		return errorf(http.StatusNotFound, "unknown_action", "resource %q has no action %q", res.key, name)
	}
	act := res.cfg.Actions[i]
	if len(act.Roles) > 0 && !slices.Contains(act.Roles, op.Role) || a.opts.OperatorsOnly && !op.Role.IsOperator() {
		return errorf(http.StatusForbidden, "forbidden", "action %q is not allowed for role %q", name, op.Role)
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
			return errorf(http.StatusBadRequest, "missing_field", "a per-row action needs {id}")
		}
		id, err := a.rowIDFromBody(res, raw)
		if err != nil {
			return err
		}
		if row, err = a.readRow(ctx, a.db, res, id); err != nil {
			return err
		}
		if userID, ok := a.userRowID(res, row); ok {
			if _, err := a.canWriteUser(ctx, a.db, op, userID); err != nil {
				return err
			}
		}
		target = encodeRowID(res, row)
	}
	result, err := runAction(ctx, act, row, ActionContext{UserID: op.UserID, Role: op.Role, Resource: res.key, Args: args})
	if err != nil {
		return err
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("admin: action %s/%s: result does not marshal to JSON: %w", res.key, name, err)
	}
	a.record(ctx, AuditEntry{OperatorID: op.UserID, Action: "custom", Resource: res.key, TargetID: target,
		Payload: map[string]any{"name": name, "args": args, "result": json.RawMessage(raw)}})
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": json.RawMessage(raw)})
	return nil
}

// runAction calls the handler, turning a panic into an error so a bug in
// one action cannot take the server down.
func runAction(ctx context.Context, act Action, row map[string]any, c ActionContext) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("admin: action %s/%s panicked: %v", c.Resource, act.Name, p)
		}
	}()
	result, err = act.Handler(ctx, row, c)
	var ae *apiError
	if err != nil && !errors.As(err, &ae) {
		err = fmt.Errorf("admin: action %s/%s: %w", c.Resource, act.Name, err)
	}
	return result, err
}
