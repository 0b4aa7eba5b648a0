package admintest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/live"
	"github.com/gorilla/websocket"
	"github.com/uptrace/bun"
)

// world is a panel with a live hub of two room types, behind one server.
// Players authenticate to the hub with ?user=<id> (the test stands in for
// the game's token check); the hub refuses banned users through the panel.
// tweak, when given, changes the panel's options before New (its Rooms is
// the hub, when withRooms).
type world struct {
	t     *testing.T
	db    *bun.DB
	admin *admin.Admin
	hub   *live.Hub
	srv   *httptest.Server
}

func newWorld(t *testing.T, db *bun.DB, withRooms bool, tweak ...func(*admin.Options)) *world {
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
		// The rooms' tests check what a plain user may do when
		// players can read the panel.
		PlayersCanRead: true,
	}
	if withRooms {
		opts.Rooms = w.hub
	}
	for _, f := range tweak {
		f(&opts)
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
	timeout := time.After(30 * time.Second) // spent only when the message never comes
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
			t.Fatalf("no %q message in 30s", typ)
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
		case <-time.After(30 * time.Second):
			t.Fatal("connection not closed in 30s")
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

// typedArena is a game state of Go types whose OnJoin writes into a map, as
// the demo's arena does: a nil map there panics the room.
type typedArena struct {
	Players map[string]int `json:"players"`
	Round   int            `json:"round"`
}

// TestRoomStateEditsTheGameCannotHold: a mod with update rights cannot wipe
// the state (an empty path), null a map or a number, nor delete a struct
// field; the room keeps running, and the next join does not panic it.
func TestRoomStateEditsTheGameCannotHold(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.hub.Define("typed", live.RoomType{EmptyTimeout: -1,
			NewState: func() any { return &typedArena{Players: map[string]int{}} },
			OnJoin: func(r *live.Room, c *live.Client) {
				r.State().(*typedArena).Players[c.SessionID()] = 1
			}})
		w.user("mod@example.com", admin.RoleMod, "rooms")
		mod := w.login("mod@example.com")
		p := w.mustJoin("typed", w.user("p@example.com", admin.RoleUser), "")
		state := "/admin-api/rooms/" + p.roomID + "/state"

		for _, tt := range []struct {
			name, method string
			body         map[string]any
			code         string
		}{
			{"wipe with an empty path", "PATCH", map[string]any{"path": []any{}, "value": nil}, "invalid_path"},
			{"replace with an empty path", "PATCH", map[string]any{"path": []any{}, "value": map[string]any{"round": 3}}, "invalid_path"},
			{"delete with an empty path", "DELETE", map[string]any{"path": []any{}}, "invalid_path"},
			{"null a map", "PATCH", map[string]any{"path": []any{"players"}, "value": nil}, "invalid_value"},
			{"null a number", "PATCH", map[string]any{"path": []any{"round"}, "value": nil}, "invalid_value"},
			{"a string for a number", "PATCH", map[string]any{"path": []any{"round"}, "value": "x"}, "invalid_value"},
			{"delete a struct field", "DELETE", map[string]any{"path": []any{"players"}}, "invalid_value"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				if got := mod.want(tt.method, state, tt.body, 400); got["code"] != tt.code {
					t.Fatalf("%s %v = %v; want code %s", tt.method, tt.body, got, tt.code)
				}
			})
		}
		mod.want("PATCH", state, map[string]any{"path": []any{"round"}, "value": 7}, 200)
		// The room runs on: a second player joins, and the first is not
		// closed with 1011.
		w.mustJoin("typed", w.user("q@example.com", admin.RoleUser), p.roomID)
		view := mod.want("GET", "/admin-api/rooms/"+p.roomID, nil, 200)
		if view["clients"] != 2.0 || view["state"].(map[string]any)["round"] != 7.0 {
			t.Fatalf("room after the refused edits = %v; want 2 clients and round 7", view)
		}
	})
}

