// Package moderation changes who a user is to the panel: its standing
// (ban, unban, revoke-sessions, and the end of sessions those and other
// changes cause: Sanctions) and its role and mod scopes (Moderation).
//
// Ban, unban and revoke-sessions are one implementation, Sanctions.Apply:
// the panel's endpoints (one user, or a bulk selection) and Auth's Go API
// (Ban, Unban, BumpTokenVersion) all call it, so each writes the same
// audit entry and closes the same live connections. A ban that is part
// of a larger change, audited as that change (an erase), is BanTx: the
// same write, in the caller's transaction. Auth and Moderation
// share one Sanctions and never call each other. The package works on
// package users' tables, writes package audit's log and closes sockets
// through a rooms.Runtime; it knows nothing else of the panel.
package moderation

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/internal/users"
	"github.com/gameadmin/admin/rooms"
	"github.com/uptrace/bun"
)

// Sanctions changes a user's standing: bans and token versions.
type Sanctions struct {
	db    *bun.DB
	users *users.Table
	roles *users.RoleTable
	audit *audit.Log
	rooms rooms.Runtime    // Options.Rooms: live connections to close; may be nil
	now   func() time.Time // Options.Clock: a ban's BannedAt
	log   *slog.Logger
}

// NewSanctions returns the sanctions on the users of roles (roles.Users),
// audited in log, that close live connections through rt (Options.Rooms;
// nil when the game has none). now is the clock of a ban's BannedAt;
// logger receives the failures to list or close live connections.
func NewSanctions(db *bun.DB, roles *users.RoleTable, log *audit.Log, rt rooms.Runtime, now func() time.Time, logger *slog.Logger) *Sanctions {
	return &Sanctions{db: db, users: roles.Users, roles: roles, audit: log, rooms: rt, now: now, log: logger}
}

// The names of the sanctions Apply takes, as the panel's paths name them.
const (
	Ban            = "ban"
	Unban          = "unban"
	RevokeSessions = "revoke-sessions"
)

// Action is one of the moderation operations on a user.
type Action struct {
	Name   string // Ban, Unban or RevokeSessions
	Reason string // a ban's
	Until  *time.Time
	// BannedAt and BannedBy default to now and the operator acting.
	BannedAt time.Time
	BannedBy string
	// Leave is what the game's leave callback learns as a ban or revoke
	// closes the user's live connections: by default rooms.LeaveBanned
	// for a ban and rooms.LeaveRevoked for a revoke; a report resolved
	// with a kick revokes the sessions as rooms.LeaveKicked, so a game's
	// reconnection grace refuses the player as it refuses any kick.
	Leave rooms.LeaveReason
	Meta  map[string]any // ip and userAgent for the audit entry
	// Within, when set, runs in the change's transaction after its audit
	// entry, which it is given: what must commit with the change or undo
	// it (the reports a ban resolves). Its error is Apply's.
	Within func(ctx context.Context, tx bun.Tx, entry audit.Entry) error
}

// Apply bans, unbans or revokes the sessions of userID for by, the
// operator acting: the hierarchy check (a mod acts on plain users only;
// the zero Operator is the game's own code, which may act on anyone), the
// change and its audit entry in one transaction (the entry exists exactly
// when the change does), then, for ban and revoke, the user's live
// connections close in every room. It returns how many closed. The entry
// of a ban or revoke says how many live sessions there were to close
// (counted before the commit, as the sockets close after it); should
// closing end fewer, or more, a user.sessions_closed entry says how many
// did, so the log agrees with the answer. A users table without the
// columns act needs is users.ErrUnsupported.
//
// partial is true when closing could not reach every node (a node timed
// out, Redis was down): the user's sessions there no longer verify, but
// their sockets stay open until those nodes hear of it.
func (s *Sanctions) Apply(ctx context.Context, by authz.Operator, userID string, act Action) (closed int, partial bool, err error) {
	if err := s.supports(act.Name); err != nil {
		return 0, false, err
	}
	actor := by.UserID
	if act.BannedBy != "" {
		actor = act.BannedBy
	}
	entry := audit.Entry{OperatorID: actor, Resource: "users", TargetID: userID, Payload: audit.Payload(act.Meta)}
	closes := act.Name == Ban || act.Name == RevokeSessions
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
		switch act.Name {
		case Ban:
			entry.Action, entry.Payload = "user.ban", audit.Payload(act.Meta, "reason", act.Reason, "until", act.Until)
			entry.Payload["sessionsClosed"] = expected
			q = s.setBan(q, users.BanInfo{Reason: act.Reason, Until: act.Until, BannedAt: act.BannedAt, BannedBy: actor})
		case Unban:
			entry.Action = "user.unban"
			if u.Bans != nil {
				// The rows of the bans table: the users row is not
				// written, but must exist.
				if _, err := u.AccountByID(ctx, tx, userID); err != nil {
					return err
				}
				if err := u.WriteBan(ctx, tx, userID, nil, s.now()); err != nil {
					return err
				}
				break
			}
			q = u.SetBan(q, nil)
		case RevokeSessions:
			entry.Action = "user.revoke_sessions"
			entry.Payload["sessionsClosed"] = expected
			q = q.Set("? = ? + 1", u.Col(u.Cols.TokenVersion), u.Col(u.Cols.TokenVersion))
		}
		if act.Name != Unban || u.Bans == nil {
			if err := s.users.Update(ctx, tx, q, userID); err != nil {
				return err
			}
		}
		if act.Name == Ban && u.Bans != nil {
			if err := s.writeBan(ctx, tx, userID, users.BanInfo{Reason: act.Reason, Until: act.Until, BannedAt: act.BannedAt, BannedBy: actor}); err != nil {
				return err
			}
		}
		if err := s.audit.RecordTx(ctx, tx, entry); err != nil || act.Within == nil {
			return err
		}
		return act.Within(ctx, tx, entry)
	})
	if err != nil {
		return 0, false, err
	}
	if !closes {
		return 0, false, nil
	}
	// Live connections close after the commit: closed before it, a player
	// could rejoin while its ban was not yet visible.
	why := act.Leave
	if why == "" {
		why = map[string]rooms.LeaveReason{Ban: rooms.LeaveBanned, RevokeSessions: rooms.LeaveRevoked}[act.Name]
	}
	message := map[rooms.LeaveReason]string{rooms.LeaveBanned: "banned", rooms.LeaveKicked: "kicked"}[why]
	if message == "" {
		message = "sessions revoked"
	}
	n, derr := s.disconnect(ctx, userID, why, message)
	if n != expected || derr != nil {
		s.audit.Event(ctx, audit.Entry{OperatorID: actor, Action: "user.sessions_closed", Resource: "users", TargetID: userID,
			Payload: audit.Payload(act.Meta, "after", entry.Action, "expected", expected, "sessionsClosed", n, "partial", derr != nil)})
	}
	return n, derr != nil, nil
}

