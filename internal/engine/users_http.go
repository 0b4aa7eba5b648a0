package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/query"

	"github.com/google/uuid"
)

// maxReasonLen bounds ban and kick reasons.
const maxReasonLen = 500

// POST /admin-api/{resource}/{id}/{op}: ban, unban and revoke-sessions on
// users. Each needs update on users, ends the player's live connections in
// every room (ban and revoke), and is audited. invite is handleInvite.
func (a usersAPI) handleUserOp(w http.ResponseWriter, r *http.Request, op Operator) error {
	if r.PathValue("resource") != "users" || a.resources["users"] == nil {
		return errNotFoundRoute
	}
	action := r.PathValue("op")
	if action == "invite" {
		return a.handleInvite(w, r, op)
	}
	if action != "ban" && action != "unban" && action != "revoke-sessions" {
		return errNotFoundRoute
	}
	if err := a.gate(op, OpUpdate, "users"); err != nil {
		return err
	}
	if err := a.moderationSupported(action); err != nil {
		return err
	}
	ctx := r.Context()
	userID, err := a.pathUserID(r)
	if err != nil {
		return err
	}
	if userID == op.UserID {
		return errorf(http.StatusBadRequest, "self_moderation", "you cannot moderate your own account here")
	}
	var body banBody
	var until *time.Time
	if action == "ban" {
		if err := decodeOptional(r, &body); err != nil {
			return err
		}
		if until, err = a.checkBan(body); err != nil {
			return err
		}
	}
	n, partial, err := a.sanctions.Apply(ctx, op, userID, moderation.Action{Name: action, Reason: body.Reason, Until: until, Meta: requestMeta(r, a.clientIPs())})
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
func (a usersAPI) pathUserID(r *http.Request) (string, error) {
	return a.userID(r.PathValue("id"))
}

// userID checks raw against the users id type, so that a malformed id
// answers 400, as on the users resource, rather than reaching the
// database (PostgreSQL refuses 'x' as a bigint or uuid). A UUID comes
// back in its canonical lower-case form, the one sessions carry, so
// comparing it with Operator.UserID means what it says.
func (a usersAPI) userID(raw string) (string, error) {
	res := a.resources["users"]
	if res == nil {
		return raw, nil
	}
	if _, err := query.DecodeID(res.View, raw); err != nil {
		return "", clientError(err)
	}
	if c := res.View.ByName[a.users.Cols.ID]; c != nil && strings.EqualFold(c.SQLType, "uuid") {
		if u, err := uuid.Parse(raw); err == nil {
			raw = u.String()
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
func (a usersAPI) checkBan(b banBody) (*time.Time, error) {
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
	if !t.After(a.now()) {
		return nil, fieldError(http.StatusBadRequest, "invalid_value", "until", "until must be in the future")
	}
	return &t, nil
}

// checkReason bounds a ban or kick reason, counted in characters (runes),
// not bytes.
func checkReason(reason string) error {
	if utf8.RuneCountInString(reason) > maxReasonLen {
		return errorf(http.StatusBadRequest, "invalid_value", "reason is longer than %d characters", maxReasonLen)
	}
	return nil
}

func (a usersAPI) recordUser(r *http.Request, op Operator, action, userID string, kv ...any) {
	a.audit.Event(r.Context(), a.userEntry(r, op, action, userID, kv...))
}

// userEntry is the entry recordUser writes, for callers that write it in
// the transaction of their change.
func (a usersAPI) userEntry(r *http.Request, op Operator, action, userID string, kv ...any) AuditEntry {
	return AuditEntry{OperatorID: op.UserID, Action: action, Resource: "users", TargetID: userID, Payload: audit.Payload(requestMeta(r, a.clientIPs()), kv...)}
}

// POST /admin-api/users/{id}/invite (admins): sends the user a link to set
// a password through OnResetRequest, marked Invite. The link is never in
// the answer: it is a credential for the account.
func (a usersAPI) handleInvite(w http.ResponseWriter, r *http.Request, op Operator) error {
	if op.Role != RoleAdmin {
		return errorf(http.StatusForbidden, "forbidden", "only an admin can send an invite")
	}
	ctx := r.Context()
	userID, err := a.pathUserID(r)
	if err != nil {
		return err
	}
	acc, err := a.users.AccountByID(ctx, a.db, userID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return errorf(http.StatusNotFound, "not_found", "no such user")
		}
		return err
	}
	if acc.Email == "" {
		return fieldError(http.StatusBadRequest, "no_email", a.users.Cols.Email, "this player has no email: an invite is sent by email")
	}
	target, err := a.moderation.Role(ctx, userID)
	if err != nil {
		return err
	}
	if err := a.auth.SendInvite(ctx, acc, target.Role); err != nil {
		return fmt.Errorf("admin: invite %s: %w", userID, err)
	}
	a.recordUser(r, op, "user.invite", userID, "email", acc.Email)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}
