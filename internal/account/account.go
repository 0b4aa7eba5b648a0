package account

import (
	"context"
	"errors"
	"fmt"
	"github.com/gameadmin/admin/internal/sqldialect"
	"slices"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/users"
	"github.com/gameadmin/admin/rooms"
	"github.com/uptrace/bun"
)

// endOtherSessions bumps userID's token version inside tx, when the users
// table has one, and returns the new version, under which the caller
// re-issues its own session; 0 without the column.
func (au *Auth) endOtherSessions(ctx context.Context, tx bun.Tx, userID string) (int64, error) {
	if !au.users.HasTokenVersion {
		return 0, nil
	}
	if err := au.sanctions.BumpTokenVersion(ctx, tx, userID); err != nil {
		return 0, err
	}
	acc, err := au.users.AccountByID(ctx, tx, userID)
	if err != nil {
		return 0, err
	}
	return acc.TokenVersion, nil
}

// BumpTokenVersion ends every session issued to userID before the call:
// the next request carrying one of them fails verification, and the
// user's live connections in every room (Options.Rooms) are closed. It is
// the panel's "Revoke sessions", with its "user.revoke_sessions" audit
// entry by the operator on ctx (OperatorFrom; none: the game), whose
// hierarchy it checks.
func (au *Auth) BumpTokenVersion(ctx context.Context, userID string) error {
	op, _ := authz.From(ctx)
	_, _, err := au.sanctions.Apply(ctx, op, userID, moderation.Action{Name: moderation.RevokeSessions, Meta: map[string]any{}})
	return err
}

// Ban bans userID and ends its sessions in one statement, so no session
// outlives the ban: the panel's Ban, with its "user.ban" audit entry, in
// the same transaction, by BannedBy (else the operator on ctx, whose
// hierarchy is checked, else none: the game). BannedAt defaults to now.
// After the commit the user's live connections in every room
// (Options.Rooms) are closed.
func (au *Auth) Ban(ctx context.Context, userID string, ban users.BanInfo) error {
	op, _ := authz.From(ctx)
	_, _, err := au.sanctions.Apply(ctx, op, userID, moderation.Action{Name: moderation.Ban, Reason: ban.Reason, Until: ban.Until,
		BannedAt: ban.BannedAt, BannedBy: ban.BannedBy, Meta: map[string]any{}})
	return err
}

// Unban lifts userID's ban: the panel's Unban, with its "user.unban" audit
// entry by the operator on ctx (whose hierarchy is checked; none: the
// game), in the same transaction. Sessions ended by the ban stay ended.
func (au *Auth) Unban(ctx context.Context, userID string) error {
	op, _ := authz.From(ctx)
	_, _, err := au.sanctions.Apply(ctx, op, userID, moderation.Action{Name: moderation.Unban, Meta: map[string]any{}})
	return err
}

// Banned returns userID's ban when one is in force, or nil. A ban whose
// Until has passed is not in force. Game handlers call it to refuse banned
// players.
func (au *Auth) Banned(ctx context.Context, userID string) (*users.BanInfo, error) {
	acc, err := au.users.AccountByID(ctx, au.db, userID)
	if err != nil {
		return nil, fmt.Errorf("admin: user %q: %w", userID, err)
	}
	if acc.Ban.Active(au.now()) {
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
	return au.users.SetPasswordHash(ctx, au.db, userID, hash)
}

// HashPassword hashes a password with Options.PasswordHasher, under the
// panel's hashing concurrency limit.
func (au *Auth) HashPassword(ctx context.Context, password string) (string, error) {
	if err := CheckNewPassword(password); err != nil {
		return "", fmt.Errorf("admin: HashPassword: %w", err)
	}
	return au.Hash(ctx, password)
}

// UserStates returns the state of the users with those ids, in one query
// per 500 that reads only the id, token version and ban columns (the until and reason columns with UserColumns.BanUntil;
// the active rows of the bans table with UserColumns.BanTable); an id
// with no user is absent from the map. A live.Hub given it
// as Options.UserStates closes sockets whose sessions ended on another
// node while it could not be told (see live.Hub.Revalidate).
func (au *Auth) UserStates(ctx context.Context, userIDs []string) (map[string]rooms.UserState, error) {
	out := make(map[string]rooms.UserState, len(userIDs))
	now := au.now()
	for chunk := range slices.Chunk(userIDs, 500) {
		ids := make([]any, len(chunk))
		for i, id := range chunk {
			ids[i] = id
		}
		u := au.users
		q := u.StateColumns(au.db.NewSelect().TableExpr("? AS u", u.Ident()).ColumnExpr("?", sqldialect.AsText(u.Col(u.Cols.ID, "u"))))
		rows, err := q.Where("? IN (?)", u.Col(u.Cols.ID, "u"), bun.List(ids)).Rows(ctx)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			var st rooms.UserState
			var raw users.BanState
			if err := rows.Scan(append([]any{&id, &st.TokenVersion}, raw.Dest()...)...); err != nil {
				rows.Close()
				return nil, err
			}
			ban, err := u.Ban(id, raw)
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
