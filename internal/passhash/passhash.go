// Package passhash is the panel's password hashing: the Hasher interface
// (the panel's PasswordHasher) and its two implementations, Argon2id and
// Bcrypt (admin.Argon2id and admin.Bcrypt); the encoding and checking
// beneath them, argon2id in the PHC string format and bcrypt with a
// bounded cost; and the gate that bounds how many hashes run at once.
// A stored hash is data: parameters past the bounds here are an error, never
// work, so a corrupted or forged row cannot make the server allocate
// gigabytes or spin for minutes.
package passhash

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
)

// Bounds on the parameters Hash uses and Verify accepts.
const (
	MaxArgonMemory = 1 << 20 // KiB, 1 GiB
	MaxArgonTime   = 100
	MinArgonSalt   = 8
	MaxArgonSalt   = 64
	MinArgonKey    = 16
	MaxArgonKey    = 128
	MaxBcryptCost  = 16 // about four seconds a check; games use 10 to 12
)

const argonPrefix = "$argon2id$"

// Params are argon2id's parameters: memory in KiB, passes, parallelism,
// and the salt and key lengths in bytes.
type Params struct {
	Memory  uint32
	Time    uint32
	Threads uint8
	SaltLen uint32
	KeyLen  uint32
}

// Check reports parameters out of the accepted bounds.
func (p Params) Check() error {
	switch {
	case p.Threads == 0:
		return errors.New("parallelism must be at least 1")
	case p.Memory < 8*uint32(p.Threads) || p.Memory > MaxArgonMemory:
		return fmt.Errorf("memory %d KiB outside %d..%d", p.Memory, 8*uint32(p.Threads), MaxArgonMemory)
	case p.Time < 1 || p.Time > MaxArgonTime:
		return fmt.Errorf("time %d outside 1..%d", p.Time, MaxArgonTime)
	case p.SaltLen < MinArgonSalt || p.SaltLen > MaxArgonSalt:
		return fmt.Errorf("salt length %d outside %d..%d", p.SaltLen, MinArgonSalt, MaxArgonSalt)
	case p.KeyLen < MinArgonKey || p.KeyLen > MaxArgonKey:
		return fmt.Errorf("key length %d outside %d..%d", p.KeyLen, MinArgonKey, MaxArgonKey)
	}
	return nil
}

// HashArgon2id returns the argon2id hash of password under p in the PHC
// string format ($argon2id$v=19$m=..,t=..,p=..$salt$key, raw standard
// base64), with a fresh random salt.
func HashArgon2id(p Params, password string) (string, error) {
	if err := p.Check(); err != nil {
		return "", fmt.Errorf("admin: argon2id parameters: %w", err)
	}
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("admin: argon2id salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("%sv=%d$m=%d,t=%d,p=%d$%s$%s", argonPrefix, argon2.Version,
		p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether password matches encoded, an argon2id hash in the
// PHC string format or a bcrypt hash. It returns an error, and does no
// hashing, for a malformed hash or one whose parameters are out of bounds.
func Verify(password, encoded string) (bool, error) {
	if IsBcrypt(encoded) {
		return verifyBcrypt(password, encoded)
	}
	p, salt, key, err := ParseArgon2id(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// ParseArgon2id parses and bounds-checks a PHC argon2id string. The returned
// parameters carry the salt and key lengths found in it.
func ParseArgon2id(encoded string) (p Params, salt, key []byte, err error) {
	fail := func(format string, args ...any) (Params, []byte, []byte, error) {
		return Params{}, nil, nil, fmt.Errorf("admin: malformed argon2id hash: "+format, args...)
	}
	// "", "argon2id", "v=19", "m=..,t=..,p=..", salt, key
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return fail("not $argon2id$v=..$m=..,t=..,p=..$salt$key")
	}
	version, ok := strings.CutPrefix(parts[2], "v=")
	if !ok {
		return fail("missing version")
	}
	if v, err := strconv.ParseUint(version, 10, 32); err != nil || v != argon2.Version {
		return fail("unsupported version %q", version)
	}
	nums := strings.Split(parts[3], ",")
	if len(nums) != 3 {
		return fail("want parameters m, t and p")
	}
	var mtp [3]uint64
	for i, name := range []string{"m=", "t=", "p="} {
		digits, ok := strings.CutPrefix(nums[i], name)
		if !ok {
			return fail("want parameters m, t and p in that order")
		}
		n, err := strconv.ParseUint(digits, 10, 32)
		if err != nil {
			return fail("parameter %s not a number", name[:1])
		}
		mtp[i] = n
	}
	if mtp[2] > 255 {
		return fail("parallelism %d over 255", mtp[2])
	}
	b64 := base64.RawStdEncoding
	// Lengths are bounded before decoding, so a huge field costs nothing.
	if len(parts[4]) > b64.EncodedLen(MaxArgonSalt) || len(parts[5]) > b64.EncodedLen(MaxArgonKey) {
		return fail("salt or key too long")
	}
	if salt, err = b64.DecodeString(parts[4]); err != nil {
		return fail("salt: %v", err)
	}
	if key, err = b64.DecodeString(parts[5]); err != nil {
		return fail("key: %v", err)
	}
	p = Params{Memory: uint32(mtp[0]), Time: uint32(mtp[1]), Threads: uint8(mtp[2]),
		SaltLen: uint32(len(salt)), KeyLen: uint32(len(key))}
	if err := p.Check(); err != nil {
		return fail("%v", err)
	}
	return p, salt, key, nil
}

// IsBcrypt reports whether encoded looks like a bcrypt hash ($2a$, $2b$,
// $2y$).
func IsBcrypt(encoded string) bool {
	return strings.HasPrefix(encoded, "$2a$") || strings.HasPrefix(encoded, "$2b$") || strings.HasPrefix(encoded, "$2y$")
}

func verifyBcrypt(password, encoded string) (bool, error) {
	cost, err := bcrypt.Cost([]byte(encoded))
	if err != nil {
		return false, fmt.Errorf("admin: malformed bcrypt hash: %w", err)
	}
	if cost > MaxBcryptCost {
		return false, fmt.Errorf("admin: bcrypt cost %d over %d", cost, MaxBcryptCost)
	}
	err = bcrypt.CompareHashAndPassword([]byte(encoded), []byte(password))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, bcrypt.ErrMismatchedHashAndPassword):
		return false, nil
	}
	return false, fmt.Errorf("admin: malformed bcrypt hash: %w", err)
}
