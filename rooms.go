package admin

import "github.com/gameadmin/admin/internal/engine"

// Rooms is what the panel needs from a game's live-room runtime: listing and
// inspecting rooms, kicking, locking, editing state, disposing, and finding
// and disconnecting a user's live sessions. The live package's *Hub
// implements it; a game with its own runtime can implement it too.
//
// Methods return ErrRoomNotFound for an unknown room and ErrSessionNotFound
// for an unknown session in a known room; any other error is a system error
// and is logged, not shown to the operator. Implementations must be safe for
// concurrent use, and in a multi-node deployment should answer for the whole
// cluster (List and DisconnectUser in particular).
type Rooms = engine.Rooms

// RoomSummary is one row of the live-room list.
type RoomSummary = engine.RoomSummary

// RoomView is the room inspector: the summary plus metadata, clients and state.
type RoomView = engine.RoomView

// RoomClient is one connected client of a room.
type RoomClient = engine.RoomClient

// UserSession is one live session of a user: which room, which client.
type UserSession = engine.UserSession
