package admin

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Password bounds: long enough to matter, short enough that hashing a
// hostile body stays cheap.
const (
	minPasswordRunes = 8
	maxPasswordBytes = 1024
	maxEmailBytes    = 254
)

// bootstrapLockID serializes concurrent bootstraps on PostgreSQL.
const bootstrapLockID = 0x67616d6561646e

type credentials struct {
	Email       string `json:"email"`
	Password    string `json:"password"`
	DisplayName string `json:"displayName"`
}

func (c *credentials) check(newPassword bool) error {
	email, err := checkEmail(c.Email)
	if err != nil {
		return err
	}
	c.Email = email
	switch {
	case c.Password == "":
		return errorf(http.StatusBadRequest, "missing_field", "password is required")
	case len(c.DisplayName) > 200:
		return errorf(http.StatusBadRequest, "invalid_value", "displayName is longer than 200 characters")
	}
	if newPassword {
		return checkNewPassword(c.Password)
	}
	if len(c.Password) > maxPasswordBytes {
		return errorf(http.StatusBadRequest, "password_too_long", "password is longer than %d bytes", maxPasswordBytes)
	}
	return nil
}

func checkNewPassword(p string) error {
	if utf8.RuneCountInString(p) < minPasswordRunes {
		return errorf(http.StatusBadRequest, "password_too_short", "password must be at least %d characters", minPasswordRunes)
	}
	if len(p) > maxPasswordBytes {
		return errorf(http.StatusBadRequest, "password_too_long", "password is longer than %d bytes", maxPasswordBytes)
	}
	return nil
}

// hash and verify run the hasher under the concurrency gate.
func (a *Admin) hash(ctx context.Context, password string) (h string, err error) {
	if gerr := a.hashGate.do(ctx, func() { h, err = a.hasher.Hash(password) }); gerr != nil {
		return "", gerr
	}
	return h, err
}

func (a *Admin) verify(ctx context.Context, password, encoded string) (ok bool, err error) {
	if encoded == "" {
		encoded = a.dummy // same work for a user without a password
	}
	if gerr := a.hashGate.do(ctx, func() { ok, err = a.hasher.Verify(password, encoded) }); gerr != nil {
		return false, gerr
	}
	return ok && encoded != a.dummy, err
}

func (a *Admin) adminExists(ctx context.Context, db bun.IDB) (bool, error) {
	return db.NewSelect().Table("game_roles").Where("role = ?", RoleAdmin).Exists(ctx)
}

var (
	errInvalidCredentials = errorf(http.StatusUnauthorized, "invalid_credentials", "invalid email or password")
	errBootstrapClosed    = errorf(http.StatusForbidden, "bootstrap_closed", "an admin exists already; bootstrap is closed")
	errInvalidResetToken  = errorf(http.StatusBadRequest, "invalid_token", "the reset token is invalid, expired or already used")
)

// GET /auth/status
func (a *Admin) handleStatus(w http.ResponseWriter, r *http.Request) error {
	exists, err := a.adminExists(r.Context(), a.db)
	if err != nil {
		return err
	}
	resp := map[string]any{"needsBootstrap": !exists, "authenticated": false, "userId": nil, "role": nil}
	op, err := a.authenticate(r.Context(), r)
	switch {
	case err == nil:
		resp["authenticated"], resp["userId"], resp["role"] = true, op.UserID, op.Role
	case !errors.Is(err, errUnauthenticated):
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// POST /auth/bootstrap: the first admin. An existing user with that email
// is promoted, but only with its own password when it has one.
func (a *Admin) handleBootstrap(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := a.limit(ctx, a.limits.Bootstrap, clientIP(r, a.opts.TrustedProxies)); err != nil {
		return err
	}
	var c credentials
	if err := decodeBody(r, &c); err != nil {
		return err
	}
	if err := c.check(true); err != nil {
		return err
	}
	if exists, err := a.adminExists(ctx, a.db); err != nil || exists {
		return errors.Join(err, errBootstrapClosed)
	}
	acc, err := a.users.accountByEmail(ctx, a.db, c.Email)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	var newHash string
	if acc != nil && acc.PasswordHash != "" {
		ok, err := a.verify(ctx, c.Password, acc.PasswordHash)
		if err != nil {
			return err
		}
		if !ok {
			return errInvalidCredentials
		}
	} else if newHash, err = a.hash(ctx, c.Password); err != nil {
		return err
	}

	var userID string
	var tv int64
	err = a.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if a.db.Dialect().Name() == dialect.PG {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", bootstrapLockID); err != nil {
				return err
			}
		}
		if exists, err := a.adminExists(ctx, tx); err != nil || exists {
			return errors.Join(err, errBootstrapClosed)
		}
		switch {
		case acc == nil:
			id, err := a.users.createUser(ctx, tx, c.Email, c.DisplayName, newHash)
			if err != nil {
				return err
			}
			userID = id
		case newHash != "":
			if err := a.users.setPasswordHash(ctx, tx, acc.ID, newHash); err != nil {
				return err
			}
			userID, tv = acc.ID, acc.TokenVersion
		default:
			userID, tv = acc.ID, acc.TokenVersion
		}
		return upsertRole(ctx, tx, userID, RoleAdmin)
	})
	if err != nil {
		return err
	}
	if err := a.setSessionCookie(w, userID, RoleAdmin, tv); err != nil {
		return err
	}
	a.recordAuth(r, userID, "auth.bootstrap", c.Email)
	writeJSON(w, http.StatusCreated, map[string]any{"userId": userID, "role": RoleAdmin})
	return nil
}

