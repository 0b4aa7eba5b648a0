package admin

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// maxReasonLen bounds ban and kick reasons (SEED.md 4.3).
const maxReasonLen = 500

// POST /admin-api/{resource}/{id}/{op}: ban, unban and revoke-sessions on
// users. Each needs update on users, ends the player's live connections in
// every room (ban and revoke), and is audited.
func (a *Admin) handleUserOp(w http.ResponseWriter, r *http.Request, op Operator) error {
	if r.PathValue("resource") != "users" || a.resources["users"] == nil {
		return errNotFoundRoute
	}
	action := r.PathValue("op")
	if action != "ban" && action != "unban" && action != "revoke-sessions" {
		return errNotFoundRoute
	}
	if err := a.gate(op, OpUpdate, "users"); err != nil {
		return err
	}
	if u := a.users; !u.hasBan || !u.hasTokenVer {
		return errorf(http.StatusNotImplemented, "unsupported", "the users table needs ban and token_version columns for moderation")
	}
	ctx := r.Context()
	userID := r.PathValue("id")
	if err := a.canModerate(ctx, op, userID); err != nil {
		return err
	}
	switch action {
	case "ban":
		var body struct {
			Reason string     `json:"reason"`
			Until  *time.Time `json:"until"`
		}
		if err := decodeOptional(r, &body); err != nil {
			return err
		}
		if utf8.RuneCountInString(body.Reason) > maxReasonLen {
			return errorf(http.StatusBadRequest, "invalid_value", "reason is longer than %d characters", maxReasonLen)
		}
		if body.Until != nil && !body.Until.After(time.Now()) {
			return errorf(http.StatusBadRequest, "invalid_value", "until must be in the future")
		}
		if err := a.auth.Ban(ctx, userID, BanInfo{Reason: body.Reason, Until: body.Until, BannedBy: op.UserID}); err != nil {
			return err
		}
		closed := a.disconnect(r, userID, "banned")
		a.recordUser(r, op, "user.ban", userID, "reason", body.Reason, "until", body.Until, "sessionsClosed", closed)
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "sessionsClosed": closed})
	case "unban":
		if err := a.auth.Unban(ctx, userID); err != nil {
			return err
		}
		a.recordUser(r, op, "user.unban", userID)
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	case "revoke-sessions":
		if err := a.auth.BumpTokenVersion(ctx, userID); err != nil {
			return err
		}
		closed := a.disconnect(r, userID, "sessions revoked")
		a.recordUser(r, op, "user.revoke_sessions", userID, "sessionsClosed", closed)
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "sessionsClosed": closed})
	}
	return nil
}

// userRole is the target's current role, read through db (a transaction
// when the caller holds one); 404 when there is no such user.
func (a *Admin) userRole(ctx context.Context, db bun.IDB, userID string) (Role, error) {
	if _, err := a.users.accountByID(ctx, db, userID); err != nil {
		if errors.Is(err, ErrNotFound) {
			return "", errorf(http.StatusNotFound, "not_found", "no such user")
		}
		return "", err
	}
	var role sql.NullString
	err := db.NewSelect().Table("game_roles").Column("role").Where("user_id = ?", userID).Scan(ctx, &role)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	if r := Role(role.String); role.Valid && r.Valid() {
		return r, nil
	}
	return RoleUser, nil
}

// canModerate keeps moderation pointing down the hierarchy: nobody bans or
// revokes themselves through the panel, and only an admin acts on a mod or
// an admin.
func (a *Admin) canModerate(ctx context.Context, op Operator, userID string) error {
	if userID == op.UserID {
		return errorf(http.StatusBadRequest, "self_moderation", "you cannot moderate your own account here")
	}
	_, err := a.canWriteUser(ctx, a.db, op, userID)
	return err
}

// canWriteUser applies the hierarchy to every write on a users row
// (update, delete, custom actions, moderation): whatever a resource policy
// allows, only an admin touches an operator's account. Otherwise a mod with
// the users scope could set an admin's email to their own, request a reset
// and sign in as the admin. It returns the target's role.
func (a *Admin) canWriteUser(ctx context.Context, db bun.IDB, op Operator, userID string) (Role, error) {
	role, err := a.userRole(ctx, db, userID)
	if err != nil {
		return "", err
	}
	if op.Role != RoleAdmin && role.IsOperator() {
		return "", errorf(http.StatusForbidden, "forbidden", "only an admin can change the account of a %s", role)
	}
	return role, nil
}

// userRowID is the id of a users row as the Auth API takes it.
func (a *Admin) userRowID(res *resource, row map[string]any) (string, bool) {
	if res.key != "users" || len(res.table.PK) != 1 {
		return "", false
	}
	return fmt.Sprint(row[res.table.PK[0].Name]), true
}

// checkEmail normalizes an email and refuses anything but one bare address:
// sign-in and password reset match on it.
func checkEmail(s string) (string, error) {
	e := normalizeEmail(s)
	if e == "" {
		return "", errorf(http.StatusBadRequest, "missing_field", "email is required")
	}
	if addr, err := mail.ParseAddress(e); len(e) > maxEmailBytes || err != nil || addr.Address != e {
		return "", errorf(http.StatusBadRequest, "invalid_value", "email %q is not a valid address", truncate(e, 80))
	}
	return e, nil
}

// truncate shortens s to at most n runes for a message.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// disconnect closes the user's live connections in every room. The ban or
// revocation has happened already, so a failure here is logged, not
// answered: the sessions cannot rejoin either way.
func (a *Admin) disconnect(r *http.Request, userID, reason string) int {
	if a.opts.Rooms == nil {
		return 0
	}
	n, err := a.opts.Rooms.DisconnectUser(r.Context(), userID, reason)
	if err != nil {
		a.log.ErrorContext(r.Context(), "admin: disconnect user from rooms", "userId", userID, "err", err)
	}
	return n
}

func (a *Admin) recordUser(r *http.Request, op Operator, action, userID string, kv ...any) {
	a.record(r.Context(), AuditEntry{OperatorID: op.UserID, Action: action, Resource: "users", TargetID: userID, Payload: withMeta(a.requestMeta(r), kv...)})
}
