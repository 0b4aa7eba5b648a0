package live

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/netkey"
)

// The hub's bounds: one client, one address or one account cannot hold an
// unbounded share of the server. The defaults fit a game server of one
// process; every cap can be raised, or turned off with a negative value.
const (
	defaultMaxRooms          = 10000
	defaultMaxClientsPerRoom = 1000
	defaultMaxConnsPerIP     = 100
	defaultMaxConnsPerUser   = 8
	defaultMessagesPerSecond = 20
	defaultMessageBurst      = 40
)

// CloseRateLimited ends the connection of a client that sent messages
// faster than Options.MessagesPerSecond allows (past MessageBurst).
const CloseRateLimited = 4003

var (
	errTooManyRooms       = errbody.New(http.StatusServiceUnavailable, "too_many_rooms", "too many rooms are open; try again later")
	errTooManyConnections = errbody.New(http.StatusTooManyRequests, "too_many_connections", "too many connections from this address or account")
	errCrossOrigin        = errbody.New(http.StatusForbidden, "cross_origin", "cross-origin WebSocket request refused")
)

// limitsDefaults fills the zero caps of o with their defaults; negative
// caps mean none and become 0.
func limitsDefaults(o *Options) {
	for _, c := range []struct {
		v   *int
		def int
	}{
		{&o.MaxRooms, defaultMaxRooms},
		{&o.MaxClientsPerRoom, defaultMaxClientsPerRoom},
		{&o.MaxConnsPerIP, defaultMaxConnsPerIP},
		{&o.MaxConnsPerUser, defaultMaxConnsPerUser},
		{&o.MessageBurst, defaultMessageBurst},
	} {
		switch {
		case *c.v == 0:
			*c.v = c.def
		case *c.v < 0:
			*c.v = 0
		}
	}
	switch {
	case o.MessagesPerSecond == 0:
		o.MessagesPerSecond = defaultMessagesPerSecond
	case o.MessagesPerSecond < 0:
		o.MessagesPerSecond = 0
	}
	if o.ClientIP == nil {
		o.ClientIP = peerIP
	}
}

// peerIP is the default Options.ClientIP: the address of the connection's
// peer, forwarded headers ignored (anyone can write them).
func peerIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// maxClients is the cap of a room of type t: its own, else the hub's.
func (h *Hub) maxClients(t *roomType) int {
	if t.def.MaxClients > 0 {
		return t.def.MaxClients
	}
	return h.opts.MaxClientsPerRoom
}

// connCounts counts the open connections, and joins under way, per client
// IP and per user. Guarded by Hub.mu.
type connCounts struct {
	byIP   map[string]int
	byUser map[string]int
}

// holdConn counts one more connection for ip and userID, unless either is
// at its cap. The returned release gives it back; it may be called more
// than once.
func (h *Hub) holdConn(ip, userID string) (release func(), err *httpError) {
	ip = netkey.Address(ip) // an IPv6 client is its /64
	h.mu.Lock()
	defer h.mu.Unlock()
	if max := h.opts.MaxConnsPerIP; max > 0 && h.conns.byIP[ip] >= max {
		return nil, errTooManyConnections
	}
	if max := h.opts.MaxConnsPerUser; max > 0 && userID != "" && h.conns.byUser[userID] >= max {
		return nil, errTooManyConnections
	}
	h.conns.byIP[ip]++
	if userID != "" {
		h.conns.byUser[userID]++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			decr(h.conns.byIP, ip)
			if userID != "" {
				decr(h.conns.byUser, userID)
			}
		})
	}, nil
}

func decr(m map[string]int, k string) {
	if m[k] <= 1 {
		delete(m, k)
	} else {
		m[k]--
	}
}

// originOK is the default origin check: a request without Origin (not a
// browser) passes; a browser's must come from the request's own host or
// from Options.AllowedOrigins. Cross-site WebSocket hijacking — a page on
// another site opening a socket with the player's cookies — is refused.
func (h *Hub) originOK(r *http.Request) bool {
	if h.opts.CheckOrigin != nil {
		return h.opts.CheckOrigin(r)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, o := range h.opts.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}
