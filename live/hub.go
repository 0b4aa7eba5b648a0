package live

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gameadmin/admin/rooms"
	"github.com/gorilla/websocket"
)

// Options configures a Hub. The zero value of every field is a working
// default, except that a hub without Authenticate must set AllowAnonymous.
type Options struct {
	// Authenticate resolves the player of an upgrade request, typically from
	// ?token= or an "Authorization: Bearer" header, and returns the user id.
	// It returns "" and a nil error for a request without credentials (an
	// anonymous client) and an error for invalid, expired or revoked
	// credentials, which is always answered 401. It must return promptly.
	// Default nil: every client is anonymous.
	Authenticate func(r *http.Request) (userID string, err error)
	// AllowAnonymous admits clients without a user id. Default false: an
	// anonymous request is answered 401.
	AllowAnonymous bool
	// IsBanned is consulted at every join of an authenticated player,
	// unless UserStates is set (it answers the ban itself); a banned player
	// is answered 403 and an error 500 (and logged). Default nil: no ban
	// check.
	IsBanned func(ctx context.Context, userID string) (bool, error)
	// UserStates reports the token version and ban of users, by id (the
	// panel's (*admin.Auth).UserStates): at every join of an authenticated
	// player (a banned one is answered 403, one it does not know 401) and
	// every RevalidateEvery, when clients whose user is banned, gone, or
	// whose sessions were revoked since they joined are kicked. It closes
	// sockets whose sessions ended while a ban could not reach this node
	// (a Redis outage, a node that timed out). Default nil: no re-checks.
	UserStates func(ctx context.Context, userIDs []string) (map[string]rooms.UserState, error)
	// RevalidateEvery is how often clients are re-checked with UserStates.
	// Default 30s; negative: only when Revalidate is called.
	RevalidateEvery time.Duration
	// CheckOrigin is the origin check of every join, run before anything
	// else; it replaces AllowedOrigins. Default nil: a request with an
	// Origin header must come from the request's own host or from
	// AllowedOrigins; one without (not a browser) passes.
	CheckOrigin func(r *http.Request) bool
	// AllowedOrigins lists the origins besides the request's own host whose
	// pages may open a socket, as browsers send them
	// ("https://play.example.com"). A join from any other origin is
	// answered 403 cross_origin: cross-site WebSocket hijacking. Default
	// none: same host only.
	AllowedOrigins []string
	// ClientIP returns the client address of a join, which
	// MaxConnsPerIP counts. Default: the connection's peer address;
	// behind a proxy pass the panel's (*admin.Admin).ClientIP.
	ClientIP func(r *http.Request) string
	// MaxRooms caps the rooms open at once; a join that would create one
	// more is answered 503 too_many_rooms. Default 10,000; negative: none.
	MaxRooms int
	// MaxClientsPerRoom caps the clients of a room whose RoomType sets no
	// MaxClients. Default 1,000; negative: none.
	MaxClientsPerRoom int
	// MaxConnsPerIP caps the connections (and joins under way) from one
	// client IP (an IPv6 client's /64 counts as one); past it a join is
	// answered 429 too_many_connections.
	// Default 100; negative: none.
	MaxConnsPerIP int
	// MaxConnsPerUser caps the connections of one user id (one player
	// token cannot hold thousands of sockets); past it a join is answered
	// 429 too_many_connections. Default 8; negative: none.
	MaxConnsPerUser int
	// MessagesPerSecond is the rate of messages one client may send, with
	// bursts of MessageBurst; a faster client is closed with
	// CloseRateLimited (4003). Defaults 20 and 40; negative: no limit.
	MessagesPerSecond float64
	// MessageBurst: see MessagesPerSecond.
	MessageBurst int
	// SendQueue is how many outgoing messages may wait for one client. A
	// client whose queue is full is dropped (closed with 1008) so it cannot
	// hold up its room. Default 64.
	SendQueue int
	// WriteTimeout bounds each write to a client, and how long a closing
	// connection waits for the client's close reply. Default 10s.
	WriteTimeout time.Duration
	// PongTimeout is how long a client may stay silent (no message, no pong)
	// before it is dropped. Default 60s.
	PongTimeout time.Duration
	// PingInterval is how often the hub pings each client; it must be
	// shorter than PongTimeout. Default 9/10 of PongTimeout.
	PingInterval time.Duration
	// MaxMessageBytes bounds one client message; a larger one closes the
	// connection with 1009. Default 64 KiB.
	MaxMessageBytes int64
	// Logger receives errors the hub cannot return (a failed IsBanned, a
	// metadata that does not marshal). Default slog.Default().
	Logger *slog.Logger
}

