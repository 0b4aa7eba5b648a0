package rooms

import "errors"

// Errors a Runtime returns for unknown rooms and sessions, for a state
// edit that does not fit the room state, and for the game's code failing
// while serving a call. The panel's admin.ErrRoomNotFound
// and the others are these same values, so errors.Is matches either name.
// Their texts keep the "admin:" prefix they had when the panel defined them.
var (
	// ErrRoomNotFound reports a room the runtime does not hold.
	ErrRoomNotFound = errors.New("admin: room not found")
	// ErrSessionNotFound reports a session that is not in a known room.
	ErrSessionNotFound = errors.New("admin: session not found")
	// ErrInvalidPath reports a state path that does not fit the room state.
	ErrInvalidPath = errors.New("admin: invalid state path")
	// ErrInvalidStateValue reports a state edit whose value the room state
	// cannot hold (the game's Go type refuses it); the panel answers 400
	// invalid_value. Errors carrying it may wrap ErrInvalidPath too.
	ErrInvalidStateValue = errors.New("admin: value does not fit the room state")
	// ErrRoomFailed reports that the game's code panicked while the
	// runtime served the call (a Metadata callback, a MarshalJSON of the
	// state, a leave callback during a kick): the call did not complete,
	// and the room runs on for its players. The panel answers 500
	// room_failed naming the room, and logs the cause with its stack.
	ErrRoomFailed = errors.New("admin: the room's game code failed")
)
