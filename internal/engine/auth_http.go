package engine

import (
	"errors"
	"net/http"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/moderation"
)

// GET /auth/status
func (a authAPI) handleStatus(w http.ResponseWriter, r *http.Request) error {
	exists, err := a.roles.AdminExists(r.Context(), a.db)
	if err != nil {
		return err
	}
	resp := map[string]any{"needsBootstrap": !exists, "setupTokenRequired": !exists,
		"authenticated": false, "userId": nil, "role": nil}
	op, err := a.sessions.Verify(r.Context(), r)
	switch {
	case err == nil:
		resp["authenticated"], resp["userId"], resp["role"] = true, op.UserID, op.Role
		// ?with=catalog saves the UI a round trip on load: the catalog
		// comes along when GET /admin-api would answer it.
		if r.URL.Query().Get("with") == "catalog" && op.Role.IsOperator() && a.totpGate(r, op) == nil {
			resp["catalog"] = viewsAPI(a).catalog(op)
		}
	case !errors.Is(err, errUnauthenticated):
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// POST /auth/bootstrap: the first admin, with the setup token (setup.go). An existing user with
// that email is promoted, but only with its own password when it has one.
func (a authAPI) handleBootstrap(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := a.auth.LimitBootstrap(ctx, a.ClientIP(r), requestMeta(r, a.clientIPs())); err != nil {
		return err
	}
	var body struct {
		account.Credentials
		Token string `json:"token"` // the setup token (setup.go)
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	c := body.Credentials
	if err := c.Check(true); err != nil {
		return err
	}
	if err := a.setupAllowed(r, body.Token); err != nil {
		return err
	}
	userID, tv, err := a.bootstrap(ctx, c, requestMeta(r, a.clientIPs()))
	if err != nil {
		return err
	}
	if err := a.tokens.SetSessionCookie(w, userID, RoleAdmin, tv); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"userId": userID, "role": RoleAdmin})
	return nil
}

// POST /auth/login: a session, or {totpRequired: true} with a challenge
// token (also set as a cookie scoped to POST /auth/login/totp) for an
// account with two-factor sign-in on.
func (a authAPI) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var c account.Credentials
	if err := decodeBody(r, &c); err != nil {
		return err
	}
	if c.DisplayName != "" {
		return errorf(http.StatusBadRequest, "unknown_field", `unknown field "displayName"`)
	}
	if err := c.Check(false); err != nil {
		return err
	}
	device := a.tokens.Device(r)
	s, err := a.auth.Login(r.Context(), account.LoginAttempt{Email: c.Email, Password: c.Password, IP: a.ClientIP(r), Meta: requestMeta(r, a.clientIPs()), Device: device})
	if err != nil {
		return err
	}
	// The password was right: this browser is the account's device.
	if err := a.tokens.SetDeviceCookie(w, device, s.UserID); err != nil {
		return err
	}
	if s.Challenge != "" {
		a.tokens.SetChallengeCookie(w, s.Challenge)
		writeJSON(w, http.StatusOK, map[string]any{"totpRequired": true, "challenge": s.Challenge})
		return nil
	}
	if err := a.tokens.SetSessionCookie(w, s.UserID, s.Role, s.TV); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"userId": s.UserID, "role": s.Role})
	return nil
}

// GET /auth/me
func (a authAPI) handleMe(w http.ResponseWriter, r *http.Request, op Operator) error {
	acc, err := a.users.AccountByID(r.Context(), a.db, op.UserID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"userId": op.UserID, "role": op.Role, "email": acc.Email,
		"displayName": acc.DisplayName, "scopes": op.Scopes,
		"features": a.features(),
		// The rules the UI would otherwise copy: whose accounts op may
		// change (RoleTable.CanWriteUser refuses the others) and the
		// ban lengths it offers.
		"changesAccountsOf": op.Role.ChangesAccountsOf(),
		"banPresets":        moderation.BanPresets(),
	})
	return nil
}

// features says which optional parts this panel has, so the UI offers
// only what the server can do: ban and unban need the users table's ban
// and token version columns, revoking sessions and signing out everywhere
// the token version, live rooms Options.Rooms, the reports queue
// Options.ReportCategories.
func (a authAPI) features() map[string]bool {
	return map[string]bool{
		"ban":            a.users.HasBan && a.users.HasTokenVersion,
		"revokeSessions": a.users.HasTokenVersion,
		"rooms":          a.opts.Rooms != nil,
		"reports":        a.reports.On(),
	}
}

// POST /auth/logout: clears the cookie only; the token stays valid until it
// expires unless the token version is bumped (logout-everywhere).
func (a authAPI) handleLogout(w http.ResponseWriter, r *http.Request, op Operator) error {
	a.tokens.ClearSessionCookie(w)
	a.auth.Record(r.Context(), requestMeta(r, a.clientIPs()), op.UserID, "auth.logout", "")
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// POST /auth/logout-everywhere: ends every session of the operator.
func (a authAPI) handleLogoutEverywhere(w http.ResponseWriter, r *http.Request, op Operator) error {
	if err := a.auth.BumpTokenVersion(r.Context(), op.UserID); err != nil {
		if errors.Is(err, ErrUnsupported) {
			return errorf(http.StatusNotImplemented, "unsupported", "the users table has no token_version column")
		}
		return err
	}
	a.tokens.ClearSessionCookie(w)
	a.auth.Record(r.Context(), requestMeta(r, a.clientIPs()), op.UserID, "auth.logout", "", "everywhere", true)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}
