package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/gameadmin/admin"
	"github.com/uptrace/bun"
)

// ssoMAC is the signature the fake identity provider puts on a sign-in:
// HMAC-SHA256 of the lowercased email under the shared secret (hex in the
// URL). (Players' emails are stored as they typed them; the lookup below
// matches them without regard to case, as the panel's sign-in does.)
func ssoMAC(secret []byte, email string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(strings.ToLower(email)))
	return m.Sum(nil)
}

// ssoCallback is GET /sso/callback?user=<email>&sig=<hex HMAC>, a STAND-IN
// for the callback of the game's real identity provider (OIDC, SAML, its
// own login; examples/oidc is a real one). The provider here is whoever
// knows the secret, and its assertion is the HMAC of the email: without
// the secret there is no sign-in, and an empty secret turns the route off.
// A real assertion also expires and is used once; this one does neither,
// so a signed link is a password for that account — do not ship it.
//
// Once the game trusts who the user is, it looks the player up and asks
// the panel for a session with a.Auth().StartSession: the panel checks
// the ban, asks operators with two-factor sign-in for their code and
// audits auth.login {"method": "external"}.
func ssoCallback(db *bun.DB, a *admin.Admin, secret []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		email := strings.ToLower(strings.TrimSpace(q.Get("user")))
		sig, err := hex.DecodeString(q.Get("sig"))
		if len(secret) == 0 || email == "" || err != nil || !hmac.Equal(sig, ssoMAC(secret, email)) {
			http.Error(w, "sign-in refused: bad signature", http.StatusForbidden)
			return
		}
		id, err := a.Auth().UserIDByEmail(r.Context(), email)
		if errors.Is(err, admin.ErrNotFound) || errors.Is(err, admin.ErrAmbiguousEmail) {
			http.Error(w, "sign-in refused: no such player", http.StatusForbidden)
			return
		}
		if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		next := a.UIPath() + "/"
		switch err := a.Auth().StartSession(w, r, id); {
		case err == nil:
			http.Redirect(w, r, next, http.StatusFound)
		case errors.Is(err, admin.ErrSecondFactorRequired):
			http.Redirect(w, r, a.SecondFactorURL(next), http.StatusFound)
		case errors.Is(err, admin.ErrBanned):
			http.Error(w, "sign-in refused: banned", http.StatusForbidden)
		default:
			http.Error(w, "internal error", http.StatusInternalServerError)
		}
	}
}
