package engine

import (
	"errors"
	"net/http"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/clientip"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/users"
)

// authHandler answers the auth endpoints (routes.go builds it): sign-in
// and its second step, the session, reset links, the first admin
// (setup.go), and the operator's own account and second factor
// (account_http.go, totp_http.go). The work is internal/account's; here
// are the bodies, the cookies and the answers.
type authHandler struct {
	auth     *Auth
	tokens   *account.Tokens       // the session, device and challenge cookies
	sessions *account.SessionCheck // GET /auth/status reads a session it may lack
	totp     totpGate              // GET /auth/status?with=catalog answers what the API would
	setup    *account.SetupToken
	db       *bun.DB
	roles    *users.RoleTable
	users    *users.Table
	audit    *audit.Log        // the operator's sign-ins
	prefs    *account.Prefs    // the operator's language (GET /auth/me, PUT /auth/locale)
	ips      clientip.Resolver // the client's ip, behind the trusted proxies
	// rooms and reports say Options.Rooms and Options.ReportCategories
	// are set (features).
	rooms, reports bool

	catalog   func(op Operator) []catalog.Entry                                               // what GET {api} answers op
	userID    func(r *http.Request) (string, error)                                           // the {id} of a users path, as the users endpoints read it
	userEntry func(r *http.Request, op Operator, action, userID string, kv ...any) AuditEntry // an entry about a user, as the users endpoints write it
}

// GET /auth/status
func (h *authHandler) handleStatus(w http.ResponseWriter, r *http.Request) error {
	exists, err := h.roles.AdminExists(r.Context(), h.db)
	if err != nil {
		return err
	}
	resp := map[string]any{"needsBootstrap": !exists, "setupTokenRequired": !exists,
		"authenticated": false, "userId": nil, "role": nil, "loginFields": h.loginFields()}
	op, err := h.sessions.Verify(r.Context(), r)
	switch {
	case err == nil:
		resp["authenticated"], resp["userId"], resp["role"] = true, op.UserID, op.Role
		// ?with=catalog saves the UI a round trip on load: the catalog
		// comes along when GET /admin-api would answer it.
		if r.URL.Query().Get("with") == "catalog" && op.Role.IsOperator() && h.totp.check(r, op) == nil {
			resp["catalog"] = h.catalog(op)
		}
	case !errors.Is(err, errUnauthenticated):
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// loginFields are what an operator signs in with, for the sign-in and
// first-admin forms: "email" with an email column, "username" with
// UserColumns.Username.
func (h *authHandler) loginFields() []string {
	var out []string
	if h.users.HasEmail {
		out = append(out, "email")
	}
	if h.users.HasUsername {
		out = append(out, "username")
	}
	return out
}

// POST /auth/bootstrap: the first admin, with the setup token (setup.go). An existing user with
// that email is promoted, but only with its own password when it has one.
func (h *authHandler) handleBootstrap(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	if err := h.auth.LimitBootstrap(ctx, h.ips.Of(r), requestMeta(r, h.ips)); err != nil {
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
	if err := h.setupAllowed(r, body.Token); err != nil {
		return err
	}
	userID, tv, err := bootstrap(ctx, h.auth, h.setup, c, requestMeta(r, h.ips))
	if err != nil {
		return err
	}
	if err := h.tokens.SetSessionCookie(w, userID, RoleAdmin, tv); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"userId": userID, "role": RoleAdmin})
	return nil
}

// POST /auth/login ({login | email | username, password}: see
// account.LoginBody): a session, or {totpRequired: true} with a challenge
// token (also set as a cookie scoped to POST /auth/login/totp) for an
// account with two-factor sign-in on.
func (h *authHandler) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var body account.LoginBody
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	at, err := body.Attempt()
	if err != nil {
		return err
	}
	device := h.tokens.Device(r)
	at.IP, at.Meta, at.Device = h.ips.Of(r), requestMeta(r, h.ips), device
	s, err := h.auth.Login(r.Context(), at)
	if err != nil {
		return err
	}
	// The password was right: this browser is the account's device.
	if err := h.tokens.SetDeviceCookie(w, device, s.UserID); err != nil {
		return err
	}
	if s.Challenge != "" {
		h.tokens.SetChallengeCookie(w, s.Challenge)
		writeJSON(w, http.StatusOK, map[string]any{"totpRequired": true, "challenge": s.Challenge})
		return nil
	}
	if err := h.tokens.SetSessionCookie(w, s.UserID, s.Role, s.TV); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"userId": s.UserID, "role": s.Role})
	return nil
}

// GET /auth/me
func (h *authHandler) handleMe(w http.ResponseWriter, r *http.Request, op Operator) error {
	acc, err := h.users.AccountByID(r.Context(), h.db, op.UserID)
	if err != nil {
		return err
	}
	locale, err := h.prefs.Locale(r.Context(), op.UserID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"userId": op.UserID, "role": op.Role, "email": acc.Email, "username": acc.Username,
		"displayName": acc.DisplayName, "scopes": op.Scopes,
		// The language the operator chose for the UI; "": none, the UI
		// follows the browser's.
		"locale": locale,
		// A row-scoped mod's values (null: every row): the UI says which
		// rows a scoped resource's pages show.
		"rows":     rowsOf(op),
		"features": h.features(),
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
// the token version, reset links and invites an email column, live rooms Options.Rooms, the reports queue
// Options.ReportCategories.
func (h *authHandler) features() map[string]bool {
	return map[string]bool{
		"ban":            h.users.HasBan && h.users.HasTokenVersion,
		"revokeSessions": h.users.HasTokenVersion,
		// email: the users table has an email column, so reset links
		// and invites can be sent (to accounts with an email).
		"email":   h.users.HasEmail,
		"rooms":   h.rooms,
		"reports": h.reports,
	}
}

// POST /auth/logout: clears the cookie only; the token stays valid until it
// expires unless the token version is bumped (logout-everywhere).
func (h *authHandler) handleLogout(w http.ResponseWriter, r *http.Request, op Operator) error {
	h.tokens.ClearSessionCookie(w)
	h.auth.Record(r.Context(), requestMeta(r, h.ips), op.UserID, "auth.logout", "")
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// POST /auth/logout-everywhere: ends every session of the operator.
func (h *authHandler) handleLogoutEverywhere(w http.ResponseWriter, r *http.Request, op Operator) error {
	if err := h.auth.BumpTokenVersion(r.Context(), op.UserID); err != nil {
		if errors.Is(err, ErrUnsupported) {
			return errorf(http.StatusNotImplemented, "unsupported", "the users table has no token_version column")
		}
		return err
	}
	h.tokens.ClearSessionCookie(w)
	h.auth.Record(r.Context(), requestMeta(r, h.ips), op.UserID, "auth.logout", "", "everywhere", true)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}