// TestDashboardLiveRoomsNeedRoomsScope: the dashboard shows live rooms only
// to an operator who may list them (GET /rooms' rule); to one who may not,
// neither they nor the other widgets of what they may not list (the audit
// log's, the users') are on the dashboard at all, rather than shown empty.
func TestDashboardLiveRoomsNeedRoomsScope(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("cfg@example.com", admin.RoleMod, "configs")
		w.user("rooms@example.com", admin.RoleMod, "rooms")
		w.mustJoin("arena", w.user("p@example.com", admin.RoleUser), "")
		widgets := func(o *operator) map[string]map[string]any {
			t.Helper()
			out := map[string]map[string]any{}
			for _, wd := range o.want("GET", "/admin-api/_dashboard", nil, 200)["widgets"].([]any) {
				m := wd.(map[string]any)
				out[m["id"].(string)] = m
			}
			return out
		}
		cfg := w.login("cfg@example.com")
		cfg.want("GET", "/admin-api/rooms", nil, 403)
		for id := range widgets(cfg) {
			if id != "today" && id != "totals" && id != "health" { // the stats say what they may count
				t.Errorf("mod with only the configs scope is shown the %s widget", id)
			}
		}
		ws := widgets(w.login("rooms@example.com"))
		if rooms, _ := ws["liveRooms"]["data"].([]any); len(rooms) != 1 {
			t.Fatalf("mod with the rooms scope sees %v; want the one room", ws["liveRooms"])
		}
		if ws["recentModeration"] != nil || ws["auditEvents"] != nil || ws["playersOnline"] == nil {
			t.Errorf("mod with the rooms scope is shown %v; want the rooms' widgets and no audit log's", slices.Collect(maps.Keys(ws)))
		}
	})
}