// BanTx bans userID inside tx, the caller's transaction, as Apply bans:
// the ban (BannedAt defaulting to now) and the token version bumped, so
// that no session of theirs verifies. It is the ban of a larger change
// that is checked and audited as that change (an erase, audited as
// user.erase); the caller closes the user's live connections once tx
// commits (SessionsEnded). A users table without ban and token version
// columns is users.ErrUnsupported.
func (s *Sanctions) BanTx(ctx context.Context, tx bun.Tx, userID string, ban users.BanInfo) error {
	if err := s.supports(Ban); err != nil {
		return err
	}
	if err := s.users.Update(ctx, tx, s.setBan(tx.NewUpdate(), ban), userID); err != nil || s.users.Bans == nil {
		return err
	}
	return s.writeBan(ctx, tx, userID, ban)
}

// writeBan writes ban as a row of the bans table (UserColumns.BanTable),
// after the users row's token version is bumped: the user's active rows
// end, and one is inserted.
func (s *Sanctions) writeBan(ctx context.Context, tx bun.Tx, userID string, ban users.BanInfo) error {
	return s.users.WriteBan(ctx, tx, userID, &ban, s.now())
}

// setBan adds to q, an update of the users table, the SETs of a ban:
// the ban itself and the token version bumped.
func (s *Sanctions) setBan(q *bun.UpdateQuery, ban users.BanInfo) *bun.UpdateQuery {
	if ban.BannedAt.IsZero() {
		ban.BannedAt = s.now().UTC()
	}
	u := s.users
	return u.SetBan(q, &ban).Set("? = ? + 1", u.Col(u.Cols.TokenVersion), u.Col(u.Cols.TokenVersion))
}

// supports says whether the users table has the columns act needs.
func (s *Sanctions) supports(act string) error {
	u := s.users
	switch {
	case act == Ban && (!u.HasBan || !u.HasTokenVersion):
		return fmt.Errorf("%w: users table %s needs ban and token_version columns", users.ErrUnsupported, u.Name)
	case act == Unban && !u.HasBan:
		return fmt.Errorf("%w: users table %s has no ban column", users.ErrUnsupported, u.Name)
	case act == RevokeSessions && !u.HasTokenVersion:
		return fmt.Errorf("%w: users table %s has no token_version column", users.ErrUnsupported, u.Name)
	}
	return nil
}

// BumpTokenVersion ends userID's sessions through db, a transaction when
// the caller holds one (a password change, a second factor turned on, an
// operator's new email); the caller calls SessionsEnded after the commit.
func (s *Sanctions) BumpTokenVersion(ctx context.Context, db bun.IDB, userID string) error {
	u := s.users
	return u.Update(ctx, db, db.NewUpdate().Set("? = ? + 1", u.Col(u.Cols.TokenVersion), u.Col(u.Cols.TokenVersion)), userID)
}

// SessionsEnded closes userID's live connections in every room after a
// committed token-version bump: a socket opened with a session that no
// longer verifies must not outlive it. reason is what the sockets are
// told; the game's leave callback learns rooms.LeaveRevoked. A failure is
// logged, not returned.
func (s *Sanctions) SessionsEnded(ctx context.Context, userID, reason string) {
	if s.users.HasTokenVersion {
		_, _ = s.disconnect(ctx, userID, rooms.LeaveRevoked, reason) // logged there
	}
}

// liveSessions counts userID's live sessions in every room; 0 without
// Rooms or when they cannot be listed (logged).
func (s *Sanctions) liveSessions(ctx context.Context, userID string) int {
	if s.rooms == nil {
		return 0
	}
	l, err := s.rooms.UserSessions(ctx, userID)
	if err != nil {
		s.log.ErrorContext(ctx, "admin: list live sessions", "userId", userID, "err", err)
	}
	return len(l)
}

// disconnect closes the user's live connections in every room, telling
// the game why and the sockets message, and returns how many closed. The
// ban or revocation has happened already, so a failure is logged here
// (with the stack of a panic in the game's code) and returned only so the
// caller can say the closing was partial: the sessions cannot rejoin
// either way.
func (s *Sanctions) disconnect(ctx context.Context, userID string, why rooms.LeaveReason, message string) (int, error) {
	if s.rooms == nil {
		return 0, nil
	}
	n, err := s.rooms.DisconnectUser(ctx, userID, why, message)
	if err != nil {
		s.log.ErrorContext(ctx, "admin: disconnect user from rooms", append([]any{"userId", userID}, panicerr.Attrs(err)...)...)
	}
	return n, err
}
