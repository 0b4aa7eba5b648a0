package engine

import (
	"context"
	"errors"
	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/clientip"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/jobs"
	"github.com/gameadmin/admin/internal/moderation"

	"github.com/gameadmin/admin/internal/passhash"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
	"golang.org/x/crypto/bcrypt"
)

// Auth is the Go API over accounts: sign-in, sessions, bans, passwords and
// second factors. It works on the users table of Options.Tables. The
// panel's auth endpoints are thin layers over it.
type Auth struct {
	db         *bun.DB
	tableNames // the second factors' tables
	users      *users.Table
	roles      *users.RoleTable
	tokens     *tokens
	audit      *Audit
	hasher     PasswordHasher
	hashGate   *passhash.Gate
	dummy      string // a hash verified for unknown emails: the same work
	limits     RateLimitOptions
	totp       *totpState
	proxies    clientip.Resolver // Options.TrustedProxies, ClientIPHeader
	reset      resetOptions
	jobs       *jobs.Queue // reset-link deliveries
	auditJobs  *jobs.Queue // failed sign-ins' audit rows
	failures   *audit.Failures
	// state reads a user's live token version, role and scopes (the
	// session check's query).
	state  func(ctx context.Context, userID string) (int64, Operator, error)
	closed *atomic.Bool // the panel's: StartSession refuses after Close
	log    *slog.Logger
	// sanctions bans and ends sessions; Moderation shares it.
	sanctions *moderation.Sanctions
	// now is Options.Clock: whether a ban has ended.
	now func() time.Time
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

type credentials struct {
	Email       string `json:"email"`
	Password    string `json:"password"`
	DisplayName string `json:"displayName"`
}

func (c *credentials) check(newPassword bool) error {
	email, err := checkEmail(c.Email)
	if err != nil {
		return err
	}
	c.Email = email
	switch {
	case c.Password == "":
		return errorf(http.StatusBadRequest, "missing_field", "password is required")
	case utf8.RuneCountInString(c.DisplayName) > 200:
		return errorf(http.StatusBadRequest, "invalid_value", "displayName is longer than 200 characters")
	}
	if newPassword {
		return checkNewPassword(c.Password)
	}
	return checkPasswordLen(c.Password)
}

func checkNewPassword(p string) error {
	if utf8.RuneCountInString(p) < minPasswordRunes {
		return errorf(http.StatusBadRequest, "password_too_short", "password must be at least %d characters", minPasswordRunes)
	}
	return checkPasswordLen(p)
}

// checkPasswordLen bounds a password before it is hashed.
func checkPasswordLen(p string) error {
	if len(p) > maxPasswordBytes {
		return errorf(http.StatusBadRequest, "password_too_long", "password is longer than %d bytes", maxPasswordBytes)
	}
	return nil
}

// hash runs the hasher under the concurrency gate. A password the hasher
// cannot take (bcrypt reads at most 72 bytes) is 400 password_too_long.
func (au *Auth) hash(ctx context.Context, password string) (h string, err error) {
	if gerr := au.hashGate.Do(ctx, func() { h, err = au.hasher.Hash(password) }); gerr != nil {
		return "", gerr
	}
	if errors.Is(err, bcrypt.ErrPasswordTooLong) {
		return "", errorf(http.StatusBadRequest, "password_too_long", "password is longer than the 72 bytes bcrypt reads")
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
		au.log.WarnContext(ctx, "admin: password sign-in refused: the user's stored password is not a hash the PasswordHasher verifies (empty, a locked-account marker, or another scheme)", "userId", acc.ID)
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
		return errorf(http.StatusBadRequest, "wrong_password", "the current password is wrong")
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
	h, err := au.hash(ctx, password)
	if err == nil {
		u := au.users
		_, err = au.db.NewUpdate().TableExpr("?", u.Ident()).Set("? = ?", u.Col(u.Cols.PasswordHash), h).
			Where("? = ?", u.Col(u.Cols.ID), acc.ID).Where("? = ?", u.Col(u.Cols.PasswordHash), acc.PasswordHash).Exec(ctx)
	}
	if err != nil {
		au.log.ErrorContext(ctx, "admin: rehash password", "userId", acc.ID, "err", err)
	}
}

// bootstrap makes the first admin from checked credentials: a new user,
// or an existing one promoted (with its own password when it has one).
// defaults gives a new users row the columns it needs beyond email and
// password. It returns the admin's id and token version.
func (au *Auth) bootstrap(ctx context.Context, c credentials, meta map[string]any,
	defaults func(context.Context, credentials) (map[string]any, error)) (userID string, tv int64, err error) {
	if exists, err := au.roles.AdminExists(ctx, au.db); err != nil {
		return "", 0, err
	} else if exists {
		return "", 0, ErrBootstrapClosed
	}
	acc, err := au.users.AccountByEmail(ctx, au.db, c.Email)
	var amb *users.AmbiguousEmailError
	switch {
	case errors.As(err, &amb):
		return "", 0, errorf(http.StatusConflict, "conflict", "several accounts have this email in different case; type it exactly as stored").Because(err)
	case err != nil && !errors.Is(err, ErrNotFound):
		return "", 0, err
	}
	var newHash string
	if acc != nil && acc.PasswordHash != "" {
		ok, err := au.verify(ctx, acc, c.Password)
		if err != nil {
			return "", 0, err
		}
		if !ok {
			return "", 0, errInvalidCredentials
		}
	} else if newHash, err = au.hash(ctx, c.Password); err != nil {
		return "", 0, err
	}

	err = au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := au.roles.LockAdmins(ctx, tx); err != nil {
			return err
		}
		if exists, err := au.roles.AdminExists(ctx, tx); err != nil {
			return err
		} else if exists {
			return ErrBootstrapClosed
		}
		switch {
		case acc == nil:
			extra, err := defaults(ctx, c)
			if err != nil {
				return err
			}
			id, err := au.users.CreateUser(ctx, tx, c.Email, c.DisplayName, newHash, extra)
			if err != nil {
				return dbError(err)
			}
			userID = id
		case newHash != "":
			if err := au.users.SetPasswordHash(ctx, tx, acc.ID, newHash); err != nil {
				return err
			}
			userID, tv = acc.ID, acc.TokenVersion
		default:
			userID, tv = acc.ID, acc.TokenVersion
		}
		if err := au.roles.UpsertRole(ctx, tx, userID, RoleAdmin); err != nil {
			return err
		}
		// The first admin's entry commits with its role.
		return au.audit.RecordTx(ctx, tx, authEntry(meta, userID, "auth.bootstrap", c.Email))
	})
	return userID, tv, err
}

