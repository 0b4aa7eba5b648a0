package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/users"

	"github.com/google/uuid"
)

// maxReasonLen bounds ban and kick reasons.
const maxReasonLen = 500

// userHandler serves the users endpoints: a user's moderation (ban,
// unban, revoke-sessions: one user here, a selection in users_bulk.go)
// and invite. It is built over what they use (newUserHandler): the users
// resource, the sanctions, the permission gate, the invite's role and
// mail, the audit log and the request's metadata.
type userHandler struct {
	users     *usersResource
	sanctions *moderation.Sanctions
	gate      func(op Operator, o Op, key string) error
	roleOf    func(ctx context.Context, userID string) (Operator, error)
	invite    func(ctx context.Context, acc *users.Account, role Role) error
	audit     *audit.Log
	meta      func(r *http.Request) map[string]any
}

// newUserHandler builds the users endpoints' handler.
func newUserHandler(u *usersResource, s *moderation.Sanctions, gate func(Operator, Op, string) error,
	roleOf func(context.Context, string) (Operator, error), invite func(context.Context, *users.Account, Role) error,
	log *audit.Log, meta func(*http.Request) map[string]any) userHandler {
	return userHandler{users: u, sanctions: s, gate: gate, roleOf: roleOf, invite: invite, audit: log, meta: meta}
}

// userHandlerOf builds a's users endpoints' handler (routes.go).
func userHandlerOf(a *Admin) userHandler {
	return newUserHandler(a.usersRes, a.sanctions, a.gate, a.moderation.Role, a.auth.SendInvite, a.audit,
		func(r *http.Request) map[string]any { return requestMeta(r, a.clientIPs()) })
}

// ours reports whether the {resource} of r's path is the users resource.
func (h userHandler) ours(r *http.Request) bool {
	return h.users.res != nil && r.PathValue("resource") == h.users.res.Key
}

