package account

import (
	"net/http"

	"github.com/gameadmin/admin/internal/audit"
)

// StartSession issues the panel session for userID, a user the game has
// signed in itself (its own login, SSO, OIDC): the same session cookie as
// the panel's sign-in, and an auth.login audit entry with "method":
// "external". Call it from the game's handler before writing the answer,
// then redirect to the panel (a.UIPath()) or the page the user wanted.
//
// No password is checked and no rate limit is spent: the game vouches for
// the user, so the game's own sign-in must be limited. A banned user gets
// ErrBanned (audited as auth.login_failed, "reason": "banned"), an unknown
// one users.ErrNotFound; neither gets a cookie.
//
// A user with two-factor sign-in on (see docs/security.md, "Two-factor sign-in") does
// not get a session yet: StartSession sets the TOTP challenge cookie and
// returns ErrSecondFactorRequired, and the game redirects to
// a.SecondFactorURL(next), where the panel asks for the code. The game's
// sign-in does not replace the panel's second factor unless the game says
// so: pass ExternalSignIn{SecondFactor: true} only when the identity
// provider checked one for this very sign-in (OIDC's amr claim holds
// "mfa", say). RequireTOTP still asks operators to enrol in the panel.
func (au *Auth) StartSession(w http.ResponseWriter, r *http.Request, userID string, how ...ExternalSignIn) error {
	if err := au.closed(); err != nil {
		return err
	}
	ctx := r.Context()
	acc, err := au.users.AccountByID(ctx, au.db, userID)
	if err != nil {
		return err
	}
	meta := audit.RequestMeta(r, au.proxies.Of(r))
	vouched := len(how) > 0 && how[0].SecondFactor
	kv := []any{"method", "external"}
	if vouched {
		kv = append(kv, "secondFactor", "external")
	}
	s, err := au.issue(ctx, acc, vouched, meta, kv...)
	if err != nil {
		return err
	}
	if s.Challenge != "" {
		au.tokens.SetChallengeCookie(w, s.Challenge)
		return ErrSecondFactorRequired
	}
	if err := au.tokens.SetSessionCookie(w, acc.ID, s.Role, s.TV); err != nil {
		return err
	}
	au.Record(ctx, meta, acc.ID, "auth.login", acc.Email, kv...)
	return nil
}

// ExternalSignIn is what a game's identity provider vouched for, told to
// StartSession.
type ExternalSignIn struct {
	// SecondFactor is true when the identity provider checked a second
	// factor for this sign-in itself: the panel's TOTP step is skipped,
	// and the auth.login entry says "secondFactor": "external". Leave it
	// false unless the provider says so for this sign-in.
	SecondFactor bool
}
