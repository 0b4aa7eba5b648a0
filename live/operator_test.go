package live

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/rooms"
	"github.com/gorilla/websocket"
)

// pollDeadline bounds the waits for a condition that must come; a test
// fails only when it never does.
const pollDeadline = 30 * time.Second

// waitFor polls cond until it holds, failing after pollDeadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(pollDeadline); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

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

// panicky is a state whose JSON the game's code cannot write.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("the state's MarshalJSON is broken") }

// TestOperatorCallPanics: a panic of the game's code while the hub serves
// an operator's call (Metadata, the state's MarshalJSON, OnLeave during a
// kick, a dispose or a disconnect) fails that call with ErrRoomFailed,
// carrying the stack, and the room runs on: its clients stay connected
// and get its ticks (a panic of the room's own loop closes it with 1011).
func TestOperatorCallPanics(t *testing.T) {
	tk := newTokens("t-ann", "ann", "t-bob", "bob")
	opts := testOptions()
	opts.Authenticate = tk.authenticate
	var ticks atomic.Int64
	var leaves atomic.Int64
	ticking := func(rt RoomType) RoomType {
		rt.TickInterval = 5 * time.Millisecond
		rt.OnTick = func(r *Room) {
			ticks.Add(1)
			_ = r.Broadcast("tick")
		}
		rt.EmptyTimeout = -1
		return rt
	}
	e := newEnv(t, opts, map[string]RoomType{
		"metadata": ticking(RoomType{Metadata: func(*Room) any { panic("nil map in Metadata") }}),
		"state":    ticking(RoomType{NewState: func() any { return map[string]any{"ok": true} }}),
		"leave": ticking(RoomType{OnLeave: func(*Room, *Client) {
			leaves.Add(1)
			panic("nil map in OnLeave")
		}}),
	})
	ctx := context.Background()
	failed := func(t *testing.T, what string, err error, room string) {
		t.Helper()
		var pe *panicerr.Error
		if !errors.Is(err, rooms.ErrRoomFailed) || !errors.As(err, &pe) {
			t.Fatalf("%s = %v; want ErrRoomFailed with the panic", what, err)
		}
		if !strings.Contains(err.Error(), room) {
			t.Errorf("%s error %q does not name room %s", what, err, room)
		}
	}
	// alive checks that c still gets the room's ticks.
	alive := func(t *testing.T, c *client) {
		t.Helper()
		if m := c.until("message"); string(m.Data) != `"tick"` {
			t.Fatalf("message = %s; want a tick", m.Data)
		}
	}

	t.Run("Metadata", func(t *testing.T) {
		c := e.join(t, withQuery("metadata", "token", "t-ann"))
		_, err := e.hub.Inspect(ctx, c.roomID)
		failed(t, "Inspect", err, c.roomID)
		alive(t, c)
		// The room still answers the calls that need no Metadata.
		if err := e.hub.SetLocked(ctx, c.roomID, true); err != nil {
			t.Fatalf("SetLocked after the panic = %v", err)
		}
		if m := c.until("lock"); !m.Locked {
			t.Fatalf("lock message = %+v", m)
		}
		if err := e.hub.Kick(ctx, c.roomID, c.session, "bye"); err != nil {
			t.Fatalf("Kick in a room whose Metadata panics = %v; want nil (a kick runs no Metadata)", err)
		}
		if ce := c.closed(); ce.Code != CloseKicked {
			t.Fatalf("close = %v; want %d", ce, CloseKicked)
		}
	})
	t.Run("MarshalJSON", func(t *testing.T) {
		c := e.join(t, withQuery("state", "token", "t-ann"))
		if err := e.hub.EditState(ctx, c.roomID, []any{"bad"}, json.RawMessage(`1`)); err != nil {
			t.Fatal(err)
		}
		c.until("state")
		r, _ := e.hub.Room(c.roomID)
		if err := r.Do(ctx, func(r *Room) { r.State().(map[string]any)["bad"] = panicky{} }); err != nil {
			t.Fatal(err)
		}
		_, err := e.hub.Inspect(ctx, c.roomID)
		failed(t, "Inspect", err, c.roomID)
		err = e.hub.EditState(ctx, c.roomID, []any{"ok"}, json.RawMessage(`false`))
		failed(t, "EditState", err, c.roomID)
		alive(t, c)
		if err := e.hub.DeleteState(ctx, c.roomID, []any{"bad"}); err != nil {
			t.Fatalf("DeleteState of the bad value = %v", err)
		}
		if m := c.until("state"); string(m.State) != `{"ok":false}` {
			t.Fatalf("state = %s; want the edit that was made and broadcast now", m.State)
		}
	})
	t.Run("OnLeave", func(t *testing.T) {
		ann := e.join(t, withQuery("leave", "token", "t-ann"))
		room := ann.roomID
		bob := []*client{e.join(t, withQuery("leave", "token", "t-bob", "room", room)), e.join(t, withQuery("leave", "token", "t-bob", "room", room))}
		other := e.join(t, withQuery("leave", "room", room, "token", "t-ann"))

		err := e.hub.Kick(ctx, room, ann.session, "bye")
		failed(t, "Kick", err, room)
		if ce := ann.closed(); ce.Code != CloseKicked {
			t.Fatalf("the kicked client's close = %v; want %d", ce, CloseKicked)
		}
		n, err := e.hub.DisconnectUser(ctx, "bob", rooms.LeaveBanned, "banned")
		failed(t, "DisconnectUser", err, room)
		if n != 2 {
			t.Errorf("DisconnectUser closed %d; want both of bob's sessions", n)
		}
		for _, c := range bob {
			if ce := c.closed(); ce.Code != CloseKicked {
				t.Fatalf("bob's close = %v; want %d", ce, CloseKicked)
			}
		}
		alive(t, other)
		if leaves.Load() != 3 {
			t.Errorf("OnLeave ran %d times; want once per client that left", leaves.Load())
		}
		// Dispose closes every client, whatever OnLeave does.
		err = e.hub.Dispose(ctx, room)
		failed(t, "Dispose", err, room)
		if ce := other.closed(); ce.Code != CloseDisposed {
			t.Fatalf("close = %v; want %d", ce, CloseDisposed)
		}
	})
	if ticks.Load() == 0 {
		t.Error("no room ticked")
	}
}

