package admin

import "github.com/gameadmin/admin/rooms"

// The panel's names for the live-room contract, which package rooms defines
// so that a runtime (package live, or a game's own) need not import the
// panel. Each is an alias: the two names are the same type.

// Rooms is what the panel needs from a game's live-room runtime: see rooms.Runtime.
type Rooms = rooms.Runtime

// RoomSummary is one row of the live-room list: see rooms.Summary.
type RoomSummary = rooms.Summary

// RoomView is the room inspector: see rooms.View.
type RoomView = rooms.View

// RoomClient is one connected client of a room: see rooms.Client.
type RoomClient = rooms.Client

// UserSession is one live session of a user: see rooms.UserSession.
type UserSession = rooms.UserSession

// UserState is what live connections are re-checked against: see rooms.UserState.
type UserState = rooms.UserState

// LeaveReason says why a client left its room: see rooms.LeaveReason.
// Rooms.DisconnectUser takes one, and a game's leave callback learns it.
type LeaveReason = rooms.LeaveReason

// The reasons a client leaves its room: see rooms.LeaveLeft and the others.
const (
	// LeaveLeft is rooms.LeaveLeft: the client closed its connection.
	LeaveLeft = rooms.LeaveLeft
	// LeaveDropped is rooms.LeaveDropped: the connection was lost or
	// dropped; the one a reconnection grace keeps a seat for.
	LeaveDropped = rooms.LeaveDropped
	// LeaveKicked is rooms.LeaveKicked: an operator or the game kicked it.
	LeaveKicked = rooms.LeaveKicked
	// LeaveBanned is rooms.LeaveBanned: the user was banned.
	LeaveBanned = rooms.LeaveBanned
	// LeaveRevoked is rooms.LeaveRevoked: the user's sessions ended.
	LeaveRevoked = rooms.LeaveRevoked
	// LeaveDisposed is rooms.LeaveDisposed: the room was disposed.
	LeaveDisposed = rooms.LeaveDisposed
	// LeaveShutdown is rooms.LeaveShutdown: the runtime is shutting down.
	LeaveShutdown = rooms.LeaveShutdown
)
