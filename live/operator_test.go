package live

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/gameadmin/admin/rooms"
	"github.com/gorilla/websocket"
)

// pollDeadline bounds the waits for a condition that must come; a test
// fails only when it never does.
const pollDeadline = 30 * time.Second

// TestLeaveReasons: OnLeave learns why each client left, so a game's
// reconnection grace can tell a dropped player from one an operator
// removed.
func TestLeaveReasons(t *testing.T) {
	tk := newTokens("t-ann", "ann", "t-bob", "bob")
	opts := testOptions()
	opts.Authenticate, opts.AllowAnonymous = tk.authenticate, true
	type leave struct {
		session string
		why     rooms.LeaveReason
	}
	leaves := make(chan leave, 16)
	e := newEnv(t, opts, map[string]RoomType{"lobby": {EmptyTimeout: -1, OnLeave: func(_ *Room, c *Client) {
		leaves <- leave{c.SessionID(), c.LeaveReason()}
	}}})
	ctx := context.Background()
	next := func(t *testing.T, c *client) rooms.LeaveReason {
		t.Helper()
		select {
		case l := <-leaves:
			if l.session != c.session {
				t.Fatalf("OnLeave ran for %s; want %s", l.session, c.session)
			}
			return l.why
		case <-time.After(pollDeadline):
			t.Fatal("OnLeave never ran")
		}
		return ""
	}
	first := e.join(t, "lobby")
	room := first.roomID

	tests := []struct {
		name  string
		token string
		end   func(t *testing.T, c *client)
		want  rooms.LeaveReason
	}{
		{"a normal close", "", func(t *testing.T, c *client) {
			if err := c.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye")); err != nil {
				t.Fatal(err)
			}
		}, rooms.LeaveLeft},
		{"a tab closing (1001)", "", func(t *testing.T, c *client) {
			if err := c.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "")); err != nil {
				t.Fatal(err)
			}
		}, rooms.LeaveDropped},
		{"a connection cut", "", func(t *testing.T, c *client) {
			c.conn.NetConn().(*net.TCPConn).SetLinger(0)
			c.conn.NetConn().Close()
		}, rooms.LeaveDropped},
		{"a bad message", "", func(t *testing.T, c *client) { c.send("not json") }, rooms.LeaveDropped},
		{"an operator's kick", "", func(t *testing.T, c *client) {
			if err := e.hub.Kick(ctx, room, c.session, "afk"); err != nil {
				t.Fatal(err)
			}
		}, rooms.LeaveKicked},
		{"the game's kick", "", func(t *testing.T, c *client) {
			r, _ := e.hub.Room(room)
			if err := r.Do(ctx, func(r *Room) {
				for _, cl := range r.Clients() {
					if cl.SessionID() == c.session {
						r.Kick(cl, "cheating")
					}
				}
			}); err != nil {
				t.Fatal(err)
			}
		}, rooms.LeaveKicked},
		{"a ban", "t-ann", func(t *testing.T, c *client) {
			if _, err := e.hub.DisconnectUser(ctx, "ann", rooms.LeaveBanned, "banned"); err != nil {
				t.Fatal(err)
			}
		}, rooms.LeaveBanned},
		{"sessions revoked", "t-bob", func(t *testing.T, c *client) {
			if _, err := e.hub.DisconnectUser(ctx, "bob", rooms.LeaveRevoked, "password changed"); err != nil {
				t.Fatal(err)
			}
		}, rooms.LeaveRevoked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.join(t, withQuery("lobby", "room", room, "token", tt.token))
			tt.end(t, c)
			if got := next(t, c); got != tt.want {
				t.Errorf("OnLeave learned %q; want %q", got, tt.want)
			}
		})
	}

	t.Run("a dispose", func(t *testing.T) {
		if err := e.hub.Dispose(ctx, room); err != nil {
			t.Fatal(err)
		}
		if got := next(t, first); got != rooms.LeaveDisposed {
			t.Errorf("OnLeave learned %q; want %q", got, rooms.LeaveDisposed)
		}
	})
	t.Run("the hub closing", func(t *testing.T) {
		c := e.join(t, "lobby")
		if err := e.hub.Close(); err != nil {
			t.Fatal(err)
		}
		if got := next(t, c); got != rooms.LeaveShutdown {
			t.Errorf("OnLeave learned %q; want %q", got, rooms.LeaveShutdown)
		}
	})
}

// TestRevalidateLeaveReasons: the hub's own re-check tells OnLeave a ban
// from a revocation.
func TestRevalidateLeaveReasons(t *testing.T) {
	tk := newTokens("t-ann", "ann", "t-bob", "bob", "t-cid", "cid")
	st := &states{m: map[string]rooms.UserState{"ann": {}, "bob": {}, "cid": {}}}
	opts := testOptions()
	opts.Authenticate, opts.UserStates, opts.RevalidateEvery = tk.authenticate, st.get, -1
	leaves := make(chan [2]string, 4)
	e := newEnv(t, opts, map[string]RoomType{"lobby": {OnLeave: func(_ *Room, c *Client) {
		leaves <- [2]string{c.UserID(), string(c.LeaveReason())}
	}}})
	for _, tok := range []string{"t-ann", "t-bob", "t-cid"} {
		e.join(t, withQuery("lobby", "token", tok))
	}
	st.set("ann", rooms.UserState{Banned: true})
	st.set("bob", rooms.UserState{TokenVersion: 1})
	st.remove("cid")
	if n, err := e.hub.Revalidate(context.Background()); n != 3 || err != nil {
		t.Fatalf("Revalidate = %d, %v; want 3, nil", n, err)
	}
	got := map[string]string{}
	for range 3 {
		l := <-leaves
		got[l[0]] = l[1]
	}
	want := map[string]string{"ann": "banned", "bob": "revoked", "cid": "revoked"}
	for u, w := range want {
		if got[u] != w {
			t.Errorf("OnLeave of %s learned %q; want %q", u, got[u], w)
		}
	}
}
