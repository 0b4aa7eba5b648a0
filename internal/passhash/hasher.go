package passhash

import (
	"fmt"

	"golang.org/x/crypto/bcrypt"
)

// Hasher hashes and verifies passwords (the panel's PasswordHasher).
// Implementations must be safe for concurrent use.
type Hasher interface {
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

// DefaultArgon2id returns the default Hasher: m=9216 KiB, t=4,
// p=1, with a 16-byte salt and a 32-byte key. That is one of the points
// OWASP's Password Storage Cheat Sheet lists as equally strong (m=19 MiB
// t=2, m=12 MiB t=3, m=9 MiB t=4, ...), the one that leaves a game server
// more of its memory: each hash in flight holds Memory. It is a function
// so that no caller can change the defaults of every other.
func DefaultArgon2id() Argon2id {
	return Argon2id{Memory: 9216, Time: 4, Threads: 1, SaltLen: 16, KeyLen: 32}
}

var _ Hasher = Argon2id{}

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

// internal returns h's parameters as HashArgon2id takes them.
func (h Argon2id) internal() Params {
	return Params{Memory: h.Memory, Time: h.Time, Threads: h.Threads, SaltLen: h.SaltLen, KeyLen: h.KeyLen}
}

// Hash returns the argon2id hash of password in the PHC string format, with a
// fresh random salt.
func (h Argon2id) Hash(password string) (string, error) {
	return HashArgon2id(h.params().internal(), password)
}

// Verify reports whether password matches encoded, an argon2id hash in the
// PHC string format or a bcrypt hash. It returns an error, and does no
// hashing, for a malformed hash or one whose parameters are out of bounds
// (memory over 1 GiB, more than 100 passes, bcrypt cost over 16, ...).
func (h Argon2id) Verify(password, encoded string) (bool, error) {
	return Verify(password, encoded)
}

// NeedsRehash reports whether encoded is an argon2id hash made with other
// parameters, or a bcrypt hash while UpgradeBcrypt is set, so that the
// caller stores a fresh Hash after a successful Verify. Anything else is
// left as it is. Hashes made under a former default (m=19456 t=2) are
// rewritten once, at the user's next sign-in: every hash then costs what
// the dummy hash for unknown emails costs, so the time of a refusal does
// not tell which emails have accounts.
func (h Argon2id) NeedsRehash(encoded string) bool {
	if IsBcrypt(encoded) {
		return h.UpgradeBcrypt
	}
	p, _, _, err := ParseArgon2id(encoded)
	return err == nil && p != h.params().internal()
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

var _ Hasher = Bcrypt{}

func (h Bcrypt) cost() (int, error) {
	c := h.Cost
	if c == 0 {
		c = bcrypt.DefaultCost
	}
	if c < bcrypt.MinCost || c > MaxBcryptCost {
		return 0, fmt.Errorf("admin: bcrypt cost %d outside %d..%d", c, bcrypt.MinCost, MaxBcryptCost)
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
	return Verify(password, encoded)
}

// NeedsRehash reports whether encoded is a bcrypt hash of a lower cost
// than Cost. Other hashes, argon2id included, are left as they are.
func (h Bcrypt) NeedsRehash(encoded string) bool {
	want, err := h.cost()
	if err != nil || !IsBcrypt(encoded) {
		return false
	}
	got, err := bcrypt.Cost([]byte(encoded))
	return err == nil && got < want
}
