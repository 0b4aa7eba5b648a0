// Package rooms is the contract between the admin panel and a game's
// live-room runtime: the Runtime interface the panel drives to list,
// inspect and moderate live rooms, the values it answers with (Summary,
// View, Client, UserSession), the LeaveReason a runtime tells the game's
// leave callback, the UserState a runtime re-checks its connections
// against, and the errors it returns for an unknown room or session, for
// a state edit that does not fit and for the game's code failing.
//
// It imports nothing of the panel, so a runtime (the reference hub in
// package live, or a game's own) depends on this small package and not on
// the panel, its database layer and its HTTP handlers. The panel
// (github.com/gameadmin/admin) takes a Runtime as Options.Rooms and keeps
// its own names for all of these as aliases: admin.Rooms is Runtime,
// admin.RoomSummary is Summary, admin.ErrRoomNotFound is ErrRoomNotFound,
// and so on, so either name may be used.
package rooms
