package live

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// testTimeout bounds every wait of the tests: long, since a wait ends as
// soon as what it waits for comes, and only a wait for what never comes
// takes it all.
const testTimeout = 30 * time.Second

// testOptions ping often, so the tests exercise pings, but give a client
// that has not come round to reading (a test busy elsewhere on a loaded
// machine) 20 s to answer and a write 10 s, rather than dropping it.
func testOptions() Options {
	return Options{WriteTimeout: 10 * time.Second, PongTimeout: 20 * time.Second, PingInterval: 500 * time.Millisecond}
}

// tokens is a test player store: token -> user id, with bans.
type tokens struct {
	mu     sync.Mutex
	users  map[string]string
	banned map[string]bool
}

func newTokens(pairs ...string) *tokens {
	tk := &tokens{users: map[string]string{}, banned: map[string]bool{}}
	for i := 0; i+1 < len(pairs); i += 2 {
		tk.users[pairs[i]] = pairs[i+1]
	}
	return tk
}

func (tk *tokens) authenticate(r *http.Request) (string, error) {
	tok := r.URL.Query().Get("token")
	if tok == "" {
		tok, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	if tok == "" {
		return "", nil
	}
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if id, ok := tk.users[tok]; ok {
		return id, nil
	}
	return "", errors.New("unknown token")
}

func (tk *tokens) isBanned(_ context.Context, userID string) (bool, error) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return tk.banned[userID], nil
}

func (tk *tokens) ban(userID string) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.banned[userID] = true
}

func (tk *tokens) revoke(token string) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	delete(tk.users, token)
}

// env is a hub served by an httptest server at /ws/.
type env struct {
	hub *Hub
	srv *httptest.Server
}

// newEnv starts a hub with types. On cleanup it closes the hub and the
// server, and then checks that the goroutine count settles back to where it
// was, so every test checks that Close stops everything it started.
func newEnv(t *testing.T, opts Options, types map[string]RoomType) *env {
	t.Helper()
	checkGoroutines(t)
	h := NewHub(opts)
	for name, rt := range types {
		h.Define(name, rt)
	}
	mux := http.NewServeMux()
	mux.Handle("/ws/", http.StripPrefix("/ws/", h))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close() = %v; want nil", err)
		}
		srv.Close()
	})
	return &env{hub: h, srv: srv}
}

// checkGoroutines fails the test when, at cleanup, the goroutine count does
// not settle back to its value now.
func checkGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(testTimeout)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				t.Fatalf("%d goroutines after cleanup; want at most %d\n%s", runtime.NumGoroutine(), before, buf[:n])
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func (e *env) url(path string) string {
	return "ws" + strings.TrimPrefix(e.srv.URL, "http") + "/ws/" + path
}

// dial opens a WebSocket to /ws/<path>; a refused handshake returns the
// response and its error body.
func (e *env) dial(t *testing.T, path string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: testTimeout}
	conn, resp, err := d.Dial(e.url(path), nil)
	if conn != nil {
		t.Cleanup(func() { conn.Close() })
	}
	return conn, resp, err
}

// refused dials /ws/<path> and returns the HTTP status and error code of the
// refusal.
func (e *env) refused(t *testing.T, path string) (int, string) {
	t.Helper()
	conn, resp, err := e.dial(t, path)
	if err == nil {
		conn.Close()
		t.Fatalf("dial %s succeeded; want it refused", path)
	}
	if resp == nil {
		t.Fatalf("dial %s: %v; want an HTTP refusal", path, err)
	}
	defer resp.Body.Close()
	var body struct{ Code string }
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &body)
	return resp.StatusCode, body.Code
}

// client is a test WebSocket client.
type client struct {
	t       *testing.T
	conn    *websocket.Conn
	roomID  string
	session string
}

// serverMsg is any server-to-client message.
type serverMsg struct {
	Type      string          `json:"type"`
	RoomID    string          `json:"roomId"`
	SessionID string          `json:"sessionId"`
	State     json.RawMessage `json:"state"`
	Data      json.RawMessage `json:"data"`
	Locked    bool            `json:"locked"`
	Reason    string          `json:"reason"`
}

// join connects to /ws/<path> and reads the joined and state messages.
func (e *env) join(t *testing.T, path string) *client {
	t.Helper()
	conn, resp, err := e.dial(t, path)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (status %d)", path, err, status)
	}
	c := &client{t: t, conn: conn}
	m := c.next()
	if m.Type != "joined" || m.RoomID == "" || m.SessionID == "" {
		t.Fatalf("first message at %s = %+v; want joined", path, m)
	}
	c.roomID, c.session = m.RoomID, m.SessionID
	if m := c.next(); m.Type != "state" {
		t.Fatalf("second message at %s = %+v; want state", path, m)
	}
	return c
}

func (c *client) next() serverMsg {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(testTimeout))
	_, b, err := c.conn.ReadMessage()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var m serverMsg
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("message %s: %v", b, err)
	}
	return m
}

// until reads until a message of type typ, skipping others.
func (c *client) until(typ string) serverMsg {
	c.t.Helper()
	for {
		if m := c.next(); m.Type == typ {
			return m
		}
	}
}

// closed reads until the connection ends and returns the close frame.
func (c *client) closed() *websocket.CloseError {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(testTimeout))
	for {
		_, _, err := c.conn.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) {
			c.t.Fatalf("read: %v; want a close frame", err)
		}
		return ce
	}
}

func (c *client) send(v string) {
	c.t.Helper()
	if err := c.conn.WriteMessage(websocket.TextMessage, []byte(v)); err != nil {
		c.t.Fatalf("write %s: %v", v, err)
	}
}

// eventually polls cond until it holds or the test times out.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// clientCount returns the clients of room id, -1 when it is gone.
func (e *env) clientCount(t *testing.T, id string) int {
	t.Helper()
	v, err := e.hub.Inspect(context.Background(), id)
	if err != nil {
		return -1
	}
	return len(v.ClientList)
}

func withQuery(path string, kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return path + "?" + q.Encode()
}
