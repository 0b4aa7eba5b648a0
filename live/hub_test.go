package live

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/gameadmin/admin/rooms"
	"github.com/gorilla/websocket"
)

func anonymous() Options {
	o := testOptions()
	o.AllowAnonymous = true
	return o
}

func TestJoinLeave(t *testing.T) {
	var joins, leaves int // only touched on the room goroutine, read via Do
	e := newEnv(t, anonymous(), map[string]RoomType{
		"lobby": {
			OnJoin:  func(*Room, *Client) { joins++ },
			OnLeave: func(*Room, *Client) { leaves++ },
		},
		"keep": {EmptyTimeout: -1},
	})
	ctx := context.Background()
	a := e.join(t, "lobby")
	b := e.join(t, "lobby")
	if a.roomID != b.roomID {
		t.Fatalf("second join went to %s; want the first room %s", b.roomID, a.roomID)
	}
	v, err := e.hub.Inspect(ctx, a.roomID)
	if err != nil || v.Clients != 2 || len(v.ClientList) != 2 || v.ClientList[0].SessionID != a.session || v.Name != "lobby" {
		t.Fatalf("Inspect(%s) = %+v, %v; want 2 clients, %s first", a.roomID, v, err, a.session)
	}
	a.conn.Close()
	eventually(t, "a to leave", func() bool { return e.clientCount(t, a.roomID) == 1 })
	b.conn.Close()
	eventually(t, "the empty room to be disposed", func() bool { return e.clientCount(t, a.roomID) == -1 })
	if l, _ := e.hub.List(ctx); len(l) != 0 {
		t.Errorf("List() = %+v; want no rooms", l)
	}
	if joins != 2 || leaves != 2 {
		t.Errorf("OnJoin ran %d times, OnLeave %d; want 2 and 2", joins, leaves)
	}

	k := e.join(t, "keep")
	k.conn.Close()
	eventually(t, "the client to leave", func() bool { return e.clientCount(t, k.roomID) == 0 })
	if l, _ := e.hub.List(ctx); len(l) != 1 || l[0].RoomID != k.roomID {
		t.Errorf("List() = %+v; want the kept room %s", l, k.roomID)
	}
}

func TestMessages(t *testing.T) {
	e := newEnv(t, anonymous(), map[string]RoomType{
		"echo": {OnMessage: func(r *Room, c *Client, msg json.RawMessage) {
			_ = r.Broadcast(map[string]any{"from": c.SessionID(), "msg": msg})
		}},
	})
	a := e.join(t, "echo")
	b := e.join(t, "echo")
	a.send(`{"hello":1}`)
	for _, c := range []*client{a, b} {
		m := c.until("message")
		var got struct {
			From string
			Msg  map[string]int
		}
		if err := json.Unmarshal(m.Data, &got); err != nil || got.From != a.session || got.Msg["hello"] != 1 {
			t.Errorf("message data = %s; want from %s with hello 1", m.Data, a.session)
		}
	}
	b.send(`not json`)
	if ce := b.closed(); ce.Code != websocket.CloseInvalidFramePayloadData {
		t.Errorf("close after invalid JSON = %v; want code 1007", ce)
	}
}

func TestAuthenticate(t *testing.T) {
	tests := []struct {
		name       string
		anonymous  bool
		path       string
		wantStatus int // 0: joins
		wantUser   string
	}{
		{"valid token", false, withQuery("lobby", "token", "t-ann"), 0, "ann"},
		{"bad token", false, withQuery("lobby", "token", "nope"), http.StatusUnauthorized, ""},
		{"bad token, anonymous allowed", true, withQuery("lobby", "token", "nope"), http.StatusUnauthorized, ""},
		{"no token", false, "lobby", http.StatusUnauthorized, ""},
		{"no token, anonymous allowed", true, "lobby", 0, ""},
		{"unknown room type", true, "nope", http.StatusNotFound, ""},
		{"unknown room id", true, withQuery("lobby", "room", "lobby-000000000000"), http.StatusNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := newTokens("t-ann", "ann")
			opts := testOptions()
			opts.Authenticate, opts.AllowAnonymous = tk.authenticate, tt.anonymous
			e := newEnv(t, opts, map[string]RoomType{"lobby": {}})
			if tt.wantStatus != 0 {
				if status, _ := e.refused(t, tt.path); status != tt.wantStatus {
					t.Fatalf("dial %s = %d; want %d", tt.path, status, tt.wantStatus)
				}
				return
			}
			c := e.join(t, tt.path)
			v, err := e.hub.Inspect(context.Background(), c.roomID)
			if err != nil || len(v.ClientList) != 1 || v.ClientList[0].UserID != tt.wantUser {
				t.Fatalf("Inspect(%s) = %+v, %v; want one client of user %q", c.roomID, v.ClientList, err, tt.wantUser)
			}
		})
	}
}

