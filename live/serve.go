package live

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// ServeHTTP joins a client to a room: r.URL.Path is the room type name
// (mount the hub with http.StripPrefix), and ?room=<roomId> picks one room of
// that type; without it the client joins the oldest unlocked room of the
// type with room for it, or a new room.
//
// Before upgrading, a refused join is answered with the admin API's error
// body: 404 room_not_found (unknown type or room), 401 unauthenticated, 403
// banned, 403 cross_origin (see Options.AllowedOrigins), 409 room_locked or
// room_full (only when ?room= names the room), 429 too_many_connections
// (MaxConnsPerIP, MaxConnsPerUser), 503 too_many_rooms (MaxRooms), 503
// closed after Close, 500 internal (a failed IsBanned, logged).
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.originOK(r) {
		writeError(w, errCrossOrigin)
		return
	}
	h.mu.Lock()
	t := h.types[strings.Trim(r.URL.Path, "/")]
	h.mu.Unlock()
	if t == nil {
		writeError(w, errRoomNotFound)
		return
	}
	userID, err := h.authenticate(r)
	if err != nil {
		writeError(w, errUnauthenticated)
		return
	}
	release, herr := h.holdConn(h.opts.ClientIP(r), userID)
	if herr != nil {
		writeError(w, herr)
		return
	}
	handedOver := false // to the client, which releases the place as it ends
	defer func() {
		if !handedOver {
			release()
		}
	}()
	if !h.track(1) {
		writeError(w, errHubClosed)
		return
	}
	defer h.wg.Done()

	ctx := r.Context()
	ticket := h.startJoin(userID) // before the ban check: see joinTicket
	defer h.endJoin(ticket)
	// UserStates, when set, answers the ban too (one query, not two).
	var version int64
	switch {
	case userID == "":
	case h.opts.UserStates != nil:
		v, err := h.joinState(ctx, userID)
		var he *httpError
		switch {
		case errors.As(err, &he):
			writeError(w, he)
			return
		case err != nil:
			h.internalError(w, r, "live: user state check failed", err, "userId", userID)
			return
		}
		version = v
	case h.opts.IsBanned != nil:
		banned, err := h.opts.IsBanned(ctx, userID)
		if err != nil {
			h.internalError(w, r, "live: ban check failed", err, "userId", userID)
			return
		}
		if banned {
			writeError(w, errBanned)
			return
		}
	}
	room, err := h.reserve(ctx, t, r.URL.Query().Get("room"))
	if err != nil {
		var he *httpError
		if !errors.As(err, &he) {
			if ctx.Err() != nil {
				return // the client went away
			}
			h.internalError(w, r, "live: join failed", err, "roomType", t.name)
			return
		}
		writeError(w, he)
		return
	}
	conn, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		room.unreserve() // Upgrade has answered the client
		return
	}
	c := newClient(h, room, conn, userID)
	c.version = version
	c.release, handedOver = release, true
	h.wg.Add(2) // this join is tracked, so the count is not zero
	go c.writePump()
	// Not ctx: the room either admits c or is gone; either way do returns.
	if room.do(context.Background(), func() { room.admit(c, ticket) }) != nil {
		c.close(closeInfo{code: CloseRefused, reason: "room closed"})
	}
	go c.readPump()
}

// authenticate returns the user id of r, "" for an admitted anonymous client.
func (h *Hub) authenticate(r *http.Request) (string, error) {
	userID := ""
	if h.opts.Authenticate != nil {
		id, err := h.opts.Authenticate(r)
		if err != nil {
			return "", err
		}
		userID = id
	}
	if userID == "" && !h.opts.AllowAnonymous {
		return "", errUnauthenticated
	}
	return userID, nil
}

// reserve picks the room a join goes to and holds a place in it.
func (h *Hub) reserve(ctx context.Context, t *roomType, roomID string) (*Room, error) {
	if roomID != "" {
		room, ok := h.Room(roomID)
		if !ok || room.typ != t {
			return nil, errRoomNotFound
		}
		err := room.reserve(ctx)
		if errors.Is(err, errRoomGone) {
			return nil, errRoomNotFound
		}
		return room, err
	}
	t.joinMu.Lock()
	defer t.joinMu.Unlock()
	for _, room := range h.roomsOf(t) {
		if max := h.maxClients(t); room.locked.Load() || (max > 0 && int(room.nclients.Load()) >= max) {
			continue
		}
		err := room.reserve(ctx)
		if err == nil {
			return room, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return h.newRoom(t)
}
