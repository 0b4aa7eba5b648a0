package admin

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Token kinds. A token is accepted only where its kind is expected, so a
// reset token is never a session and a session never resets a password.
const (
	kindSession = "session"
	kindReset   = "reset"
)

// resetTTL is the fixed lifetime of a password-reset token (SEED.md 5.1).
const resetTTL = 15 * time.Minute

// claims are the JWT claims of session and reset tokens.
type claims struct {
	UserID string `json:"userId"`
	Role   Role   `json:"role,omitempty"`
	TV     int64  `json:"tv"`
	Kind   string `json:"kind"`
	// PW binds a reset token to the password it replaces, so it is
	// single-use even on a users table without token_version.
	PW string `json:"pw,omitempty"`
	jwt.RegisteredClaims
}

var errBadToken = errors.New("admin: invalid token")

func (a *Admin) signToken(c claims, ttl time.Duration) (string, error) {
	now := time.Now()
	c.IssuedAt = jwt.NewNumericDate(now)
	c.ExpiresAt = jwt.NewNumericDate(now.Add(ttl))
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(a.secret)
}

// parseToken verifies signature, algorithm (HS256 only), expiry and kind.
func (a *Admin) parseToken(raw, kind string) (*claims, error) {
	if raw == "" || len(raw) > 4096 {
		return nil, errBadToken
	}
	var c claims
	_, err := jwt.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return a.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt())
	if err != nil || c.Kind != kind || c.UserID == "" {
		return nil, errBadToken
	}
	return &c, nil
}

// passwordFingerprint ties a reset token to the hash it will replace.
func (a *Admin) passwordFingerprint(hash string) string {
	m := hmac.New(sha256.New, a.secret)
	m.Write([]byte("reset:" + hash))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:12])
}

// setSessionCookie signs a session for userID at token version tv.
func (a *Admin) setSessionCookie(w http.ResponseWriter, userID string, role Role, tv int64) error {
	tok, err := a.signToken(claims{UserID: userID, Role: role, TV: tv, Kind: kindSession}, a.opts.Session.TTL)
	if err != nil {
		return err
	}
	http.SetCookie(w, a.cookie(tok, int(a.opts.Session.TTL/time.Second)))
	return nil
}

func (a *Admin) clearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, a.cookie("", -1))
}

func (a *Admin) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name:     sessionCookieName,
		Value:    value,
		Path:     "/",
		Domain:   a.opts.Session.Domain,
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   a.secure,
		SameSite: a.opts.Session.SameSite,
	}
}

// authenticate verifies the session cookie and re-reads the token version
// and role from the database: a revoked session fails at once and a new role
// applies on the next request. Any failure is errUnauthenticated; database
// errors are returned as they are.
func (a *Admin) authenticate(ctx context.Context, r *http.Request) (Operator, error) {
	ck, err := r.Cookie(sessionCookieName)
	if err != nil {
		return Operator{}, errUnauthenticated
	}
	c, err := a.parseToken(ck.Value, kindSession)
	if err != nil {
		return Operator{}, errUnauthenticated
	}
	tv, op, err := a.sessionState(ctx, c.UserID)
	switch {
	case errors.Is(err, ErrNotFound):
		return Operator{}, errUnauthenticated
	case err != nil:
		return Operator{}, err
	case tv != c.TV:
		return Operator{}, errUnauthenticated
	}
	return op, nil
}
