package engine

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
)

// The one implementation of ban, unban and revoke-sessions, and of the
// closing of live connections that every end of a user's sessions causes.
// The panel's endpoints (one user, or a bulk selection) and Auth's Go API
// (Ban, Unban, BumpTokenVersion) all call apply, so each writes the same
// audit entry and closes the same sockets; Auth and Moderation share one
// sanctions and never call each other.

// sanctions changes a user's standing: bans and token versions.
type sanctions struct {
	db    *bun.DB
	users *users.Table
	roles *users.RoleTable
	audit *Audit
	rooms Rooms            // Options.Rooms: live connections to close; may be nil
	now   func() time.Time // Options.Clock: a ban's BannedAt
	log   *slog.Logger
}

// userAction is one of the moderation operations on a user.
type userAction struct {
	name   string // "ban", "unban" or "revoke-sessions"
	reason string
	until  *time.Time
	// bannedAt and bannedBy default to now and the operator acting.
	bannedAt time.Time
	bannedBy string
	meta     map[string]any // ip and userAgent for the audit entry
}

// apply bans, unbans or revokes the sessions of userID for by, the
// operator acting: the hierarchy check (a mod acts on plain users only;
// the zero Operator is the game's own code, which may act on anyone), the
// change and its audit entry in one transaction (the entry exists exactly
// when the change does), then, for ban and revoke, the user's live
// connections close in every room. It returns how many closed. The entry
// of a ban or revoke says how many live sessions there were to close
// (counted before the commit, as the sockets close after it); should
// closing end fewer, or more, a user.sessions_closed entry says how many
// did, so the log agrees with the answer.
//
// partial is true when closing could not reach every node (a node timed
// out, Redis was down): the user's sessions there no longer verify, but
// their sockets stay open until those nodes hear of it.
func (s *sanctions) apply(ctx context.Context, by Operator, userID string, act userAction) (closed int, partial bool, err error) {
	if err := s.supports(act.name); err != nil {
		return 0, false, err
	}
	actor := by.UserID
	if act.bannedBy != "" {
		actor = act.bannedBy
	}
	entry := AuditEntry{OperatorID: actor, Resource: "users", TargetID: userID, Payload: audit.Payload(act.meta)}
	closes := act.name == "ban" || act.name == "revoke-sessions"
	expected := 0
	if closes {
		expected = s.liveSessions(ctx, userID)
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if by.Role != "" {
			if _, err := s.roles.CanWriteUser(ctx, tx, by, userID); err != nil {
				return err
			}
		}
		u := s.users
		q := tx.NewUpdate()
		switch act.name {
		case "ban":
			ban := &BanInfo{Reason: act.reason, Until: act.until, BannedAt: act.bannedAt, BannedBy: actor}
			if ban.BannedAt.IsZero() {
				ban.BannedAt = s.now().UTC()
			}
			entry.Action, entry.Payload = "user.ban", audit.Payload(act.meta, "reason", act.reason, "until", act.until)
			entry.Payload["sessionsClosed"] = expected
			q = q.Set("? = ?", u.Col(u.Cols.Ban), ban).Set("? = ? + 1", u.Col(u.Cols.TokenVersion), u.Col(u.Cols.TokenVersion))
		case "unban":
			entry.Action = "user.unban"
			q = q.Set("? = NULL", u.Col(u.Cols.Ban))
		case "revoke-sessions":
			entry.Action = "user.revoke_sessions"
			entry.Payload["sessionsClosed"] = expected
			q = q.Set("? = ? + 1", u.Col(u.Cols.TokenVersion), u.Col(u.Cols.TokenVersion))
		}
		if err := s.users.Update(ctx, q, userID); err != nil {
			return err
		}
		return s.audit.RecordTx(ctx, tx, entry)
	})
	if err != nil {
		return 0, false, err
	}
	if !closes {
		return 0, false, nil
	}
	// Live connections close after the commit: closed before it, a player
	// could rejoin while its ban was not yet visible.
	reason := map[string]string{"ban": "banned", "revoke-sessions": "sessions revoked"}[act.name]
	n, derr := s.disconnect(ctx, userID, reason)
	if n != expected || derr != nil {
		s.audit.Event(ctx, AuditEntry{OperatorID: actor, Action: "user.sessions_closed", Resource: "users", TargetID: userID,
			Payload: audit.Payload(act.meta, "after", entry.Action, "expected", expected, "sessionsClosed", n, "partial", derr != nil)})
	}
	return n, derr != nil, nil
}

