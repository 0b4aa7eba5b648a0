// Package twofactor is the machinery of TOTP sign-in with no database: new
// keys and their QR image, matching a code to its time step, sealing a
// secret at rest, and recovery codes. The admin package stores the rows and
// decides who must enrol.
package twofactor

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"image/png"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// The parameters every authenticator app supports (RFC 6238 defaults). A
// code is accepted one step either side of now, for clock drift.
const (
	Period = 30
	Skew   = 1

	keyInfo    = "gameadmin totp secret v1"
	sealPrefix = "v1:"
)

var validateOpts = totp.ValidateOpts{Period: Period, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// NewKey makes a fresh TOTP key for account under issuer, and a PNG QR code
// of it as a data URL, rendered here: the secret never leaves the server
// for a QR service.
func NewKey(issuer, account string) (key *otp.Key, qr string, err error) {
	key, err = totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account,
		Period: Period, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return nil, "", err
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return nil, "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, "", err
	}
	return key, "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// MatchStep returns the time step, within Skew of now, whose code is code.
// Each candidate is computed by pquerna/otp and compared in constant time;
// the step lets the caller refuse a replay.
func MatchStep(secret, code string, now time.Time) (int64, bool) {
	code = strings.TrimSpace(code)
	if len(code) != otp.DigitsSix.Length() {
		return 0, false
	}
	cur := now.Unix() / Period
	for s := cur - Skew; s <= cur+Skew; s++ {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*Period, 0), validateOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}

// Sealer encrypts TOTP secrets at rest with AES-GCM.
type Sealer struct{ aead cipher.AEAD }

// NewSealer derives the sealing key from the panel's secret with
// HKDF-SHA256, so the signing key itself never encrypts anything.
func NewSealer(secret []byte) (*Sealer, error) {
	key, err := hkdf.Key(sha256.New, secret, nil, keyInfo, 32)
	if err != nil {
		return nil, fmt.Errorf("admin: totp key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("admin: totp key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("admin: totp key: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts a base32 TOTP secret, bound to its user by the AEAD's
// additional data so a sealed secret cannot be copied to another row.
func (s *Sealer) Seal(userID, secret string) string {
	nonce := make([]byte, s.aead.NonceSize())
	rand.Read(nonce)
	out := s.aead.Seal(nonce, nonce, []byte(secret), []byte("totp:"+userID))
	return sealPrefix + base64.StdEncoding.EncodeToString(out)
}

// Open decrypts what Seal made for userID.
func (s *Sealer) Open(userID, sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sealed, sealPrefix))
	if err != nil || !strings.HasPrefix(sealed, sealPrefix) || len(raw) < s.aead.NonceSize() {
		return "", errors.New("admin: totp secret: malformed")
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte("totp:"+userID))
	if err != nil {
		// Most likely Options.Secret changed since enrolment (docs/security.md:
		// Two-factor sign-in, rotating the secret).
		return "", fmt.Errorf("admin: totp secret of %s: cannot decrypt: %w", userID, err)
	}
	return string(plain), nil
}