// TestRoomOperations: kick, lock, state edit and delete, dispose, each
// visible to real WebSocket clients and audited.
func TestRoomOperations(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		alice, bob := w.user("alice@example.com", admin.RoleUser), w.user("bob@example.com", admin.RoleUser)
		pa := w.mustJoin("arena", alice, "")
		pb := w.mustJoin("arena", bob, "")
		room := pa.roomID
		if pb.roomID != room {
			t.Fatalf("players in rooms %s and %s; want one room", room, pb.roomID)
		}

		code, _ := root.do("GET", "/admin-api/rooms", nil)
		if code != 200 {
			t.Fatalf("GET /rooms = %d", code)
		}
		rooms, _ := w.hub.List(t.Context())
		if len(rooms) != 1 || rooms[0].Clients != 2 {
			t.Fatalf("rooms = %+v; want one room with 2 clients", rooms)
		}
		view := root.want("GET", "/admin-api/rooms/"+room, nil, 200)
		if view["roomId"] != room || view["name"] != "arena" || len(view["clientList"].([]any)) != 2 || view["state"] == nil {
			t.Fatalf("inspect = %v", view)
		}
		root.want("GET", "/admin-api/rooms/nope", nil, 404)

		// State edit and delete reach the clients.
		root.want("PATCH", "/admin-api/rooms/"+room+"/state", map[string]any{"path": []any{"score", "red"}, "value": 5}, 200)
		if s := pa.next(t, "state")["state"].(map[string]any); s["score"].(map[string]any)["red"] != 5.0 {
			t.Fatalf("state after edit = %v; want score.red 5", s)
		}
		root.want("DELETE", "/admin-api/rooms/"+room+"/state", map[string]any{"path": []any{"items", 0}}, 200)
		if s := pa.next(t, "state")["state"].(map[string]any); len(s["items"].([]any)) != 1 || s["items"].([]any)[0] != "shield" {
			t.Fatalf("state after delete = %v; want items [shield]", s)
		}
		for _, bad := range []map[string]any{
			{"path": []any{"items", 9}, "value": 1},
			{"path": []any{"score", "red", "deeper"}, "value": 1},
			{"path": []any{true}, "value": 1},
			{"path": []any{"items", -1}, "value": 1},
		} {
			if code, body := root.do("PATCH", "/admin-api/rooms/"+room+"/state", bad); code != 400 || body["code"] != "invalid_path" {
				t.Fatalf("edit %v = %d %v; want 400 invalid_path", bad, code, body)
			}
		}
		if code, body := root.do("PATCH", "/admin-api/rooms/"+room+"/state", map[string]any{"path": []any{"x"}}); code != 400 || body["code"] != "missing_field" {
			t.Fatalf("edit without value = %d %v; want 400 missing_field", code, body)
		}

		// Kick.
		kicked := pb.sid
		root.want("DELETE", "/admin-api/rooms/"+room+"/clients/"+kicked, map[string]any{"reason": "afk"}, 200)
		if k := pb.next(t, "kicked"); k["reason"] != "afk" {
			t.Fatalf("kicked = %v; want reason afk", k)
		}
		if code, _ := pb.waitClosed(t); code != live.CloseKicked {
			t.Fatalf("kick close code = %d", code)
		}
		root.want("DELETE", "/admin-api/rooms/"+room+"/clients/nobody", nil, 404)

		// Lock refuses new joins; unlock lets them in.
		root.want("PATCH", "/admin-api/rooms/"+room, map[string]any{"locked": true}, 200)
		if _, res, err := w.join("arena", bob, room); err == nil || res == nil || res.StatusCode != 409 {
			t.Fatalf("join a locked room = %v; want 409", err)
		}
		root.want("PATCH", "/admin-api/rooms/"+room, map[string]any{"locked": false}, 200)
		pb = w.mustJoin("arena", bob, room)
		root.want("PATCH", "/admin-api/rooms/"+room, map[string]any{}, 400)

		// Dispose closes everyone.
		root.want("DELETE", "/admin-api/rooms/"+room, nil, 200)
		for _, p := range []*player{pa, pb} {
			if code, _ := p.waitClosed(t); code != live.CloseDisposed {
				t.Fatalf("dispose close code = %d; want %d", code, live.CloseDisposed)
			}
		}
		root.want("GET", "/admin-api/rooms/"+room, nil, 404)

		for action, n := range map[string]int{"room.kick": 1, "room.lock": 1, "room.unlock": 1, "room.state.edit": 1, "room.state.delete": 1, "room.dispose": 1} {
			rows := w.audit(action)
			if len(rows) != n || rows[0].TargetID != room || rows[0].Resource != "rooms" || rows[0].Payload["ip"] != "127.0.0.1" || rows[0].Payload["userAgent"] == nil {
				t.Fatalf("%s audit = %+v; want %d row with room, ip and userAgent", action, rows, n)
			}
		}
		if k := w.audit("room.kick")[0].Payload; k["sessionId"] != kicked || k["reason"] != "afk" || k["userId"] != bob || k["roomName"] != "arena" {
			t.Fatalf("room.kick payload = %v; want the session, the reason, bob's id and the room's name", k)
		}
		// The audit log's search finds the kick by the player's email, and
		// names the player; the catalog says the action in words.
		_, found := root.do("GET", "/admin-api/adminAudit?_q="+url.QueryEscape("bob@example.com"), nil)
		var entries []map[string]any
		if err := json.Unmarshal([]byte(found["_raw"].(string)), &entries); err != nil {
			t.Fatalf("audit _q=bob = %v: %v", found, err)
		}
		var kick map[string]any
		for _, en := range entries {
			if en["action"] == "room.kick" {
				kick = en
			}
		}
		if labels, _ := kick["_labels"].(map[string]any); kick == nil || labels["player"] != "bob@example.com" {
			t.Fatalf("audit _q=bob@example.com = %v; want the kick, its player labelled", entries)
		}
		// The player's own history has the kick, with the entries about
		// their row; another player's has not.
		history := func(id string) []map[string]any {
			_, h := root.do("GET", "/admin-api/users/"+url.PathEscape(id)+"/_history", nil)
			var out []map[string]any
			if err := json.Unmarshal([]byte(h["_raw"].(string)), &out); err != nil {
				t.Fatalf("history of %s = %v: %v", id, h, err)
			}
			return out
		}
		kicks := func(entries []map[string]any) int {
			n := 0
			for _, en := range entries {
				if en["action"] == "room.kick" {
					n++
				}
			}
			return n
		}
		if h := history(bob); kicks(h) != 1 {
			t.Fatalf("bob's history = %v; want his kick", h)
		}
		if h := history(alice); kicks(h) != 0 {
			t.Fatalf("alice's history = %v; want no kick, it was bob's", h)
		}
		_, cat := root.do("GET", "/admin-api", nil)
		var resources []struct {
			Name         string            `json:"name"`
			AuditActions map[string]string `json:"auditActions"`
		}
		if err := json.Unmarshal([]byte(cat["_raw"].(string)), &resources); err != nil {
			t.Fatal(err)
		}
		for _, r := range resources {
			if r.Name == "adminAudit" && r.AuditActions["room.kick"] != "Kicked" {
				t.Fatalf("adminAudit's auditActions = %v; want room.kick labelled Kicked", r.AuditActions)
			}
		}
	})
}

