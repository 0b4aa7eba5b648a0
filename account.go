package admin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Auth is the Go API over accounts: revoking sessions, bans and passwords.
// It works on the users table of Options.Tables.
type Auth struct{ a *Admin }

// Errors of the Auth API.
var (
	// ErrInvalidCredentials reports an unknown email or a wrong password;
	// the two are deliberately indistinguishable.
	ErrInvalidCredentials = errors.New("admin: invalid credentials")
	// ErrBanned reports a sign-in by a user whose ban is in force.
	ErrBanned = errors.New("admin: banned")
)

// BumpTokenVersion ends every session issued to userID before the call: the
// next request carrying one of them fails verification.
func (au *Auth) BumpTokenVersion(ctx context.Context, userID string) error {
	u := au.a.users
	if !u.hasTokenVer {
		return fmt.Errorf("%w: users table %s has no token_version column", ErrUnsupported, u.name)
	}
	return au.bumpTokenVersion(ctx, au.a.db, userID)
}

// bumpTokenVersion bumps through db, a transaction when the caller holds one.
func (au *Auth) bumpTokenVersion(ctx context.Context, db bun.IDB, userID string) error {
	return au.update(ctx, userID, db.NewUpdate().Set("token_version = token_version + 1"))
}

// Ban bans userID and ends its sessions in one statement, so no session
// outlives the ban. BannedAt defaults to now. It does not close live
// WebSocket connections; the panel's Ban button does that through Rooms.
func (au *Auth) Ban(ctx context.Context, userID string, ban BanInfo) error {
	u := au.a.users
	if !u.hasBan || !u.hasTokenVer {
		return fmt.Errorf("%w: users table %s needs ban and token_version columns", ErrUnsupported, u.name)
	}
	if ban.BannedAt.IsZero() {
		ban.BannedAt = time.Now().UTC()
	}
	return au.update(ctx, userID, au.a.db.NewUpdate().Set("ban = ?", &ban).Set("token_version = token_version + 1"))
}

// Unban lifts userID's ban. Sessions ended by the ban stay ended.
func (au *Auth) Unban(ctx context.Context, userID string) error {
	u := au.a.users
	if !u.hasBan {
		return fmt.Errorf("%w: users table %s has no ban column", ErrUnsupported, u.name)
	}
	return au.update(ctx, userID, au.a.db.NewUpdate().Set("ban = NULL"))
}

// Banned returns userID's ban when one is in force, or nil. A ban whose
// Until has passed is not in force. Game handlers call it to refuse banned
// players.
func (au *Auth) Banned(ctx context.Context, userID string) (*BanInfo, error) {
	acc, err := au.a.users.accountByID(ctx, au.a.db, userID)
	if err != nil {
		return nil, fmt.Errorf("admin: user %q: %w", userID, err)
	}
	if acc.Ban.Active(time.Now()) {
		return acc.Ban, nil
	}
	return nil, nil
}

// SetPasswordHash stores an already hashed password for userID (see
// HashPassword). It does not end existing sessions; call BumpTokenVersion
// for that.
func (au *Auth) SetPasswordHash(ctx context.Context, userID, hash string) error {
	if hash == "" {
		return errors.New("admin: SetPasswordHash: empty hash")
	}
	return au.a.users.setPasswordHash(ctx, au.a.db, userID, hash)
}

// HashPassword hashes a password with Options.PasswordHasher, under the
// panel's hashing concurrency limit.
func (au *Auth) HashPassword(ctx context.Context, password string) (string, error) {
	if err := checkNewPassword(password); err != nil {
		return "", fmt.Errorf("admin: %s", err.(*apiError).Message)
	}
	return au.a.hash(ctx, password)
}

// Authenticate checks an email and password the way panel sign-in does (same
// hashing, same timing for unknown emails) and returns the user's id. It
// returns ErrInvalidCredentials or ErrBanned. Games use it for their own
// player sign-in, so players and operators share one users table.
func (au *Auth) Authenticate(ctx context.Context, email, password string) (string, error) {
	a := au.a
	acc, err := a.users.accountByEmail(ctx, a.db, email)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return "", err
	}
	hash := ""
	if acc != nil {
		hash = acc.PasswordHash
	}
	ok, err := a.verify(ctx, password, hash)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", ErrInvalidCredentials
	}
	if acc.Ban.Active(time.Now()) {
		return "", ErrBanned
	}
	return acc.ID, nil
}

// update runs q against the users row of userID; ErrNotFound when no row.
func (au *Auth) update(ctx context.Context, userID string, q *bun.UpdateQuery) error {
	res, err := q.TableExpr("?", au.a.users.ident()).Where("id = ?", userID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("admin: user %q: %w", userID, ErrNotFound)
	}
	return nil
}

func (u *userTable) setPasswordHash(ctx context.Context, db bun.IDB, userID, hash string) error {
	res, err := db.NewUpdate().TableExpr("?", u.ident()).Set("password_hash = ?", hash).Where("id = ?", userID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("admin: user %q: %w", userID, ErrNotFound)
	}
	return nil
}