// Hub is a set of live rooms that WebSocket clients join, and implements
// rooms.Runtime (admin.Rooms in the panel) for the admin panel. Each room is
// owned by one goroutine that serializes joins, leaves, messages, ticks and
// admin operations; each client has a read and a write goroutine. Close stops
// all of them.
//
// Hub is an http.Handler that upgrades at /<roomType>: mount it under a
// prefix with http.StripPrefix, e.g.
//
//	mux.Handle("/ws/", http.StripPrefix("/ws/", hub))
//
// A client joins /ws/<roomType> (the first unlocked room of that type with
// room for it, or a new one) or /ws/<roomType>?room=<roomId> (that room).
type Hub struct {
	opts     Options
	log      *slog.Logger
	upgrader websocket.Upgrader
	done     chan struct{} // closed by Close
	wg       sync.WaitGroup

	mu     sync.Mutex
	closed bool
	types  map[string]*roomType
	rooms  map[string]*Room
	users  map[string]map[*Client]struct{}     // userID -> admitted clients
	joins  map[string]map[*joinTicket]struct{} // userID -> joins under way
	// sessions are the admitted clients by session id, anonymous ones
	// too: Session answers from here, never waiting for a room.
	sessions map[string]*Client

	notifyMu sync.Mutex                        // serializes NotifyChanges
	notify   atomic.Pointer[[]chan<- struct{}] // read lock-free by changed
	conns    connCounts                        // per IP and user, for the caps
}

var (
	_ rooms.Runtime = (*Hub)(nil)
	_ http.Handler  = (*Hub)(nil)
)

// joinTicket marks a join under way for DisconnectUser: a join whose ban
// check passed before the ban but that registers after DisconnectUser ran is
// refused, not left connected. Guarded by Hub.mu.
type joinTicket struct {
	userID    string
	cancelled bool
}

// roomType is a defined room type; joinMu serializes the choice of a room
// for joins by type, so concurrent joins fill one room instead of each
// creating its own.
type roomType struct {
	name   string
	def    RoomType
	joinMu sync.Mutex
}