func TestBannedRefused(t *testing.T) {
	tk := newTokens("t-bob", "bob", "t-eve", "eve")
	tk.ban("bob")
	opts := testOptions()
	opts.Authenticate = tk.authenticate
	opts.IsBanned = func(ctx context.Context, userID string) (bool, error) {
		if userID == "eve" {
			return false, errors.New("database down")
		}
		return tk.isBanned(ctx, userID)
	}
	e := newEnv(t, opts, map[string]RoomType{"lobby": {}})
	if status, code := e.refused(t, withQuery("lobby", "token", "t-bob")); status != http.StatusForbidden || code != "banned" {
		t.Errorf("banned join = %d %q; want 403 banned", status, code)
	}
	if status, code := e.refused(t, withQuery("lobby", "token", "t-eve")); status != http.StatusInternalServerError || code != "internal" {
		t.Errorf("join with a failing ban check = %d %q; want 500 internal", status, code)
	}
}

// TestDisconnectUser checks the moderation flow: a banned or revoked player is
// kicked from every room it is in, counted, and cannot come back; the
// game's OnLeave learns why.
func TestDisconnectUser(t *testing.T) {
	tests := []struct {
		name       string
		why        rooms.LeaveReason
		punish     func(tk *tokens)
		wantStatus int
	}{
		{"banned", rooms.LeaveBanned, func(tk *tokens) { tk.ban("bob") }, http.StatusForbidden},
		{"revoked", rooms.LeaveRevoked, func(tk *tokens) { tk.revoke("t-bob") }, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := newTokens("t-bob", "bob", "t-ann", "ann")
			opts := testOptions()
			opts.Authenticate, opts.IsBanned = tk.authenticate, tk.isBanned
			leaves := make(chan rooms.LeaveReason, 4)
			onLeave := func(_ *Room, c *Client) { leaves <- c.LeaveReason() }
			e := newEnv(t, opts, map[string]RoomType{"lobby": {OnLeave: onLeave}, "match": {OnLeave: onLeave}})
			ctx := context.Background()
			bob := []*client{e.join(t, withQuery("lobby", "token", "t-bob")), e.join(t, withQuery("match", "token", "t-bob"))}
			ann := e.join(t, withQuery("lobby", "token", "t-ann"))
			if s, err := e.hub.UserSessions(ctx, "bob"); err != nil || len(s) != 2 || s[0].RoomID != bob[0].roomID || s[1].RoomName != "match" {
				t.Fatalf("UserSessions(bob) = %+v, %v; want lobby and match", s, err)
			}

			tt.punish(tk)
			n, err := e.hub.DisconnectUser(ctx, "bob", tt.why, tt.name)
			if n != 2 || err != nil {
				t.Fatalf("DisconnectUser(bob) = %d, %v; want 2, nil", n, err)
			}
			for range bob {
				if why := <-leaves; why != tt.why {
					t.Errorf("OnLeave learned %q; want %q", why, tt.why)
				}
			}
			for _, c := range bob {
				if m := c.until("kicked"); m.Reason != tt.name {
					t.Errorf("kicked reason = %q; want %q", m.Reason, tt.name)
				}
				if ce := c.closed(); ce.Code != CloseKicked || ce.Text != tt.name {
					t.Errorf("close = %v; want %d %q", ce, CloseKicked, tt.name)
				}
			}
			if s, _ := e.hub.UserSessions(ctx, "bob"); len(s) != 0 {
				t.Errorf("UserSessions(bob) after DisconnectUser = %+v; want none", s)
			}
			if got := e.clientCount(t, ann.roomID); got != 1 {
				t.Errorf("ann's room has %d clients; want ann still there", got)
			}
			if status, _ := e.refused(t, withQuery("lobby", "token", "t-bob")); status != tt.wantStatus {
				t.Errorf("rejoin = %d; want %d", status, tt.wantStatus)
			}
			if n, err := e.hub.DisconnectUser(ctx, "bob", tt.why, "again"); n != 0 || err != nil {
				t.Errorf("DisconnectUser(bob) again = %d, %v; want 0, nil", n, err)
			}
		})
	}
}

