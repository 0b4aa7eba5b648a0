package admin

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/uptrace/bun"
)

// maxSessionsShown bounds GET /auth/sessions.
const maxSessionsShown = 20

// signInActions are the audit actions that issued a session.
var signInActions = []string{"auth.login", "auth.bootstrap"}

// GET /auth/sessions: the operator's own recent sign-ins, newest first, read
// from the audit log: [{time, ip, userAgent, action, secondFactor?}].
func (a *Admin) handleSessions(w http.ResponseWriter, r *http.Request, op Operator) error {
	var rows []AuditEntry
	err := a.db.NewSelect().Model(&rows).Where("operator_id = ?", op.UserID).
		Where("action IN (?)", bun.In(signInActions)).OrderExpr("id DESC").Limit(maxSessionsShown).Scan(r.Context())
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(rows))
	for _, e := range rows {
		s := map[string]any{"time": e.CreatedAt.UTC().Format(time.RFC3339), "action": e.Action, "ip": e.Payload["ip"], "userAgent": e.Payload["userAgent"]}
		if f, ok := e.Payload["secondFactor"]; ok {
			s["secondFactor"] = f
		}
		out = append(out, s)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// POST /auth/password {current, new}: changes the operator's own password.
// Every other session ends; this one gets a fresh cookie.
func (a *Admin) handlePasswordChange(w http.ResponseWriter, r *http.Request, op Operator) error {
	ctx := r.Context()
	var body struct {
		Current string `json:"current"`
		New     string `json:"new"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Current == "" || body.New == "" {
		return errorf(http.StatusBadRequest, "missing_field", "current and new are required")
	}
	if len(body.Current) > maxPasswordBytes {
		return errorf(http.StatusBadRequest, "password_too_long", "password is longer than %d bytes", maxPasswordBytes)
	}
	if err := checkNewPassword(body.New); err != nil {
		return err
	}
	if err := a.limitTOTP(r, op.UserID); err != nil {
		return err
	}
	if err := a.checkPassword(ctx, op.UserID, body.Current); err != nil {
		if errors.Is(err, ErrNotFound) {
			return errUnauthenticated
		}
		return err
	}
	h, err := a.hash(ctx, body.New)
	if err != nil {
		return err
	}
	var tv int64
	err = a.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := a.users.setPasswordHash(ctx, tx, op.UserID, h); err != nil {
			return err
		}
		if !a.users.hasTokenVer {
			return nil
		}
		if err := a.auth.bumpTokenVersion(ctx, tx, op.UserID); err != nil {
			return err
		}
		acc, err := a.users.accountByID(ctx, tx, op.UserID)
		if err == nil {
			tv = acc.TokenVersion
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := a.setSessionCookie(w, op.UserID, op.Role, tv); err != nil {
		return err
	}
	a.recordAuth(r, op.UserID, "auth.password_changed", "")
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}
