package admin

import (
	"errors"
	"net/http"
	"net/url"
	"time"
)

// ErrSecondFactorRequired is StartSession's answer for a user with
// two-factor sign-in on: no session was issued, a challenge is pending in
// its cookie, and the browser should be sent to SecondFactorURL to enter
// a code.
var ErrSecondFactorRequired = errors.New("admin: second factor required")

// StartSession issues the panel session for userID, a user the game has
// signed in itself (its own login, SSO, OIDC): the same session cookie as
// the panel's sign-in, and an auth.login audit entry with "method":
// "external". Call it from the game's handler before writing the answer,
// then redirect to the panel (a.UIPath()) or the page the user wanted.
//
// No password is checked and no rate limit is spent: the game vouches for
// the user, so the game's own sign-in must be limited. A banned user gets
// ErrBanned (audited as auth.login_failed, "reason": "banned"), an unknown
// one ErrNotFound; neither gets a cookie.
//
// A user with two-factor sign-in on (see README, Two-factor sign-in) does
// not get a session yet: StartSession sets the TOTP challenge cookie and
// returns ErrSecondFactorRequired, and the game redirects to
// a.SecondFactorURL(next), where the panel asks for the code. The game's
// sign-in, whatever its own factors, does not replace the panel's second
// one: a stolen SSO account or a weak game password then still cannot
// reach the panel. An integrator whose identity provider enforces its own
// second factor for operators can leave TOTP off for them instead.
func (au *Auth) StartSession(w http.ResponseWriter, r *http.Request, userID string) error {
	if au.closed.Load() {
		return errClosed
	}
	ctx := r.Context()
	acc, err := au.users.accountByID(ctx, au.db, userID)
	if err != nil {
		return err
	}
	meta := requestMeta(r, au.proxies)
	s, err := au.issue(ctx, acc, meta, "method", "external")
	if err != nil {
		return err
	}
	if s.challenge != "" {
		http.SetCookie(w, au.tokens.challengeCookie(s.challenge, int(totpChallengeTTL/time.Second)))
		return ErrSecondFactorRequired
	}
	if err := au.tokens.setSessionCookie(w, acc.ID, s.role, s.tv); err != nil {
		return err
	}
	au.record(ctx, meta, acc.ID, "auth.login", acc.Email, "method", "external")
	return nil
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
