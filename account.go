package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"
)

// BumpTokenVersion ends every session issued to userID before the call: the
// next request carrying one of them fails verification, and the user's
// live connections in every room (Options.Rooms) are closed.
func (au *Auth) BumpTokenVersion(ctx context.Context, userID string) error {
	u := au.users
	if !u.hasTokenVer {
		return fmt.Errorf("%w: users table %s has no token_version column", ErrUnsupported, u.name)
	}
	if err := au.bumpTokenVersion(ctx, au.db, userID); err != nil {
		return err
	}
	au.sessionsEnded(ctx, userID, "sessions revoked")
	return nil
}

// endOtherSessions bumps userID's token version inside tx, when the users
// table has one, and returns the new version, under which the caller
// re-issues its own session; 0 without the column.
func (au *Auth) endOtherSessions(ctx context.Context, tx bun.Tx, userID string) (int64, error) {
	if !au.users.hasTokenVer {
		return 0, nil
	}
	if err := au.bumpTokenVersion(ctx, tx, userID); err != nil {
		return 0, err
	}
	acc, err := au.users.accountByID(ctx, tx, userID)
	if err != nil {
		return 0, err
	}
	return acc.TokenVersion, nil
}

// bumpTokenVersion bumps through db, a transaction when the caller holds one.
func (au *Auth) bumpTokenVersion(ctx context.Context, db bun.IDB, userID string) error {
	return au.update(ctx, userID, db.NewUpdate().Set("? = ? + 1", au.users.col(au.users.cols.TokenVersion), au.users.col(au.users.cols.TokenVersion)))
}

// Ban bans userID and ends its sessions in one statement, so no session
// outlives the ban. BannedAt defaults to now. A "user.ban" audit entry by
// BannedBy (else the operator on ctx, else none: the game) is written in
// the same transaction. After the commit the user's live connections in
// every room (Options.Rooms) are closed, as the panel's Ban button does.
func (au *Auth) Ban(ctx context.Context, userID string, ban BanInfo) error {
	if ban.BannedBy == "" {
		op, _ := OperatorFrom(ctx)
		ban.BannedBy = op.UserID
	}
	err := au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := au.ban(ctx, tx, userID, &ban); err != nil {
			return err
		}
		return au.audit.record(ctx, tx, AuditEntry{OperatorID: ban.BannedBy, Action: "user.ban", Resource: "users", TargetID: userID,
			Payload: map[string]any{"reason": ban.Reason, "until": ban.Until}})
	})
	if err == nil {
		au.sessionsEnded(ctx, userID, "banned")
	}
	return err
}

// ban sets the ban and bumps the token version through db.
func (au *Auth) ban(ctx context.Context, db bun.IDB, userID string, ban *BanInfo) error {
	u := au.users
	if !u.hasBan || !u.hasTokenVer {
		return fmt.Errorf("%w: users table %s needs ban and token_version columns", ErrUnsupported, u.name)
	}
	if ban.BannedAt.IsZero() {
		ban.BannedAt = time.Now().UTC()
	}
	return au.update(ctx, userID, db.NewUpdate().Set("? = ?", u.col(u.cols.Ban), ban).Set("? = ? + 1", u.col(u.cols.TokenVersion), u.col(u.cols.TokenVersion)))
}

// Unban lifts userID's ban. Sessions ended by the ban stay ended. A
// "user.unban" audit entry by the operator on ctx (else none: the game) is
// written in the same transaction.
func (au *Auth) Unban(ctx context.Context, userID string) error {
	op, _ := OperatorFrom(ctx)
	return au.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := au.unban(ctx, tx, userID); err != nil {
			return err
		}
		return au.audit.record(ctx, tx, AuditEntry{OperatorID: op.UserID, Action: "user.unban", Resource: "users", TargetID: userID})
	})
}

// unban clears the ban through db.
func (au *Auth) unban(ctx context.Context, db bun.IDB, userID string) error {
	u := au.users
	if !u.hasBan {
		return fmt.Errorf("%w: users table %s has no ban column", ErrUnsupported, u.name)
	}
	return au.update(ctx, userID, db.NewUpdate().Set("? = NULL", u.col(u.cols.Ban)))
}

// Banned returns userID's ban when one is in force, or nil. A ban whose
// Until has passed is not in force. Game handlers call it to refuse banned
// players.
func (au *Auth) Banned(ctx context.Context, userID string) (*BanInfo, error) {
	acc, err := au.users.accountByID(ctx, au.db, userID)
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
	return au.users.setPasswordHash(ctx, au.db, userID, hash)
}

// HashPassword hashes a password with Options.PasswordHasher, under the
// panel's hashing concurrency limit.
func (au *Auth) HashPassword(ctx context.Context, password string) (string, error) {
	if err := checkNewPassword(password); err != nil {
		return "", fmt.Errorf("admin: %s", err.(*APIError).Message)
	}
	return au.hash(ctx, password)
}

// update runs q against the users row of userID; ErrNotFound when no row.
func (au *Auth) update(ctx context.Context, userID string, q *bun.UpdateQuery) error {
	res, err := q.TableExpr("?", au.users.ident()).Where("? = ?", au.users.col(au.users.cols.ID), userID).Exec(ctx)
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
	res, err := db.NewUpdate().TableExpr("?", u.ident()).Set("? = ?", u.col(u.cols.PasswordHash), hash).Where("? = ?", u.col(u.cols.ID), userID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("admin: user %q: %w", userID, ErrNotFound)
	}
	return nil
}

// UserState is what a game server's live connections are re-checked
// against (live.Options.UserStates): the user's token version, which every
// end of its sessions bumps, and whether a ban is in force.
type UserState struct {
	TokenVersion int64
	Banned       bool
}

// UserStates returns the state of the users with those ids, in one query
// per 500 that reads only the id, token version and ban columns; an id
// with no user is absent from the map. A live.Hub given it
// as Options.UserStates closes sockets whose sessions ended on another
// node while it could not be told (see live.Hub.Revalidate).
func (au *Auth) UserStates(ctx context.Context, userIDs []string) (map[string]UserState, error) {
	out := make(map[string]UserState, len(userIDs))
	now := time.Now()
	for chunk := range slices.Chunk(userIDs, 500) {
		ids := make([]any, len(chunk))
		for i, id := range chunk {
			ids[i] = id
		}
		u := au.users
		q := u.stateColumns(au.db.NewSelect().TableExpr("? AS u", u.ident()).ColumnExpr("CAST(? AS TEXT)", u.col(u.cols.ID, "u")))
		rows, err := q.Where("? IN (?)", u.col(u.cols.ID, "u"), bun.List(ids)).Rows(ctx)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			var st UserState
			var raw nullJSON
			if err := rows.Scan(&id, &st.TokenVersion, &raw); err != nil {
				rows.Close()
				return nil, err
			}
			ban, err := parseBan(id, raw)
			if err != nil {
				rows.Close()
				return nil, err
			}
			st.Banned = ban.Active(now)
			out[id] = st
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return nil, err
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
