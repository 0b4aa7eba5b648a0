package engine

import (
	"net/http"
	"net/url"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/clientip"
)

// The accounts are package account's: sign-in, sessions, passwords, the
// second factor, reset links and the first admin. Here are the public
// names of its types, and what of it the panel's own Go API answers.

// Auth is the Go API over accounts: sign-in, sessions, bans, passwords and
// second factors. It works on the users table of Options.Tables. The
// panel's auth endpoints are thin layers over it.
type Auth = account.Auth

// ExternalSignIn is what a game's identity provider vouched for, told to
// StartSession.
type ExternalSignIn = account.ExternalSignIn

// TOTPPolicy says which operators must sign in with a second factor
// (Options.RequireTOTP).
type TOTPPolicy = account.TOTPPolicy

// The values of Options.RequireTOTP.
const (
	// TOTPNone requires nobody to enrol; anyone may still turn TOTP on.
	TOTPNone = account.TOTPNone
	// TOTPAdmins requires every admin to enrol.
	TOTPAdmins = account.TOTPAdmins
	// TOTPOperators requires every admin and mod to enrol.
	TOTPOperators = account.TOTPOperators
)

// ClientIP returns the client IP of r as a canonical string, honouring
// X-Forwarded-For, Forwarded and Options.ClientIPHeader only when the peer
// is in the panel's Options.TrustedProxies. It is the key of the panel's
// rate limiters; a game's own limiters should use it too.
func (a *Admin) ClientIP(r *http.Request) string {
	return a.clientIPs().Of(r)
}

// clientIPs is the panel's resolver of client addresses.
func (a *Admin) clientIPs() clientip.Resolver {
	return clientip.Resolver{Trusted: a.opts.TrustedProxies, Header: a.opts.ClientIPHeader}
}

// SecondFactorURL is the panel's page for the code of a challenge that
// StartSession left pending: <UIPath>/login?step=totp, with next (a
// same-origin path, of the panel or the game) where sign-in then leads.
func (a *Admin) SecondFactorURL(next string) string {
	u := a.opts.UIPath + "/login?step=totp"
	if isPlainPath(next) {
		u += "&next=" + url.QueryEscape(next)
	}
	return u
}
