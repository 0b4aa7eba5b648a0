// Package account is the accounts of the panel: Auth, the Go API over
// sign-in (passwords, their limits and failures, the second factor,
// reset and invite links, a game's own sign-in through StartSession),
// sessions (the cookie's tokens, the live session check with its prepared
// statement, the end of every session of a user) and the first admin
// (the setup token and bootstrap). The panel's auth endpoints are thin
// layers over its exported API.
//
// It reads and writes package users' tables, bans and ends sessions
// through package moderation's one implementation (Sanctions), and
// writes package audit's log; it never imports the panel, and moderation
// never imports it.
package account

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	bunschema "github.com/uptrace/bun/schema"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/clientip"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/jobs"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/passhash"
	"github.com/gameadmin/admin/internal/ratelimit"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
	"golang.org/x/crypto/bcrypt"
)

// Auth is the Go API over accounts: sign-in, sessions, bans, passwords and
// second factors. It works on the users table of Options.Tables. The
// panel's auth endpoints are thin layers over it.
type Auth struct {
	db        *bun.DB
	tables    prefix // the second factors' tables
	users     *users.Table
	roles     *users.RoleTable
	tokens    *Tokens
	audit     *audit.Log
	hasher    passhash.Hasher
	hashGate  *passhash.Gate
	dummy     string // a hash verified for unknown emails: the same work
	limits    ratelimit.Options
	totp      *TOTPSettings
	proxies   clientip.Resolver // Options.TrustedProxies, ClientIPHeader
	reset     resetOptions
	jobs      *jobs.Queue // reset-link deliveries
	auditJobs *jobs.Queue // failed sign-ins' audit rows
	failures  *audit.Failures
	// newUser gives the first admin's new users row the columns it needs
	// beyond email and password; dbError answers the database's refusal
	// of that row.
	newUser func(context.Context, Credentials) (map[string]any, error)
	dbError func(error) error
	closed  func() error // the panel's: StartSession refuses after Close
	log     *slog.Logger
	// sanctions bans and ends sessions: moderation's one implementation.
	sanctions *moderation.Sanctions
	// now is Options.Clock: whether a ban has ended.
	now func() time.Time
}

// Config is what Auth works with: the panel's database, tables, tokens,
// audit log, queues and options.
type Config struct {
	DB *bun.DB
	// Roles is the roles table, and through it the users table.
	Roles *users.RoleTable
	// TablePrefix is Options.TablePrefix, defaulted: it names the second
	// factor's tables.
	TablePrefix string
	Tokens      *Tokens
	Audit       *audit.Log
	// Sanctions bans, unbans and ends sessions (Ban, Unban,
	// BumpTokenVersion and every change that ends a user's sessions).
	Sanctions *moderation.Sanctions
	// Hasher is Options.PasswordHasher, defaulted; HashConcurrency
	// bounds how many hashes run at once (passhash.NewGate).
	Hasher          passhash.Hasher
	HashConcurrency int
	// Limits are Options.RateLimit, defaulted (ratelimit.Defaults).
	Limits ratelimit.Options
	TOTP   *TOTPSettings
	// Proxies finds a request's client address (Options.TrustedProxies,
	// ClientIPHeader).
	Proxies clientip.Resolver
	// UIPath is where reset links lead: <UIPath>/reset?token=…
	UIPath string
	// OnResetRequest delivers reset and invite links; nil logs them.
	OnResetRequest     func(ctx context.Context, req ResetRequest) error
	ResetOperatorsOnly bool
	// Jobs runs reset-link deliveries, AuditJobs the audit rows of failed
	// sign-ins; Failures collapses anonymous failures.
	Jobs      *jobs.Queue
	AuditJobs *jobs.Queue
	Failures  *audit.Failures
	// NewUser gives the first admin's new users row the columns the users
	// table needs beyond email and password (the users resource's
	// defaults); DBError turns the database's refusal of that row into
	// its answer.
	NewUser func(context.Context, Credentials) (map[string]any, error)
	DBError func(error) error
	// Closed is nil while the panel serves, its answer once closed.
	Closed func() error
	Now    func() time.Time // Options.Clock
	Log    *slog.Logger
}

