package live

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gameadmin/admin/rooms"
)

// This file implements rooms.Runtime (admin.Rooms). Each method that reads
// or changes a room runs on the room's goroutine through Room.serve: it
// gives up when ctx ends, its work is dropped unrun if the room gets to it
// after that, and a panic of the game's code while it runs is its error
// (rooms.ErrRoomFailed), not the room's end.

// List returns a summary of every room, oldest first (then by id).
func (h *Hub) List(ctx context.Context) ([]rooms.Summary, error) {
	h.mu.Lock()
	rs := make([]*Room, 0, len(h.rooms))
	for _, r := range h.rooms {
		rs = append(rs, r)
	}
	h.mu.Unlock()
	sortRooms(rs)
	out := make([]rooms.Summary, len(rs))
	for i, r := range rs {
		out[i] = r.summary()
	}
	return out, nil
}

func (r *Room) summary() rooms.Summary {
	return rooms.Summary{
		RoomID:     r.id,
		Name:       r.typ.name,
		Clients:    int(r.nclients.Load()),
		MaxClients: r.hub.maxClients(r.typ),
		Locked:     r.locked.Load(),
		CreatedAt:  r.createdAt,
	}
}

// Inspect returns one room with its clients (by join time) and its state and
// metadata as JSON (json.RawMessage values), taken on the room's goroutine.
// A Metadata callback or a MarshalJSON of the state that panics makes it
// fail with rooms.ErrRoomFailed; the room runs on.
func (h *Hub) Inspect(ctx context.Context, roomID string) (rooms.View, error) {
	var (
		v   rooms.View
		err error
	)
	derr := h.onRoom(ctx, roomID, func(r *Room) {
		v.RoomSummary = r.summary()
		v.ClientList = make([]rooms.Client, 0, len(r.clients))
		for c := range r.clients {
			v.ClientList = append(v.ClientList, rooms.Client{SessionID: c.sessionID, UserID: c.userID, JoinedAt: c.joinedAt})
		}
		var s []byte
		if s, err = json.Marshal(r.state); err != nil {
			err = fmt.Errorf("live: marshal state of room %q: %w", r.id, err)
			return
		}
		v.State = json.RawMessage(s)
		if md := r.typ.def.Metadata; md != nil {
			var m []byte
			if m, err = json.Marshal(md(r)); err != nil {
				err = fmt.Errorf("live: marshal metadata of room %q: %w", r.id, err)
				return
			}
			v.Metadata = json.RawMessage(m)
		}
	})
	if derr != nil {
		return rooms.View{}, derr
	}
	if err != nil {
		return rooms.View{}, err
	}
	slices.SortFunc(v.ClientList, func(a, b rooms.Client) int {
		return cmp.Or(a.JoinedAt.Compare(b.JoinedAt), strings.Compare(a.SessionID, b.SessionID))
	})
	return v, nil
}

// Session returns one client of a room, its user id set (an anonymous
// client's is ""), from the hub's index: it never waits for the room, nor
// reads its state.
func (h *Hub) Session(_ context.Context, roomID, sessionID string) (rooms.UserSession, error) {
	h.mu.Lock()
	c := h.sessions[sessionID]
	_, known := h.rooms[roomID]
	h.mu.Unlock()
	switch {
	case c != nil && c.room.id == roomID:
		return c.userSession(), nil
	case known:
		return rooms.UserSession{}, fmt.Errorf("live: session %q in room %q: %w", sessionID, roomID, rooms.ErrSessionNotFound)
	}
	return rooms.UserSession{}, fmt.Errorf("live: room %q: %w", roomID, rooms.ErrRoomNotFound)
}

// Kick sends the client {"type":"kicked","reason":reason} and closes its
// connection with CloseKicked; OnLeave learns rooms.LeaveKicked.
func (h *Hub) Kick(ctx context.Context, roomID, sessionID, reason string) error {
	var found bool
	err := h.onRoom(ctx, roomID, func(r *Room) {
		var c *Client
		if c, found = r.sessions[sessionID]; found {
			r.Kick(c, reason)
		}
	})
	if err == nil && !found {
		err = fmt.Errorf("live: session %q in room %q: %w", sessionID, roomID, rooms.ErrSessionNotFound)
	}
	return err
}

