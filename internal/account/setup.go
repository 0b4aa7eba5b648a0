package account

// The first admin: the setup token of a panel's first run, and Bootstrap,
// which makes the admin.

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/dberr"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
)

// minSetupToken is the shortest Options.SetupToken New accepts.
const minSetupToken = 16

// SetupToken is the token of one panel's first run: while no admin
// exists, the bootstrap takes it. It is a fresh random one each start,
// logged as a one-time link, or Options.SetupToken, the same on every
// node of a cluster; it is compared in constant time and spent by the
// bootstrap.
type SetupToken struct {
	value     string
	generated bool        // logged in the link: it was not the game's own
	spent     atomic.Bool // a bootstrap used it
}

// NewSetupToken returns given (Options.SetupToken), at least 16
// characters, or, when given is "", a new random token.
func NewSetupToken(given string) (*SetupToken, error) {
	if given != "" {
		if len(given) < minSetupToken {
			return nil, fmt.Errorf("admin: SetupToken must be at least %d characters", minSetupToken)
		}
		return &SetupToken{value: given}, nil
	}
	return &SetupToken{value: rand.Text(), generated: true}, nil
}

// Matches reports whether got is the token, not yet spent.
func (s *SetupToken) Matches(got string) bool {
	return !s.spent.Load() && subtle.ConstantTimeCompare([]byte(got), []byte(s.value)) == 1
}

// Value is the token.
func (s *SetupToken) Value() string { return s.value }

// Generated reports whether the token is a random one of this start (to
// be logged in the setup link), not the game's own.
func (s *SetupToken) Generated() bool { return s.generated }

// Spend marks the token used: a bootstrap made the first admin.
func (s *SetupToken) Spend() { s.spent.Store(true) }

// Spent reports whether a bootstrap used the token.
func (s *SetupToken) Spent() bool { return s.spent.Load() }

// Bootstrap makes the first admin from checked credentials (Check): a
// new user, or an existing one (by username, else email) promoted (with its own password when it
// has one), with its auth.bootstrap audit entry (meta and the email) in
// the same transaction. A new users row gets the columns Config.NewUser
// gives it. It returns the admin's id and token version, or
// ErrBootstrapClosed once an admin exists. The setup token is the
// caller's to check and spend.
func (au *Auth) Bootstrap(ctx context.Context, c Credentials, meta map[string]any) (userID string, tv int64, err error) {
	if exists, err := au.roles.AdminExists(ctx, au.db); err != nil {
		return "", 0, err
	} else if exists {
		return "", 0, ErrBootstrapClosed
	}
	switch u := au.users; {
	case c.Username != "" && !u.HasUsername:
		return "", 0, errbody.Field(http.StatusBadRequest, "unknown_field", "username", "the users table has no username column (UserColumns.Username)").WithParams("field", "username")
	case c.Username == "" && !u.HasEmail:
		return "", 0, errbody.Field(http.StatusBadRequest, "missing_field", "username", "username is required: the users table has no email column").WithParams("field", "username")
	case c.Email != "" && !u.HasEmail:
		return "", 0, errbody.Field(http.StatusBadRequest, "unknown_field", "email", "the users table has no email column").WithParams("field", "email")
	}
	var acc *users.Account
	if c.Username != "" {
		acc, err = au.users.AccountByUsername(ctx, au.db, c.Username)
	}
	if acc == nil && c.Email != "" && (err == nil || errors.Is(err, users.ErrNotFound)) {
		acc, err = au.users.AccountByEmail(ctx, au.db, c.Email)
	}
	var amb *users.AmbiguousEmailError
	var ambName *users.AmbiguousUsernameError
	switch {
	case errors.As(err, &ambName):
		return "", 0, errbody.New(http.StatusConflict, "conflict", "several accounts have this username").WithParams("reason", "ambiguous_username").Because(err)
	case errors.As(err, &amb):
		return "", 0, errbody.New(http.StatusConflict, "conflict", "several accounts have this email in different case; type it exactly as stored").WithParams("reason", "ambiguous_email").Because(err)
	case err != nil && !errors.Is(err, users.ErrNotFound):
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
	} else if newHash, err = au.Hash(ctx, c.Password); err != nil {
		return "", 0, err
	}

	// Two bootstraps at once on MariaDB may deadlock on the admins' gap
	// lock (1213, one transaction rolled back): that one runs again, to
	// find the other's admin (ErrBootstrapClosed) or to make its own.
	for attempt := 1; ; attempt++ {
		userID, tv = "", 0
		err = bootstrapTx(ctx, au, c, acc, newHash, meta, &userID, &tv)
		if n, ok := dberr.MySQLNumber(err); !ok || n != 1213 || attempt == bootstrapAttempts {
			return userID, tv, err
		}
	}
}

// bootstrapAttempts bounds Bootstrap's runs of a transaction MariaDB
// chose as a deadlock's victim.
const bootstrapAttempts = 5

// bootstrapTx is Bootstrap's transaction: acc promoted (its password set
// to newHash when that is not empty), or a new user made, as the admin.
// A function, not a method: it is part of Bootstrap, not one more thing
// Auth does.
func bootstrapTx(ctx context.Context, au *Auth, c Credentials, acc *users.Account, newHash string, meta map[string]any, userID *string, tv *int64) error {
	return au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
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
			extra, err := au.newUser(ctx, c)
			if err != nil {
				return err
			}
			if c.Username != "" {
				if extra == nil {
					extra = map[string]any{}
				}
				extra[au.users.Cols.Username] = c.Username
			}
			id, err := au.users.CreateUser(ctx, tx, c.Email, c.DisplayName, newHash, extra)
			if err != nil {
				return au.dbError(err)
			}
			*userID = id
		case newHash != "":
			if err := au.users.SetPasswordHash(ctx, tx, acc.ID, newHash); err != nil {
				return err
			}
			*userID, *tv = acc.ID, acc.TokenVersion
		default:
			*userID, *tv = acc.ID, acc.TokenVersion
		}
		if err := au.roles.UpsertRole(ctx, tx, *userID, authz.RoleAdmin); err != nil {
			return err
		}
		// The first admin's entry commits with its role.
		e := authEntry(meta, *userID, "auth.bootstrap", c.Email)
		if c.Username != "" {
			e.Payload["username"] = c.Username
		}
		return au.audit.RecordTx(ctx, tx, e)
	})
}
