package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/rooms"
	"github.com/gorilla/websocket"
)

// RoomType describes the rooms of one type: capacity, state and the game's
// callbacks. Every callback runs on the room's goroutine, one at a time, so
// it may use the Room's methods and its state without locking, and must not
// block for long: the room waits for it.
type RoomType struct {
	// MaxClients caps the clients of one room; joins by type go to another
	// room, joins by id are answered 409. Default 0: the hub's
	// Options.MaxClientsPerRoom.
	MaxClients int
	// NewState returns the initial state of a new room: any value that
	// marshals to JSON, typically a pointer to a Go struct or a
	// map[string]any. Default nil: an empty map[string]any.
	NewState func() any
	// OnJoin runs after a client has joined and was sent the state.
	// Default nil.
	OnJoin func(r *Room, c *Client)
	// OnLeave runs after a client has left, for whatever reason;
	// c.LeaveReason() says which (it left, its connection dropped, it was
	// kicked, banned or its sessions revoked, the room was disposed or the
	// hub is closing), so a game keeping seats for players who reconnect
	// keeps one for rooms.LeaveDropped and not for a kicked or banned
	// player. Default nil.
	OnLeave func(r *Room, c *Client)
	// OnMessage receives each message of a client, a JSON value.
	// Default nil: messages are ignored.
	OnMessage func(r *Room, c *Client, msg json.RawMessage)
	// TickInterval is the period of OnTick, the room's game loop.
	// Default 0: no ticks.
	TickInterval time.Duration
	// OnTick runs every TickInterval. Default nil.
	OnTick func(r *Room)
	// Metadata returns what the admin panel shows about the room beside its
	// state; it must marshal to JSON. Default nil: no metadata.
	Metadata func(r *Room) any
	// EmptyTimeout is how long a room stays without clients before it is
	// disposed. Default 0: as soon as the last client leaves. Negative:
	// never; the room lives until Dispose or Hub.Close.
	EmptyTimeout time.Duration
}

// Room is one live room. Its methods other than ID, Name, CreatedAt and Do
// must be called only on the room's goroutine: from the RoomType callbacks
// or from a function given to Do.
type Room struct {
	hub       *Hub
	typ       *roomType
	id        string
	createdAt time.Time
	ops       chan func()
	done      chan struct{} // closed when the room's goroutine stops

	// Read by Hub.List without a round trip to the room goroutine.
	nclients atomic.Int32
	locked   atomic.Bool

	// Owned by the room goroutine.
	state    any
	clients  map[*Client]struct{}
	sessions map[string]*Client
	pending  int  // joins reserved but not yet admitted
	disposed bool // the loop stops after the current operation
	broken   bool // a callback panicked: the room is closing without running them again
	serving  *serving
}

// serving is an operator's call the room goroutine is running (Room.serve):
// a panic of the game's callbacks while it runs is the call's failure, not
// the room's.
type serving struct {
	failed *panicerr.Error // the first panic
}

// callbackPanic is the error of an operator's call during which the
// game's code panicked: rooms.ErrRoomFailed, with the recovered panic and
// its stack (which the panel logs). The room runs on.
type callbackPanic struct {
	room string
	p    *panicerr.Error
}

func (e *callbackPanic) Error() string {
	return fmt.Sprintf("live: room %q: the game's code failed serving the call: %v", e.room, e.p)
}

func (e *callbackPanic) Unwrap() []error { return []error{rooms.ErrRoomFailed, e.p} }

// errRoomGone reports that a room's goroutine has stopped.
var errRoomGone = errors.New("live: room is gone")

func newRoom(h *Hub, t *roomType, id string) *Room {
	r := &Room{
		hub:       h,
		typ:       t,
		id:        id,
		createdAt: time.Now(),
		ops:       make(chan func(), 64),
		done:      make(chan struct{}),
		clients:   make(map[*Client]struct{}),
		sessions:  make(map[string]*Client),
		pending:   1, // the join that creates the room
	}
	if t.def.NewState != nil {
		r.state = t.def.NewState()
	} else {
		r.state = map[string]any{}
	}
	return r
}

// ID returns the room's unique id, "<type>-<12 hex digits>".
func (r *Room) ID() string { return r.id }

// Name returns the room's type name.
func (r *Room) Name() string { return r.typ.name }

// CreatedAt returns when the room was created.
func (r *Room) CreatedAt() time.Time { return r.createdAt }

