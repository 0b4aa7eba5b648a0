package live

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gorilla/websocket"
)

// TestAbandonedJoinReleasesPlace: a join by id whose client goes away while
// its reservation waits behind a busy room must not keep the place. (It
// did: a room with 1 of 2 clients answered room_full for good.)
func TestAbandonedJoinReleasesPlace(t *testing.T) {
	opts := testOptions()
	opts.AllowAnonymous = true
	e := newEnv(t, opts, map[string]RoomType{"duel": {MaxClients: 2, EmptyTimeout: -1}})
	a := e.join(t, "duel")
	go func() { // reading answers the pings that keep a connected
		for {
			if _, _, err := a.conn.ReadMessage(); err != nil {
				return
			}
		}
	}()
	room, _ := e.hub.Room(a.roomID)

	// Keep the room's goroutine busy.
	busy, release := make(chan struct{}), make(chan struct{})
	go func() { _ = room.Do(context.Background(), func(*Room) { close(busy); <-release }) }()
	<-busy

	// A second join queues its reservation, then its client gives up.
	raw, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(raw, "GET /ws/duel?room=%s HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", a.roomID)
	eventually(t, "the reservation to be queued", func() bool { return len(room.ops) == 1 })
	raw.Close()
	// The server has given up on that join once its connection place is
	// back: only the first client holds one.
	eventually(t, "the abandoned join to end", func() bool {
		e.hub.mu.Lock()
		defer e.hub.mu.Unlock()
		return e.hub.conns.byIP["127.0.0.1"] == 1
	})
	close(release)
	if n := e.clientCount(t, a.roomID); n != 1 {
		t.Fatalf("room has %d clients; want the first one still there", n)
	}

	b := e.join(t, withQuery("duel", "room", a.roomID))
	if b.roomID != a.roomID {
		t.Fatalf("joined %s; want %s", b.roomID, a.roomID)
	}
}

// TestConnectionCaps: one account, one address and one hub hold a bounded
// number of sockets and rooms.
func TestConnectionCaps(t *testing.T) {
	t.Run("per user", func(t *testing.T) {
		opts := testOptions()
		tk := newTokens("tok", "u1", "tok2", "u2")
		opts.Authenticate, opts.MaxConnsPerUser = tk.authenticate, 2
		e := newEnv(t, opts, map[string]RoomType{"lobby": {}})
		first := e.join(t, withQuery("lobby", "token", "tok"))
		e.join(t, withQuery("lobby", "token", "tok"))
		if status, code := e.refused(t, withQuery("lobby", "token", "tok")); status != 429 || code != "too_many_connections" {
			t.Fatalf("3rd socket of one user = %d %s; want 429 too_many_connections", status, code)
		}
		e.join(t, withQuery("lobby", "token", "tok2")) // another user is not affected
		first.conn.Close()
		eventually(t, "the closed socket's place to come back", func() bool {
			conn, _, err := e.dial(t, withQuery("lobby", "token", "tok"))
			if err == nil {
				conn.Close()
			}
			return err == nil
		})
	})
	t.Run("per IP", func(t *testing.T) {
		opts := testOptions()
		opts.AllowAnonymous, opts.MaxConnsPerIP = true, 3
		e := newEnv(t, opts, map[string]RoomType{"lobby": {}})
		for range 3 {
			e.join(t, "lobby")
		}
		if status, code := e.refused(t, "lobby"); status != 429 || code != "too_many_connections" {
			t.Fatalf("4th socket of one address = %d %s; want 429 too_many_connections", status, code)
		}
	})
	t.Run("per IPv6 /64", func(t *testing.T) {
		// One subscriber rotating through its /64 is one address.
		var n atomic.Int64
		opts := testOptions()
		opts.AllowAnonymous, opts.MaxConnsPerIP = true, 3
		opts.ClientIP = func(*http.Request) string { return fmt.Sprintf("2001:db8:1:2::%x", n.Add(1)) }
		e := newEnv(t, opts, map[string]RoomType{"lobby": {}})
		for range 3 {
			e.join(t, "lobby")
		}
		if status, code := e.refused(t, "lobby"); status != 429 || code != "too_many_connections" {
			t.Fatalf("4th socket of one /64 = %d %s; want 429 too_many_connections", status, code)
		}
		opts.ClientIP = func(*http.Request) string { return fmt.Sprintf("2001:db8:1:%x::1", n.Add(1)) }
		other := newEnv(t, opts, map[string]RoomType{"lobby": {}})
		for range 4 {
			other.join(t, "lobby") // four /64s: one socket each
		}
	})
	t.Run("rooms", func(t *testing.T) {
		opts := testOptions()
		opts.AllowAnonymous, opts.MaxRooms = true, 1
		e := newEnv(t, opts, map[string]RoomType{"solo": {MaxClients: 1, EmptyTimeout: -1}})
		e.join(t, "solo")
		if status, code := e.refused(t, "solo"); status != 503 || code != "too_many_rooms" {
			t.Fatalf("a 2nd room past MaxRooms 1 = %d %s; want 503 too_many_rooms", status, code)
		}
	})
	t.Run("clients per room", func(t *testing.T) {
		opts := testOptions()
		opts.AllowAnonymous, opts.MaxClientsPerRoom = true, 1
		e := newEnv(t, opts, map[string]RoomType{"open": {EmptyTimeout: -1}})
		c := e.join(t, "open")
		if status, code := e.refused(t, withQuery("open", "room", c.roomID)); status != 409 || code != "room_full" {
			t.Fatalf("2nd client past MaxClientsPerRoom 1 = %d %s; want 409 room_full", status, code)
		}
		list, _ := e.hub.List(context.Background())
		if len(list) != 1 || list[0].MaxClients != 1 {
			t.Fatalf("List = %+v; want the hub's cap as the room's MaxClients", list)
		}
	})
}