// New returns the Auth of c. It hashes a random password once, the dummy
// hash unknown emails are checked against: a hasher that fails is an
// error.
func New(c Config) (*Auth, error) {
	dummy, err := c.Hasher.Hash(rand.Text())
	if err != nil {
		return nil, fmt.Errorf("admin: password hasher: %w", err)
	}
	if c.Closed == nil {
		c.Closed = func() error { return nil }
	}
	return &Auth{db: c.DB, tables: prefix(c.TablePrefix), users: c.Roles.Users, roles: c.Roles, tokens: c.Tokens, audit: c.Audit,
		hasher: c.Hasher, hashGate: passhash.NewGate(c.HashConcurrency), dummy: dummy, limits: c.Limits, totp: c.TOTP,
		proxies: c.Proxies, jobs: c.Jobs, auditJobs: c.AuditJobs, failures: c.Failures,
		reset:   resetOptions{uiPath: c.UIPath, deliver: c.OnResetRequest, operatorsOnly: c.ResetOperatorsOnly},
		newUser: c.NewUser, dbError: c.DBError, closed: c.Closed, log: c.Log, sanctions: c.Sanctions, now: c.Now}, nil
}

// prefix names the second factor's built-in tables: Options.TablePrefix.
type prefix string

// tbl is the quoted name of the built-in table of that base name.
func (p prefix) tbl(base string) bun.Ident { return bun.Ident(string(p) + base) }

// aliased is `"<prefix><base>" AS "<alias>"`, the ModelTableExpr of a
// built-in model's select, update and delete queries.
func (p prefix) aliased(base, alias string) bunschema.QueryWithArgs {
	return bun.SafeQuery("? AS ?", bun.Ident(string(p)+base), bun.Ident(alias))
}

// resetOptions are the Options password reset needs.
type resetOptions struct {
	uiPath        string // the link is <UIPath>/reset?token=…
	deliver       func(ctx context.Context, req ResetRequest) error
	operatorsOnly bool
}

// Password bounds: long enough to matter, short enough that hashing a
// hostile body stays cheap.
const (
	minPasswordRunes = 8
	maxPasswordBytes = 1024
	maxEmailBytes    = 254
)

// Credentials are the body of the first admin's sign-up: an email, a
// username (UserColumns.Username), or both.
type Credentials struct {
	Email       string `json:"email"`
	Username    string `json:"username,omitempty"`
	Password    string `json:"password"`
	DisplayName string `json:"displayName"`
}

// LoginBody is the body of POST /auth/login: the password and exactly
// one of Login (an email or a username), Email (an email only, as
// before usernames) and Username (a username only).
type LoginBody struct {
	Login    *string `json:"login"`
	Email    *string `json:"email"`
	Username *string `json:"username"`
	Password string  `json:"password"`
}

// Attempt checks the body and returns the attempt it asks for (Login,
// By and Password set): 400 missing_field when none of login, email and
// username is given or the password is empty, 400 invalid_value naming
// the field when more than one is given, an email that is not one
// address (CheckEmail), or a login longer than 254 bytes.
func (b LoginBody) Attempt() (LoginAttempt, error) {
	var at LoginAttempt
	var named []string
	for _, f := range []struct {
		name string
		v    *string
		by   string
	}{{"login", b.Login, ByLogin}, {"email", b.Email, ByEmail}, {"username", b.Username, ByUsername}} {
		if f.v != nil {
			named = append(named, f.name)
			at.Login, at.By = strings.TrimSpace(*f.v), f.by
		}
	}
	switch {
	case len(named) == 0:
		return at, errbody.Field(http.StatusBadRequest, "missing_field", "login", "login is required (an email or a username)").WithParams("field", "login")
	case len(named) > 1:
		return at, errbody.Field(http.StatusBadRequest, "invalid_value", named[1], "give one of login, email and username, not %s", strings.Join(named, " and "))
	case at.By == ByEmail:
		e, err := CheckEmail(at.Login)
		if err != nil {
			return at, err
		}
		at.Login = e
	case at.Login == "":
		return at, errbody.Field(http.StatusBadRequest, "missing_field", named[0], "%s is required", named[0]).WithParams("field", named[0])
	case len(at.Login) > maxEmailBytes:
		return at, errbody.Field(http.StatusBadRequest, "invalid_value", named[0], "%s is longer than %d bytes", named[0], maxEmailBytes)
	}
	if b.Password == "" {
		return at, errbody.New(http.StatusBadRequest, "missing_field", "password is required").WithParams("field", "password")
	}
	at.Password = b.Password
	return at, checkPasswordLen(b.Password)
}

