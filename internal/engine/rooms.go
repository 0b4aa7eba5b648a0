package engine

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
