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
	"github.com/gameadmin/admin/internal/testdb"
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
		RateLimit:      admin.RateLimitOptions{Login: admin.NoLimit, LoginFailuresPerEmail: admin.NoLimit},
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

func TestBanClosesEverySocket(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		cheater := w.user("cheater@example.com", admin.RoleUser)
		bystander := w.user("fair@example.com", admin.RoleUser)
		inArena := w.mustJoin("arena", cheater, "")
		inLobby := w.mustJoin("lobby", cheater, "")
		fair := w.mustJoin("arena", bystander, "")
		cheaterCookie := w.login("cheater@example.com")

		if got := root.want("GET", "/admin-api/rooms/by-user/"+cheater, nil, 200); got["_raw"] == nil {
			t.Fatalf("by-user = %v; want an array", got)
		}
		counts := root.want("GET", "/admin-api/users/"+cheater+"/_counts", nil, 200)
		if counts["activeSessions"] != 2.0 {
			t.Fatalf("_counts = %v; want activeSessions 2", counts)
		}

		until := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Second)
		res := root.want("POST", "/admin-api/users/"+cheater+"/ban", map[string]any{"reason": "wallhack", "until": until}, 200)
		if res["ok"] != true || res["sessionsClosed"] != 2.0 {
			t.Fatalf("ban = %v; want ok and sessionsClosed 2", res)
		}
		for _, p := range []*player{inArena, inLobby} {
			if kicked := p.next(t, "kicked"); kicked["reason"] != "banned" {
				t.Fatalf("kicked = %v; want reason banned", kicked)
			}
			if code, _ := p.waitClosed(t); code != live.CloseKicked {
				t.Fatalf("close code = %d; want %d", code, live.CloseKicked)
			}
		}
		// The bystander stays; the cheater cannot come back nor use the panel.
		fair.conn.WriteJSON("still here")
		if _, res, err := w.join("arena", cheater, ""); err == nil || res == nil || res.StatusCode != 403 {
			t.Fatalf("rejoin after ban = %v; want 403", err)
		}
		if code, _ := cheaterCookie.do("GET", "/admin-api/auth/me", nil); code != 401 {
			t.Fatalf("banned user's session = %d; want 401", code)
		}
		rows := w.audit("user.ban")
		if len(rows) != 1 || rows[0].TargetID != cheater || rows[0].Payload["reason"] != "wallhack" || rows[0].Payload["sessionsClosed"] != 2.0 ||
			rows[0].Payload["ip"] != "127.0.0.1" || rows[0].Payload["userAgent"] == nil || rows[0].Payload["until"] == nil {
			t.Fatalf("user.ban audit = %+v", rows)
		}

		root.want("POST", "/admin-api/users/"+cheater+"/unban", nil, 200)
		w.mustJoin("arena", cheater, "")
		if len(w.audit("user.unban")) != 1 {
			t.Fatal("no user.unban audit row")
		}
	})
}

func TestRevokeSessionsClosesSockets(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		id := w.user("p@example.com", admin.RoleUser)
		panel := w.login("p@example.com")
		p := w.mustJoin("lobby", id, "")
		res := root.want("POST", "/admin-api/users/"+id+"/revoke-sessions", nil, 200)
		if res["sessionsClosed"] != 1.0 {
			t.Fatalf("revoke = %v; want sessionsClosed 1", res)
		}
		p.waitClosed(t)
		if code, _ := panel.do("GET", "/admin-api/auth/me", nil); code != 401 {
			t.Fatalf("revoked session = %d; want 401", code)
		}
		if rows := w.audit("user.revoke_sessions"); len(rows) != 1 || rows[0].Payload["sessionsClosed"] != 1.0 {
			t.Fatalf("user.revoke_sessions audit = %+v", rows)
		}
	})
}

func TestModerationBadInput(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		rootID := w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		id := w.user("p@example.com", admin.RoleUser)
		modID := w.user("mod@example.com", admin.RoleMod, "users")
		mod := w.login("mod@example.com")
		tests := []struct {
			name   string
			o      *operator
			path   string
			body   any
			code   int
			errKey string
		}{
			{"reason too long", root, "/admin-api/users/" + id + "/ban", map[string]any{"reason": strings.Repeat("x", 501)}, 400, "invalid_value"},
			{"until not a time", root, "/admin-api/users/" + id + "/ban", map[string]any{"until": "tomorrow"}, 400, "invalid_body"},
			{"until in the past", root, "/admin-api/users/" + id + "/ban", map[string]any{"until": time.Now().Add(-time.Hour)}, 400, "invalid_value"},
			{"unknown field", root, "/admin-api/users/" + id + "/ban", map[string]any{"forever": true}, 400, "unknown_field"},
			{"unknown user", root, "/admin-api/users/nobody/ban", nil, 404, "not_found"},
			{"self", root, "/admin-api/users/" + rootID + "/ban", nil, 400, "self_moderation"},
			{"mod bans admin", mod, "/admin-api/users/" + rootID + "/ban", nil, 403, "forbidden"},
			{"mod bans mod", mod, "/admin-api/users/" + modID + "/revoke-sessions", nil, 400, "self_moderation"},
			{"unknown op", root, "/admin-api/users/" + id + "/explode", nil, 404, "not_found"},
			{"not users", root, "/admin-api/configs/" + id + "/ban", nil, 404, "not_found"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				code, body := tt.o.do("POST", tt.path, tt.body)
				if code != tt.code || body["code"] != tt.errKey {
					t.Fatalf("POST %s = %d %v; want %d %s", tt.path, code, body, tt.code, tt.errKey)
				}
			})
		}
		// A mod scoped to users may ban a plain user.
		mod.want("POST", "/admin-api/users/"+id+"/ban", map[string]any{"reason": "spam"}, 200)
		if b, _ := w.admin.Auth().Banned(context.Background(), id); b == nil || b.BannedBy != modID {
			t.Fatalf("ban = %+v; want one by the mod", b)
		}
	})
}

// TestModerationWithoutColumns: a users table without ban and
// token_version answers 501.
func TestModerationWithoutColumns(t *testing.T) {
	type Player struct {
		ID           int64  `bun:"id,pk,autoincrement"`
		Email        string `bun:"email,notnull,unique"`
		PasswordHash string `bun:"password_hash,nullzero"`
	}
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := db.NewCreateTable().Model((*Player)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		tables := admin.BuiltinTables()
		tables["users"] = (*Player)(nil)
		a, err := admin.New(db, admin.Options{Secret: []byte("0123456789abcdef0123456789abcdef-rooms"), Tables: tables,
			PasswordHasher: admin.Argon2id{Memory: 64, Time: 1, Threads: 1}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		h, _ := a.Auth().HashPassword(ctx, "root password")
		p := &Player{Email: "root@example.com", PasswordHash: h}
		if _, err := db.NewInsert().Model(p).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Moderation().SetRole(ctx, "1", admin.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(a)
		defer srv.Close()
		w := &world{t: t, srv: srv}
		jar, _ := cookiejar.New(nil)
		o := &operator{w: w, hc: &http.Client{Jar: jar}}
		o.want("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "root password"}, 200)
		for _, op := range []string{"ban", "unban", "revoke-sessions"} {
			if code, body := o.do("POST", "/admin-api/users/2/"+op, nil); code != 501 || body["code"] != "unsupported" {
				t.Fatalf("POST users/2/%s = %d %v; want 501 unsupported", op, code, body)
			}
		}
	})
}