// POST /auth/login
func (a *Admin) handleLogin(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var c credentials
	if err := decodeBody(r, &c); err != nil {
		return err
	}
	if c.DisplayName != "" {
		return errorf(http.StatusBadRequest, "unknown_field", `unknown field "displayName"`)
	}
	if err := c.check(false); err != nil {
		return err
	}
	if err := a.limit(ctx, a.limits.Login, clientIP(r, a.opts.TrustedProxies)+"|"+c.Email); err != nil {
		return err
	}
	failures := a.limits.LoginFailuresPerEmail
	if p, ok := failures.(Peeker); ok {
		allowed, retry, err := p.Peek(ctx, c.Email)
		if err != nil {
			return errors.Join(err, errorf(http.StatusServiceUnavailable, "rate_limiter_unavailable", "rate limiter unavailable"))
		}
		if !allowed {
			return rateLimited(retry)
		}
	} else if err := a.limit(ctx, failures, c.Email); err != nil {
		return err
	}

	acc, err := a.users.accountByEmail(ctx, a.db, c.Email)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	hash := ""
	if acc != nil {
		hash = acc.PasswordHash
	}
	ok, err := a.verify(ctx, c.Password, hash)
	if err != nil {
		return err
	}
	if !ok {
		operator := ""
		if acc != nil {
			operator = acc.ID
		}
		a.recordAuth(r, operator, "auth.login_failed", c.Email)
		if _, ok := failures.(Peeker); ok {
			if _, _, err := failures.Allow(ctx, c.Email); err != nil {
				a.log.ErrorContext(ctx, "admin: login failure limiter", "err", err)
			}
		}
		return errInvalidCredentials
	}
	if acc.Ban.Active(time.Now()) {
		a.recordAuth(r, acc.ID, "auth.login_failed", c.Email, "reason", "banned")
		return errorf(http.StatusForbidden, "banned", "this account is banned")
	}
	if pending, err := a.startTOTPChallenge(w, r, acc); pending || err != nil {
		return err // the session comes from POST /auth/login/totp
	}
	_, op, err := a.sessionState(ctx, acc.ID)
	if err != nil {
		return err
	}
	if err := a.setSessionCookie(w, acc.ID, op.Role, acc.TokenVersion); err != nil {
		return err
	}
	a.rehashIfNeeded(ctx, acc, c.Password)
	a.recordAuth(r, acc.ID, "auth.login", c.Email)
	writeJSON(w, http.StatusOK, map[string]any{"userId": acc.ID, "role": op.Role})
	return nil
}

// rehashIfNeeded upgrades a bcrypt or outdated argon2id hash after a
// successful sign-in, while the plain password is at hand.
func (a *Admin) rehashIfNeeded(ctx context.Context, acc *account, password string) {
	rh, ok := a.hasher.(interface{ NeedsRehash(string) bool })
	if !ok || !rh.NeedsRehash(acc.PasswordHash) {
		return
	}
	h, err := a.hash(ctx, password)
	if err == nil {
		_, err = a.db.NewUpdate().TableExpr("?", a.users.ident()).Set("password_hash = ?", h).
			Where("id = ?", acc.ID).Where("password_hash = ?", acc.PasswordHash).Exec(ctx)
	}
	if err != nil {
		a.log.ErrorContext(ctx, "admin: rehash password", "userId", acc.ID, "err", err)
	}
}

// GET /auth/me
func (a *Admin) handleMe(w http.ResponseWriter, r *http.Request, op Operator) error {
	acc, err := a.users.accountByID(r.Context(), a.db, op.UserID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"userId": op.UserID, "role": op.Role, "email": acc.Email,
		"displayName": acc.DisplayName, "scopes": op.Scopes,
	})
	return nil
}

