package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/clientip"
	"github.com/gameadmin/admin/internal/users"
	"github.com/gameadmin/admin/rooms"
)

// The live-room endpoints. "rooms" is the resource key of mod scopes: list
// and read need list and read on it, kick, lock and state edits need
// update, dispose needs delete. Every mutation is audited as room.* with the
// body's fields plus ip and userAgent; a kick's entry also names the
// kicked player (userId, which the audit log's search finds by their email
// or name) and the room (roomName).
//
// A game's runtime never holds a request past Options.RoomTimeout, nor
// takes the panel down: New wraps Options.Rooms in roomcall.Bound, so
// every call, here and wherever else the panel asks the runtime, answers
// by its limit (504 room_timeout) and a panic of the game's code is an
// answer (500 room_failed), while the room runs on.

// defaultRoomTimeout is Options.RoomTimeout's default.
const defaultRoomTimeout = 5 * time.Second

// roomsHandler answers the live-room endpoints (routes.go builds it):
// the game's runtime, the permission check, and for a kick the roles of
// the player whose session it ends.
type roomsHandler struct {
	rt      rooms.Runtime                             // Options.Rooms, bound (roomcall); nil: 501 rooms_unsupported
	timeout time.Duration                             // Options.RoomTimeout: a kick's calls, all of them
	gate    func(op Operator, o Op, key string) error // may op do o on "rooms"
	userID  func(raw string) (string, error)          // raw as an id of the users table
	db      *bun.DB
	roles   *users.RoleTable // whose session a mod may kick
	audit   *audit.Log
	ips     clientip.Resolver // the ip of an entry, behind the trusted proxies
}

// newRoomsHandler is the room endpoints over rt.
func newRoomsHandler(rt rooms.Runtime, timeout time.Duration, gate func(Operator, Op, string) error, userID func(string) (string, error),
	db *bun.DB, roles *users.RoleTable, log *audit.Log, ips clientip.Resolver) *roomsHandler {
	return &roomsHandler{rt: rt, timeout: timeout, gate: gate, userID: userID, db: db, roles: roles, audit: log, ips: ips}
}

// roomsRequest checks that rooms are configured and op may do o on them.
func (h *roomsHandler) roomsRequest(op Operator, o Op) (rooms.Runtime, error) {
	if h.rt == nil {
		return nil, errorf(http.StatusNotImplemented, "rooms_unsupported", "no live rooms are configured (Options.Rooms)")
	}
	if err := h.gate(op, o, "rooms"); err != nil {
		return nil, err
	}
	return h.rt, nil
}

// roomError maps the Rooms contract's errors to answers, the room's id
// (empty for the list) named in those of a failing room. The 5xx answers
// carry their cause, which writeError logs with the request id (and the
// stack of a panic); the answer itself does not show it. A request whose
// client went away keeps its own error, which writeError logs at debug.
func roomError(roomID string, err error) error {
	room := "the live rooms"
	if roomID != "" {
		room = fmt.Sprintf("room %q", roomID)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, ErrRoomNotFound):
		return errorf(http.StatusNotFound, "room_not_found", "no such room")
	case errors.Is(err, ErrSessionNotFound):
		return errorf(http.StatusNotFound, "session_not_found", "no such session in the room")
	case errors.Is(err, ErrInvalidStateValue):
		return errorf(http.StatusBadRequest, "invalid_value", "%s", err.Error())
	case errors.Is(err, ErrInvalidPath):
		return errorf(http.StatusBadRequest, "invalid_path", "%s", err.Error())
	case errors.Is(err, ErrNodeUnavailable):
		return errorf(http.StatusServiceUnavailable, "node_unavailable", "the node that owns this room cannot be reached; try again shortly").Because(err)
	case errors.Is(err, ErrNodeTimeout):
		return errorf(http.StatusGatewayTimeout, "node_timeout", "the node that owns this room did not answer in time").Because(err)
	case errors.Is(err, context.DeadlineExceeded):
		return errorf(http.StatusGatewayTimeout, "room_timeout", "%s did not answer within the panel's time limit (RoomTimeout); the room may be busy: try again", room).Because(err)
	case errors.Is(err, rooms.ErrRoomFailed):
		return errorf(http.StatusInternalServerError, "room_failed", "%s failed: the game's code broke while serving the request (its cause is in the server's log); the room runs on for its players", room).Because(err)
	}
	return err
}

// activeSessions counts a user's live sessions across every room of rt.
func activeSessions(ctx context.Context, rt rooms.Runtime, userID string) (int, error) {
	s, err := rt.UserSessions(ctx, userID)
	if err != nil {
		return 0, roomError("", err)
	}
	return len(s), nil
}

