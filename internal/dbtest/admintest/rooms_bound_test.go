package admintest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/live"
	"github.com/uptrace/bun"
)

// roomPoll bounds the waits for what must come; a test fails only when it
// never does.
const roomPoll = 30 * time.Second

// shortRoomTimeout is the RoomTimeout of the tests that wait it out. The
// tests never measure it: they hold the room until every answer is in.
const shortRoomTimeout = 300 * time.Millisecond

// answer is one HTTP answer, sent from a goroutine of the test's.
type answer struct {
	what string
	code int
	body map[string]any
	err  error
}

// send is operator.do for a goroutine other than the test's: it reports
// a failed request instead of failing the test.
func (o *operator) send(what, method, path string, body any) answer {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, o.w.srv.URL+path, rd)
	if err != nil {
		return answer{what: what, err: err}
	}
	res, err := o.hc.Do(req)
	if err != nil {
		return answer{what: what, err: err}
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		m = map[string]any{"_raw": string(raw)}
	}
	return answer{what: what, code: res.StatusCode, body: m}
}

// receive takes n answers off ch, failing if they never come.
func receive(t *testing.T, ch <-chan answer, n int) []answer {
	t.Helper()
	out := make([]answer, 0, n)
	for range n {
		select {
		case a := <-ch:
			if a.err != nil {
				t.Fatalf("%s: %v", a.what, a.err)
			}
			out = append(out, a)
		case <-time.After(roomPoll):
			t.Fatalf("%d of %d answers never came", n-len(out), n)
		}
	}
	return out
}

// heldRoom is a room type whose Metadata, the panel's inspect, holds the
// room's goroutine until the test releases it, and which ticks.
type heldRoom struct {
	entered  chan struct{}
	release  chan struct{}
	once     sync.Once
	metadata atomic.Int64
	ticks    atomic.Int64
}

func newHeldRoom(t *testing.T) *heldRoom {
	h := &heldRoom{entered: make(chan struct{}, 64), release: make(chan struct{})}
	// Before the world's cleanup closes the hub, which waits for the room.
	t.Cleanup(h.free)
	return h
}

func (h *heldRoom) free() { h.once.Do(func() { close(h.release) }) }

func (h *heldRoom) roomType() live.RoomType {
	return live.RoomType{
		EmptyTimeout: -1,
		TickInterval: 10 * time.Millisecond,
		OnTick:       func(*live.Room) { h.ticks.Add(1) },
		NewState:     func() any { return map[string]any{"score": map[string]any{"red": 1.0}, "items": []any{"sword"}} },
		Metadata: func(*live.Room) any {
			h.metadata.Add(1)
			h.entered <- struct{}{}
			<-h.release
			return "held"
		},
	}
}

