package engine

import (
	"net/http"
	"strings"

	"github.com/gameadmin/admin/internal/account"
)

// POST /auth/login/totp {code} or {recoveryCode}, with the challenge from
// the cookie or {challenge}: the second sign-in step.
func (h *authHandler) handleLoginTOTP(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Code         string `json:"code"`
		RecoveryCode string `json:"recoveryCode"`
		Challenge    string `json:"challenge"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Challenge == "" {
		body.Challenge = h.tokens.Challenge(r)
	}
	s, err := h.auth.SecondFactor().Login(r.Context(), body.Challenge, body.Code, body.RecoveryCode, h.ips.Of(r), requestMeta(r, h.ips))
	if err != nil {
		return err
	}
	if err := h.tokens.SetSessionCookie(w, s.UserID, s.Role, s.TV); err != nil {
		return err
	}
	h.tokens.ClearChallengeCookie(w)
	writeJSON(w, http.StatusOK, map[string]any{"userId": s.UserID, "role": s.Role})
	return nil
}

// GET /auth/totp: {enabled, pending, required, recoveryCodesLeft}.
func (h *authHandler) handleTOTPStatus(w http.ResponseWriter, r *http.Request, op Operator) error {
	st, err := h.auth.SecondFactor().Status(r.Context(), op)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// POST /auth/totp/enroll: a new pending secret, replacing any earlier
// pending one. Answers {otpauthUrl, secret, qr}; the recovery codes come
// with the confirmation, once the factor works.
func (h *authHandler) handleTOTPEnroll(w http.ResponseWriter, r *http.Request, op Operator) error {
	if err := decodeOptional(r, &struct{}{}); err != nil {
		return err
	}
	key, qr, err := h.auth.SecondFactor().Enroll(r.Context(), op.UserID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"otpauthUrl": key.URL(), "secret": key.Secret(), "qr": qr})
	return nil
}

type codeBody struct {
	Code     string `json:"code"`
	Password string `json:"password"`
}

// readCode reads {code} (and {password} when allowPassword) within bounds.
func readCode(r *http.Request, allowPassword bool) (codeBody, error) {
	var b codeBody
	if err := decodeBody(r, &b); err != nil {
		return b, err
	}
	switch {
	case b.Password != "" && !allowPassword:
		return b, errorf(http.StatusBadRequest, "unknown_field", `unknown field "password"`).WithParams("field", "password")
	case b.Code == "" && b.Password == "":
		return b, errorf(http.StatusBadRequest, "missing_field", "code is required").WithParams("field", "code")
	}
	return b, account.CheckCodeLen(b.Code, b.Password)
}

// POST /auth/totp/confirm {code}: turns the pending factor on and answers
// the ten recovery codes, shown this once.
func (h *authHandler) handleTOTPConfirm(w http.ResponseWriter, r *http.Request, op Operator) error {
	b, err := readCode(r, false)
	if err != nil {
		return err
	}
	codes, tv, err := h.auth.SecondFactor().Confirm(r.Context(), op.UserID, b.Code, h.ips.Of(r), requestMeta(r, h.ips))
	if err != nil {
		return err
	}
	// The other sessions ended; this one goes on under the new version.
	if err := h.tokens.SetSessionCookie(w, op.UserID, op.Role, tv); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "recoveryCodes": codes})
	return nil
}

// POST /auth/totp/disable {code} or {password}.
func (h *authHandler) handleTOTPDisable(w http.ResponseWriter, r *http.Request, op Operator) error {
	b, err := readCode(r, true)
	if err != nil {
		return err
	}
	if err := h.auth.SecondFactor().Disable(r.Context(), op.UserID, b.Code, b.Password, h.ips.Of(r), requestMeta(r, h.ips)); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// POST /auth/totp/recovery-codes {code}: ten new recovery codes; the old
// ones stop working.
func (h *authHandler) handleRecoveryCodes(w http.ResponseWriter, r *http.Request, op Operator) error {
	b, err := readCode(r, false)
	if err != nil {
		return err
	}
	codes, err := h.auth.SecondFactor().RegenerateRecoveryCodes(r.Context(), op.UserID, b.Code, h.ips.Of(r), requestMeta(r, h.ips))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "recoveryCodes": codes})
	return nil
}

// POST /users/{id}/totp/reset: an admin removes another operator's second
// factor (a lost phone) and ends that user's sessions.
func (h *authHandler) handleTOTPReset(w http.ResponseWriter, r *http.Request, op Operator) error {
	ctx := r.Context()
	if op.Role != RoleAdmin {
		return errorf(http.StatusForbidden, "forbidden", "only an admin can reset two-factor sign-in").WithParams("reason", "admin_only")
	}
	if err := decodeOptional(r, &struct{}{}); err != nil {
		return err
	}
	userID, err := h.userID(r)
	if err != nil {
		return err
	}
	if _, err := h.roles.UserRole(ctx, h.db, userID); err != nil {
		return err
	}
	entry := h.userEntry(r, op, "user.totp_reset", userID)
	had, err := h.auth.SecondFactor().Reset(ctx, userID, &entry)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "hadTotp": had})
	return nil
}

// totpGate refuses an operator whom RequireTOTP makes enrol and who has
// not, except on the panel's endpoints that lead to enrolment. The
// request must be one the panel's own mux routed (r.Pattern is its
// pattern): a game route guarded by Guard asks the second factor's
// Require, which exempts nothing.
type totpGate struct {
	apiPath string // Options.APIPath, the prefix of the panel's patterns
	auth    *Auth
}

// check is nil when op may go on to r's endpoint.
func (g totpGate) check(r *http.Request, op Operator) error {
	if totpExempt[strings.TrimPrefix(r.Pattern, r.Method+" "+g.apiPath)] {
		return nil
	}
	return g.auth.SecondFactor().Require(r.Context(), op)
}

// totpExempt are the routes, under the API path, an operator who must
// enrol can still reach.
var totpExempt = map[string]bool{
	"/auth/me":                true,
	"/auth/logout":            true,
	"/auth/logout-everywhere": true,
	"/auth/totp":              true,
	"/auth/totp/enroll":       true,
	"/auth/totp/confirm":      true,
}