// SetLocked locks a room, so joins are refused, or unlocks it; clients get a
// {"type":"lock"} message.
func (h *Hub) SetLocked(ctx context.Context, roomID string, locked bool) error {
	return h.onRoom(ctx, roomID, func(r *Room) { r.SetLocked(locked) })
}

// EditState sets the value at path in the room state to value and sends the
// new state to every client. Path elements are strings for object keys and
// numbers (int, float64 from JSON, json.Number) for array indexes; a missing
// last key is added. On a Go struct state the edit lands in the struct, and a
// value that does not fit the Go type is refused. A path or value that does
// not fit wraps rooms.ErrInvalidPath (and ErrInvalidValue for the value), and
// the state is left as it was.
func (h *Hub) EditState(ctx context.Context, roomID string, path []any, value json.RawMessage) error {
	if value == nil {
		value = json.RawMessage("null")
	}
	return h.editState(ctx, roomID, stateEdit{path: path, value: value})
}

// DeleteState removes the value at path (an object key, or an array element,
// which shifts the rest) from the room state and sends the new state to every
// client. A missing key, an index out of range or an empty path wraps
// rooms.ErrInvalidPath.
func (h *Hub) DeleteState(ctx context.Context, roomID string, path []any) error {
	return h.editState(ctx, roomID, stateEdit{path: path})
}

func (h *Hub) editState(ctx context.Context, roomID string, e stateEdit) error {
	var err error
	derr := h.onRoom(ctx, roomID, func(r *Room) {
		var s any
		if s, err = editState(r.state, e); err == nil {
			err = r.SetState(s)
		}
	})
	if derr != nil {
		return derr
	}
	if err != nil && !errors.Is(err, rooms.ErrInvalidPath) {
		return fmt.Errorf("live: edit state of room %q: %w", roomID, err)
	}
	return err
}

// Dispose sends every client of the room {"type":"disposed"}, closes their
// connections with CloseDisposed and removes the room; OnLeave learns
// rooms.LeaveDisposed.
func (h *Hub) Dispose(ctx context.Context, roomID string) error {
	return h.onRoom(ctx, roomID, func(r *Room) { r.Dispose("room disposed by an operator") })
}

// UserSessions lists the live sessions of userID in every room, by join time.
func (h *Hub) UserSessions(ctx context.Context, userID string) ([]rooms.UserSession, error) {
	h.mu.Lock()
	out := make([]rooms.UserSession, 0, len(h.users[userID]))
	for c := range h.users[userID] {
		out = append(out, c.userSession())
	}
	h.mu.Unlock()
	slices.SortFunc(out, func(a, b rooms.UserSession) int {
		return cmp.Or(a.JoinedAt.Compare(b.JoinedAt), strings.Compare(a.SessionID, b.SessionID))
	})
	return out, nil
}

// DisconnectUser kicks userID from every room (each connection gets
// {"type":"kicked","reason":message} and CloseKicked; OnLeave learns why)
// and returns how many connections it closed. A join of the user under way
// is refused too, so a player banned during its join does not stay
// connected. Once queued in a room, the closing runs even when ctx has
// ended by then: the ban or revocation it follows is done.
func (h *Hub) DisconnectUser(ctx context.Context, userID string, why rooms.LeaveReason, message string) (int, error) {
	if userID == "" {
		return 0, nil
	}
	h.mu.Lock()
	for t := range h.joins[userID] {
		t.cancelled = true
	}
	h.mu.Unlock()
	return h.kickWhere(ctx, userID, func(*Client) (rooms.LeaveReason, string, bool) { return why, message, true })
}

// onRoom runs fn, an operator's call, on the goroutine of room roomID
// (Room.serve).
func (h *Hub) onRoom(ctx context.Context, roomID string, fn func(r *Room)) error {
	r, ok := h.Room(roomID)
	if ok {
		err := r.serve(ctx, ctx, func() { fn(r) })
		if !errors.Is(err, errRoomGone) {
			return err
		}
	}
	return fmt.Errorf("live: room %q: %w", roomID, rooms.ErrRoomNotFound)
}
