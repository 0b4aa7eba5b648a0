package engine

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/gameadmin/admin/internal/account"
)

// The first run. While no admin exists, POST /auth/bootstrap makes
// whoever calls it the admin, so a panel deployed and not yet opened
// would be the first visitor's. It takes a setup token: a fresh random
// one each start, logged as a one-time link (or Options.SetupToken, the
// same on every node of a cluster), compared in constant time and spent
// by the bootstrap. Every bootstrap needs it, whatever address it comes
// from: a reverse proxy on the same host that adds no forwarding header
// (Go's httputil.ReverseProxy with Rewrite, nginx's default proxy_pass,
// an ssh tunnel) makes every request look like loopback, and a server
// cannot tell. A scripted deployment creates its first admin from Go
// (Admin.CreateFirstAdmin) instead. The token and the bootstrap are
// package account's (SetupToken, Auth.Bootstrap); here are the link, the
// gate and the Go API.

// errSetupTokenRequired answers a bootstrap that needs the setup token and
// has none, or another.
var errSetupTokenRequired = errorf(http.StatusForbidden, "setup_token_required",
	"no admin exists yet: open the setup link the game server logged when it started")

// announceSetup logs the first-run link while no admin exists. A token
// the game set is not logged: the game knows it.
func (a *compiler) announceSetup(ctx context.Context) {
	exists, err := a.roles.AdminExists(ctx, a.db)
	if err != nil || exists {
		return
	}
	if !a.setup.Generated() {
		a.log.WarnContext(ctx, "admin: no admin yet; open "+a.opts.UIPath+"/setup?token=<Options.SetupToken> to create the first one")
		return
	}
	a.log.WarnContext(ctx, "admin: no admin yet; open this one-time link to create the first one (a new token each start)",
		"link", setupLink(a.opts.UIPath, a.setup))
}

// setupLink is the site-relative setup link, under uiPath, with the
// generated token.
func setupLink(uiPath string, token *account.SetupToken) string {
	return uiPath + "/setup?token=" + url.QueryEscape(token.Value())
}

// SetupLink returns the site-relative link that creates the first admin,
// <UIPath>/setup?token=<token>, while no admin exists and the token is
// one New generated (the link it logged); "" otherwise (an admin exists,
// the token is Options.SetupToken, which the game knows, or the check
// failed). A game prefixes its own origin to print a link a terminal can
// open, as the demo does.
func (a *Admin) SetupLink(ctx context.Context) string {
	if !a.setup.Generated() || a.setup.Spent() {
		return ""
	}
	if exists, err := a.roles.AdminExists(ctx, a.db); err != nil || exists {
		return ""
	}
	return setupLink(a.opts.UIPath, a.setup)
}

// CreateFirstAdmin creates the first admin from Go, for a scripted
// deployment (a CLI flag of the game's, an init job) that should not
// open the setup link: the same checks and audit entry
// (auth.bootstrap, "via": "go") as the setup page, without a token or a
// session. An existing user with that email is promoted when password is
// its password. It returns the admin's user id, or ErrBootstrapClosed
// once an admin exists, or an *APIError naming a bad email or a password
// that is too short.
func (a *Admin) CreateFirstAdmin(ctx context.Context, email, password, displayName string) (string, error) {
	c := account.Credentials{Email: email, Password: password, DisplayName: displayName}
	if u := a.users; u.HasUsername && (!u.HasEmail || !strings.Contains(email, "@")) {
		c.Email, c.Username = "", email // a username (UserColumns.Username)
	}
	if err := c.Check(true); err != nil {
		return "", err
	}
	userID, _, err := bootstrap(ctx, a.auth, a.setup, c, map[string]any{"via": "go"})
	return userID, err
}

// bootstrap makes the first admin (Auth.Bootstrap, with the users
// resource's defaults) and spends the setup token: the setup page and
// CreateFirstAdmin both come through here.
func bootstrap(ctx context.Context, auth *Auth, setup *account.SetupToken, c account.Credentials, meta map[string]any) (userID string, tv int64, err error) {
	if userID, tv, err = auth.Bootstrap(ctx, c, meta); err != nil {
		return "", 0, err
	}
	setup.Spend()
	return userID, tv, nil
}

// setupAllowed is the bootstrap's gate: the unspent token. The answer
// without it is the closed bootstrap when an admin exists (as without the
// gate), else setup_token_required.
func (h *authHandler) setupAllowed(r *http.Request, token string) error {
	if h.setup.Matches(token) {
		return nil
	}
	if exists, err := h.roles.AdminExists(r.Context(), h.db); err != nil {
		return err
	} else if exists {
		return ErrBootstrapClosed
	}
	return errSetupTokenRequired
}
