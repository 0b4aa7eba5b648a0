// Package token signs and verifies the panel's tokens: the session cookie,
// password-reset links and the pending second sign-in step, as HS256 JWTs
// (golang-jwt) bound to the panel that signed them.
package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Token kinds. A token is accepted only where its kind is expected, so a
// reset token is never a session and a session never resets a password.
const (
	KindSession       = "session"
	KindReset         = "reset"
	KindTOTPChallenge = "totp_challenge"
	// KindDevice is a browser that signed in to an account before: its
	// sign-in attempts have a budget of their own.
	KindDevice = "device"
)

// maxLen bounds a token before any parsing.
const maxLen = 4096

// ErrInvalid is any token the panel did not issue, or no longer takes.
var ErrInvalid = errors.New("admin: invalid token")

// Claims are the JWT claims of every kind of token.
type Claims struct {
	UserID string `json:"userId"`
	Role   string `json:"role,omitempty"`
	TV     int64  `json:"tv"`
	Kind   string `json:"kind"`
	// PW binds a reset token to the password it replaces, so it is
	// single-use even on a users table without token_version.
	PW string `json:"pw,omitempty"`
	jwt.RegisteredClaims
}

// parser verifies every token: HS256 only, expiry required, issue time
// checked. Its options never change, so it is built once (a Parser holds no
// per-token state).
var parser = jwt.NewParser(jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
	jwt.WithExpirationRequired(), jwt.WithIssuedAt())

// Signer signs and verifies with one panel's secret and audience (its API
// path).
type Signer struct {
	Secret   []byte
	Audience string
	// AcceptNoAudience takes a token without an audience, signed before
	// there was one: set on a panel at the default API path only.
	AcceptNoAudience bool
}

// Sign signs c for ttl from now.
func (s *Signer) Sign(c Claims, ttl time.Duration) (string, error) {
	now := time.Now()
	c.Audience = jwt.ClaimStrings{s.Audience}
	c.IssuedAt = jwt.NewNumericDate(now)
	c.ExpiresAt = jwt.NewNumericDate(now.Add(ttl))
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(s.Secret)
}

// Parse verifies signature, algorithm (HS256 only), expiry, kind and
// audience: a token names the API path of the panel that signed it, so two
// panels sharing a secret do not take each other's sessions. Any failure
// is ErrInvalid.
func (s *Signer) Parse(raw, kind string) (*Claims, error) {
	if raw == "" || len(raw) > maxLen {
		return nil, ErrInvalid
	}
	var c Claims
	_, err := parser.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return s.Secret, nil })
	if err != nil || c.Kind != kind || c.UserID == "" {
		return nil, ErrInvalid
	}
	switch {
	case len(c.Audience) == 0 && s.AcceptNoAudience:
	case len(c.Audience) != 1 || c.Audience[0] != s.Audience:
		return nil, ErrInvalid
	}
	return &c, nil
}

// PasswordFingerprint ties a reset token to the hash it will replace.
func (s *Signer) PasswordFingerprint(hash string) string {
	m := hmac.New(sha256.New, s.Secret)
	m.Write([]byte("reset:" + hash))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:12])
}