// TestAbandonedCallsAreDropped: calls whose caller gave up while the room
// was held by a callback answer at once, while it is still held, and never
// run after it: the room runs the one it had started, then its players'
// work. (Three inspects abandoned after 1 s of a 3 s Metadata held the
// room for 9 s.)
func TestAbandonedCallsAreDropped(t *testing.T) {
	entered, release := make(chan struct{}, 8), make(chan struct{})
	var metadata, ticks atomic.Int64
	e := newEnv(t, anonymous(), map[string]RoomType{"slow": {
		EmptyTimeout: -1,
		TickInterval: 5 * time.Millisecond,
		OnTick:       func(*Room) { ticks.Add(1) },
		Metadata: func(*Room) any {
			metadata.Add(1)
			entered <- struct{}{}
			<-release
			return "slow"
		},
	}})
	c := e.join(t, "slow")

	first := make(chan error, 1)
	ctx1, cancel1 := context.WithCancel(context.Background())
	go func() {
		_, err := e.hub.Inspect(ctx1, c.roomID)
		first <- err
	}()
	<-entered // the first inspect holds the room in Metadata
	queued := make(chan error, 2)
	var cancels []context.CancelFunc
	for range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		cancels = append(cancels, cancel)
		go func() {
			_, err := e.hub.Inspect(ctx, c.roomID)
			queued <- err
		}()
	}
	// The operator gives up on all three while Metadata still holds the room.
	cancel1()
	for _, cancel := range cancels {
		cancel()
	}
	for _, ch := range []chan error{first, queued, queued} {
		select {
		case err := <-ch:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("abandoned Inspect = %v; want context.Canceled", err)
			}
		case <-time.After(pollDeadline):
			t.Fatal("an abandoned Inspect did not answer while the room was held")
		}
	}
	if metadata.Load() != 1 {
		t.Fatalf("Metadata ran %d times while held; want 1", metadata.Load())
	}
	close(release)
	// Once the room gets past the held call, what is queued behind it
	// runs; the two abandoned inspects are dropped, not run.
	r, _ := e.hub.Room(c.roomID)
	if err := r.Do(context.Background(), func(*Room) {}); err != nil {
		t.Fatal(err)
	}
	if metadata.Load() != 1 {
		t.Errorf("Metadata ran %d times; want 1: the abandoned inspects ran after all", metadata.Load())
	}
	before := ticks.Load()
	waitFor(t, "the room to tick again", func() bool { return ticks.Load() > before })
	if e.clientCount(t, c.roomID) != 1 {
		t.Error("the client left the room")
	}
}
