package live

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/errbody"
)

// Close codes the hub sends in the WebSocket close frame, besides the
// standard ones (1001 when the hub closes, 1003 for a binary message, 1007
// for a message that is not JSON, 1008 when the client's send queue
// overflows, 1009 for a message over Options.MaxMessageBytes), and
// CloseRateLimited (4003, in limits.go).
const (
	// CloseKicked ends a connection closed by Kick, Room.Kick or
	// DisconnectUser; a {"type":"kicked"} message comes first.
	CloseKicked = 4000
	// CloseDisposed ends every connection of a disposed room; a
	// {"type":"disposed"} message comes first.
	CloseDisposed = 4001
	// CloseRefused ends a connection whose join failed after the upgrade:
	// the room was disposed meanwhile, or the user was disconnected while
	// joining.
	CloseRefused = 4002
)

// Server-to-client messages. Every message is one JSON text frame with a
// "type" field; see the package documentation.
type (
	joinedMsg struct {
		Type      string `json:"type"` // "joined"
		RoomID    string `json:"roomId"`
		RoomName  string `json:"roomName"`
		SessionID string `json:"sessionId"`
	}
	stateMsg struct {
		Type  string          `json:"type"` // "state"
		State json.RawMessage `json:"state"`
	}
	dataMsg struct {
		Type string `json:"type"` // "message"
		Data any    `json:"data"`
	}
	lockMsg struct {
		Type   string `json:"type"` // "lock"
		Locked bool   `json:"locked"`
	}
	reasonMsg struct {
		Type   string `json:"type"` // "kicked", "disposed"
		Reason string `json:"reason"`
	}
)

// closeInfo says how a client's connection ends: the close frame's code and
// reason (code 0: no close frame, the peer is gone), and whether the queued
// messages are written first.
type closeInfo struct {
	code   int
	reason string
	flush  bool
}

// closeReason shortens s to the 123 bytes a close frame can carry, on a rune
// boundary.
func closeReason(s string) string {
	const max = 123
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// mustMarshal marshals the hub's own message types, which cannot fail.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("live: " + err.Error())
	}
	return b
}

// httpError is the admin API's error, answered before an upgrade:
// {"error": "<message>", "code": "<snake_case>", "status": N}, with
// "requestId" on a 500.
type httpError = errbody.Error

var (
	errUnauthenticated = errbody.New(http.StatusUnauthorized, "unauthenticated", "a valid player token is required")
	errBanned          = errbody.New(http.StatusForbidden, "banned", "the player is banned")
	errRoomNotFound    = errbody.New(http.StatusNotFound, "room_not_found", "room not found")
	errRoomLocked      = errbody.New(http.StatusConflict, "room_locked", "the room is locked")
	errRoomFull        = errbody.New(http.StatusConflict, "room_full", "the room is full")
	errHubClosed       = errbody.New(http.StatusServiceUnavailable, "closed", "the server is shutting down")
	errInternal        = errbody.New(http.StatusInternalServerError, "internal", "internal error")
)

func writeError(w http.ResponseWriter, e *httpError) {
	errbody.Write(w, e)
}

// internalError logs err once with a request id and answers 500 with it,
// as the admin API does.
func (h *Hub) internalError(w http.ResponseWriter, r *http.Request, msg string, err error, attrs ...any) {
	id := errbody.RequestID(r)
	h.log.ErrorContext(r.Context(), msg, append([]any{"requestId", id, "err", err}, attrs...)...)
	e := *errInternal
	e.RequestID = id
	errbody.Write(w, &e)
}