// TestDisconnectDuringJoin bans a player whose ban check passed just before
// the ban: the join must not survive DisconnectUser.
func TestDisconnectDuringJoin(t *testing.T) {
	tk := newTokens("t-bob", "bob")
	checked, release := make(chan struct{}), make(chan struct{})
	opts := testOptions()
	opts.Authenticate = tk.authenticate
	opts.IsBanned = func(context.Context, string) (bool, error) {
		close(checked)
		<-release
		return false, nil
	}
	e := newEnv(t, opts, map[string]RoomType{"lobby": {}})
	type result struct {
		conn *websocket.Conn
		err  error
	}
	done := make(chan result, 1)
	go func() {
		conn, _, err := websocket.DefaultDialer.Dial(e.url(withQuery("lobby", "token", "t-bob")), nil)
		done <- result{conn, err}
	}()
	<-checked
	if n, err := e.hub.DisconnectUser(context.Background(), "bob", rooms.LeaveBanned, "banned"); n != 0 || err != nil {
		t.Fatalf("DisconnectUser(bob) during join = %d, %v; want 0, nil", n, err)
	}
	close(release)
	res := <-done
	if res.err != nil {
		t.Fatalf("dial: %v", res.err)
	}
	c := &client{t: t, conn: res.conn}
	defer res.conn.Close()
	if ce := c.closed(); ce.Code != CloseRefused {
		t.Errorf("close = %v; want %d", ce, CloseRefused)
	}
	if s, _ := e.hub.UserSessions(context.Background(), "bob"); len(s) != 0 {
		t.Errorf("UserSessions(bob) = %+v; want none", s)
	}
}

func TestKick(t *testing.T) {
	e := newEnv(t, anonymous(), map[string]RoomType{"lobby": {}})
	ctx := context.Background()
	a, b := e.join(t, "lobby"), e.join(t, "lobby")
	if err := e.hub.Kick(ctx, a.roomID, a.session, "spamming"); err != nil {
		t.Fatalf("Kick = %v; want nil", err)
	}
	if m := a.until("kicked"); m.Reason != "spamming" {
		t.Errorf("kicked reason = %q; want spamming", m.Reason)
	}
	if ce := a.closed(); ce.Code != CloseKicked || ce.Text != "spamming" {
		t.Errorf("close = %v; want %d spamming", ce, CloseKicked)
	}
	if got := e.clientCount(t, b.roomID); got != 1 {
		t.Errorf("room has %d clients after the kick; want 1", got)
	}
	tests := []struct {
		name          string
		room, session string
		wantErr       error
	}{
		{"kicked session", a.roomID, a.session, rooms.ErrSessionNotFound},
		{"unknown session", a.roomID, "nope", rooms.ErrSessionNotFound},
		{"unknown room", "nope", b.session, rooms.ErrRoomNotFound},
	}
	for _, tt := range tests {
		if err := e.hub.Kick(ctx, tt.room, tt.session, ""); !errors.Is(err, tt.wantErr) {
			t.Errorf("Kick(%s) = %v; want %v", tt.name, err, tt.wantErr)
		}
	}
}