// supports says whether the users table has the columns act needs.
func (s *sanctions) supports(act string) error {
	u := s.users
	switch {
	case act == "ban" && (!u.HasBan || !u.HasTokenVersion):
		return fmt.Errorf("%w: users table %s needs ban and token_version columns", ErrUnsupported, u.Name)
	case act == "unban" && !u.HasBan:
		return fmt.Errorf("%w: users table %s has no ban column", ErrUnsupported, u.Name)
	case act == "revoke-sessions" && !u.HasTokenVersion:
		return fmt.Errorf("%w: users table %s has no token_version column", ErrUnsupported, u.Name)
	}
	return nil
}

// bumpTokenVersion ends userID's sessions through db, a transaction when
// the caller holds one (a password change, a second factor turned on, an
// operator's new email); the caller calls sessionsEnded after the commit.
func (s *sanctions) bumpTokenVersion(ctx context.Context, db bun.IDB, userID string) error {
	u := s.users
	return u.Update(ctx, db.NewUpdate().Set("? = ? + 1", u.Col(u.Cols.TokenVersion), u.Col(u.Cols.TokenVersion)), userID)
}

// sessionsEnded closes userID's live connections in every room after a
// committed token-version bump: a socket opened with a session that no
// longer verifies must not outlive it. A failure is logged by disconnect.
func (s *sanctions) sessionsEnded(ctx context.Context, userID, reason string) {
	if s.users.HasTokenVersion {
		_, _ = s.disconnect(ctx, userID, reason) // logged there
	}
}

// liveSessions counts userID's live sessions in every room; 0 without
// Rooms or when they cannot be listed (logged).
func (s *sanctions) liveSessions(ctx context.Context, userID string) int {
	if s.rooms == nil {
		return 0
	}
	l, err := s.rooms.UserSessions(ctx, userID)
	if err != nil {
		s.log.ErrorContext(ctx, "admin: list live sessions", "userId", userID, "err", err)
	}
	return len(l)
}

// disconnect closes the user's live connections in every room and
// returns how many closed. The ban or revocation has happened already, so
// a failure is logged here and returned only so the caller can say the
// closing was partial: the sessions cannot rejoin either way.
func (s *sanctions) disconnect(ctx context.Context, userID, reason string) (int, error) {
	if s.rooms == nil {
		return 0, nil
	}
	n, err := s.rooms.DisconnectUser(ctx, userID, reason)
	if err != nil {
		s.log.ErrorContext(ctx, "admin: disconnect user from rooms", "userId", userID, "err", err)
	}
	return n, err
}

// BumpTokenVersion ends every session issued to userID before the call:
// the next request carrying one of them fails verification, and the
// user's live connections in every room (Options.Rooms) are closed. It is
// the panel's "Revoke sessions", with its "user.revoke_sessions" audit
// entry by the operator on ctx (OperatorFrom; none: the game), whose
// hierarchy it checks.
func (au *Auth) BumpTokenVersion(ctx context.Context, userID string) error {
	op, _ := OperatorFrom(ctx)
	_, _, err := au.sanctions.apply(ctx, op, userID, userAction{name: "revoke-sessions", meta: map[string]any{}})
	return err
}

// Ban bans userID and ends its sessions in one statement, so no session
// outlives the ban: the panel's Ban, with its "user.ban" audit entry, in
// the same transaction, by BannedBy (else the operator on ctx, whose
// hierarchy is checked, else none: the game). BannedAt defaults to now.
// After the commit the user's live connections in every room
// (Options.Rooms) are closed.
func (au *Auth) Ban(ctx context.Context, userID string, ban BanInfo) error {
	op, _ := OperatorFrom(ctx)
	_, _, err := au.sanctions.apply(ctx, op, userID, userAction{name: "ban", reason: ban.Reason, until: ban.Until,
		bannedAt: ban.BannedAt, bannedBy: ban.BannedBy, meta: map[string]any{}})
	return err
}

// Unban lifts userID's ban: the panel's Unban, with its "user.unban" audit
// entry by the operator on ctx (whose hierarchy is checked; none: the
// game), in the same transaction. Sessions ended by the ban stay ended.
func (au *Auth) Unban(ctx context.Context, userID string) error {
	op, _ := OperatorFrom(ctx)
	_, _, err := au.sanctions.apply(ctx, op, userID, userAction{name: "unban", meta: map[string]any{}})
	return err
}