// TestMessageRateLimit: a client past its message burst is closed with
// CloseRateLimited; others stay.
func TestMessageRateLimit(t *testing.T) {
	opts := testOptions()
	opts.AllowAnonymous, opts.MessagesPerSecond, opts.MessageBurst = true, 0.5, 3
	got := make(chan string, 100)
	e := newEnv(t, opts, map[string]RoomType{"chat": {EmptyTimeout: -1,
		OnMessage: func(r *Room, c *Client, msg json.RawMessage) { got <- string(msg) }}})
	flood := e.join(t, "chat")
	calm := e.join(t, withQuery("chat", "room", flood.roomID))
	for i := range 10 {
		if err := flood.conn.WriteMessage(websocket.TextMessage, []byte(`{"n":1}`)); err != nil {
			if i <= 3 {
				t.Fatalf("write %d: %v", i, err)
			}
			break
		}
	}
	if ce := flood.closed(); ce.Code != CloseRateLimited {
		t.Fatalf("flooding client closed with %d %q; want %d", ce.Code, ce.Text, CloseRateLimited)
	}
	if n := len(got); n > 3 {
		t.Fatalf("%d messages delivered; want at most the burst of 3", n)
	}
	calm.send(`"hello"`)
	for m := range got {
		if m == `"hello"` {
			break
		}
	}
}

// TestCrossSiteWebSocketRefused: a page of another site cannot open a
// socket with the player's credentials (cross-site WebSocket hijacking);
// the same host and AllowedOrigins can.
func TestCrossSiteWebSocketRefused(t *testing.T) {
	opts := testOptions()
	opts.AllowAnonymous, opts.AllowedOrigins = true, []string{"https://play.example.com"}
	e := newEnv(t, opts, map[string]RoomType{"lobby": {}})
	dial := func(origin string) (int, error) {
		d := websocket.Dialer{HandshakeTimeout: testTimeout}
		conn, resp, err := d.Dial(e.url("lobby"), http.Header{"Origin": {origin}})
		if conn != nil {
			conn.Close()
		}
		if resp == nil {
			return 0, err
		}
		return resp.StatusCode, err
	}
	for _, origin := range []string{"https://evil.example", "null", "http://127.0.0.1.evil.example", "https://play.example.com.evil"} {
		if status, err := dial(origin); err == nil || status != 403 {
			t.Errorf("join from Origin %q = %d, %v; want 403", origin, status, err)
		}
	}
	self := "http://" + strings.TrimPrefix(e.srv.URL, "http://")
	for _, origin := range []string{self, "https://play.example.com", "https://PLAY.example.com"} {
		if status, err := dial(origin); err != nil {
			t.Errorf("join from Origin %q = %d, %v; want it admitted", origin, status, err)
		}
	}
}