// TestRoomCallsBounded: a room whose inspect callback blocks holds no
// request past RoomTimeout. The operator's inspect, two more inspects, a
// kick, a lock, a state edit and delete and a dispose all answer 504
// room_timeout naming the room while the callback still holds it; none of
// the abandoned calls runs once it lets go (Metadata ran once, the room
// is neither locked, edited nor disposed, the player not kicked, nothing
// audited), and the room ticks on with its player.
func TestRoomCallsBounded(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		logs := &syncBuffer{}
		w := newWorld(t, db, true, func(o *admin.Options) {
			o.RoomTimeout = shortRoomTimeout
			o.Logger = slog.New(slog.NewTextHandler(logs, nil))
		})
		held := newHeldRoom(t)
		w.hub.Define("held", held.roomType())
		w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		playerID := w.user("p@example.com", admin.RoleUser)
		p := w.mustJoin("held", playerID, "")
		room := p.roomID
		base := "/admin-api/rooms/" + room

		answers := make(chan answer, 16)
		call := func(what, method, path string, body any) {
			go func() { answers <- root.send(what, method, path, body) }()
		}
		call("the first inspect", "GET", base, nil)
		select {
		case <-held.entered: // Metadata holds the room from here on
		case <-time.After(roomPoll):
			t.Fatal("the inspect never reached Metadata")
		}
		call("a second inspect", "GET", base, nil)
		call("a third inspect", "GET", base, nil)
		call("kick", "DELETE", base+"/clients/"+p.sid, map[string]any{"reason": "afk"})
		call("lock", "PATCH", base, map[string]any{"locked": true})
		call("state edit", "PATCH", base+"/state", map[string]any{"path": []any{"score", "red"}, "value": 9})
		call("state delete", "DELETE", base+"/state", map[string]any{"path": []any{"items", 0}})
		call("dispose", "DELETE", base, nil)
		for _, a := range receive(t, answers, 8) {
			if msg, _ := a.body["error"].(string); a.code != 504 || a.body["code"] != "room_timeout" || !strings.Contains(msg, room) {
				t.Errorf("%s while the room is held = %d %v; want 504 room_timeout naming the room", a.what, a.code, a.body)
			}
		}
		// Every answer above came while Metadata still held the room.
		if n := held.metadata.Load(); n != 1 {
			t.Fatalf("Metadata ran %d times while held; want 1", n)
		}
		held.free()
		// Once the room gets past the held call, the abandoned ones are
		// dropped: the next work queued runs, and none of theirs did.
		r, _ := w.hub.Room(room)
		if err := r.Do(t.Context(), func(*live.Room) {}); err != nil {
			t.Fatalf("the room after the held call: %v", err)
		}
		if n := held.metadata.Load(); n != 1 {
			t.Errorf("Metadata ran %d times; want 1: an abandoned inspect ran after its request ended", n)
		}
		view, err := w.hub.Inspect(t.Context(), room)
		if err != nil {
			t.Fatal(err)
		}
		state, _ := json.Marshal(view.State)
		if view.Locked || len(view.ClientList) != 1 || string(state) != `{"items":["sword"],"score":{"red":1}}` {
			t.Errorf("the room after the abandoned calls = locked %v, clients %v, state %s; want it as it was", view.Locked, view.ClientList, state)
		}
		for _, action := range []string{"room.kick", "room.lock", "room.state.edit", "room.state.delete", "room.dispose"} {
			if rows := w.audit(action); len(rows) != 0 {
				t.Errorf("%s entries after a 504: %+v; want none", action, rows)
			}
		}
		ticks := held.ticks.Load()
		waitFor(t, func() bool { return held.ticks.Load() > ticks })
		select {
		case ce := <-p.closed:
			t.Fatalf("the player's socket closed: %v", ce)
		default:
		}
		if code, body := root.do("GET", base, nil); code != 200 || body["metadata"] != "held" {
			t.Fatalf("inspect once the room is free = %d %v; want 200", code, body)
		}
		if logged := logs.String(); !strings.Contains(logged, "code=room_timeout") || !strings.Contains(logged, "within RoomTimeout ("+shortRoomTimeout.String()+")") {
			t.Errorf("the 504s are not logged with their cause:\n%s", logged)
		}
	})
}

// stuckRooms is a game's own runtime that ignores its ctx: every call
// blocks until the test releases it, or panics.
type stuckRooms struct {
	release chan struct{}
	panics  bool
}

func (s *stuckRooms) wait() {
	if s.panics {
		panic("the game's runtime is broken")
	}
	<-s.release
}

func (s *stuckRooms) List(context.Context) ([]admin.RoomSummary, error) { s.wait(); return nil, nil }

func (s *stuckRooms) Inspect(context.Context, string) (admin.RoomView, error) {
	s.wait()
	return admin.RoomView{}, nil
}

func (s *stuckRooms) Session(context.Context, string, string) (admin.UserSession, error) {
	s.wait()
	return admin.UserSession{}, nil
}

func (s *stuckRooms) Kick(context.Context, string, string, string) error { s.wait(); return nil }

func (s *stuckRooms) SetLocked(context.Context, string, bool) error { s.wait(); return nil }

func (s *stuckRooms) EditState(context.Context, string, []any, json.RawMessage) error {
	s.wait()
	return nil
}

func (s *stuckRooms) DeleteState(context.Context, string, []any) error { s.wait(); return nil }

func (s *stuckRooms) Dispose(context.Context, string) error { s.wait(); return nil }

