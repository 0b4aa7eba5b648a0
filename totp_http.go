package admin

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"github.com/uptrace/bun"
)

// totpRoutes registers the two-factor and account endpoints.
func (a *Admin) totpRoutes(api func(pattern string, h http.Handler)) {
	api("POST /auth/login/totp", a.public(a.handleLoginTOTP))
	api("GET /auth/totp", a.signedIn(a.handleTOTPStatus))
	api("POST /auth/totp/enroll", a.signedIn(a.handleTOTPEnroll))
	api("POST /auth/totp/confirm", a.signedIn(a.handleTOTPConfirm))
	api("POST /auth/totp/disable", a.signedIn(a.handleTOTPDisable))
	api("POST /auth/totp/recovery-codes", a.signedIn(a.handleRecoveryCodes))
	api("POST /users/{id}/totp/reset", a.signedIn(a.handleTOTPReset))
	api("GET /auth/sessions", a.signedIn(a.handleSessions))
	api("POST /auth/password", a.signedIn(a.handlePasswordChange))
}

// limitTOTP spends one attempt of the TOTP limiter for the user and one for
// the client IP: a guesser is slowed down whichever of the two it spreads.
func (a *Admin) limitTOTP(r *http.Request, userID string) error {
	if err := a.limit(r.Context(), a.limits.TOTP, "user|"+userID); err != nil {
		return err
	}
	return a.limit(r.Context(), a.limits.TOTP, "ip|"+clientIP(r, a.opts.TrustedProxies))
}

// startTOTPChallenge is sign-in's hook after the password has been
// verified. For an account with TOTP on it answers {totpRequired: true}
// with a challenge token (also set as a cookie scoped to POST
// /auth/login/totp) instead of a session, and reports true.
func (a *Admin) startTOTPChallenge(w http.ResponseWriter, r *http.Request, acc *account) (bool, error) {
	on, err := a.totpEnabled(r.Context(), acc.ID)
	if err != nil || !on {
		return false, err
	}
	tok, err := a.signToken(claims{UserID: acc.ID, TV: acc.TokenVersion, Kind: kindTOTPChallenge}, totpChallengeTTL)
	if err != nil {
		return false, err
	}
	http.SetCookie(w, a.challengeCookie(tok, int(totpChallengeTTL/time.Second)))
	a.recordAuth(r, acc.ID, "auth.totp_challenge", acc.Email)
	writeJSON(w, http.StatusOK, map[string]any{"totpRequired": true, "challenge": tok})
	return true, nil
}

func (a *Admin) challengeCookie(value string, maxAge int) *http.Cookie {
	c := a.cookie(value, maxAge)
	c.Name, c.Path = totpChallengeCookie, apiPrefix+"/auth/login/totp"
	return c
}

