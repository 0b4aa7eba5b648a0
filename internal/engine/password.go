package engine

import "github.com/gameadmin/admin/internal/passhash"

// Password hashing is package passhash's; these are its names here, and
// the public API's through the root's aliases.
type (
	// PasswordHasher hashes and verifies passwords.
	PasswordHasher = passhash.Hasher
	// Argon2id hashes with argon2id and verifies argon2id and bcrypt.
	Argon2id = passhash.Argon2id
	// Bcrypt hashes with bcrypt and verifies bcrypt and argon2id.
	Bcrypt = passhash.Bcrypt
)

// DefaultArgon2id returns the default PasswordHasher
// (passhash.DefaultArgon2id).
func DefaultArgon2id() Argon2id { return passhash.DefaultArgon2id() }
