package main

import (
	"encoding/json"
	"time"

	"context"
	"github.com/gorilla/websocket"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemo follows README.md's walk-through against the demo server on a
// fresh SQLite file: bootstrap, sign in as the seeded mod, reach the
// guarded routes, sign out.
func TestDemo(t *testing.T) {
	srv, token := startDemo(t)

	call := func(c *http.Client, method, path, body string) (int, string) {
		return do(t, srv, c, method, path, body)
	}
	newClient := func() *http.Client {
		jar, _ := cookiejar.New(nil)
		return &http.Client{Jar: jar}
	}
	root, mod := newClient(), newClient()
	steps := []struct {
		c          *http.Client
		method     string
		path, body string
		code       int
		contains   string
	}{
		{root, "GET", "/admin-api/auth/status", "", 200, `"needsBootstrap":true`},
		{root, "POST", "/admin-api/auth/bootstrap", `{"email":"me@example.com","password":"correct horse"}`, 403, "setup_token_required"},
		{root, "POST", "/admin-api/auth/bootstrap", `{"email":"me@example.com","password":"correct horse","token":"` + token + `"}`, 201, `"role":"admin"`},
		{root, "GET", "/monitor", "", 200, `"users":51`},
		{mod, "POST", "/admin-api/auth/login", `{"email":"player01@example.com","password":"player-password"}`, 200, `"role":"mod"`},
		{mod, "GET", "/playground", "", 200, "playground: hello"},
		{mod, "GET", "/monitor", "", 403, "requires role 'admin' or higher (you have 'mod')"},
		{mod, "POST", "/admin-api/auth/logout", "", 200, `"ok":true`},
		{mod, "GET", "/playground", "", 401, "unauthenticated"},
		{root, "POST", "/admin-api/auth/logout", "", 200, `"ok":true`},
	}
	for _, s := range steps {
		code, body := call(s.c, s.method, s.path, s.body)
		if code != s.code || !strings.Contains(body, s.contains) {
			t.Fatalf("%s %s = %d %s; want %d containing %q", s.method, s.path, code, body, s.code, s.contains)
		}
	}
}

// TestDemoGame plays the demo as a game would: a player signs in through
// the game's API, joins the arena over a WebSocket, another player there
// reports them (the report reaches the queue), an operator sees the
// room in the panel, uses the guilds resource and its actions, and bans
// the player, whose socket closes and whose login and join are refused.
func TestDemoGame(t *testing.T) {
	srv, token := startDemo(t)

	call := func(c *http.Client, method, path, body string) (int, string) {
		return do(t, srv, c, method, path, body)
	}
	// The first admin, then the game's own sign-in and a live connection.
	root, login := adminAndPlayer(t, srv, token)
	if code, _ := call(nil, "POST", "/api/auth/login", `{"email":"player07@example.com","password":"wrong"}`); code != 401 {
		t.Fatalf("player login with a wrong password = %d; want 401", code)
	}
	ws := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/arena"
	if _, res, err := websocket.DefaultDialer.Dial(ws+"?token=forged", nil); err == nil || res.StatusCode != 401 {
		t.Fatalf("join with a forged token = %v; want 401", err)
	}
	conn, _, err := websocket.DefaultDialer.Dial(ws, http.Header{"Authorization": {"Bearer " + login.Token}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var joined struct{ Type, RoomID, SessionID string }
	if err := conn.ReadJSON(&joined); err != nil || joined.Type != "joined" {
		t.Fatalf("first message = %+v, %v", joined, err)
	}
	conn.WriteJSON(map[string]string{"move": "up"})

	// Another player in the arena reports player07 by their session: the
	// report lands in the panel's queue, beside the seeded three.
	code, body := call(nil, "POST", "/api/auth/login", `{"email":"player08@example.com","password":"player-password"}`)
	var login8 struct{ Token string }
	if code != 200 || json.Unmarshal([]byte(body), &login8) != nil {
		t.Fatalf("player08 login = %d %s", code, body)
	}
	conn8, _, err := websocket.DefaultDialer.Dial(ws, http.Header{"Authorization": {"Bearer " + login8.Token}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn8.Close()
	var joined8 struct{ Type, RoomID string }
	if err := conn8.ReadJSON(&joined8); err != nil || joined8.RoomID != joined.RoomID {
		t.Fatalf("player08 joined %+v, %v; want room %s", joined8, err, joined.RoomID)
	}
	conn8.WriteJSON(map[string]any{"report": map[string]string{"session": joined.SessionID, "category": "abuse", "text": "rude in chat"}})
	for deadline := time.Now().Add(30 * time.Second); ; { // ends when the report comes
		_, body := call(root, "GET", "/admin-api/_reports?category=abuse&room="+joined.RoomID, "")
		if strings.Contains(body, `"player":{"id":"`+login.UserID+`","label":"Player 07"}`) && strings.Contains(body, `"text":"rude in chat"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the arena's report is not in the queue: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}

	steps := []struct {
		method, path, body string
		code               int
		contains           string
	}{
		{"GET", "/admin-api", "", 200, `"name":"guilds","label":"Guilds","icon":"team"`},
		{"GET", "/admin-api/guilds?_sort=name&_end=2", "", 200, `"name":"Crimson Tide"`},
		{"GET", "/admin-api/guilds?name_like=Wolves", "", 200, `"_labels":{"owner_id":"Player`},
		{"POST", "/admin-api/guilds", `{"name":"Test Guild","owner_id":"` + login.UserID + `"}`, 201, `"name":"Test Guild"`},
		{"POST", "/admin-api/guilds", `{"name":"Test Guild","owner_id":"x"}`, 409, `"code":"conflict"`},
		{"POST", "/admin-api/guilds", `{"name":"Orphans","owner_id":"not-a-user"}`, 400, `"code":"invalid_reference"`},
		{"POST", "/admin-api/guilds/_action/recount", `{}`, 200, `"result":{"Guilds":11,"Owners":`},
		{"POST", "/admin-api/guilds/_action/recount", `{"ids":[1,"2",11]}`, 200, `"result":{"Guilds":3,"Owners":`},
		{"POST", "/admin-api/guilds/_action/recount", `{"ids":[99]}`, 400, `"code":"unknown_id"`},
		{"POST", "/admin-api/guilds/_action/disband", `{"id":11}`, 200, `"disbanded":"Test Guild"`},
		{"GET", "/admin-api/rooms", "", 200, `"name":"arena","clients":2`}, // player07, and player08 who reported them
		{"GET", "/admin-api/rooms/" + joined.RoomID, "", 200, `"coinGoal":5`},
		{"PATCH", "/admin-api/rooms/" + joined.RoomID + "/state", `{"path":["coinGoal"],"value":9}`, 200, `"ok":true`},
		{"GET", "/admin-api/rooms/" + joined.RoomID, "", 200, `"coinGoal":9`},
		{"PATCH", "/admin-api/rooms/" + joined.RoomID + "/state", `{"path":["coinGoal"],"value":"lots"}`, 400, `"code":"invalid_value"`},
		{"PATCH", "/admin-api/rooms/" + joined.RoomID + "/state", `{"path":[],"value":null}`, 400, `"code":"invalid_path"`},
		{"PATCH", "/admin-api/rooms/" + joined.RoomID + "/state", `{"path":["players"],"value":null}`, 400, `"code":"invalid_value"`},
		{"GET", "/admin-api/_reports?category=cheating", "", 200, `"count":3,"filings":3`},
		{"GET", "/admin-api/_reports?category=cheating", "", 200, `"player":{"id":"` + login.UserID + `","label":"Player 07"}`},
		{"GET", "/admin-api/users/" + login.UserID + "/_counts", "", 200, `"activeSessions":1`},
		{"POST", "/admin-api/users/" + login.UserID + "/ban", `{"reason":"bot"}`, 200, `"sessionsClosed":1`},
	}
	for _, s := range steps {
		code, body := call(root, s.method, s.path, s.body)
		if code != s.code || !strings.Contains(body, s.contains) {
			t.Fatalf("%s %s = %d %s; want %d containing %q", s.method, s.path, code, body, s.code, s.contains)
		}
	}
	conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // ends at the close
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, 4000) {
				t.Fatalf("banned socket ended with %v; want close 4000 (kicked)", err)
			}
			break
		}
	}
	if code, _ := call(nil, "POST", "/api/auth/login", `{"email":"player07@example.com","password":"player-password"}`); code != 403 {
		t.Fatalf("banned player login = %d; want 403", code)
	}
	if _, res, err := websocket.DefaultDialer.Dial(ws, http.Header{"Authorization": {"Bearer " + login.Token}}); err == nil || res.StatusCode != 401 {
		t.Fatalf("banned player's old token joins = %v; want 401 (the ban revoked it)", err)
	}
}

// startDemo runs the demo game, seeded, on a fresh SQLite file, and
// returns its setup token: the one of the link it logs.
func startDemo(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	t.Setenv("ADMIN_JWT_SECRET", "demo secret demo secret demo secret!")
	db, err := openDB("sqlite:" + filepath.Join(t.TempDir(), "gameserver.db"))
	if err != nil {
		t.Fatal(err)
	}
	h, a, stop, err := setup(context.Background(), db, true, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		stop()
		db.Close()
	})
	link, err := url.Parse(a.SetupLink(context.Background()))
	if err != nil || link.Query().Get("token") == "" {
		t.Fatalf("setup link %q: want one with a token", link)
	}
	return srv, link.Query().Get("token")
}

// do sends one request with c (nil: no cookies) and returns status and body.
func do(t *testing.T, srv *httptest.Server, c *http.Client, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestWebhookSink: ADMIN_WEBHOOK_URL picks the kind from its host; a URL
// of another host is an error that does not repeat the URL's secret path.
func TestWebhookSink(t *testing.T) {
	tests := []struct {
		url     string
		wantErr bool
	}{
		{"", false},
		{"https://discord.com/api/webhooks/1/s3cret", false},
		{"https://hooks.slack.com/services/T/B/s3cret", false},
		{"https://chat.example.com/hooks/s3cret", true},
		{"http://discord.com/api/webhooks/1/s3cret", true},
	}
	for _, tt := range tests {
		t.Setenv("ADMIN_WEBHOOK_URL", tt.url)
		sink, err := webhookSink(slog.New(slog.DiscardHandler))
		if (err != nil) != tt.wantErr || (err == nil && (sink != nil) != (tt.url != "")) {
			t.Errorf("webhookSink(%q) = %v, %v; want error %v", tt.url, sink != nil, err, tt.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("webhookSink(%q) error %q holds the secret", tt.url, err)
		}
	}
}

// TestDemoReconnectionGrace: the arena keeps the seat of a player whose
// connection dropped and gives it back when they rejoin, but refuses it
// to one an operator kicked: a kick is not undone by reconnecting, and a
// seat kept from an earlier drop goes too.
func TestDemoReconnectionGrace(t *testing.T) {
	srv, token := startDemo(t)
	call := func(c *http.Client, method, path, body string) (int, string) {
		return do(t, srv, c, method, path, body)
	}
	root, login := adminAndPlayer(t, srv, token)
	ws := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/arena"
	type arenaState struct {
		Players map[string]struct {
			UserID string
			Score  int
		}
		Away map[string]struct{ Score int }
	}
	// join joins the arena (room "" for any) and returns the connection,
	// the room and session, and the player's seat as the state shows it.
	join := func(room string) (*websocket.Conn, string, string, int) {
		t.Helper()
		url := ws
		if room != "" {
			url += "?room=" + room
		}
		conn, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Authorization": {"Bearer " + login.Token}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		var joined struct{ Type, RoomID, SessionID string }
		if err := conn.ReadJSON(&joined); err != nil || joined.Type != "joined" {
			t.Fatalf("first message = %+v, %v", joined, err)
		}
		for {
			var m struct {
				Type  string
				State arenaState
			}
			if err := conn.ReadJSON(&m); err != nil {
				t.Fatal(err)
			}
			if p, ok := m.State.Players[joined.SessionID]; m.Type == "state" && ok {
				return conn, joined.RoomID, joined.SessionID, p.Score
			}
		}
	}
	// inspect polls the room until cond holds of its state.
	inspect := func(room, what string, cond func(arenaState) bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; {
			_, body := call(root, "GET", "/admin-api/rooms/"+room, "")
			var v struct{ State arenaState }
			if json.Unmarshal([]byte(body), &v) == nil && cond(v.State) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("never %s: %s", what, body)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	setScore := func(room, session string) {
		t.Helper()
		if code, body := call(root, "PATCH", "/admin-api/rooms/"+room+"/state", `{"path":["players","`+session+`","score"],"value":7}`); code != 200 {
			t.Fatalf("set the score = %d %s", code, body)
		}
	}

	conn, room, session, _ := join("")
	setScore(room, session)
	// The connection drops: no close frame, as when a phone loses its network.
	conn.NetConn().Close()
	inspect(room, "a seat kept for the dropped player", func(s arenaState) bool { return s.Away[login.UserID].Score == 7 })
	conn, _, session, score := join(room)
	if score != 7 {
		t.Fatalf("the dropped player's score on rejoining = %d; want their seat back (7)", score)
	}
	inspect(room, "the seat taken back", func(s arenaState) bool { _, kept := s.Away[login.UserID]; return !kept })

	// The player has a second connection in the arena. The first drops,
	// and during its grace an operator kicks the second: the kept seat is
	// refused too.
	second, _, secondSession, _ := join(room)
	setScore(room, session)
	conn.NetConn().Close()
	inspect(room, "a seat kept again", func(s arenaState) bool { return s.Away[login.UserID].Score == 7 })
	if code, body := call(root, "DELETE", "/admin-api/rooms/"+room+"/clients/"+secondSession, `{"reason":"griefing"}`); code != 200 {
		t.Fatalf("kick = %d %s", code, body)
	}
	second.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		if _, _, err := second.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, 4000) {
				t.Fatalf("the kicked socket ended with %v; want close 4000", err)
			}
			break
		}
	}
	// The kick's leave callback has run by the time the kick answers.
	_, body := call(root, "GET", "/admin-api/rooms/"+room, "")
	var after struct{ State arenaState }
	if err := json.Unmarshal([]byte(body), &after); err != nil {
		t.Fatal(err)
	}
	if _, kept := after.State.Away[login.UserID]; kept || len(after.State.Players) != 0 {
		t.Fatalf("the arena after the kick = %s; want no player and no seat kept for the kicked one", body)
	}
	if _, _, _, score := join(room); score != 0 {
		t.Fatalf("the kicked player's score on rejoining within the grace = %d; want a new seat (0), not theirs", score)
	}
}

// playerLogin is the game's answer to a player's sign-in.
type playerLogin struct{ Token, UserID string }

// adminAndPlayer bootstraps the demo's first admin with the setup token
// and signs player07 in through the game's own API: the admin's client
// and the player's token.
func adminAndPlayer(t *testing.T, srv *httptest.Server, token string) (*http.Client, playerLogin) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	root := &http.Client{Jar: jar}
	if code, body := do(t, srv, root, "POST", "/admin-api/auth/bootstrap", `{"email":"me@example.com","password":"correct horse","token":"`+token+`"}`); code != 201 {
		t.Fatalf("bootstrap = %d %s", code, body)
	}
	code, body := do(t, srv, nil, "POST", "/api/auth/login", `{"email":"player07@example.com","password":"player-password"}`)
	var login playerLogin
	if code != 200 || json.Unmarshal([]byte(body), &login) != nil || login.Token == "" {
		t.Fatalf("player login = %d %s", code, body)
	}
	return root, login
}
