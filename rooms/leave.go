package rooms

// LeaveReason says why a client left its room. A runtime hands it to the
// game's leave callback (package live: Client.LeaveReason, read in
// RoomType.OnLeave), so that a game which keeps a seat for a player who
// may reconnect (a reconnection grace) keeps it for a dropped connection
// and not for a player an operator removed: a kicked or banned player
// must not get their seat back by reconnecting. The panel names one in
// every Runtime.DisconnectUser.
type LeaveReason string

// The reasons a client leaves. The first two are the connection's doing,
// the next four an operator's or the game's, the last the server's.
const (
	// LeaveLeft: the client closed its connection normally (a WebSocket
	// close frame with code 1000): the player chose to leave.
	LeaveLeft LeaveReason = "left"
	// LeaveDropped: the connection was lost or dropped without the
	// player choosing it: cut without a close frame, closed with another
	// code (a browser sends 1001 when a tab reloads or closes), silent
	// past its ping timeout, too slow to read what it was sent, or
	// breaking the protocol or its message rate. The player may come back:
	// the one reason a reconnection grace is for.
	LeaveDropped LeaveReason = "dropped"
	// LeaveKicked: the session was kicked, by an operator (the panel's
	// kick, a player report resolved with a kick) or by the game's own
	// code (live's Room.Kick).
	LeaveKicked LeaveReason = "kicked"
	// LeaveBanned: the user was banned, in the panel or by the game
	// (Auth().Ban), or a re-check of live players found the ban.
	LeaveBanned LeaveReason = "banned"
	// LeaveRevoked: the user's sessions were ended: revoke sessions, a
	// password reset or change, an email change, a second factor turned on
	// or reset, the account erased, or a re-check of live players found
	// the account gone or its sessions ended elsewhere.
	LeaveRevoked LeaveReason = "revoked"
	// LeaveDisposed: the room was disposed, by an operator or by the game
	// (live's Room.Dispose), and every client left with it.
	LeaveDisposed LeaveReason = "disposed"
	// LeaveShutdown: the runtime is shutting down (live's Hub.Close).
	LeaveShutdown LeaveReason = "shutdown"
)
