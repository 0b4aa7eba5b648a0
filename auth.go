package admin

import (
	"context"
	"net/http"

	"github.com/gameadmin/admin/internal/engine"
)

// Auth is the Go API over accounts: sign-in, sessions, bans, passwords and
// second factors. It works on the users table of Options.Tables. The
// panel's auth endpoints are thin layers over it.
type Auth struct{ e *engine.Auth }

// Banned returns userID's ban when one is in force, or nil. A ban whose
// Until has passed is not in force. Game handlers call it to refuse banned
// players. With UserColumns.BanUntil it is read from the until and reason
// columns: Until nil for good, BannedAt and BannedBy zero. With
// UserColumns.BanTable it is the user's active row that ends last (a row
// the game wrote included): Until nil for good, its reason, BannedAt and
// BannedBy zero.
func (au *Auth) Banned(ctx context.Context, userID string) (*BanInfo, error) {
	return au.e.Banned(ctx, userID)
}

// SetPasswordHash stores an already hashed password for userID (see
// HashPassword). It does not end existing sessions; call BumpTokenVersion
// for that.
func (au *Auth) SetPasswordHash(ctx context.Context, userID, hash string) error {
	return au.e.SetPasswordHash(ctx, userID, hash)
}

// HashPassword hashes a password with Options.PasswordHasher, under the
// panel's hashing concurrency limit.
func (au *Auth) HashPassword(ctx context.Context, password string) (string, error) {
	return au.e.HashPassword(ctx, password)
}

// UserStates returns the state of the users with those ids, in one query
// per 500 that reads only the id, token version and ban columns (with
// UserColumns.BanTable, whether an active row of the bans table names
// the user); an id with no user is absent from the map. A live.Hub given it
// as Options.UserStates closes sockets whose sessions ended on another
// node while it could not be told (see live.Hub.Revalidate).
func (au *Auth) UserStates(ctx context.Context, userIDs []string) (map[string]UserState, error) {
	return au.e.UserStates(ctx, userIDs)
}

// UserIDByEmail returns the id of the user with that email, matched the
// way panel sign-in matches it: without regard to case, an exact match
// first. It is for the game's own sign-in paths (an SSO callback before
// StartSession, a support tool), so that they agree with the panel on
// who an email is. It returns ErrNotFound, or ErrAmbiguousEmail when
// several accounts differ from the email only in case and none matches
// it exactly.
func (au *Auth) UserIDByEmail(ctx context.Context, email string) (string, error) {
	return au.e.UserIDByEmail(ctx, email)
}

// Authenticate checks a login and password the way panel sign-in does and
// returns the user's id. login is an email or, with UserColumns.Username,
// a username, matched as panel sign-in matches it (see Username). Same
// hashing and timing for unknown logins, and
// the same failure limits (LoginFailuresPerNetwork, with every call of
// Authenticate counted as one network, and LoginFailuresPerEmail) and
// auth.login_failed audit rows (with "via": "authenticate"). It returns
// ErrInvalidCredentials, ErrBanned, a *RateLimitError (ErrRateLimited) or
// an error wrapping ErrLimiterUnavailable.
//
// Games use it for their own player sign-in, so players and operators
// share one users table. Prefer AuthenticateFrom, which also knows the
// client's address: it adds the per-IP limits and keys the failure limit
// on the client's network, so one attacker cannot lock an account's game
// sign-in for everyone.
func (au *Auth) Authenticate(ctx context.Context, login, password string) (string, error) {
	return au.e.Authenticate(ctx, login, password)
}

// AuthenticateFrom is Authenticate for a sign-in request r of the game's
// own: the client IP (a.ClientIP, honouring Options.TrustedProxies) spends
// the PerIP and Login buckets, the failure limit is keyed on the client's
// network, and failure audit rows carry ip and userAgent. login is an
// email or a username, as for Authenticate.
func (au *Auth) AuthenticateFrom(r *http.Request, login, password string) (string, error) {
	return au.e.AuthenticateFrom(r, login, password)
}

// PasswordHasher hashes and verifies passwords. Implementations must be safe
// for concurrent use.
type PasswordHasher = engine.PasswordHasher

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
type Argon2id = engine.Argon2id

