package admin

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
)

// PasswordHasher hashes and verifies passwords. Implementations must be safe
// for concurrent use.
type PasswordHasher interface {
	// Hash returns the encoded hash of password, salt and parameters included.
	Hash(password string) (string, error)
	// Verify reports whether password matches encoded. err is for malformed
	// hashes / system errors only: a well-formed hash that does not match is
	// (false, nil).
	Verify(password, encoded string) (bool, error)
}

// Argon2id hashes with argon2id in the PHC string format
// ($argon2id$v=19$m=...,t=...,p=...$salt$hash, raw std base64 without
// padding) and verifies both argon2id and bcrypt ($2a$/$2b$/$2y$) hashes, so a
// game moving from bcrypt keeps its users' passwords.
//
// Verification reads the parameters from the stored hash, so changing them
// keeps older hashes verifiable; NeedsRehash tells when to store a new one.
// A stored bcrypt hash is left as bcrypt (the game's own login may verify
// only bcrypt) unless UpgradeBcrypt is set. A game whose own code hashes
// with bcrypt should use Bcrypt instead, so that every hash the panel
// writes is one the game can check. A zero field takes its value from
// DefaultArgon2id().
type Argon2id struct {
	// Memory is the memory cost in KiB. Default 9216 (9 MiB).
	Memory uint32
	// Time is the number of passes over the memory. Default 4.
	Time uint32
	// Threads is the degree of parallelism. Default 1.
	Threads uint8
	// SaltLen is the length of the random salt in bytes. Default 16.
	SaltLen uint32
	// KeyLen is the length of the derived key in bytes. Default 32.
	KeyLen uint32
	// UpgradeBcrypt rewrites a bcrypt hash as argon2id at the user's next
	// panel sign-in. Off by default: set it only when every verifier of
	// the column (the game's own login too) accepts argon2id.
	UpgradeBcrypt bool
}

// DefaultArgon2id returns the default PasswordHasher: m=9216 KiB, t=4,
// p=1, with a 16-byte salt and a 32-byte key. That is one of the points
// OWASP's Password Storage Cheat Sheet lists as equally strong (m=19 MiB
// t=2, m=12 MiB t=3, m=9 MiB t=4, ...), the one that leaves a game server
// more of its memory: each hash in flight holds Memory. It is a function
// so that no caller can change the defaults of every other.
func DefaultArgon2id() Argon2id {
	return Argon2id{Memory: 9216, Time: 4, Threads: 1, SaltLen: 16, KeyLen: 32}
}

var _ PasswordHasher = Argon2id{}

// Bounds on the parameters Hash uses and Verify accepts. A stored hash is
// data: a corrupted or forged row must not make the server allocate gigabytes
// or spin for minutes, so parameters past these are an error, never work.
const (
	maxArgonMemory = 1 << 20 // KiB, 1 GiB
	maxArgonTime   = 100
	minArgonSalt   = 8
	maxArgonSalt   = 64
	minArgonKey    = 16
	maxArgonKey    = 128
	maxBcryptCost  = 16 // about four seconds a check; games use 10 to 12
)

const argonPrefix = "$argon2id$"

// params returns h with its zero fields set from DefaultArgon2id().
func (h Argon2id) params() Argon2id {
	d := DefaultArgon2id()
	if h.Memory == 0 {
		h.Memory = d.Memory
	}
	if h.Time == 0 {
		h.Time = d.Time
	}
	if h.Threads == 0 {
		h.Threads = d.Threads
	}
	if h.SaltLen == 0 {
		h.SaltLen = d.SaltLen
	}
	if h.KeyLen == 0 {
		h.KeyLen = d.KeyLen
	}
	return h
}

// check reports parameters out of the accepted bounds.
func (h Argon2id) check() error {
	switch {
	case h.Threads == 0:
		return errors.New("parallelism must be at least 1")
	case h.Memory < 8*uint32(h.Threads) || h.Memory > maxArgonMemory:
		return fmt.Errorf("memory %d KiB outside %d..%d", h.Memory, 8*uint32(h.Threads), maxArgonMemory)
	case h.Time < 1 || h.Time > maxArgonTime:
		return fmt.Errorf("time %d outside 1..%d", h.Time, maxArgonTime)
	case h.SaltLen < minArgonSalt || h.SaltLen > maxArgonSalt:
		return fmt.Errorf("salt length %d outside %d..%d", h.SaltLen, minArgonSalt, maxArgonSalt)
	case h.KeyLen < minArgonKey || h.KeyLen > maxArgonKey:
		return fmt.Errorf("key length %d outside %d..%d", h.KeyLen, minArgonKey, maxArgonKey)
	}
	return nil
}