// POST /auth/logout: clears the cookie only; the token stays valid until it
// expires unless the token version is bumped (logout-everywhere).
func (a *Admin) handleLogout(w http.ResponseWriter, r *http.Request, op Operator) error {
	a.clearSessionCookie(w)
	a.recordAuth(r, op.UserID, "auth.logout", "")
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// POST /auth/logout-everywhere: ends every session of the operator.
func (a *Admin) handleLogoutEverywhere(w http.ResponseWriter, r *http.Request, op Operator) error {
	if err := a.auth.BumpTokenVersion(r.Context(), op.UserID); err != nil {
		if errors.Is(err, ErrUnsupported) {
			return errorf(http.StatusNotImplemented, "unsupported", "the users table has no token_version column")
		}
		return err
	}
	a.clearSessionCookie(w)
	a.recordAuth(r, op.UserID, "auth.logout", "", "everywhere", true)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// POST /auth/request-reset: always 200, so it tells nobody whether an email
// exists; the lookup and the delivery run after the answer.
func (a *Admin) handleRequestReset(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var body struct {
		Email string `json:"email"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	email := normalizeEmail(body.Email)
	if email == "" {
		return errorf(http.StatusBadRequest, "missing_field", "email is required")
	}
	if len(email) > maxEmailBytes {
		return errorf(http.StatusBadRequest, "invalid_value", "email is not a valid address")
	}
	if err := a.limit(ctx, a.limits.RequestReset, clientIP(r, a.opts.TrustedProxies)+"|"+email); err != nil {
		return err
	}
	meta := a.requestMeta(r)
	if !a.goBackground(ctx, func(ctx context.Context) { a.sendReset(ctx, email, meta) }) {
		return errorf(http.StatusServiceUnavailable, "closed", "the admin panel is shutting down")
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

func (a *Admin) sendReset(ctx context.Context, email string, meta map[string]any) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	acc, err := a.users.accountByEmail(ctx, a.db, email)
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			a.log.ErrorContext(ctx, "admin: reset lookup", "err", err)
		}
		a.record(ctx, AuditEntry{Action: "auth.password_reset_requested", Resource: "auth", Payload: withMeta(meta, "email", email)})
		return
	}
	tok, err := a.signToken(claims{UserID: acc.ID, TV: acc.TokenVersion, Kind: kindReset, PW: a.passwordFingerprint(acc.PasswordHash)}, resetTTL)
	if err != nil {
		a.log.ErrorContext(ctx, "admin: sign reset token", "err", err)
		return
	}
	req := ResetRequest{Email: acc.Email, UserID: acc.ID, Token: tok, URL: a.opts.UIPath + "/reset?token=" + url.QueryEscape(tok)}
	if a.opts.OnResetRequest != nil {
		err = a.opts.OnResetRequest(ctx, req)
	} else {
		// Local development only: the link is a credential, so production
		// deployments set OnResetRequest.
		a.log.InfoContext(ctx, "admin: password reset requested (set Options.OnResetRequest to email it)", "email", acc.Email, "url", req.URL)
	}
	if err != nil {
		a.log.ErrorContext(ctx, "admin: OnResetRequest failed", "userId", acc.ID, "err", err)
	}
	a.record(ctx, AuditEntry{OperatorID: acc.ID, Action: "auth.password_reset_requested", Resource: "auth", TargetID: acc.ID, Payload: withMeta(meta, "email", email)})
}

// POST /auth/reset: sets the password and ends every session of the user.
func (a *Admin) handleReset(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var body struct {
		Token    string `json:"token"`
		Password string `json:"password"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Token == "" || body.Password == "" {
		return errorf(http.StatusBadRequest, "missing_field", "token and password are required")
	}
	c, err := a.parseToken(body.Token, kindReset)
	if err != nil {
		return errInvalidResetToken
	}
	if err := checkNewPassword(body.Password); err != nil {
		return err
	}
	acc, err := a.users.accountByID(ctx, a.db, c.UserID)
	if errors.Is(err, ErrNotFound) {
		return errInvalidResetToken
	}
	if err != nil {
		return err
	}
	if acc.TokenVersion != c.TV || a.passwordFingerprint(acc.PasswordHash) != c.PW {
		return errInvalidResetToken
	}
	h, err := a.hash(ctx, body.Password)
	if err != nil {
		return err
	}
	// One statement, conditioned on the state the token was issued for: two
	// concurrent uses of one token cannot both succeed.
	q := a.db.NewUpdate().TableExpr("?", a.users.ident()).Set("password_hash = ?", h).
		Where("id = ?", acc.ID).Where("COALESCE(password_hash, '') = ?", acc.PasswordHash)
	if a.users.hasTokenVer {
		q = q.Set("token_version = token_version + 1").Where("token_version = ?", acc.TokenVersion)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errors.Join(err, errInvalidResetToken)
	}
	a.recordAuth(r, acc.ID, "auth.password_reset_completed", acc.Email)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// recordAuth writes an auth.* audit entry with {email?, ip, userAgent} and
// any extra key/value pairs.
func (a *Admin) recordAuth(r *http.Request, operatorID, action, email string, kv ...any) {
	payload := withMeta(a.requestMeta(r), kv...)
	if email != "" {
		payload["email"] = email
	}
	a.record(r.Context(), AuditEntry{OperatorID: operatorID, Action: action, Resource: "auth", TargetID: operatorID, Payload: payload})
}

// withMeta copies meta and adds the key/value pairs kv.
func withMeta(meta map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(meta)+len(kv)/2)
	for k, v := range meta {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}