func TestLock(t *testing.T) {
	e := newEnv(t, anonymous(), map[string]RoomType{"lobby": {}, "duel": {MaxClients: 2}})
	ctx := context.Background()
	a := e.join(t, "lobby")
	if err := e.hub.SetLocked(ctx, a.roomID, true); err != nil {
		t.Fatalf("SetLocked(true) = %v", err)
	}
	if m := a.until("lock"); !m.Locked {
		t.Errorf("lock message = %+v; want locked", m)
	}
	if l, _ := e.hub.List(ctx); len(l) != 1 || !l[0].Locked {
		t.Errorf("List() = %+v; want one locked room", l)
	}
	byID := withQuery("lobby", "room", a.roomID)
	if status, code := e.refused(t, byID); status != http.StatusConflict || code != "room_locked" {
		t.Errorf("join a locked room = %d %q; want 409 room_locked", status, code)
	}
	if other := e.join(t, "lobby"); other.roomID == a.roomID {
		t.Errorf("join by type went to the locked room %s", a.roomID)
	}
	if err := e.hub.SetLocked(ctx, a.roomID, false); err != nil {
		t.Fatalf("SetLocked(false) = %v", err)
	}
	if m := a.until("lock"); m.Locked {
		t.Errorf("lock message = %+v; want unlocked", m)
	}
	if c := e.join(t, byID); c.roomID != a.roomID {
		t.Errorf("join by id went to %s; want %s", c.roomID, a.roomID)
	}
	if err := e.hub.SetLocked(ctx, "nope", true); !errors.Is(err, rooms.ErrRoomNotFound) {
		t.Errorf("SetLocked(unknown) = %v; want ErrRoomNotFound", err)
	}

	d1, d2 := e.join(t, "duel"), e.join(t, "duel")
	if d1.roomID != d2.roomID {
		t.Fatalf("two joins of duel went to %s and %s; want one room", d1.roomID, d2.roomID)
	}
	if d3 := e.join(t, "duel"); d3.roomID == d1.roomID {
		t.Errorf("third join went to the full room %s", d1.roomID)
	}
	if status, code := e.refused(t, withQuery("duel", "room", d1.roomID)); status != http.StatusConflict || code != "room_full" {
		t.Errorf("join a full room = %d %q; want 409 room_full", status, code)
	}
}

func TestDispose(t *testing.T) {
	e := newEnv(t, anonymous(), map[string]RoomType{"lobby": {}})
	ctx := context.Background()
	cs := []*client{e.join(t, "lobby"), e.join(t, "lobby"), e.join(t, "lobby")}
	id := cs[0].roomID
	if err := e.hub.Dispose(ctx, id); err != nil {
		t.Fatalf("Dispose = %v; want nil", err)
	}
	for _, c := range cs {
		c.until("disposed")
		if ce := c.closed(); ce.Code != CloseDisposed {
			t.Errorf("close = %v; want %d", ce, CloseDisposed)
		}
	}
	eventually(t, "the room to go", func() bool { l, _ := e.hub.List(ctx); return len(l) == 0 })
	if _, err := e.hub.Inspect(ctx, id); !errors.Is(err, rooms.ErrRoomNotFound) {
		t.Errorf("Inspect(disposed) = %v; want ErrRoomNotFound", err)
	}
	if err := e.hub.Dispose(ctx, id); !errors.Is(err, rooms.ErrRoomNotFound) {
		t.Errorf("Dispose(disposed) = %v; want ErrRoomNotFound", err)
	}
}

// TestSessionsAndNotify: Sessions lists the admitted sessions by user, and
// a channel given to NotifyChanges is signalled by a join, a lock and a
// leave, never blocking the hub when nobody reads it.
func TestSessionsAndNotify(t *testing.T) {
	o := anonymous()
	tk := newTokens("t1", "u1")
	o.Authenticate = tk.authenticate
	e := newEnv(t, o, map[string]RoomType{"arena": {EmptyTimeout: -1}})
	changes := make(chan struct{}, 1)
	e.hub.NotifyChanges(changes)
	e.hub.NotifyChanges(make(chan struct{})) // unbuffered, never read: must not block

	c1 := e.join(t, "arena?token=t1")
	waitSignal(t, changes)
	e.join(t, "arena?token=t1")
	e.join(t, "arena") // anonymous: not in Sessions
	s := e.hub.Sessions()
	if len(s) != 1 || len(s["u1"]) != 2 || s["u1"][0].SessionID != c1.session || s["u1"][0].RoomID != c1.roomID || s["u1"][0].RoomName != "arena" {
		t.Fatalf("Sessions = %+v; want u1's two sessions, oldest first", s)
	}
	drain(changes)
	if err := e.hub.SetLocked(context.Background(), c1.roomID, true); err != nil {
		t.Fatal(err)
	}
	waitSignal(t, changes)
	drain(changes)
	c1.conn.Close()
	waitSignal(t, changes)
	eventually(t, "u1's first session gone", func() bool { return len(e.hub.Sessions()["u1"]) == 1 })
}

func waitSignal(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatal("no change signalled")
	}
}

func drain(ch <-chan struct{}) {
	select {
	case <-ch:
	default:
	}
}