func (s *stuckRooms) UserSessions(context.Context, string) ([]admin.UserSession, error) {
	s.wait()
	return nil, nil
}

func (s *stuckRooms) DisconnectUser(context.Context, string, admin.LeaveReason, string) (int, error) {
	s.wait()
	return 0, nil
}

// TestAnyRuntimeIsBounded: the bound holds for a runtime the game wrote
// itself, which ignores its ctx. While it blocks, every room endpoint
// answers 504 room_timeout, the dashboard answers with its live rooms
// "timeout" and today's figures without the players online, a ban
// answers with "partial" and a user's counts without their live sessions; when it panics, they answer 500 room_failed (the
// panel logs the stack) and the panel serves on.
func TestAnyRuntimeIsBounded(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		stuck := &stuckRooms{release: make(chan struct{})}
		e := newEnv(t, db, admin.Options{Rooms: stuck, RoomTimeout: shortRoomTimeout})
		t.Cleanup(func() { close(stuck.release) })
		root, _ := e.bootstrap()
		p := e.user("p@example.com", "player password")
		calls := []struct{ method, path string }{
			{"GET", "/admin-api/rooms"},
			{"GET", "/admin-api/rooms/r1"},
			{"GET", "/admin-api/rooms/by-user/" + p},
			{"DELETE", "/admin-api/rooms/r1/clients/s1"},
			{"PATCH", "/admin-api/rooms/r1"},
			{"PATCH", "/admin-api/rooms/r1/state"},
			{"DELETE", "/admin-api/rooms/r1/state"},
			{"DELETE", "/admin-api/rooms/r1"},
		}
		bodies := map[string]any{"PATCH /admin-api/rooms/r1": map[string]any{"locked": true},
			"PATCH /admin-api/rooms/r1/state": map[string]any{"path": []any{"a"}, "value": 1}, "DELETE /admin-api/rooms/r1/state": map[string]any{"path": []any{"a"}}}
		for _, c := range calls {
			root.do(c.method, c.path, bodies[c.method+" "+c.path]).want(t, 504, "room_timeout")
		}
		var dash struct {
			Widgets []struct {
				ID, Error string
				Data      json.RawMessage
			}
		}
		if err := json.Unmarshal(root.do("GET", "/admin-api/_dashboard", nil).want(t, 200).raw, &dash); err != nil {
			t.Fatal(err)
		}
		for _, wd := range dash.Widgets {
			switch wd.ID {
			case "liveRooms":
				if wd.Error != "timeout" {
					t.Errorf("the liveRooms widget = %+v; want timeout", wd)
				}
			case "today":
				if wd.Error != "" || strings.Contains(string(wd.Data), "Online now") || !strings.Contains(string(wd.Data), "Banned now") {
					t.Errorf("the today widget = %s %s; want its figures but Online now", wd.Error, wd.Data)
				}
			}
		}
		ban := root.do("POST", "/admin-api/users/"+p+"/ban", map[string]any{"reason": "bot"}).want(t, 200)
		if ban.body["partial"] != true {
			t.Errorf("a ban whose sockets could not be closed = %s; want partial", ban.raw)
		}
		if counts := root.do("GET", "/admin-api/users/"+p+"/_counts", nil).want(t, 200); counts.body["activeSessions"] != nil {
			t.Errorf("_counts = %s; want no activeSessions while the runtime is stuck", counts.raw)
		}
		// Every answer came while the runtime still held its calls.
		select {
		case <-stuck.release:
			t.Fatal("released early")
		default:
		}

		e2 := newEnv(t, db, admin.Options{Rooms: &stuckRooms{panics: true}, RoomTimeout: shortRoomTimeout})
		root2 := e2.login("root@example.com", "correct horse")
		for _, c := range calls {
			r := root2.do(c.method, c.path, bodies[c.method+" "+c.path]).want(t, 500, "room_failed")
			if c.path == "/admin-api/rooms/r1" && !strings.Contains(fmt.Sprint(r.body["error"]), `"r1"`) {
				t.Errorf("%s %s = %s; want the room named", c.method, c.path, r.raw)
			}
		}
		root2.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if logged := e2.logs.String(); !strings.Contains(logged, "code=room_failed") || !strings.Contains(logged, "stack=") || !strings.Contains(logged, "the game's runtime is broken") {
			t.Errorf("the 500s are not logged with the panic and its stack:\n%s", logged)
		}
	})
}