// POST /admin-api/{resource}/{id}/{op}: ban, unban and revoke-sessions on
// users. Each needs update on users, ends the player's live connections in
// every room (ban and revoke), and is audited. invite is handleInvite.
func (h userHandler) handleUserOp(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !h.ours(r) {
		return errNotFoundRoute
	}
	action := r.PathValue("op")
	if action == "invite" {
		return h.handleInvite(w, r, op)
	}
	if action != "ban" && action != "unban" && action != "revoke-sessions" {
		return errNotFoundRoute
	}
	u := h.users
	if err := h.gate(op, OpUpdate, u.res.Key); err != nil {
		return err
	}
	if err := u.moderationSupported(action); err != nil {
		return err
	}
	ctx := r.Context()
	userID, err := u.pathUserID(r)
	if err != nil {
		return err
	}
	if userID == op.UserID {
		return errorf(http.StatusBadRequest, "self_moderation", "you cannot moderate your own account here").WithParams("reason", "moderate")
	}
	var body banBody
	var until *time.Time
	if action == "ban" {
		if err := decodeOptional(r, &body); err != nil {
			return err
		}
		if until, err = u.checkBan(body); err != nil {
			return err
		}
	}
	n, partial, err := h.sanctions.Apply(ctx, op, userID, moderation.Action{Name: action, Reason: body.Reason, Until: until, Meta: h.meta(r)})
	if err != nil {
		return err
	}
	out := map[string]any{"ok": true}
	if action != "unban" {
		out["sessionsClosed"] = n
	}
	if partial {
		// Some node could not be told: its sockets of the user stay open
		// until it hears (their sessions no longer verify).
		out["partial"] = true
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// pathUserID is the {id} of a users path, as userID reads it.
func (u *usersResource) pathUserID(r *http.Request) (string, error) {
	return u.userID(r.PathValue("id"))
}

// userID checks raw against the users id type, so that a malformed id
// answers 400, as on the users resource, rather than reaching the
// database (PostgreSQL refuses 'x' as a bigint or uuid). A UUID comes
// back in its canonical lower-case form, the one sessions carry, so
// comparing it with Operator.UserID means what it says.
func (u *usersResource) userID(raw string) (string, error) {
	res := u.res
	if res == nil {
		return raw, nil
	}
	if _, err := query.DecodeID(res.View, raw); err != nil {
		return "", clientError(err)
	}
	if c := res.View.ByName[u.users.Cols.ID]; c != nil && strings.EqualFold(c.SQLType, "uuid") {
		if id, err := uuid.Parse(raw); err == nil {
			raw = id.String()
		}
	}
	return raw, nil
}

// banBody is the body of a ban, of one user or of a selection: until is
// read by checkBan, so that a number or a malformed time answers 400
// naming the field and the form it takes.
type banBody struct {
	Reason string          `json:"reason"`
	Until  json.RawMessage `json:"until"`
}

// checkBan checks a ban's body: the reason's length, and until, absent or
// null (a ban without an end) or an RFC 3339 time string in the future.
func (u *usersResource) checkBan(b banBody) (*time.Time, error) {
	if err := checkReason(b.Reason); err != nil {
		return nil, err
	}
	raw := bytes.TrimSpace(b.Until)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	const forms = `an RFC 3339 time string ("2026-12-01T18:00:00Z"), or null for a ban without an end`
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fieldError(http.StatusBadRequest, "invalid_value", "until", "until must be %s, not %s", forms, errbody.Truncate(string(raw), 40))
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return nil, fieldError(http.StatusBadRequest, "invalid_value", "until", "until must be %s, not %q", forms, errbody.Truncate(s, 40))
	}
	if !t.After(u.now()) {
		return nil, fieldError(http.StatusBadRequest, "invalid_value", "until", "until must be in the future").WithParams("field", "until")
	}
	return &t, nil
}

// checkReason bounds a ban or kick reason, counted in characters (runes),
// not bytes.
func checkReason(reason string) error {
	if utf8.RuneCountInString(reason) > maxReasonLen {
		return errorf(http.StatusBadRequest, "invalid_value", "reason is longer than %d characters", maxReasonLen).WithParams("field", "reason", "max", maxReasonLen)
	}
	return nil
}

// entry is the audit entry about the user userID: action by op, with
// the request's metadata (meta) and kv in its payload.
func (u *usersResource) entry(meta map[string]any, op Operator, action, userID string, kv ...any) AuditEntry {
	return AuditEntry{OperatorID: op.UserID, Action: action, Resource: users.Key, TargetID: userID, Payload: audit.Payload(meta, kv...)}
}

// POST /admin-api/users/{id}/invite (admins): sends the user a link to set
// a password through OnResetRequest, marked Invite. The link is never in
// the answer: it is a credential for the account.
func (h userHandler) handleInvite(w http.ResponseWriter, r *http.Request, op Operator) error {
	if op.Role != RoleAdmin {
		return errorf(http.StatusForbidden, "forbidden", "only an admin can send an invite").WithParams("reason", "admin_only")
	}
	ctx := r.Context()
	u := h.users
	userID, err := u.pathUserID(r)
	if err != nil {
		return err
	}
	acc, err := u.users.AccountByID(ctx, u.db, userID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return errorf(http.StatusNotFound, "not_found", "no such user")
		}
		return err
	}
	if !u.users.HasEmail {
		return account.ErrNoEmailColumn
	}
	if acc.Email == "" {
		return fieldError(http.StatusBadRequest, "no_email", u.users.Cols.Email, "this account has no email: an invite is sent by email")
	}
	target, err := h.roleOf(ctx, userID)
	if err != nil {
		return err
	}
	if err := h.invite(ctx, acc, target.Role); err != nil {
		return fmt.Errorf("admin: invite %s: %w", userID, err)
	}
	h.audit.Event(ctx, u.entry(h.meta(r), op, "user.invite", userID, "email", acc.Email))
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}