// POST /auth/login/totp {code} or {recoveryCode}, with the challenge from
// the cookie or {challenge}: the second sign-in step.
func (a *Admin) handleLoginTOTP(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var body struct {
		Code         string `json:"code"`
		RecoveryCode string `json:"recoveryCode"`
		Challenge    string `json:"challenge"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if (body.Code == "") == (body.RecoveryCode == "") {
		return errorf(http.StatusBadRequest, "missing_field", "give either code or recoveryCode")
	}
	if len(body.Code) > maxCodeBytes || len(body.RecoveryCode) > maxCodeBytes {
		return errInvalidCode
	}
	raw := body.Challenge
	if ck, err := r.Cookie(totpChallengeCookie); raw == "" && err == nil {
		raw = ck.Value
	}
	c, err := a.parseToken(raw, kindTOTPChallenge)
	if err != nil {
		return errBadChallenge
	}
	acc, err := a.users.accountByID(ctx, a.db, c.UserID)
	if errors.Is(err, ErrNotFound) {
		return errBadChallenge
	}
	if err != nil {
		return err
	}
	if acc.TokenVersion != c.TV {
		return errBadChallenge
	}
	if acc.Ban.Active(time.Now()) {
		return errorf(http.StatusForbidden, "banned", "this account is banned")
	}
	if err := a.limitTOTP(r, acc.ID); err != nil {
		return err
	}
	method := "totp"
	if body.RecoveryCode != "" {
		method = "recovery"
		err = a.useRecoveryCode(ctx, acc.ID, body.RecoveryCode)
	} else {
		err = a.checkTOTP(ctx, acc.ID, body.Code, false)
	}
	if err != nil {
		if errors.Is(err, errInvalidCode) || errors.Is(err, errTOTPNotOn) {
			a.recordAuth(r, acc.ID, "auth.totp_failed", acc.Email, "method", method)
		}
		return err
	}
	_, op, err := a.sessionState(ctx, acc.ID)
	if err != nil {
		return err
	}
	if err := a.setSessionCookie(w, acc.ID, op.Role, acc.TokenVersion); err != nil {
		return err
	}
	http.SetCookie(w, a.challengeCookie("", -1))
	if method == "recovery" {
		a.recordAuth(r, acc.ID, "auth.recovery_used", acc.Email)
	}
	a.recordAuth(r, acc.ID, "auth.login", acc.Email, "secondFactor", method)
	writeJSON(w, http.StatusOK, map[string]any{"userId": acc.ID, "role": op.Role})
	return nil
}

// GET /auth/totp: {enabled, pending, required, recoveryCodesLeft}.
func (a *Admin) handleTOTPStatus(w http.ResponseWriter, r *http.Request, op Operator) error {
	row, err := a.totpRow(r.Context(), a.db, op.UserID)
	if err != nil {
		return err
	}
	left, err := a.recoveryCodesLeft(r.Context(), op.UserID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"enabled": row != nil && row.Enabled, "pending": row != nil && !row.Enabled,
		"required": a.totp.requires(op.Role), "recoveryCodesLeft": left,
	})
	return nil
}

// POST /auth/totp/enroll: a new pending secret, replacing any earlier
// pending one. Answers {otpauthUrl, secret, qr}; the recovery codes come
// with the confirmation, once the factor works.
func (a *Admin) handleTOTPEnroll(w http.ResponseWriter, r *http.Request, op Operator) error {
	ctx := r.Context()
	if err := decodeOptional(r, &struct{}{}); err != nil {
		return err
	}
	acc, err := a.users.accountByID(ctx, a.db, op.UserID)
	if err != nil {
		return err
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: acc.Email,
		Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return err
	}
	qr, err := qrDataURL(key)
	if err != nil {
		return err
	}
	err = a.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		row, err := a.totpRow(ctx, tx, op.UserID)
		if err != nil {
			return err
		}
		if row != nil && row.Enabled {
			return errTOTPAlreadyOn
		}
		if _, err := deleteTOTP(ctx, tx, op.UserID); err != nil {
			return err
		}
		_, err = tx.NewInsert().Model(&operatorTOTP{UserID: op.UserID, Secret: a.totp.seal(op.UserID, key.Secret()),
			CreatedAt: time.Now().UTC()}).Exec(ctx)
		return err
	})
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

// spendCode spends the TOTP limiter and checks code against op's second
// factor (the pending one when confirming); a refused code is audited.
func (a *Admin) spendCode(r *http.Request, op Operator, code string, pending bool, step string) error {
	if err := a.limitTOTP(r, op.UserID); err != nil {
		return err
	}
	err := a.checkTOTP(r.Context(), op.UserID, code, pending)
	if errors.Is(err, errInvalidCode) {
		a.recordAuth(r, op.UserID, "auth.totp_failed", "", "step", step)
	}
	return err
}

// POST /auth/totp/confirm {code}: turns the pending factor on and answers
// the ten recovery codes, shown this once.
func (a *Admin) handleTOTPConfirm(w http.ResponseWriter, r *http.Request, op Operator) error {
	ctx := r.Context()
	b, err := readCode(r, false)
	if err != nil {
		return err
	}
	if err := a.spendCode(r, op, b.Code, true, "confirm"); err != nil {
		return err
	}
	var codes []string
	err = a.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		now := time.Now().UTC()
		_, err := tx.NewUpdate().Model((*operatorTOTP)(nil)).Set("enabled = ?", true).Set("confirmed_at = ?", now).
			Where("user_id = ?", op.UserID).Exec(ctx)
		if err != nil {
			return err
		}
		codes, err = newRecoveryCodes(ctx, tx, op.UserID)
		return err
	})
	if err != nil {
		return err
	}
	a.recordAuth(r, op.UserID, "auth.totp_enabled", "")
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "recoveryCodes": codes})
	return nil
}

// POST /auth/totp/disable {code} or {password}.
func (a *Admin) handleTOTPDisable(w http.ResponseWriter, r *http.Request, op Operator) error {
	ctx := r.Context()
	b, err := readCode(r, true)
	if err != nil {
		return err
	}
	if on, err := a.totpEnabled(ctx, op.UserID); err != nil || !on {
		return errors.Join(err, errTOTPNotOn)
	}
	if b.Code != "" {
		if err := a.spendCode(r, op, b.Code, false, "disable"); err != nil {
			return err
		}
	} else if err := a.limitTOTP(r, op.UserID); err != nil {
		return err
	} else if err := a.checkPassword(ctx, op.UserID, b.Password); err != nil {
		return err
	}
	if _, err := deleteTOTP(ctx, a.db, op.UserID); err != nil {
		return err
	}
	a.recordAuth(r, op.UserID, "auth.totp_disabled", "")
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// checkPassword verifies userID's current password: 400 wrong_password.
func (a *Admin) checkPassword(ctx context.Context, userID, password string) error {
	acc, err := a.users.accountByID(ctx, a.db, userID)
	if err != nil {
		return err
	}
	ok, err := a.verify(ctx, password, acc.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return errorf(http.StatusBadRequest, "wrong_password", "the current password is wrong")
	}
	return nil
}

// POST /auth/totp/recovery-codes {code}: ten new recovery codes; the old
// ones stop working.
func (a *Admin) handleRecoveryCodes(w http.ResponseWriter, r *http.Request, op Operator) error {
	ctx := r.Context()
	b, err := readCode(r, false)
	if err != nil {
		return err
	}
	if err := a.spendCode(r, op, b.Code, false, "recovery-codes"); err != nil {
		return err
	}
	codes, err := newRecoveryCodes(ctx, a.db, op.UserID)
	if err != nil {
		return err
	}
	a.recordAuth(r, op.UserID, "auth.recovery_codes_regenerated", "")
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "recoveryCodes": codes})
	return nil
}

// POST /users/{id}/totp/reset: an admin removes another operator's second
// factor (a lost phone) and ends that user's sessions.
func (a *Admin) handleTOTPReset(w http.ResponseWriter, r *http.Request, op Operator) error {
	ctx := r.Context()
	if op.Role != RoleAdmin {
		return errorf(http.StatusForbidden, "forbidden", "only an admin can reset two-factor sign-in")
	}
	if err := decodeOptional(r, &struct{}{}); err != nil {
		return err
	}
	userID := r.PathValue("id")
	if _, err := a.userRole(ctx, a.db, userID); err != nil {
		return err
	}
	had, err := a.auth.ResetTOTP(ctx, userID)
	if err != nil {
		return err
	}
	a.recordUser(r, op, "user.totp_reset", userID, "hadTotp", had)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "hadTotp": had})
	return nil
}