// changePassword sets userID's password after checking the current one,
// ends every session (bumping the token version) and returns the new
// token version, committed with its audit entry.
func (au *Auth) changePassword(ctx context.Context, userID, current, next, ip string, meta map[string]any) (tv int64, err error) {
	if current == "" || next == "" {
		return 0, errorf(http.StatusBadRequest, "missing_field", "current and new are required")
	}
	if err := checkPasswordLen(current); err != nil {
		return 0, err
	}
	if err := checkNewPassword(next); err != nil {
		return 0, err
	}
	if err := (*secondFactor)(au).limitTOTP(ctx, userID, ip); err != nil {
		return 0, err
	}
	if err := au.checkPassword(ctx, userID, current); err != nil {
		if errors.Is(err, ErrNotFound) {
			return 0, errUnauthenticated
		}
		return 0, err
	}
	h, err := au.hash(ctx, next)
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

// record writes an auth.* audit entry (authEntry) of an event, not a
// change: a failure is logged.
func (au *Auth) record(ctx context.Context, meta map[string]any, operatorID, action, email string, kv ...any) {
	au.audit.Event(ctx, authEntry(meta, operatorID, action, email, kv...))
}

// authEntry is an auth.* audit entry with {email?, ip, userAgent} (meta)
// and any extra key/value pairs.
func authEntry(meta map[string]any, operatorID, action, email string, kv ...any) AuditEntry {
	payload := audit.Payload(meta, kv...)
	if email != "" {
		payload["email"] = email
	}
	return AuditEntry{OperatorID: operatorID, Action: action, Resource: "auth", TargetID: operatorID, Payload: payload}
}
