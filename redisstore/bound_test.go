package redisstore

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/live"
	"github.com/gorilla/websocket"
)

// joinType joins user to a room of type typ on n.
func (n *node) joinType(t testing.TB, typ, user string) *player {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(n.srv.URL, "http")+"/ws/"+typ+"?user="+user, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var m struct{ Type, RoomID, SessionID string }
	if err := conn.ReadJSON(&m); err != nil || m.Type != "joined" {
		t.Fatalf("join: %+v %v", m, err)
	}
	return &player{conn: conn, room: m.RoomID, session: m.SessionID}
}

// TestClusterRoomCallsBounded: across nodes, the owner of a room works on
// a forwarded call only as long as its sender waits. A room whose inspect
// callback blocks answers node A a timeout of the room (room_timeout, not
// a silent node's node_timeout) while the callback still holds it, and
// the calls A gave up on never run on B once it lets go; a panic of B's
// game code is A's ErrRoomFailed, logged with its stack on B, and the
// room lives on. A finds a session's user on B without B's room state,
// a disconnect's leave reason reaches B's game, and a leave callback that
// panics on A keeps no socket of the banned player open on B.
func TestClusterRoomCallsBounded(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := context.Background()
	var logs syncBuffer
	a := startNode(t, rdb, prefix, "a", 10*time.Second)
	b := startNodeWith(t, rdb, prefix, "b", 10*time.Second, answerTimeout, live.Options{}, slog.New(slog.NewTextHandler(&logs, nil)))
	entered, release := make(chan struct{}, 16), make(chan struct{})
	t.Cleanup(func() { close(release) }) // before B's hub closes
	var metadata, ticks atomic.Int64
	b.hub.Define("held", live.RoomType{EmptyTimeout: -1, TickInterval: 10 * time.Millisecond,
		OnTick: func(*live.Room) { ticks.Add(1) },
		Metadata: func(*live.Room) any {
			metadata.Add(1)
			entered <- struct{}{}
			<-release
			return "held"
		}})
	leaves := make(chan admin.LeaveReason, 4)
	b.hub.Define("broken", live.RoomType{EmptyTimeout: -1,
		Metadata: func(*live.Room) any { panic("nil map in the game's Metadata") },
		OnLeave:  func(_ *live.Room, c *live.Client) { leaves <- c.LeaveReason() }})
	held := b.joinType(t, "held", "u1")
	broken := b.joinType(t, "broken", "u2")
	eventually(t, "A lists B's rooms", func() bool {
		rooms, _ := a.cluster.List(ctx)
		return len(rooms) == 2
	})

	first := make(chan error, 1)
	go func() { _, err := a.cluster.Inspect(ctx, held.room); first <- err }()
	select {
	case <-entered: // B's Metadata holds the room from here on
	case <-time.After(30 * time.Second):
		t.Fatal("the inspect never reached B's Metadata")
	}
	queued := make(chan error, 2)
	for range 2 {
		go func() { _, err := a.cluster.Inspect(ctx, held.room); queued <- err }()
	}
	for _, ch := range []chan error{first, queued, queued} {
		select {
		case err := <-ch:
			if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, admin.ErrNodeTimeout) {
				t.Fatalf("A's inspect of B's held room = %v; want B's room timeout, not a node timeout", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("an inspect of B's held room never answered")
		}
	}
	if n := metadata.Load(); n != 1 {
		t.Fatalf("Metadata ran %d times while held; want 1", n)
	}
	release <- struct{}{} // unblocks the held Metadata; the channel closes at cleanup
	r, _ := b.hub.Room(held.room)
	if err := r.Do(ctx, func(*live.Room) {}); err != nil {
		t.Fatal(err)
	}
	if n := metadata.Load(); n != 1 {
		t.Errorf("Metadata ran %d times; want 1: a call A gave up on ran on B", n)
	}
	before := ticks.Load()
	eventually(t, "B's room to tick again", func() bool { return ticks.Load() > before })
	held.open(t)

	_, err := a.cluster.Inspect(ctx, broken.room)
	if !errors.Is(err, admin.ErrRoomFailed) || !strings.Contains(err.Error(), broken.room) {
		t.Fatalf("A's inspect of B's room whose Metadata panics = %v; want ErrRoomFailed naming the room", err)
	}
	if logged := logs.String(); !strings.Contains(logged, "nil map in the game's Metadata") || !strings.Contains(logged, "stack=") {
		t.Errorf("B does not log the panic with its stack:\n%s", logged)
	}
	broken.open(t)
	s, err := a.cluster.Session(ctx, broken.room, broken.session)
	if err != nil || s.UserID != "u2" || s.Node != "b" || s.RoomName != "broken" {
		t.Fatalf("A's Session on B = %+v, %v; want u2's on b", s, err)
	}
	if _, err := a.cluster.Session(ctx, broken.room, "nope"); !errors.Is(err, admin.ErrSessionNotFound) {
		t.Fatalf("A's Session of an unknown session on B = %v; want ErrSessionNotFound", err)
	}
	if n, err := a.cluster.DisconnectUser(ctx, "u2", admin.LeaveBanned, "banned"); n != 1 || err != nil {
		t.Fatalf("DisconnectUser(u2) from A = %d, %v; want 1", n, err)
	}
	select {
	case why := <-leaves:
		if why != admin.LeaveBanned {
			t.Errorf("B's OnLeave learned %q; want %q", why, admin.LeaveBanned)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("B's OnLeave never ran")
	}

	// A leave callback that panics on A does not keep a ban from B.
	a.hub.Define("leaver", live.RoomType{OnLeave: func(*live.Room, *live.Client) { panic("nil map in the game's OnLeave") }})
	onA, onB := a.joinType(t, "leaver", "u3"), b.join(t, "u3")
	eventually(t, "A sees u3's session on B", func() bool {
		s, _ := a.cluster.UserSessions(ctx, "u3")
		return len(s) == 2
	})
	n, err := a.cluster.DisconnectUser(ctx, "u3", admin.LeaveBanned, "banned")
	if n != 2 || !errors.Is(err, admin.ErrRoomFailed) {
		t.Fatalf("DisconnectUser(u3) with A's OnLeave panicking = %d, %v; want 2 and ErrRoomFailed", n, err)
	}
	for _, p := range []*player{onA, onB} {
		if code := p.closed(t); code != live.CloseKicked {
			t.Fatalf("u3's socket closed with %d; want %d", code, live.CloseKicked)
		}
	}
}