// run is the room's goroutine. It stops when the room is disposed (by Dispose,
// Room.Dispose or becoming empty) or the hub is closed.
func (r *Room) run() {
	defer r.hub.wg.Done()
	defer close(r.done)
	defer r.hub.removeRoom(r)
	var tick <-chan time.Time
	if r.typ.def.TickInterval > 0 && r.typ.def.OnTick != nil {
		t := time.NewTicker(r.typ.def.TickInterval)
		defer t.Stop()
		tick = t.C
	}
	empty := time.NewTimer(time.Hour)
	empty.Stop()
	defer empty.Stop()
	armed := false
	for !r.disposed {
		select {
		case op := <-r.ops:
			r.safely(op)
		case <-tick:
			r.safely(func() { r.typ.def.OnTick(r) })
		case <-empty.C:
			armed = false
			r.disposed = r.empty()
		case <-r.hub.done:
			// Under safely: a leave callback that panics here took the
			// whole process down with the hub.
			r.safely(func() {
				r.closeAll(closeInfo{code: websocket.CloseGoingAway, reason: "server shutting down", flush: true}, nil, rooms.LeaveShutdown)
			})
			return
		}
		switch timeout := r.typ.def.EmptyTimeout; {
		case r.disposed || timeout < 0:
		case !r.empty():
			if armed {
				empty.Stop()
				armed = false
			}
		case timeout == 0:
			r.disposed = true
		case !armed:
			empty.Reset(timeout)
			armed = true
		}
	}
}

func (r *Room) empty() bool { return len(r.clients) == 0 && r.pending == 0 }

// Do runs fn on the room's goroutine and waits for it to return, or for ctx
// to end. It is how code outside the room's callbacks reads or changes a
// room. It must not be called from the room's own goroutine (a callback or
// another Do), which would wait for itself. It returns an error when the
// room is gone (disposed, or the hub closed) before fn ran. When ctx ends
// first, Do returns ctx.Err(), and fn is dropped unrun unless the room had
// started it: work nobody waits for any more does not hold the room later.
func (r *Room) Do(ctx context.Context, fn func(r *Room)) error {
	if err := r.do(ctx, func() { fn(r) }); err != nil {
		return fmt.Errorf("live: room %q: %w", r.id, err)
	}
	return nil
}

// do runs fn on the room goroutine and waits for it. It returns errRoomGone
// when the room stopped before running fn, and ctx.Err() when ctx ended
// first; once fn has run, do returns nil. fn is dropped unrun when ctx has
// ended by the time the room gets to it: an operator's call given up on
// (three abandoned inspects of a room whose callback took 3 s held it
// for 9 s) must not run later, nor keep the room from its players.
func (r *Room) do(ctx context.Context, fn func()) error { return r.doUntil(ctx, ctx, fn) }

// doUntil is do waiting for wait's end, and dropping fn only when keep
// has ended: a DisconnectUser whose caller stopped waiting still closes
// the sockets once the room gets to it, since the ban it follows is done.
func (r *Room) doUntil(wait, keep context.Context, fn func()) error {
	ran := make(chan struct{})
	op := func() {
		if keep.Err() != nil {
			return // nobody waits for it: dropped
		}
		fn()
		close(ran)
	}
	select {
	case r.ops <- op:
	case <-r.done:
		return errRoomGone
	case <-wait.Done():
		return wait.Err()
	}
	select {
	case <-ran:
		return nil
	case <-r.done:
		select {
		case <-ran:
			return nil
		default:
			return errRoomGone
		}
	case <-wait.Done():
		return wait.Err()
	}
}

// serve runs fn, an operator's call, on the room goroutine as doUntil does.
// A panic of the game's code while fn runs (a Metadata callback, a
// MarshalJSON of the state, OnLeave during a kick) is recovered there and
// returned as rooms.ErrRoomFailed: the room runs on for its players and
// its clients stay connected, where a panic of the room's own loop (a
// tick, a message) closes it. Every client fn removes still leaves when
// one's OnLeave panics.
func (r *Room) serve(wait, keep context.Context, fn func()) error {
	s := &serving{}
	err := r.doUntil(wait, keep, func() {
		r.serving = s
		defer func() {
			r.serving = nil
			if p := recover(); p != nil && s.failed == nil {
				s.failed = panicerr.New(p)
			}
		}()
		fn()
	})
	if err != nil {
		return err
	}
	if s.failed != nil {
		return &callbackPanic{room: r.id, p: s.failed}
	}
	return nil
}