// TestRoomCallbackPanics: a room whose inspect callback panics answers
// 500 room_failed naming the room, logged with its stack, and lives on:
// its player stays connected and it ticks; a kick there needs no
// callback, succeeds and labels its entry with the kicked player. A
// leave callback that panics during a kick answers 500 too, and the other
// players stay.
func TestRoomCallbackPanics(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		logs := &syncBuffer{}
		w := newWorld(t, db, true, func(o *admin.Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
		var ticks atomic.Int64
		w.hub.Define("broken", live.RoomType{EmptyTimeout: -1, TickInterval: 10 * time.Millisecond,
			OnTick:   func(*live.Room) { ticks.Add(1) },
			Metadata: func(*live.Room) any { panic("nil map in the game's Metadata") }})
		w.hub.Define("leaver", live.RoomType{EmptyTimeout: -1,
			OnLeave: func(*live.Room, *live.Client) { panic("nil map in the game's OnLeave") }})
		w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		ann, bob, cid := w.user("ann@example.com", admin.RoleUser), w.user("bob@example.com", admin.RoleUser), w.user("cid@example.com", admin.RoleUser)
		pa := w.mustJoin("broken", ann, "")
		room := pa.roomID

		code, body := root.do("GET", "/admin-api/rooms/"+room, nil)
		if msg, _ := body["error"].(string); code != 500 || body["code"] != "room_failed" || !strings.Contains(msg, room) {
			t.Fatalf("inspect of a room whose Metadata panics = %d %v; want 500 room_failed naming the room", code, body)
		}
		if logged := logs.String(); !strings.Contains(logged, "nil map in the game's Metadata") || !strings.Contains(logged, "stack=") {
			t.Errorf("the panic is not logged with its stack:\n%s", logged)
		}
		before := ticks.Load()
		waitFor(t, func() bool { return ticks.Load() > before })
		if s, err := w.hub.Session(t.Context(), room, pa.sid); err != nil || s.UserID != ann {
			t.Fatalf("the player after the panic = %+v, %v; want still in the room", s, err)
		}
		select {
		case ce := <-pa.closed:
			t.Fatalf("the player's socket closed: %v", ce)
		default:
		}
		if list := root.want("GET", "/admin-api/rooms", nil, 200); !strings.Contains(fmt.Sprint(list["_raw"]), room) {
			t.Fatalf("the room list = %v; want the room still there", list)
		}
		root.want("DELETE", "/admin-api/rooms/"+room+"/clients/"+pa.sid, map[string]any{"reason": "afk"}, 200)
		if code, _ := pa.waitClosed(t); code != live.CloseKicked {
			t.Fatalf("the kicked socket closed with %d", code)
		}
		if k := w.audit("room.kick"); len(k) != 1 || k[0].Payload["userId"] != ann || k[0].Payload["roomName"] != "broken" {
			t.Fatalf("room.kick entries = %+v; want one naming ann and the room", k)
		}

		pb := w.mustJoin("leaver", bob, "")
		pc := w.mustJoin("leaver", cid, pb.roomID)
		code, body = root.do("DELETE", "/admin-api/rooms/"+pb.roomID+"/clients/"+pb.sid, map[string]any{"reason": "afk"})
		if code != 500 || body["code"] != "room_failed" {
			t.Fatalf("kick whose OnLeave panics = %d %v; want 500 room_failed", code, body)
		}
		if code, _ := pb.waitClosed(t); code != live.CloseKicked {
			t.Fatalf("the kicked socket closed with %d", code)
		}
		if v := root.want("GET", "/admin-api/rooms/"+pb.roomID, nil, 200); v["clients"] != 1.0 {
			t.Fatalf("the room after the failed OnLeave = %v; want cid still there", v)
		}
		select {
		case ce := <-pc.closed:
			t.Fatalf("the other player's socket closed: %v", ce)
		default:
		}
	})
}