// Hash returns the argon2id hash of password in the PHC string format, with a
// fresh random salt.
func (h Argon2id) Hash(password string) (string, error) {
	p := h.params()
	if err := p.check(); err != nil {
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
// hashing, for a malformed hash or one whose parameters are out of bounds
// (memory over 1 GiB, more than 100 passes, bcrypt cost over 16, ...).
func (h Argon2id) Verify(password, encoded string) (bool, error) {
	if isBcrypt(encoded) {
		return verifyBcrypt(password, encoded)
	}
	p, salt, key, err := parseArgon2id(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// NeedsRehash reports whether encoded is an argon2id hash made with other
// parameters, or a bcrypt hash while UpgradeBcrypt is set, so that the
// caller stores a fresh Hash after a successful Verify. Anything else is
// left as it is. Hashes made under a former default (m=19456 t=2) are
// rewritten once, at the user's next sign-in: every hash then costs what
// the dummy hash for unknown emails costs, so the time of a refusal does
// not tell which emails have accounts.
func (h Argon2id) NeedsRehash(encoded string) bool {
	if isBcrypt(encoded) {
		return h.UpgradeBcrypt
	}
	p, _, _, err := parseArgon2id(encoded)
	want := h.params()
	want.UpgradeBcrypt = false
	return err == nil && p != want
}

// Bcrypt hashes with bcrypt ($2a$), for games whose own login verifies
// bcrypt: every hash the panel writes (bootstrap, reset, invite, password
// change, a new user's password) is then one the game's code accepts. It
// verifies bcrypt and argon2id hashes, and never changes a stored hash's
// scheme: NeedsRehash asks for a new hash only for a bcrypt hash of a
// lower cost than Cost.
//
// bcrypt reads at most 72 bytes of a password; longer ones are refused by
// Hash, as golang.org/x/crypto/bcrypt does.
type Bcrypt struct {
	// Cost is bcrypt's work factor, 4 to 16. Default 10
	// (bcrypt.DefaultCost); games commonly use 10 to 12.
	Cost int
}

var _ PasswordHasher = Bcrypt{}

func (h Bcrypt) cost() (int, error) {
	c := h.Cost
	if c == 0 {
		c = bcrypt.DefaultCost
	}
	if c < bcrypt.MinCost || c > maxBcryptCost {
		return 0, fmt.Errorf("admin: bcrypt cost %d outside %d..%d", c, bcrypt.MinCost, maxBcryptCost)
	}
	return c, nil
}

// Hash returns the bcrypt hash of password at Cost.
func (h Bcrypt) Hash(password string) (string, error) {
	c, err := h.cost()
	if err != nil {
		return "", err
	}
	b, err := bcrypt.GenerateFromPassword([]byte(password), c)
	if err != nil {
		return "", fmt.Errorf("admin: bcrypt: %w", err)
	}
	return string(b), nil
}

// Verify reports whether password matches encoded, a bcrypt hash or an
// argon2id one (see Argon2id.Verify for the bounds on either).
func (h Bcrypt) Verify(password, encoded string) (bool, error) {
	return Argon2id{}.Verify(password, encoded)
}

// NeedsRehash reports whether encoded is a bcrypt hash of a lower cost
// than Cost. Other hashes, argon2id included, are left as they are.
func (h Bcrypt) NeedsRehash(encoded string) bool {
	want, err := h.cost()
	if err != nil || !isBcrypt(encoded) {
		return false
	}
	got, err := bcrypt.Cost([]byte(encoded))
	return err == nil && got < want
}

// parseArgon2id parses and bounds-checks a PHC argon2id string. The returned
// parameters carry the salt and key lengths found in it.
func parseArgon2id(encoded string) (p Argon2id, salt, key []byte, err error) {
	fail := func(format string, args ...any) (Argon2id, []byte, []byte, error) {
		return Argon2id{}, nil, nil, fmt.Errorf("admin: malformed argon2id hash: "+format, args...)
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
	if len(parts[4]) > b64.EncodedLen(maxArgonSalt) || len(parts[5]) > b64.EncodedLen(maxArgonKey) {
		return fail("salt or key too long")
	}
	if salt, err = b64.DecodeString(parts[4]); err != nil {
		return fail("salt: %v", err)
	}
	if key, err = b64.DecodeString(parts[5]); err != nil {
		return fail("key: %v", err)
	}
	p = Argon2id{Memory: uint32(mtp[0]), Time: uint32(mtp[1]), Threads: uint8(mtp[2]),
		SaltLen: uint32(len(salt)), KeyLen: uint32(len(key))}
	if err := p.check(); err != nil {
		return fail("%v", err)
	}
	return p, salt, key, nil
}

func isBcrypt(encoded string) bool {
	return strings.HasPrefix(encoded, "$2a$") || strings.HasPrefix(encoded, "$2b$") || strings.HasPrefix(encoded, "$2y$")
}

func verifyBcrypt(password, encoded string) (bool, error) {
	cost, err := bcrypt.Cost([]byte(encoded))
	if err != nil {
		return false, fmt.Errorf("admin: malformed bcrypt hash: %w", err)
	}
	if cost > maxBcryptCost {
		return false, fmt.Errorf("admin: bcrypt cost %d over %d", cost, maxBcryptCost)
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

// hashGate bounds how many password hashes run at once, so that a flood of
// sign-ins queues instead of using up every CPU and, with argon2id's memory
// cost, the heap.
type hashGate struct {
	sem chan struct{}
}

// newHashGate returns a gate letting n functions run at once;
// n <= 0 means runtime.GOMAXPROCS(0).
func newHashGate(n int) *hashGate {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return &hashGate{sem: make(chan struct{}, n)}
}

// do runs fn once a slot is free. A caller still waiting when ctx ends gets
// ctx.Err() and fn does not run; fn itself is never interrupted.
func (g *hashGate) do(ctx context.Context, fn func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-g.sem }()
	fn()
	return nil
}
