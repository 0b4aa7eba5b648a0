package rooms

import (
	"context"
	"encoding/json"
	"time"
)

// Runtime is what the admin panel needs from a game's live-room runtime:
// listing and inspecting rooms, kicking, locking, editing state, disposing,
// and finding and disconnecting a user's live sessions. In the panel it is
// admin.Rooms (Options.Rooms). The live package's *Hub implements it; a game
// with its own runtime can implement it too.
//
// Methods return ErrRoomNotFound for an unknown room and ErrSessionNotFound
// for an unknown session in a known room, and ErrRoomFailed (wrapped) when
// the game's code panicked while serving the call and the room runs on; any
// other error is a system error and is logged, not shown to the operator.
// Implementations must be safe for concurrent use, and in a multi-node
// deployment should answer for the whole cluster (List and DisconnectUser
// in particular).
//
// Every call is bounded by its ctx: the panel gives each one a deadline
// (admin.Options.RoomTimeout) and answers the operator when it passes,
// whether or not the call has returned. A call should return once ctx
// ends, and work a call queued (a room's command queue) should be dropped
// unrun when the room gets to it after ctx has ended, so an operator who
// gave up does not hold the room later; DisconnectUser alone may finish
// its closing after ctx ends, since the ban or revocation it follows is
// done. The panel runs each call on a goroutine of its own and recovers a
// panic there (answered as ErrRoomFailed), so a runtime that ignores ctx
// or panics costs the operator's answer, never the panel.
type Runtime interface {
	// List returns a summary of every live room.
	List(ctx context.Context) ([]Summary, error)
	// Inspect returns one room with its clients and current state.
	Inspect(ctx context.Context, roomID string) (View, error)
	// Session returns one client of a room as a UserSession, its UserID
	// set, without reading the room's state: whose session an operator is
	// about to kick (the hierarchy check and the audit entry's label).
	Session(ctx context.Context, roomID, sessionID string) (UserSession, error)
	// Kick closes one client's connection to a room, telling it reason;
	// the game's leave callback learns LeaveKicked.
	Kick(ctx context.Context, roomID, sessionID, reason string) error
	// SetLocked locks a room (new joins are refused) or unlocks it.
	SetLocked(ctx context.Context, roomID string, locked bool) error
	// EditState sets the value at path (object keys as strings, array
	// indexes as numbers) inside the room state to the JSON value.
	EditState(ctx context.Context, roomID string, path []any, value json.RawMessage) error
	// DeleteState removes the value at path from the room state.
	DeleteState(ctx context.Context, roomID string, path []any) error
	// Dispose closes every client of a room and removes it; the game's
	// leave callback learns LeaveDisposed.
	Dispose(ctx context.Context, roomID string) error
	// UserSessions lists the live sessions of one user across all rooms.
	UserSessions(ctx context.Context, userID string) ([]UserSession, error)
	// DisconnectUser closes every live session of a user in every room,
	// telling each client message, and returns how many it closed. why is
	// what the game's leave callback learns: LeaveBanned for a ban,
	// LeaveKicked for a report resolved with a kick, LeaveRevoked for every
	// other end of the user's sessions.
	DisconnectUser(ctx context.Context, userID string, why LeaveReason, message string) (int, error)
}

// Summary is one row of the live-room list.
type Summary struct {
	RoomID     string    `json:"roomId"`
	Name       string    `json:"name"`
	Clients    int       `json:"clients"`
	MaxClients int       `json:"maxClients"`
	Locked     bool      `json:"locked"`
	CreatedAt  time.Time `json:"createdAt"`
	// Node names the game-server node the room lives on, in a multi-node
	// deployment; "" (and absent from JSON) for a single process.
	Node string `json:"node,omitempty"`
}

// View is the room inspector: the summary plus metadata, clients and state.
// Its JSON is the Summary's fields and these three, side by side.
type View struct {
	RoomSummary
	Metadata   any      `json:"metadata"`
	ClientList []Client `json:"clientList"`
	State      any      `json:"state"`
}

// RoomSummary is Summary by the name View embeds it under, so the field is
// View.RoomSummary, as it was when the panel defined these types: code that
// writes admin.RoomView{RoomSummary: s} or reads v.RoomSummary keeps working.
// Elsewhere use Summary.
type RoomSummary = Summary

// Client is one connected client of a room.
type Client struct {
	SessionID string    `json:"sessionId"`
	UserID    string    `json:"userId"`
	JoinedAt  time.Time `json:"joinedAt"`
}

// UserSession is one live session of a user: which room, which client.
type UserSession struct {
	RoomID    string `json:"roomId"`
	RoomName  string `json:"roomName"`
	SessionID string `json:"sessionId"`
	// UserID is the session's user, "" for an anonymous client (Session
	// answers those too; UserSessions never lists them).
	UserID   string    `json:"userId,omitempty"`
	JoinedAt time.Time `json:"joinedAt"`
	// Node names the node holding the connection; "" for a single process.
	Node string `json:"node,omitempty"`
}

// UserState is what a runtime's live connections are re-checked against
// (live.Options.UserStates; the panel's (*admin.Auth).UserStates reads it):
// the user's token version, which every end of its sessions bumps, and
// whether a ban is in force.
type UserState struct {
	TokenVersion int64
	Banned       bool
}
