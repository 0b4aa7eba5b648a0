package account

import (
	"crypto/rand"
	"net/http"
	"time"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/token"
)

// resetTTL is the fixed lifetime of a password-reset token.
const resetTTL = 15 * time.Minute

// Tokens signs and reads the panel's tokens and writes its cookies: the
// secret, the audience (the APIPath) and the session cookie's settings.
// The panel and Auth share one.
type Tokens struct {
	Signer  *token.Signer
	Session SessionOptions // defaulted by New
	Secure  bool           // the cookies' Secure flag
}

// SessionOptions is admin.SessionOptions, field for field (the root converts one to the
// other); its documentation is there.
type SessionOptions struct {
	CookieName string
	TTL        time.Duration
	SameSite   http.SameSite
	Secure     *bool
	Domain     string
}

// SetSessionCookie signs a session for userID with role at token
// version tv and sets its cookie.
func (a *Tokens) SetSessionCookie(w http.ResponseWriter, userID string, role authz.Role, tv int64) error {
	tok, err := a.Signer.Sign(token.Claims{UserID: userID, Role: string(role), TV: tv, Kind: token.KindSession}, a.Session.TTL)
	if err != nil {
		return err
	}
	http.SetCookie(w, a.cookie(tok, int(a.Session.TTL/time.Second)))
	return nil
}

// ClearSessionCookie expires the session cookie.
func (a *Tokens) ClearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, a.cookie("", -1))
}

func (a *Tokens) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name:     a.Session.CookieName,
		Value:    value,
		Path:     "/",
		Domain:   a.Session.Domain,
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   a.Secure,
		SameSite: a.Session.SameSite,
	}
}

// deviceCookie names the signed cookie of a browser that signed in to an
// account before (OWASP's "device cookies"): its sign-in attempts spend
// ratelimit.Options.LoginFailuresPerDevice instead of the account's
// buckets, so guesses from elsewhere cannot lock its owner out. It is sent
// to the sign-in endpoints only, and names the account, not the password:
// it is no credential.
const (
	deviceCookie = "game_admin_device"
	deviceTTL    = 180 * 24 * time.Hour
)

// Device returns r's device cookie when the panel issued it and it has
// not expired, else nil.
func (a *Tokens) Device(r *http.Request) *token.Claims {
	ck, err := r.Cookie(deviceCookie)
	if err != nil {
		return nil
	}
	c, err := a.Signer.Parse(ck.Value, token.KindDevice)
	if err != nil || c.ID == "" {
		return nil
	}
	return c
}

// SetDeviceCookie marks the browser of a sign-in whose password was right
// as userID's device, unless it holds that account's cookie already.
func (a *Tokens) SetDeviceCookie(w http.ResponseWriter, held *token.Claims, userID string) error {
	if held != nil && held.UserID == userID {
		return nil
	}
	c := token.Claims{UserID: userID, Kind: token.KindDevice}
	c.ID = rand.Text()
	tok, err := a.Signer.Sign(c, deviceTTL)
	if err != nil {
		return err
	}
	ck := a.cookie(tok, int(deviceTTL/time.Second))
	ck.Name, ck.Path = deviceCookie, a.Signer.Audience+"/auth/login"
	http.SetCookie(w, ck)
	return nil
}

// challengeCookie carries the pending second sign-in step, sent to POST
// /auth/login/totp only.
func (a *Tokens) challengeCookie(value string, maxAge int) *http.Cookie {
	c := a.cookie(value, maxAge)
	c.Name, c.Path = totpChallengeCookie, a.Signer.Audience+"/auth/login/totp"
	return c
}

// SetChallengeCookie sets the cookie of a pending second sign-in step
// (SignIn.Challenge), for as long as the challenge lasts.
func (a *Tokens) SetChallengeCookie(w http.ResponseWriter, challenge string) {
	http.SetCookie(w, a.challengeCookie(challenge, int(totpChallengeTTL/time.Second)))
}

// ClearChallengeCookie expires the challenge cookie: the step is done.
func (a *Tokens) ClearChallengeCookie(w http.ResponseWriter) {
	http.SetCookie(w, a.challengeCookie("", -1))
}

// Challenge is the challenge r's cookie carries, or "" without one.
func (a *Tokens) Challenge(r *http.Request) string {
	if ck, err := r.Cookie(totpChallengeCookie); err == nil {
		return ck.Value
	}
	return ""
}
