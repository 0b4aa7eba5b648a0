package admin

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"image/png"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// The TOTP secret at rest and the codes: sealing, matching, recovery codes
// and the QR image. No database here; totp.go stores and checks them.

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// totpState is the panel's TOTP machinery: the AEAD that seals secrets at
// rest, the policy, and the clock (tests move it instead of sleeping).
type totpState struct {
	aead   cipher.AEAD
	policy TOTPPolicy
	now    func() time.Time
}

// newTOTPState derives the secret-sealing key from the panel's Secret with
// HKDF-SHA256, so the signing key itself never encrypts anything.
func newTOTPState(secret []byte, policy TOTPPolicy) (*totpState, error) {
	switch policy {
	case "":
		policy = TOTPNone
	case TOTPNone, TOTPAdmins, TOTPOperators:
	default:
		return nil, fmt.Errorf("admin: RequireTOTP %q: want none, admins or operators", policy)
	}
	key, err := hkdf.Key(sha256.New, secret, nil, totpKeyInfo, 32)
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
	return &totpState{aead: aead, policy: policy, now: time.Now}, nil
}

// requires reports whether the policy makes role enrol.
func (t *totpState) requires(role Role) bool {
	switch t.policy {
	case TOTPAdmins:
		return role == RoleAdmin
	case TOTPOperators:
		return role.IsOperator()
	}
	return false
}

// seal encrypts a base32 TOTP secret, bound to its user by the AEAD's
// additional data so a sealed secret cannot be copied to another row.
func (t *totpState) seal(userID, secret string) string {
	nonce := make([]byte, t.aead.NonceSize())
	rand.Read(nonce)
	out := t.aead.Seal(nonce, nonce, []byte(secret), []byte("totp:"+userID))
	return totpSealPrefix + base64.StdEncoding.EncodeToString(out)
}

func (t *totpState) open(userID, sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sealed, totpSealPrefix))
	if err != nil || !strings.HasPrefix(sealed, totpSealPrefix) || len(raw) < t.aead.NonceSize() {
		return "", errors.New("admin: totp secret: malformed")
	}
	n := t.aead.NonceSize()
	plain, err := t.aead.Open(nil, raw[:n], raw[n:], []byte("totp:"+userID))
	if err != nil {
		// Most likely Options.Secret changed since enrolment (docs/security.md:
		// Two-factor sign-in, rotating the secret).
		return "", fmt.Errorf("admin: totp secret of %s: cannot decrypt: %w", userID, err)
	}
	return string(plain), nil
}

// matchStep returns the time step, within totpSkew of now, whose code is
// code. Each candidate is computed by pquerna/otp and compared in constant
// time; the step lets the caller refuse a replay.
func matchStep(secret, code string, now time.Time) (int64, bool) {
	code = strings.TrimSpace(code)
	if len(code) != otp.DigitsSix.Length() {
		return 0, false
	}
	cur := now.Unix() / totpPeriod
	for s := cur - totpSkew; s <= cur+totpSkew; s++ {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*totpPeriod, 0), totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}

// normalizeRecoveryCode accepts a code with or without dashes, spaces and
// in any case; "" when it cannot be one.
func normalizeRecoveryCode(s string) string {
	s = strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(s))
	if len(s) != recoveryCodeChars {
		return ""
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return ""
		}
	}
	return s
}

func hashRecoveryCode(normalized string) string {
	h := sha256.Sum256([]byte("gameadmin recovery:" + normalized))
	return hex.EncodeToString(h[:])
}

// qrDataURL renders the otpauth key as a PNG QR code, locally: the secret
// never leaves the server for a QR service.
func qrDataURL(key *otp.Key) (string, error) {
	img, err := key.Image(240, 240)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