// DefaultArgon2id returns the default PasswordHasher: m=9216 KiB, t=4,
// p=1, with a 16-byte salt and a 32-byte key. That is one of the points
// OWASP's Password Storage Cheat Sheet lists as equally strong (m=19 MiB
// t=2, m=12 MiB t=3, m=9 MiB t=4, ...), the one that leaves a game server
// more of its memory: each hash in flight holds Memory. It is a function
// so that no caller can change the defaults of every other.
func DefaultArgon2id() Argon2id {
	return engine.DefaultArgon2id()
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
type Bcrypt = engine.Bcrypt

// BumpTokenVersion ends every session issued to userID before the call:
// the next request carrying one of them fails verification, and the
// user's live connections in every room (Options.Rooms) are closed. It is
// the panel's "Revoke sessions", with its "user.revoke_sessions" audit
// entry by the operator on ctx (OperatorFrom; none: the game), whose
// hierarchy it checks.
func (au *Auth) BumpTokenVersion(ctx context.Context, userID string) error {
	return au.e.BumpTokenVersion(ctx, userID)
}

// Ban bans userID and ends its sessions in one statement, so no session
// outlives the ban: the panel's Ban, with its "user.ban" audit entry, in
// the same transaction, by BannedBy (else the operator on ctx, whose
// hierarchy is checked, else none: the game). BannedAt defaults to now.
// After the commit the user's live connections in every room
// (Options.Rooms) are closed. With UserColumns.BanUntil, Until and Reason
// are written to the until and reason columns (no Until: the permanent
// sentinel); BannedAt and BannedBy are not kept (the audit entry says
// who and when). With UserColumns.BanTable, the user's active rows end
// and a row is inserted (Until NULL for good; Reason, BannedBy as its
// author and BannedAt as its time where the table has those columns).
func (au *Auth) Ban(ctx context.Context, userID string, ban BanInfo) error {
	return au.e.Ban(ctx, userID, ban)
}

// Unban lifts userID's ban: the panel's Unban, with its "user.unban" audit
// entry by the operator on ctx (whose hierarchy is checked; none: the
// game), in the same transaction. Sessions ended by the ban stay ended.
func (au *Auth) Unban(ctx context.Context, userID string) error {
	return au.e.Unban(ctx, userID)
}

// StartSession issues the panel session for userID, a user the game has
// signed in itself (its own login, SSO, OIDC): the same session cookie as
// the panel's sign-in, and an auth.login audit entry with "method":
// "external". Call it from the game's handler before writing the answer,
// then redirect to the panel (a.UIPath()) or the page the user wanted.
//
// No password is checked and no rate limit is spent: the game vouches for
// the user, so the game's own sign-in must be limited. A banned user gets
// ErrBanned (audited as auth.login_failed, "reason": "banned"), an unknown
// one ErrNotFound; neither gets a cookie.
//
// A user with two-factor sign-in on (see docs/security.md, "Two-factor sign-in") does
// not get a session yet: StartSession sets the TOTP challenge cookie and
// returns ErrSecondFactorRequired, and the game redirects to
// a.SecondFactorURL(next), where the panel asks for the code. The game's
// sign-in does not replace the panel's second factor unless the game says
// so: pass ExternalSignIn{SecondFactor: true} only when the identity
// provider checked one for this very sign-in (OIDC's amr claim holds
// "mfa", say). RequireTOTP still asks operators to enrol in the panel.
func (au *Auth) StartSession(w http.ResponseWriter, r *http.Request, userID string, how ...ExternalSignIn) error {
	return au.e.StartSession(w, r, userID, how...)
}

// ExternalSignIn is what a game's identity provider vouched for, told to
// StartSession.
type ExternalSignIn = engine.ExternalSignIn

// TOTPPolicy says which operators must sign in with a second factor
// (Options.RequireTOTP).
type TOTPPolicy = engine.TOTPPolicy

// TOTPNone requires nobody to enrol; anyone may still turn TOTP on.
const TOTPNone = engine.TOTPNone

// TOTPAdmins requires every admin to enrol.
const TOTPAdmins = engine.TOTPAdmins

// TOTPOperators requires every admin and mod to enrol.
const TOTPOperators = engine.TOTPOperators

// ResetTOTP removes userID's second factor and recovery codes and ends the
// user's sessions (when the users table has token_version), so the next
// sign-in takes the password alone. It reports whether there was a factor.
// It is the way back in when the last admin has lost both phone and
// recovery codes: call it from the game's own tooling. It writes no audit
// entry; the panel's POST /users/:id/totp/reset does.
func (au *Auth) ResetTOTP(ctx context.Context, userID string) (bool, error) {
	return au.e.ResetTOTP(ctx, userID)
}

// UserColumns maps the panel's user fields onto the columns of the users
// table (Options.Tables["users"]), by SQL name. An empty field keeps its
// default, today's built-in name. ID and PasswordHash must exist; ID
// must be the table's single primary key. Email may be NULL in a row
// (a guest player's account): such a user is moderated like any other,
// and invite and reset answer 400 "no_email". A table with no email
// column at all is accepted when Email is left empty (a named Email
// column must exist): reset links and invites are then off (400
// "no_email"; GET /auth/me's features.email is false) and New logs it.
// Operators sign in by email or by Username; a table with neither fails
// New. DisplayName, TokenVersion
// and the ban are optional: without TokenVersion, "sign out everywhere",
// revoke-sessions and single-use reset links are off; without a ban
// column (or TokenVersion), ban and unban are off; those endpoints answer
// 501 and New logs which features are off. CreatedAt is optional too.
// Naming a column the model does not have is an error at New.
//
// The ban is held one of two ways. Ban names a JSON column holding a
// BanInfo (the built-in table's). BanUntil instead names the game's own
// until-column, with BanReason an optional text column beside it: see
// BanUntil.
type UserColumns struct {
	ID           string // default "id"
	Email        string // default "email"
	PasswordHash string // default "password_hash"
	DisplayName  string // default "display_name"
	TokenVersion string // default "token_version"
	// Ban is a JSON column holding the BanInfo of a banned user, NULL
	// otherwise. Default "ban" unless BanUntil is set; setting both
	// fails New.
	Ban string
	// CreatedAt is when the account was made: the dashboard's sign-ups
	// and the order of its recent users. Optional. It must hold times: a
	// time column, or an integer declared a unix time
	// (ColumnConfig.UnixTime, the admin:"unixtime" tag). Naming another
	// here is an error at New; the default naming one is a warning, and
	// the dashboard shows no sign-ups.
	CreatedAt string // default "created_at"
	// BanUntil names the game's own ban column, used instead of Ban: the
	// time a ban ends, as an integer column of unix seconds (the model's
	// field an int64, int or sql.NullInt64) or a time column (time.Time,
	// sql.NullTime or bun.NullTime: timestamp, timestamptz, SQLite
	// DATETIME). NULL or a time past means not banned; a time past the
	// year 9000 means banned for good, and the panel writes a ban without
	// an end as 9999-12-31T23:59:59Z (unix 253402300799). Panel bans
	// write it, unban writes NULL; a ban the game writes itself shows in
	// the users list (its _banned filter; each row's ban as "_ban"), the
	// user's page, the dashboard's "Banned now", Auth.Banned, UserStates
	// (so a live.Hub) and the panel's sign-in, as the panel's own. Bans
	// still need TokenVersion, which a ban increments to end the user's
	// sessions (a ban the game writes ends none: bump it too). Who banned
	// and when is in the audit log only. No default.
	BanUntil string
	// BanReason is an optional text column holding a ban's reason beside
	// BanUntil (NULL without one; unban clears it). Needs BanUntil.
	BanReason string
	// BanTable names the game's own table of bans, one row a ban, used
	// instead of Ban or BanUntil (setting it with either fails New): see
	// BanTable. Nil: the ban is a column of the users table.
	BanTable *BanTable
	// Username names the login name column (text), for staff and players
	// who sign in by name: the panel's sign-in then takes an email or a
	// username in one field (POST /auth/login's "login"), as do
	// Auth.Authenticate and AuthenticateFrom. A username is matched by
	// plain = under the column's own collation (case-sensitive on
	// PostgreSQL text and SQLite's default; not on citext or COLLATE
	// NOCASE); give it a unique index, as two accounts with one username
	// can sign in as neither. A value that is one account's username and
	// another's email names the username's account, unless it has an '@'.
	// The panel names accounts by display name, then username, then
	// email. No default.
	Username string
}

// BanTable is the game's own table of bans (UserColumns.BanTable), in
// the shape bans(id, player_id, reason, expires_at, created_by): one row
// a ban, read and written instead of a ban column on the users table.
// The names are SQL names, checked against the database's catalog at New
// (the table and every column named must exist) and the only
// identifiers the panel's statements on the table use.
//
// A row is active while Until is NULL (banned for good) or ahead of the
// database's clock; a user is banned while any row of theirs is active.
// A panel ban ends the user's active rows and inserts one (Player, Until
// or NULL without an end, Reason, Author the operator's id, CreatedAt
// now), in the transaction of its audit entry and of the TokenVersion
// bump that ends their sessions; unban sets Until to now on the active
// rows (rows are never deleted: the table is the history). A row the
// game writes itself is honoured as the panel's own: the users list's
// _banned filter and each row's _ban, the user's page, the dashboard's
// "Banned now", Auth.Banned, UserStates (so a live.Hub), the panel's
// sign-in, and the session check, which refuses a session of a user
// with an active row at its next request (no token version bump needed).
// Erase bans through the table; a player's export includes their rows.
// Bans still need UserColumns.TokenVersion.
type BanTable = engine.BanTable