// Check checks and trims the email (CheckEmail; it may be left out
// when a username is given), the username, the password (a new one,
// CheckNewPassword, when newPassword) and the display name; its error
// is the 400 answer naming what is wrong.
func (c *Credentials) Check(newPassword bool) error {
	c.Username = strings.TrimSpace(c.Username)
	if c.Email != "" || c.Username == "" {
		email, err := CheckEmail(c.Email)
		if err != nil {
			return err
		}
		c.Email = email
	}
	switch {
	case len(c.Username) > maxEmailBytes:
		return errbody.Field(http.StatusBadRequest, "invalid_value", "username", "username is longer than %d bytes", maxEmailBytes)
	case c.Password == "":
		return errbody.New(http.StatusBadRequest, "missing_field", "password is required").WithParams("field", "password")
	case utf8.RuneCountInString(c.DisplayName) > 200:
		return errbody.New(http.StatusBadRequest, "invalid_value", "displayName is longer than 200 characters")
	}
	if newPassword {
		return CheckNewPassword(c.Password)
	}
	return checkPasswordLen(c.Password)
}

// CheckEmail trims an email and refuses anything but one bare address:
// sign-in and password reset match on it. Its case is kept as typed.
func CheckEmail(s string) (string, error) {
	e := strings.TrimSpace(s)
	if e == "" {
		return "", errbody.New(http.StatusBadRequest, "missing_field", "email is required").WithParams("field", "email")
	}
	if addr, err := mail.ParseAddress(e); len(e) > maxEmailBytes || err != nil || addr.Address != e {
		return "", errbody.New(http.StatusBadRequest, "invalid_value", "email %q is not a valid address", errbody.Truncate(e, 80))
	}
	return e, nil
}

// CheckNewPassword refuses a new password shorter than 8 characters or
// longer than 1024 bytes: 400 password_too_short or password_too_long.
func CheckNewPassword(p string) error {
	if utf8.RuneCountInString(p) < minPasswordRunes {
		return errbody.New(http.StatusBadRequest, "password_too_short", "password must be at least %d characters", minPasswordRunes).WithParams("min", minPasswordRunes)
	}
	return checkPasswordLen(p)
}

// checkPasswordLen bounds a password before it is hashed.
func checkPasswordLen(p string) error {
	if len(p) > maxPasswordBytes {
		return errbody.New(http.StatusBadRequest, "password_too_long", "password is longer than %d bytes", maxPasswordBytes).WithParams("max", maxPasswordBytes)
	}
	return nil
}

// Hash runs the hasher under the concurrency gate. A password the hasher
// cannot take (bcrypt reads at most 72 bytes) is 400 password_too_long.
func (au *Auth) Hash(ctx context.Context, password string) (h string, err error) {
	if gerr := au.hashGate.Do(ctx, func() { h, err = au.hasher.Hash(password) }); gerr != nil {
		return "", gerr
	}
	if errors.Is(err, bcrypt.ErrPasswordTooLong) {
		return "", errbody.New(http.StatusBadRequest, "password_too_long", "password is longer than the 72 bytes bcrypt reads").WithParams("max", 72)
	}
	return h, err
}

// verify checks password against acc's stored hash, under the concurrency
// gate. Whatever the row holds, the work is one hash: no account (an
// unknown email), an empty or NULL column, or a value that is not a hash
// the hasher knows ("!", "*", a foreign scheme: what games store for
// accounts made by SSO or a platform login) is checked against the dummy
// hash and never matches. For a row whose value is not a usable hash, one
// warning names the user, never the value. The error is the gate's (the
// request ended while queued) or a hasher's failure on the dummy hash.
func (au *Auth) verify(ctx context.Context, acc *users.Account, password string) (ok bool, err error) {
	encoded := au.dummy
	if acc != nil && acc.PasswordHash != "" {
		encoded = acc.PasswordHash
	}
	var unusable bool
	gerr := au.hashGate.Do(ctx, func() {
		ok, err = au.hasher.Verify(password, encoded)
		if err != nil && encoded != au.dummy {
			unusable = true
			ok, err = au.hasher.Verify(password, au.dummy)
		}
	})
	if gerr != nil {
		return false, gerr
	}
	if acc != nil && (unusable || encoded == au.dummy) {
		au.log.WarnContext(ctx, "admin: password sign-in refused: the user's stored password is not a hash the passhash.Hasher verifies (empty, a locked-account marker, or another scheme)", "userId", acc.ID)
	}
	return ok && encoded != au.dummy, err
}