// post queues fn on the room goroutine without waiting for it; it gives up
// when the room is gone or stop is closed.
func (r *Room) post(fn func(), stop <-chan struct{}) {
	select {
	case r.ops <- fn:
	case <-r.done:
	case <-stop:
	}
}

// reserve holds a place for a join that is upgrading, unless the room is
// locked or full. A join that gives up (ctx ends) while its reservation is
// queued or running never keeps the place: either the queued function sees
// it abandoned and reserves nothing, or it ran first and the place is given
// back. (A place kept there made the room answer room_full for good.)
func (r *Room) reserve(ctx context.Context) error {
	var (
		mu        sync.Mutex
		abandoned bool
		reserved  bool
		err       error
	)
	derr := r.do(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			return
		}
		switch max := r.hub.maxClients(r.typ); {
		case r.locked.Load():
			err = errRoomLocked
		case max > 0 && len(r.clients)+r.pending >= max:
			err = errRoomFull
		default:
			r.pending++
			reserved = true
		}
	})
	if derr != nil {
		mu.Lock()
		abandoned = true
		giveBack := reserved
		mu.Unlock()
		if giveBack {
			r.unreserve()
		}
		return derr
	}
	return err
}

// unreserve gives back a place whose upgrade failed.
func (r *Room) unreserve() {
	r.post(func() { r.pending-- }, nil)
}

// admit adds an upgraded client to the room, uses up its reservation, sends
// it the joined and state messages and runs OnJoin.
func (r *Room) admit(c *Client, t *joinTicket) {
	r.pending--
	if !r.hub.admit(c, t) {
		c.close(closeInfo{code: CloseRefused, reason: "disconnected while joining"})
		return
	}
	r.clients[c] = struct{}{}
	r.sessions[c.sessionID] = c
	r.nclients.Store(int32(len(r.clients)))
	r.hub.changed()
	r.send(c, mustMarshal(joinedMsg{Type: "joined", RoomID: r.id, RoomName: r.typ.name, SessionID: c.sessionID}))
	if b, err := r.stateMessage(); err == nil {
		r.send(c, b)
	} else {
		r.hub.log.Error("live: marshal room state", "room", r.id, "err", err)
	}
	if r.typ.def.OnJoin != nil && r.has(c) {
		r.typ.def.OnJoin(r, c)
	}
}

func (r *Room) has(c *Client) bool {
	_, ok := r.clients[c]
	return ok
}

// remove takes c out of the room, sends it notice (if any, best effort),
// closes its connection as ci says and runs OnLeave, which learns why
// from c.LeaveReason. Removing a client that is not in the room does
// nothing.
func (r *Room) remove(c *Client, ci closeInfo, notice []byte, why rooms.LeaveReason) {
	if !r.has(c) {
		return
	}
	c.leave.Store(why)
	delete(r.clients, c)
	delete(r.sessions, c.sessionID)
	r.nclients.Store(int32(len(r.clients)))
	r.hub.unindex(c)
	r.hub.changed()
	if notice != nil {
		select {
		case c.send <- notice:
		default:
		}
	}
	c.close(ci)
	r.onLeave(c)
}

// onLeave runs the game's OnLeave for c, unless the room is broken. During
// an operator's call a panic there is the call's failure (see serve), and
// the caller's loop goes on to the next client.
func (r *Room) onLeave(c *Client) {
	leave := r.typ.def.OnLeave
	if leave == nil || r.broken {
		return
	}
	if s := r.serving; s != nil {
		defer func() {
			if p := recover(); p != nil && s.failed == nil {
				s.failed = panicerr.New(p)
			}
		}()
	}
	leave(r, c)
}

// safely runs one step of the room's loop. A panic in the game's callbacks
// closes and disposes this room, without running its callbacks again,
// instead of taking the whole server down with it.
func (r *Room) safely(step func()) {
	defer func() {
		if p := recover(); p != nil {
			r.hub.log.Error("live: room callback panicked; room disposed", "roomId", r.id, "panic", p, "stack", string(debug.Stack()))
			r.broken = true
			r.closeAll(closeInfo{code: websocket.CloseInternalServerErr, reason: "internal error"}, nil, rooms.LeaveDropped)
			r.disposed = true
		}
	}()
	step()
}

