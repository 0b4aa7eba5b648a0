package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/live"
	"github.com/gorilla/websocket"
	"github.com/uptrace/bun"
)

// world is a panel with a live hub of two room types, behind one server.
// Players authenticate to the hub with ?user=<id> (the test stands in for
// the game's token check); the hub refuses banned users through the panel.
type world struct {
	t     *testing.T
	db    *bun.DB
	admin *admin.Admin
	hub   *live.Hub
	srv   *httptest.Server
}

func newWorld(t *testing.T, db *bun.DB, withRooms bool) *world {
	t.Helper()
	w := &world{t: t, db: db}
	w.hub = live.NewHub(live.Options{
		Authenticate: func(r *http.Request) (string, error) { return r.URL.Query().Get("user"), nil },
		IsBanned: func(ctx context.Context, userID string) (bool, error) {
			b, err := w.admin.Auth().Banned(ctx, userID)
			return b != nil, err
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	for _, name := range []string{"arena", "lobby"} {
		w.hub.Define(name, live.RoomType{MaxClients: 10, EmptyTimeout: -1, NewState: func() any {
			return map[string]any{"score": map[string]any{"red": 1.0}, "items": []any{"sword", "shield"}}
		}})
	}
	opts := admin.Options{
		Secret:         []byte("0123456789abcdef0123456789abcdef-rooms"),
		PasswordHasher: admin.Argon2id{Memory: 64, Time: 1, Threads: 1},
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		RateLimit:      admin.RateLimitOptions{Login: admin.NoLimit{}, LoginFailuresPerEmail: admin.NoLimit{}, LoginFailuresPerNetwork: admin.NoLimit{}, PerIP: admin.NoLimit{}},
	}
	if withRooms {
		opts.Rooms = w.hub
	}
	a, err := admin.New(db, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.admin = a
	mux := http.NewServeMux()
	a.Mount(mux)
	mux.Handle("/ws/", http.StripPrefix("/ws/", w.hub))
	w.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		w.srv.Close()
		w.hub.Close()
		a.Close()
	})
	return w
}

// user creates a user with a password and returns its id.
func (w *world) user(email string, role admin.Role, scopes ...string) string {
	w.t.Helper()
	ctx := context.Background()
	u := &admin.User{Email: email}
	h, err := w.admin.Auth().HashPassword(ctx, "password "+email)
	if err != nil {
		w.t.Fatal(err)
	}
	u.PasswordHash = h
	if _, err := w.db.NewInsert().Model(u).Exec(ctx); err != nil {
		w.t.Fatal(err)
	}
	if role != admin.RoleUser {
		if err := w.admin.Moderation().SetRole(ctx, u.ID, role); err != nil {
			w.t.Fatal(err)
		}
	}
	for _, s := range scopes {
		if err := w.admin.Moderation().AssignMod(ctx, u.ID, s); err != nil {
			w.t.Fatal(err)
		}
	}
	return u.ID
}

// operator is a signed-in HTTP client.
type operator struct {
	w  *world
	hc *http.Client
}

func (w *world) login(email string) *operator {
	w.t.Helper()
	jar, _ := cookiejar.New(nil)
	o := &operator{w: w, hc: &http.Client{Jar: jar}}
	if code, body := o.do("POST", "/admin-api/auth/login", map[string]any{"email": email, "password": "password " + email}); code != 200 {
		w.t.Fatalf("login %s = %d %s", email, code, body)
	}
	return o
}

func (o *operator) do(method, path string, body any) (int, map[string]any) {
	o.w.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, o.w.srv.URL+path, rd)
	res, err := o.hc.Do(req)
	if err != nil {
		o.w.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		m = map[string]any{"_raw": string(raw)}
	}
	return res.StatusCode, m
}

func (o *operator) want(method, path string, body any, code int) map[string]any {
	o.w.t.Helper()
	got, m := o.do(method, path, body)
	if got != code {
		o.w.t.Fatalf("%s %s = %d %v; want %d", method, path, got, m, code)
	}
	return m
}

// player is a live WebSocket connection with its messages on a channel.
type player struct {
	conn   *websocket.Conn
	msgs   chan map[string]any
	closed chan *websocket.CloseError
	roomID string
	sid    string
}

func (w *world) join(roomType, userID, roomID string) (*player, *http.Response, error) {
	url := "ws" + strings.TrimPrefix(w.srv.URL, "http") + "/ws/" + roomType + "?user=" + userID
	if roomID != "" {
		url += "&room=" + roomID
	}
	conn, res, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		return nil, res, err
	}
	p := &player{conn: conn, msgs: make(chan map[string]any, 64), closed: make(chan *websocket.CloseError, 1)}
	go func() {
		for {
			var m map[string]any
			if err := conn.ReadJSON(&m); err != nil {
				var ce *websocket.CloseError
				if !errors.As(err, &ce) {
					ce = &websocket.CloseError{Code: -1, Text: err.Error()}
				}
				p.closed <- ce
				close(p.msgs)
				return
			}
			p.msgs <- m
		}
	}()
	w.t.Cleanup(func() { conn.Close() })
	joined := p.next(w.t, "joined")
	p.roomID, p.sid = joined["roomId"].(string), joined["sessionId"].(string)
	p.next(w.t, "state")
	return p, res, nil
}

func (w *world) mustJoin(roomType, userID, roomID string) *player {
	w.t.Helper()
	p, res, err := w.join(roomType, userID, roomID)
	if err != nil {
		code := 0
		if res != nil {
			code = res.StatusCode
		}
		w.t.Fatalf("join %s as %s = %v (HTTP %d)", roomType, userID, err, code)
	}
	return p
}

// next waits for the next message of the given type.
func (p *player) next(t *testing.T, typ string) map[string]any {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				t.Fatalf("connection closed while waiting for %q", typ)
			}
			if m["type"] == typ {
				return m
			}
		case <-timeout:
			t.Fatalf("no %q message in 5s", typ)
		}
	}
}

// waitClosed waits for the close frame and returns its code and text.
func (p *player) waitClosed(t *testing.T) (int, string) {
	t.Helper()
	for {
		select {
		case _, ok := <-p.msgs:
			if ok {
				continue
			}
			ce := <-p.closed
			return ce.Code, ce.Text
		case <-time.After(5 * time.Second):
			t.Fatal("connection not closed in 5s")
		}
	}
}

func (w *world) audit(action string) []admin.AuditEntry {
	w.t.Helper()
	var rows []admin.AuditEntry
	if err := w.db.NewSelect().Model(&rows).Where("action = ?", action).Order("id").Scan(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	return rows
}
