package twofactor

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// recoveryChars is a recovery code's length in base32: 80 bits, so a plain
// SHA-256 is enough at rest.
const recoveryChars = 16

// NewRecoveryCode returns a fresh recovery code as shown to the operator
// (XXXX-XXXX-XXXX-XXXX) and the hash to store.
func NewRecoveryCode() (shown, hash string) {
	raw := rand.Text()[:recoveryChars]
	return raw[0:4] + "-" + raw[4:8] + "-" + raw[8:12] + "-" + raw[12:16], HashRecoveryCode(raw)
}

// NormalizeRecoveryCode accepts a code with or without dashes, spaces and
// in any case; "" when it cannot be one.
func NormalizeRecoveryCode(s string) string {
	s = strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(s))
	if len(s) != recoveryChars {
		return ""
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return ""
		}
	}
	return s
}

// HashRecoveryCode is the stored form of a normalized code.
func HashRecoveryCode(normalized string) string {
	h := sha256.Sum256([]byte("gameadmin recovery:" + normalized))
	return hex.EncodeToString(h[:])
}