// NewHub returns a hub with no room types; add them with Define. It panics
// when opts cannot work: neither Authenticate nor AllowAnonymous is set, or
// PingInterval is not shorter than PongTimeout.
func NewHub(opts Options) *Hub {
	if opts.Authenticate == nil && !opts.AllowAnonymous {
		panic("live: Options.Authenticate is nil and AllowAnonymous is false: every join would be refused")
	}
	if opts.SendQueue <= 0 {
		opts.SendQueue = 64
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	if opts.PongTimeout <= 0 {
		opts.PongTimeout = 60 * time.Second
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = opts.PongTimeout * 9 / 10
	}
	if opts.PingInterval >= opts.PongTimeout {
		panic("live: Options.PingInterval must be shorter than PongTimeout")
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = 64 << 10
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	limitsDefaults(&opts)
	h := &Hub{
		opts: opts,
		log:  opts.Logger,
		upgrader: websocket.Upgrader{
			// A pool keeps idle connections from holding a write buffer each.
			WriteBufferPool: &sync.Pool{},
		},
		done:     make(chan struct{}),
		types:    make(map[string]*roomType),
		rooms:    make(map[string]*Room),
		users:    make(map[string]map[*Client]struct{}),
		joins:    make(map[string]map[*joinTicket]struct{}),
		sessions: make(map[string]*Client),
		conns:    connCounts{byIP: make(map[string]int), byUser: make(map[string]int)},
	}
	h.notify.Store(&[]chan<- struct{}{})
	switch {
	case h.opts.RevalidateEvery == 0:
		h.opts.RevalidateEvery = defaultRevalidateEvery
	case h.opts.RevalidateEvery < 0:
		h.opts.RevalidateEvery = 0
	}
	if h.opts.UserStates != nil && h.opts.RevalidateEvery > 0 {
		h.wg.Add(1)
		go h.revalidateLoop()
	}
	// ServeHTTP checks the origin (originOK) before anything else; the
	// upgrader would only run the same check a second time.
	h.upgrader.CheckOrigin = func(*http.Request) bool { return true }
	return h
}

// Define registers a room type under name, the path segment clients join
// at. Rooms of the type are created on demand at the first join. It panics
// on an empty name, a name with a slash, or a name already defined.
func (h *Hub) Define(name string, def RoomType) {
	if name == "" || strings.Contains(name, "/") {
		panic("live: room type name must be non-empty and without a slash: " + name)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, dup := h.types[name]; dup {
		panic("live: room type " + name + " defined twice")
	}
	h.types[name] = &roomType{name: name, def: def}
}

// Room returns the live room with id roomID. Use Room.Do to act on it from
// outside the room's callbacks.
func (h *Hub) Room(roomID string) (*Room, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.rooms[roomID]
	return r, ok
}

// Close closes every connection (close code 1001) and stops every goroutine
// of the hub, waiting for them, including joins under way. Later joins are
// answered 503. Close is idempotent and always returns nil.
func (h *Hub) Close() error {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
	h.mu.Unlock()
	h.wg.Wait()
	return nil
}

// track counts a goroutine or a join in the hub's wait group, unless the hub
// is closed. Adding under mu, before closed is set, keeps Add from racing
// Close's Wait.
func (h *Hub) track(n int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.wg.Add(n)
	return true
}

// newRoom creates a room of type t with one join reserved in it, and starts
// its goroutine.
func (h *Hub) newRoom(t *roomType) (*Room, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errHubClosed
	}
	if max := h.opts.MaxRooms; max > 0 && len(h.rooms) >= max {
		return nil, errTooManyRooms
	}
	id := t.name + "-" + randomHex(6)
	for h.rooms[id] != nil {
		id = t.name + "-" + randomHex(6)
	}
	r := newRoom(h, t, id)
	h.rooms[id] = r
	h.wg.Add(1)
	go r.run()
	h.changed()
	return r, nil
}

// roomsOf returns the rooms of type t, oldest first.
func (h *Hub) roomsOf(t *roomType) []*Room {
	h.mu.Lock()
	var rs []*Room
	for _, r := range h.rooms {
		if r.typ == t {
			rs = append(rs, r)
		}
	}
	h.mu.Unlock()
	sortRooms(rs)
	return rs
}

func sortRooms(rs []*Room) {
	slices.SortFunc(rs, func(a, b *Room) int {
		return cmp.Or(a.createdAt.Compare(b.createdAt), strings.Compare(a.id, b.id))
	})
}

// removeRoom forgets a room whose goroutine is stopping.
func (h *Hub) removeRoom(r *Room) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rooms[r.id] == r {
		delete(h.rooms, r.id)
		h.changed()
	}
}

// startJoin records a join under way for userID; nil for anonymous.
func (h *Hub) startJoin(userID string) *joinTicket {
	if userID == "" {
		return nil
	}
	t := &joinTicket{userID: userID}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.joins[userID] == nil {
		h.joins[userID] = make(map[*joinTicket]struct{})
	}
	h.joins[userID][t] = struct{}{}
	return t
}

// endJoin forgets a join ticket; it is safe to call more than once.
func (h *Hub) endJoin(t *joinTicket) {
	if t == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropTicket(t)
}

func (h *Hub) dropTicket(t *joinTicket) {
	set := h.joins[t.userID]
	delete(set, t)
	if len(set) == 0 {
		delete(h.joins, t.userID)
	}
}

// admit adds c to the session index and, for a player (t is not nil), to
// the user index as its join completes, unless DisconnectUser cancelled the
// join meanwhile. Called on c's room goroutine.
func (h *Hub) admit(c *Client, t *joinTicket) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t != nil {
		h.dropTicket(t)
		if t.cancelled {
			return false
		}
		set := h.users[c.userID]
		if set == nil {
			set = make(map[*Client]struct{})
			h.users[c.userID] = set
		}
		set[c] = struct{}{}
	}
	h.sessions[c.sessionID] = c
	return true
}

// unindex removes c from the session and user indexes as it leaves its
// room.
func (h *Hub) unindex(c *Client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.sessions, c.sessionID)
	if c.userID == "" {
		return
	}
	set := h.users[c.userID]
	delete(set, c)
	if len(set) == 0 {
		delete(h.users, c.userID)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}