// TestRoomScopes: a mod needs the rooms scope; with it, a mod may list,
// inspect, kick and lock but not dispose; without Rooms every endpoint is 501.
func TestRoomScopes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("scoped@example.com", admin.RoleMod, "rooms")
		w.user("unscoped@example.com", admin.RoleMod, "users")
		scoped, unscoped := w.login("scoped@example.com"), w.login("unscoped@example.com")
		p := w.mustJoin("arena", w.user("p@example.com", admin.RoleUser), "")
		room := p.roomID
		tests := []struct {
			o      *operator
			method string
			path   string
			body   any
			code   int
		}{
			{unscoped, "GET", "/admin-api/rooms", nil, 403},
			{unscoped, "GET", "/admin-api/rooms/" + room, nil, 403},
			{unscoped, "DELETE", "/admin-api/rooms/" + room + "/clients/" + p.sid, nil, 403},
			{unscoped, "PATCH", "/admin-api/rooms/" + room, map[string]any{"locked": true}, 403},
			{scoped, "GET", "/admin-api/rooms", nil, 200},
			{scoped, "GET", "/admin-api/rooms/" + room, nil, 200},
			{scoped, "PATCH", "/admin-api/rooms/" + room, map[string]any{"locked": true}, 200},
			{scoped, "DELETE", "/admin-api/rooms/" + room, nil, 403},
			{scoped, "DELETE", "/admin-api/rooms/" + room + "/clients/" + p.sid, nil, 200},
		}
		for _, tt := range tests {
			if code, body := tt.o.do(tt.method, tt.path, tt.body); code != tt.code {
				t.Fatalf("%s %s = %d %v; want %d", tt.method, tt.path, code, body, tt.code)
			}
		}

		none := newWorld(t, db, false)
		none.user("root2@example.com", admin.RoleAdmin)
		root := none.login("root2@example.com")
		for _, path := range []string{"/admin-api/rooms", "/admin-api/rooms/x", "/admin-api/rooms/by-user/x"} {
			if code, body := root.do("GET", path, nil); code != 501 || body["code"] != "rooms_unsupported" {
				t.Fatalf("GET %s without Rooms = %d %v; want 501", path, code, body)
			}
		}
	})
}

// A kick is moderation of the player it ends: nobody kicks their own
// game session, a mod kicks no admin's or fellow mod's, and a refused
// kick leaves the session in its room with no room.kick entry.
func TestRoomKickFollowsTheHierarchy(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		rootID := w.user("root@example.com", admin.RoleAdmin)
		modID := w.user("mod@example.com", admin.RoleMod, "rooms")
		otherID := w.user("other@example.com", admin.RoleMod, "rooms")
		playerID := w.user("p@example.com", admin.RoleUser)
		root, mod := w.login("root@example.com"), w.login("mod@example.com")
		own, peer, boss := w.mustJoin("arena", modID, ""), w.mustJoin("arena", otherID, ""), w.mustJoin("arena", rootID, "")
		room := own.roomID
		p := w.mustJoin("arena", playerID, room)
		kick := func(o *operator, s *player) (int, map[string]any) {
			return o.do("DELETE", "/admin-api/rooms/"+s.roomID+"/clients/"+s.sid, map[string]any{"reason": "test"})
		}
		for _, tt := range []struct {
			s    *player
			code int
			err  string
		}{{own, 400, "self_moderation"}, {peer, 403, "forbidden"}, {boss, 403, "forbidden"}} {
			if code, body := kick(mod, tt.s); code != tt.code || body["code"] != tt.err {
				t.Errorf("the mod's kick of %s = %d %v; want %d %s", tt.s.sid, code, body, tt.code, tt.err)
			}
		}
		if code, body := kick(root, boss); code != 400 || body["code"] != "self_moderation" {
			t.Errorf("the admin's kick of their own session = %d %v; want 400 self_moderation", code, body)
		}
		v, err := w.hub.Inspect(t.Context(), room)
		if err != nil || len(v.ClientList) != 4 {
			t.Fatalf("the room after the refused kicks = %+v, %v; want all 4 clients", v, err)
		}
		var n int64
		if n, err = db.NewSelect().Table("game_admin_audit").Where("action = 'room.kick'").Count(t.Context()); err != nil || n != 0 {
			t.Fatalf("room.kick entries after the refusals = %d, %v; want none", n, err)
		}
		// The mod kicks a player; the admin kicks the mod.
		if code, body := kick(mod, p); code != 200 {
			t.Errorf("the mod's kick of a player = %d %v; want 200", code, body)
		}
		if code, body := kick(root, peer); code != 200 {
			t.Errorf("the admin's kick of a mod = %d %v; want 200", code, body)
		}
	})
}