// checkPassword verifies userID's current password: 400 wrong_password.
func (au *Auth) checkPassword(ctx context.Context, userID, password string) error {
	acc, err := au.users.AccountByID(ctx, au.db, userID)
	if err != nil {
		return err
	}
	ok, err := au.verify(ctx, acc, password)
	if err != nil {
		return err
	}
	if !ok {
		return errbody.New(http.StatusBadRequest, "wrong_password", "the current password is wrong")
	}
	return nil
}

// rehashIfNeeded upgrades a bcrypt or outdated argon2id hash after a
// successful sign-in, while the plain password is at hand.
func (au *Auth) rehashIfNeeded(ctx context.Context, acc *users.Account, password string) {
	rh, ok := au.hasher.(interface{ NeedsRehash(string) bool })
	if !ok || !rh.NeedsRehash(acc.PasswordHash) {
		return
	}
	h, err := au.Hash(ctx, password)
	if err == nil {
		u := au.users
		_, err = au.db.NewUpdate().TableExpr("?", u.Ident()).Set("? = ?", u.Col(u.Cols.PasswordHash), h).
			Where("? = ?", u.Col(u.Cols.ID), acc.ID).Where("? = ?", u.Col(u.Cols.PasswordHash), acc.PasswordHash).Exec(ctx)
	}
	if err != nil {
		au.log.ErrorContext(ctx, "admin: rehash password", "userId", acc.ID, "err", err)
	}
}

// ChangePassword sets userID's password after checking the current one,
// ends every session (bumping the token version) and returns the new
// token version, committed with its audit entry (meta). ip is the
// client's: the attempt spends the TOTP limiter, as a code would.
func (au *Auth) ChangePassword(ctx context.Context, userID, current, next, ip string, meta map[string]any) (tv int64, err error) {
	if current == "" || next == "" {
		return 0, errbody.New(http.StatusBadRequest, "missing_field", "current and new are required").WithParams("fields", []string{"current", "new"})
	}
	if err := checkPasswordLen(current); err != nil {
		return 0, err
	}
	if err := CheckNewPassword(next); err != nil {
		return 0, err
	}
	if err := au.SecondFactor().limitTOTP(ctx, userID, ip); err != nil {
		return 0, err
	}
	if err := au.checkPassword(ctx, userID, current); err != nil {
		if errors.Is(err, users.ErrNotFound) {
			return 0, ErrUnauthenticated
		}
		return 0, err
	}
	h, err := au.Hash(ctx, next)
	if err != nil {
		return 0, err
	}
	err = au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := au.users.SetPasswordHash(ctx, tx, userID, h); err != nil {
			return err
		}
		if tv, err = au.endOtherSessions(ctx, tx, userID); err != nil {
			return err
		}
		return au.audit.RecordTx(ctx, tx, authEntry(meta, userID, "auth.password_changed", ""))
	})
	if err == nil {
		au.sanctions.SessionsEnded(ctx, userID, "password changed")
	}
	return tv, err
}

// Record writes an auth.* audit entry of an event, not a change, by
// operatorID with meta, the email when not "" and the key/value pairs
// kv: a failure is logged.
func (au *Auth) Record(ctx context.Context, meta map[string]any, operatorID, action, email string, kv ...any) {
	au.audit.Event(ctx, authEntry(meta, operatorID, action, email, kv...))
}

// authEntry is an auth.* audit entry with {email?, ip, userAgent} (meta)
// and any extra key/value pairs.
func authEntry(meta map[string]any, operatorID, action, email string, kv ...any) audit.Entry {
	payload := audit.Payload(meta, kv...)
	if email != "" {
		payload["email"] = email
	}
	return audit.Entry{OperatorID: operatorID, Action: action, Resource: "auth", TargetID: operatorID, Payload: payload}
}