// closeAll removes every client.
func (r *Room) closeAll(ci closeInfo, notice []byte, why rooms.LeaveReason) {
	for c := range r.clients {
		r.remove(c, ci, notice, why)
	}
}

// send queues b for c; a client whose queue is full is dropped.
func (r *Room) send(c *Client, b []byte) {
	select {
	case c.send <- b:
	default:
		r.remove(c, closeInfo{code: websocket.ClosePolicyViolation, reason: "send queue full"}, nil, rooms.LeaveDropped)
	}
}

// sendAll queues b for every client, then drops those whose queue was full.
func (r *Room) sendAll(b []byte) {
	var full []*Client
	for c := range r.clients {
		select {
		case c.send <- b:
		default:
			full = append(full, c)
		}
	}
	for _, c := range full {
		r.remove(c, closeInfo{code: websocket.ClosePolicyViolation, reason: "send queue full"}, nil, rooms.LeaveDropped)
	}
}

// Clients returns the room's clients, in no particular order.
func (r *Room) Clients() []*Client {
	cs := make([]*Client, 0, len(r.clients))
	for c := range r.clients {
		cs = append(cs, c)
	}
	return cs
}

// State returns the room's state, the live value: changes made through it
// reach clients at the next BroadcastState.
func (r *Room) State() any { return r.state }

// SetState replaces the room's state and sends it to every client.
func (r *Room) SetState(v any) error {
	r.state = v
	return r.BroadcastState()
}

// BroadcastState sends the current state to every client as a
// {"type":"state"} message. It fails when the state does not marshal.
func (r *Room) BroadcastState() error {
	b, err := r.stateMessage()
	if err != nil {
		return err
	}
	r.sendAll(b)
	return nil
}

func (r *Room) stateMessage() ([]byte, error) {
	s, err := json.Marshal(r.state)
	if err != nil {
		return nil, fmt.Errorf("live: marshal state of room %q: %w", r.id, err)
	}
	return mustMarshal(stateMsg{Type: "state", State: s}), nil
}

// Broadcast sends v to every client as {"type":"message","data":v}. It fails
// when v does not marshal.
func (r *Room) Broadcast(v any) error {
	b, err := json.Marshal(dataMsg{Type: "message", Data: v})
	if err != nil {
		return fmt.Errorf("live: broadcast in room %q: %w", r.id, err)
	}
	r.sendAll(b)
	return nil
}

// Send sends v to client c as {"type":"message","data":v}. It fails when v
// does not marshal; a c that is not in the room is ignored.
func (r *Room) Send(c *Client, v any) error {
	b, err := json.Marshal(dataMsg{Type: "message", Data: v})
	if err != nil {
		return fmt.Errorf("live: send in room %q: %w", r.id, err)
	}
	if r.has(c) {
		r.send(c, b)
	}
	return nil
}

// Kick sends c {"type":"kicked","reason":reason} and closes its connection
// with CloseKicked; OnLeave learns rooms.LeaveKicked.
func (r *Room) Kick(c *Client, reason string) {
	r.kick(c, rooms.LeaveKicked, reason)
}

// kick is Kick with the reason OnLeave learns: a ban or a revocation
// closes the connection as a kick does.
func (r *Room) kick(c *Client, why rooms.LeaveReason, message string) {
	r.remove(c, closeInfo{code: CloseKicked, reason: closeReason(message), flush: true},
		mustMarshal(reasonMsg{Type: "kicked", Reason: message}), why)
}

// Locked reports whether the room refuses new joins.
func (r *Room) Locked() bool { return r.locked.Load() }

// SetLocked locks the room (new joins are refused) or unlocks it, and tells
// every client with a {"type":"lock"} message.
func (r *Room) SetLocked(locked bool) {
	if r.locked.Swap(locked) != locked {
		r.hub.changed()
		r.sendAll(mustMarshal(lockMsg{Type: "lock", Locked: locked}))
	}
}

// Dispose sends every client {"type":"disposed","reason":reason}, closes
// their connections with CloseDisposed and removes the room once the current
// callback returns. OnLeave learns rooms.LeaveDisposed.
func (r *Room) Dispose(reason string) {
	r.closeAll(closeInfo{code: CloseDisposed, reason: closeReason(reason), flush: true},
		mustMarshal(reasonMsg{Type: "disposed", Reason: reason}), rooms.LeaveDisposed)
	r.disposed = true
}
