package live

import (
	"crypto/rand"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gameadmin/admin/rooms"
	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"
)

// Client is one WebSocket connection in a room. Its accessors are safe to
// call from any goroutine.
type Client struct {
	hub       *Hub
	room      *Room
	conn      *websocket.Conn
	sessionID string
	userID    string
	joinedAt  time.Time
	version   int64 // the user's token version at join (Options.UserStates)

	send     chan []byte   // bounded; a full queue drops the client
	quit     chan struct{} // closed by close: the connection is ending
	readDone chan struct{} // closed when readPump stops reading

	closeOnce sync.Once
	closeWith closeInfo // written once, before quit is closed

	leave atomic.Value // rooms.LeaveReason, stored as the client leaves its room

	// release gives back the client's place under MaxConnsPerIP and
	// MaxConnsPerUser; readPump calls it as the connection ends.
	release func()
}

func newClient(h *Hub, r *Room, conn *websocket.Conn, userID string) *Client {
	return &Client{
		hub:       h,
		room:      r,
		conn:      conn,
		sessionID: rand.Text(),
		userID:    userID,
		joinedAt:  time.Now(),
		send:      make(chan []byte, h.opts.SendQueue),
		quit:      make(chan struct{}),
		readDone:  make(chan struct{}),
	}
}

// SessionID returns the client's session id, unique to this connection.
func (c *Client) SessionID() string { return c.sessionID }

// UserID returns the player's user id, or "" for an anonymous client.
func (c *Client) UserID() string { return c.userID }

// JoinedAt returns when the client connected.
func (c *Client) JoinedAt() time.Time { return c.joinedAt }

// Room returns the room the client is in.
func (c *Client) Room() *Room { return c.room }

// LeaveReason says why the client left its room: "" while it is in the
// room; set before RoomType.OnLeave runs, where a game reads it. A
// reconnection grace keeps the seat of a client that left with
// rooms.LeaveDropped, and not of one kicked, banned or revoked, lest the
// player an operator removed get their seat back by reconnecting.
func (c *Client) LeaveReason() rooms.LeaveReason {
	why, _ := c.leave.Load().(rooms.LeaveReason)
	return why
}

// userSession is the client as rooms.UserSession describes it.
func (c *Client) userSession() rooms.UserSession {
	return rooms.UserSession{RoomID: c.room.id, RoomName: c.room.typ.name, SessionID: c.sessionID, UserID: c.userID, JoinedAt: c.joinedAt}
}

// close ends the connection as ci says; the first call wins.
func (c *Client) close(ci closeInfo) {
	c.closeOnce.Do(func() {
		c.closeWith = ci
		close(c.quit)
	})
}

// readPump is the client's read goroutine. It delivers messages to the room
// and stops when the connection fails or is closed (by writePump); then it
// makes sure writePump stops and takes the client out of its room.
func (c *Client) readPump() {
	defer c.hub.wg.Done()
	if c.release != nil {
		defer c.release()
	}
	opts := &c.hub.opts
	var lim *rate.Limiter // nil: no limit
	if opts.MessagesPerSecond > 0 {
		lim = rate.NewLimiter(rate.Limit(opts.MessagesPerSecond), max(opts.MessageBurst, 1))
	}
	c.conn.SetReadLimit(opts.MaxMessageBytes)
	alive := func() { _ = c.conn.SetReadDeadline(time.Now().Add(opts.PongTimeout)) }
	alive()
	c.conn.SetPongHandler(func(string) error { alive(); return nil })
	var err error
	for {
		var typ int
		var b []byte
		if typ, b, err = c.conn.ReadMessage(); err != nil {
			break
		}
		alive()
		switch {
		case lim != nil && !lim.Allow():
			c.close(closeInfo{code: CloseRateLimited, reason: "too many messages"})
		case typ != websocket.TextMessage:
			c.close(closeInfo{code: websocket.CloseUnsupportedData, reason: "messages must be JSON text"})
		case !json.Valid(b):
			c.close(closeInfo{code: websocket.CloseInvalidFramePayloadData, reason: "messages must be JSON text"})
		default:
			c.deliver(b)
		}
	}
	close(c.readDone)
	c.close(closeInfo{}) // the peer is gone: no close frame
	// The player left when they closed normally and the hub was not
	// closing them (a kick removes the client before this runs, a rate
	// limit or a bad message does not): anything else is a drop.
	why := rooms.LeaveDropped
	if c.closeWith.code == 0 && websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		why = rooms.LeaveLeft
	}
	r := c.room
	r.post(func() { r.remove(c, closeInfo{}, nil, why) }, nil)
}

// deliver passes one message to the room's OnMessage, unless the client is
// closing; it waits while the room's queue is full, which slows this
// client's reads and nobody else.
func (c *Client) deliver(b []byte) {
	r := c.room
	onMessage := r.typ.def.OnMessage
	if onMessage == nil {
		return
	}
	r.post(func() {
		if r.has(c) {
			onMessage(r, c, json.RawMessage(b))
		}
	}, c.quit)
}

// writePump is the client's write goroutine: it writes queued messages and
// pings. It stops when the client is closed (after writing the close frame
// and waiting for the peer's reply, at most WriteTimeout) or a write fails,
// and it always closes the connection, which stops readPump.
func (c *Client) writePump() {
	defer c.hub.wg.Done()
	defer c.conn.Close()
	opts := &c.hub.opts
	ping := time.NewTicker(opts.PingInterval)
	defer ping.Stop()
	for {
		select {
		case b := <-c.send:
			if c.write(b) != nil {
				c.close(closeInfo{})
				return
			}
		case <-ping.C:
			if c.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(opts.WriteTimeout)) != nil {
				c.close(closeInfo{})
				return
			}
		case <-c.quit:
			c.finish()
			return
		}
	}
}

func (c *Client) write(b []byte) error {
	if err := c.conn.SetWriteDeadline(time.Now().Add(c.hub.opts.WriteTimeout)); err != nil {
		return err
	}
	return c.conn.WriteMessage(websocket.TextMessage, b)
}

// finish writes what is queued (when asked to) and the close frame, then
// waits for the peer's close reply, which ends readPump, unless the hub is
// closing.
func (c *Client) finish() {
	ci := c.closeWith
	if ci.code == 0 {
		return
	}
flush:
	for ci.flush {
		select {
		case b := <-c.send:
			if c.write(b) != nil {
				return
			}
		default:
			break flush
		}
	}
	timeout := c.hub.opts.WriteTimeout
	msg := websocket.FormatCloseMessage(ci.code, ci.reason)
	if c.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(timeout)) != nil {
		return
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-c.readDone:
	case <-t.C:
	case <-c.hub.done: // Close does not wait for clients to answer
	}
}
