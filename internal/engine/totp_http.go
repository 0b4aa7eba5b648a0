package engine

import (
	"context"
	"net/http"
	"strings"
)

// POST /auth/login/totp {code} or {recoveryCode}, with the challenge from
// the cookie or {challenge}: the second sign-in step.
func (a authAPI) handleLoginTOTP(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Code         string `json:"code"`
		RecoveryCode string `json:"recoveryCode"`
		Challenge    string `json:"challenge"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if ck, err := r.Cookie(totpChallengeCookie); body.Challenge == "" && err == nil {
		body.Challenge = ck.Value
	}
	s, err := (*secondFactor)(a.auth).loginTOTP(r.Context(), body.Challenge, body.Code, body.RecoveryCode, a.ClientIP(r), requestMeta(r, a.clientIPs()))
	if err != nil {
		return err
	}
	if err := a.setSessionCookie(w, s.userID, s.role, s.tv); err != nil {
		return err
	}
	http.SetCookie(w, a.challengeCookie("", -1))
	writeJSON(w, http.StatusOK, map[string]any{"userId": s.userID, "role": s.role})
	return nil
}

// GET /auth/totp: {enabled, pending, required, recoveryCodesLeft}.
func (a authAPI) handleTOTPStatus(w http.ResponseWriter, r *http.Request, op Operator) error {
	st, err := (*secondFactor)(a.auth).totpStatus(r.Context(), op)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// POST /auth/totp/enroll: a new pending secret, replacing any earlier
// pending one. Answers {otpauthUrl, secret, qr}; the recovery codes come
// with the confirmation, once the factor works.
func (a authAPI) handleTOTPEnroll(w http.ResponseWriter, r *http.Request, op Operator) error {
	if err := decodeOptional(r, &struct{}{}); err != nil {
		return err
	}
	key, qr, err := (*secondFactor)(a.auth).enrollTOTP(r.Context(), op.UserID)
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
		return b, errorf(http.StatusBadRequest, "unknown_field", `unknown field "password"`)
	case b.Code == "" && b.Password == "":
		return b, errorf(http.StatusBadRequest, "missing_field", "code is required")
	case len(b.Code) > maxCodeBytes || len(b.Password) > maxPasswordBytes:
		return b, errInvalidCode
	}
	return b, nil
}

// POST /auth/totp/confirm {code}: turns the pending factor on and answers
// the ten recovery codes, shown this once.
func (a authAPI) handleTOTPConfirm(w http.ResponseWriter, r *http.Request, op Operator) error {
	b, err := readCode(r, false)
	if err != nil {
		return err
	}
	codes, tv, err := (*secondFactor)(a.auth).confirmTOTP(r.Context(), op.UserID, b.Code, a.ClientIP(r), requestMeta(r, a.clientIPs()))
	if err != nil {
		return err
	}
	// The other sessions ended; this one goes on under the new version.
	if err := a.setSessionCookie(w, op.UserID, op.Role, tv); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "recoveryCodes": codes})
	return nil
}

// POST /auth/totp/disable {code} or {password}.
func (a authAPI) handleTOTPDisable(w http.ResponseWriter, r *http.Request, op Operator) error {
	b, err := readCode(r, true)
	if err != nil {
		return err
	}
	if err := (*secondFactor)(a.auth).disableTOTP(r.Context(), op.UserID, b.Code, b.Password, a.ClientIP(r), requestMeta(r, a.clientIPs())); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// POST /auth/totp/recovery-codes {code}: ten new recovery codes; the old
// ones stop working.
func (a authAPI) handleRecoveryCodes(w http.ResponseWriter, r *http.Request, op Operator) error {
	b, err := readCode(r, false)
	if err != nil {
		return err
	}
	codes, err := (*secondFactor)(a.auth).regenerateRecoveryCodes(r.Context(), op.UserID, b.Code, a.ClientIP(r), requestMeta(r, a.clientIPs()))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "recoveryCodes": codes})
	return nil
}

// POST /users/{id}/totp/reset: an admin removes another operator's second
// factor (a lost phone) and ends that user's sessions.
func (a authAPI) handleTOTPReset(w http.ResponseWriter, r *http.Request, op Operator) error {
	ctx := r.Context()
	if op.Role != RoleAdmin {
		return errorf(http.StatusForbidden, "forbidden", "only an admin can reset two-factor sign-in")
	}
	if err := decodeOptional(r, &struct{}{}); err != nil {
		return err
	}
	userID, err := usersAPI(a).pathUserID(r)
	if err != nil {
		return err
	}
	if _, err := a.roles.UserRole(ctx, a.db, userID); err != nil {
		return err
	}
	entry := usersAPI(a).userEntry(r, op, "user.totp_reset", userID)
	had, err := (*secondFactor)(a.auth).resetTOTP(ctx, userID, &entry)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "hadTotp": had})
	return nil
}

// totpGate refuses an operator whom RequireTOTP makes enrol and who has
// not, except on the panel's endpoints that lead to enrolment. r must be
// a request the panel's own mux routed (r.Pattern is its pattern): a game
// route guarded by Guard uses requireTOTP, which exempts nothing.
func (a *Admin) totpGate(r *http.Request, op Operator) error {
	if totpExempt[strings.TrimPrefix(r.Pattern, r.Method+" "+a.opts.APIPath)] {
		return nil
	}
	return a.requireTOTP(r.Context(), op)
}

// requireTOTP refuses an operator whom RequireTOTP makes enrol and who
// has not.
func (a *Admin) requireTOTP(ctx context.Context, op Operator) error {
	if !a.auth.totp.requires(op.Role) {
		return nil
	}
	on, err := (*secondFactor)(a.auth).totpEnabled(ctx, op.UserID)
	if err != nil {
		return err
	}
	if !on {
		return errTOTPRequired
	}
	return nil
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