// GET /rooms
func (h *roomsHandler) handleRoomList(w http.ResponseWriter, r *http.Request, op Operator) error {
	rt, err := h.roomsRequest(op, OpList)
	if err != nil {
		return err
	}
	list, err := rt.List(r.Context())
	if err != nil {
		return roomError("", err)
	}
	if list == nil {
		list = []rooms.Summary{}
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// GET /rooms/{roomId}
func (h *roomsHandler) handleRoomInspect(w http.ResponseWriter, r *http.Request, op Operator) error {
	rt, err := h.roomsRequest(op, OpRead)
	if err != nil {
		return err
	}
	roomID := r.PathValue("roomId")
	view, err := rt.Inspect(r.Context(), roomID)
	if err != nil {
		return roomError(roomID, err)
	}
	writeJSON(w, http.StatusOK, view)
	return nil
}

// GET /rooms/by-user/{userId}
func (h *roomsHandler) handleRoomsByUser(w http.ResponseWriter, r *http.Request, op Operator) error {
	rt, err := h.roomsRequest(op, OpRead)
	if err != nil {
		return err
	}
	userID := r.PathValue("userId")
	if h.roles.Users.RowScoped(op) {
		// A player op's row scope leaves out has no sessions for op: the
		// answer of a player with none, whether another game's or unknown.
		id, err := h.userID(userID)
		in := err == nil
		if in {
			if in, err = h.roles.Users.InScope(r.Context(), h.db, op, id); err != nil {
				return err
			}
		}
		if !in {
			writeJSON(w, http.StatusOK, []rooms.UserSession{})
			return nil
		}
	}
	sessions, err := rt.UserSessions(r.Context(), userID)
	if err != nil {
		return roomError("", err)
	}
	if sessions == nil {
		sessions = []rooms.UserSession{}
	}
	writeJSON(w, http.StatusOK, sessions)
	return nil
}

// DELETE /rooms/{roomId}/clients/{sessionId}
func (h *roomsHandler) handleRoomKick(w http.ResponseWriter, r *http.Request, op Operator) error {
	rt, err := h.roomsRequest(op, OpUpdate)
	if err != nil {
		return err
	}
	var body struct {
		Reason string `json:"reason"`
	}
	if err := decodeOptional(r, &body); err != nil {
		return err
	}
	if err := checkReason(body.Reason); err != nil {
		return err
	}
	roomID, sessionID := r.PathValue("roomId"), r.PathValue("sessionId")
	// The whole kick (whose session it is, the hierarchy, the kick) runs
	// within one RoomTimeout.
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	// Whose session it is, from the runtime's index of sessions: it reads
	// no state and runs none of the game's callbacks (an inspect did both,
	// to label an entry). A session id names one connection, so this is
	// the client the kick ends.
	s, err := rt.Session(ctx, roomID, sessionID)
	if err != nil {
		return roomError(roomID, err)
	}
	if err := h.mayKick(ctx, op, s.UserID); err != nil {
		if errors.Is(err, errOutOfScope) {
			// A player op's row scope leaves out: their session is not
			// there for op.
			return roomError(roomID, ErrSessionNotFound)
		}
		return err
	}
	if err := rt.Kick(ctx, roomID, sessionID, body.Reason); err != nil {
		return roomError(roomID, err)
	}
	kv := []any{"sessionId", sessionID, "reason", body.Reason}
	if s.UserID != "" {
		kv = append(kv, "userId", s.UserID)
	}
	if s.RoomName != "" {
		kv = append(kv, "roomName", s.RoomName)
	}
	h.recordRoom(r, op, "room.kick", roomID, kv...)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// errOutOfScope is mayKick's refusal of a player op's row scope leaves
// out, answered as a session that is not there.
var errOutOfScope = errors.New("admin: a player outside the operator's row scope")

// mayKick applies the rule of moderating a player to a kick of their
// session, userID's ("" for an anonymous client): nobody kicks their own,
// and a mod kicks no admin's or fellow mod's.
func (h *roomsHandler) mayKick(ctx context.Context, op Operator, userID string) error {
	if userID == "" {
		return nil
	}
	if userID == op.UserID {
		return errorf(http.StatusBadRequest, "self_moderation", "you cannot kick your own session").WithParams("reason", "kick")
	}
	if op.Role == RoleAdmin {
		return nil
	}
	id, err := h.userID(userID)
	if err != nil {
		return nil // no id of the users table: a player the panel does not know
	}
	if h.roles.Users.RowScoped(op) {
		// A mod narrowed to some players kicks only them: another's
		// session is errOutOfScope (a player the panel does not know has
		// no row in the scope either).
		in, err := h.roles.Users.InScope(ctx, h.db, op, id)
		if err != nil {
			return err
		}
		if !in {
			return errOutOfScope
		}
	}
	roles, err := h.roles.OperatorRoles(ctx, h.db, []string{id})
	if err != nil {
		return err
	}
	if roles[id] != "" {
		return errorf(http.StatusForbidden, "forbidden", "only an admin can kick an operator's session").WithParams("reason", "admin_only")
	}
	return nil
}

// PATCH /rooms/{roomId}: {locked}
func (h *roomsHandler) handleRoomLock(w http.ResponseWriter, r *http.Request, op Operator) error {
	rt, err := h.roomsRequest(op, OpUpdate)
	if err != nil {
		return err
	}
	var body struct {
		Locked *bool `json:"locked"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Locked == nil {
		return errorf(http.StatusBadRequest, "missing_field", "locked is required").WithParams("field", "locked")
	}
	roomID := r.PathValue("roomId")
	if err := rt.SetLocked(r.Context(), roomID, *body.Locked); err != nil {
		return roomError(roomID, err)
	}
	action := "room.unlock"
	if *body.Locked {
		action = "room.lock"
	}
	h.recordRoom(r, op, action, roomID, "locked", *body.Locked)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// statePath bounds a state path: keys are strings, indexes non-negative
// whole numbers. An empty path is refused for edits and deletes alike: the
// whole state is the game's, and replacing it (with null, say) leaves the
// game's callbacks a value they never expected.
func statePath(path []any) error {
	if len(path) == 0 {
		return errorf(http.StatusBadRequest, "invalid_path", "path must name a part of the state; the whole state cannot be replaced or deleted")
	}
	if len(path) > 32 {
		return errorf(http.StatusBadRequest, "invalid_path", "path is deeper than 32")
	}
	for _, p := range path {
		switch v := p.(type) {
		case string:
			if len(v) > 256 {
				return errorf(http.StatusBadRequest, "invalid_path", "a path key is longer than 256 bytes")
			}
		case float64:
			if v < 0 || v != math.Trunc(v) || v > 1<<31 {
				return errorf(http.StatusBadRequest, "invalid_path", "an array index must be a whole number ≥ 0")
			}
		default:
			return errorf(http.StatusBadRequest, "invalid_path", "path elements are strings (keys) or numbers (indexes)")
		}
	}
	return nil
}

// PATCH /rooms/{roomId}/state: {path, value}
func (h *roomsHandler) handleRoomStateEdit(w http.ResponseWriter, r *http.Request, op Operator) error {
	rt, err := h.roomsRequest(op, OpUpdate)
	if err != nil {
		return err
	}
	var body struct {
		Path  []any           `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Path == nil || body.Value == nil {
		return errorf(http.StatusBadRequest, "missing_field", "path and value are required").WithParams("fields", []string{"path", "value"})
	}
	if err := statePath(body.Path); err != nil {
		return err
	}
	roomID := r.PathValue("roomId")
	if err := rt.EditState(r.Context(), roomID, body.Path, body.Value); err != nil {
		return roomError(roomID, err)
	}
	h.recordRoom(r, op, "room.state.edit", roomID, "path", body.Path, "value", body.Value)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// DELETE /rooms/{roomId}/state: {path}
func (h *roomsHandler) handleRoomStateDelete(w http.ResponseWriter, r *http.Request, op Operator) error {
	rt, err := h.roomsRequest(op, OpUpdate)
	if err != nil {
		return err
	}
	var body struct {
		Path []any `json:"path"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if err := statePath(body.Path); err != nil {
		return err
	}
	roomID := r.PathValue("roomId")
	if err := rt.DeleteState(r.Context(), roomID, body.Path); err != nil {
		return roomError(roomID, err)
	}
	h.recordRoom(r, op, "room.state.delete", roomID, "path", body.Path)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// DELETE /rooms/{roomId}
func (h *roomsHandler) handleRoomDispose(w http.ResponseWriter, r *http.Request, op Operator) error {
	rt, err := h.roomsRequest(op, OpDelete)
	if err != nil {
		return err
	}
	roomID := r.PathValue("roomId")
	if err := rt.Dispose(r.Context(), roomID); err != nil {
		return roomError(roomID, err)
	}
	h.recordRoom(r, op, "room.dispose", roomID)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

func (h *roomsHandler) recordRoom(r *http.Request, op Operator, action, roomID string, kv ...any) {
	payload := audit.Payload(requestMeta(r, h.ips), append([]any{"roomId", roomID}, kv...)...)
	h.audit.Event(r.Context(), AuditEntry{OperatorID: op.UserID, Action: action, Resource: "rooms", TargetID: roomID, Payload: payload})
}
