package live

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameadmin/admin/rooms"
	"github.com/gorilla/websocket"
)

func TestEditStateVisible(t *testing.T) {
	created := make(chan *gameState, 1)
	e := newEnv(t, anonymous(), map[string]RoomType{
		"map": {NewState: func() any { return map[string]any{"score": 1, "items": []any{"a", "b"}} }},
		"struct": {NewState: func() any {
			s := newGameState()
			created <- s
			return s
		}},
	})
	ctx := context.Background()

	tests := []struct {
		name  string
		room  string
		path  []any
		value string // "" deletes
		want  string // the state clients see
	}{
		{"map edit", "map", []any{"score"}, `5`, `{"score":5,"items":["a","b"]}`},
		{"map delete", "map", []any{"items", 0}, ``, `{"score":5,"items":["b"]}`},
		{"struct edit", "struct", []any{"players", 0, "score"}, `42`, `{"round":1,"players":[{"name":"ann","score":42},{"name":"bob","score":4}],"tags":{"mode":"duel"}}`},
		{"struct delete", "struct", []any{"players", 1}, ``, `{"round":1,"players":[{"name":"ann","score":42}],"tags":{"mode":"duel"}}`},
	}
	clients := map[string]*client{"map": e.join(t, "map"), "struct": e.join(t, "struct")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clients[tt.room]
			var err error
			if tt.value != "" {
				err = e.hub.EditState(ctx, c.roomID, tt.path, json.RawMessage(tt.value))
			} else {
				err = e.hub.DeleteState(ctx, c.roomID, tt.path)
			}
			if err != nil {
				t.Fatalf("edit %v = %v; want nil", tt.path, err)
			}
			if m := c.until("state"); !jsonEqual(t, m.State, tt.want) {
				t.Errorf("client sees state %s; want %s", m.State, tt.want)
			}
			v, err := e.hub.Inspect(ctx, c.roomID)
			if err != nil || !jsonEqual(t, v.State, tt.want) {
				t.Errorf("Inspect state = %s, %v; want %s", v.State, err, tt.want)
			}
		})
	}

	// The struct the game holds really changed, and fields JSON does not see
	// survived.
	s := <-created
	room, _ := e.hub.Room(clients["struct"].roomID)
	var got gameState
	if err := room.Do(ctx, func(*Room) { got = *s }); err != nil {
		t.Fatal(err)
	}
	if len(got.Players) != 1 || got.Players[0].Score != 42 || got.secret != "s3" || got.Cache != "cached" {
		t.Errorf("game's struct = %+v; want one player with score 42 and secret, Cache kept", got)
	}

	errs := []struct {
		name    string
		path    []any
		value   string
		wantErr error
	}{
		{"value of the wrong type", []any{"round"}, `"x"`, ErrInvalidValue},
		{"unknown field", []any{"nope"}, `1`, rooms.ErrInvalidPath},
		{"index out of range", []any{"players", 9}, `{}`, rooms.ErrInvalidPath},
		{"descend into a number", []any{"round", "x"}, `1`, rooms.ErrInvalidPath},
	}
	for _, tt := range errs {
		if err := e.hub.EditState(ctx, room.ID(), tt.path, json.RawMessage(tt.value)); !errors.Is(err, tt.wantErr) {
			t.Errorf("EditState(%s: %v) = %v; want %v", tt.name, tt.path, err, tt.wantErr)
		}
	}
	// The operator reads the message as it is: the field and the kinds of
	// value, not Go's types or the chain of wrapped errors.
	for _, tt := range []struct {
		path  []any
		value string
		want  string
	}{
		{[]any{"round"}, `"x"`, "round takes a whole number, not text"},
		{[]any{"round"}, `1.5`, "round takes a whole number, not 1.5"},
		{[]any{"nope"}, `1`, `the room state has no field "nope"`},
		{[]any{"round"}, `{`, "the value is not JSON"},
	} {
		err := e.hub.EditState(ctx, room.ID(), tt.path, json.RawMessage(tt.value))
		if err == nil || err.Error() != tt.want {
			t.Errorf("EditState(%v, %s) = %v; want %q", tt.path, tt.value, err, tt.want)
		}
	}
	if err := e.hub.DeleteState(ctx, room.ID(), nil); !errors.Is(err, rooms.ErrInvalidPath) {
		t.Errorf("DeleteState(root) = %v; want ErrInvalidPath", err)
	}
	if err := e.hub.EditState(ctx, "nope", []any{"a"}, json.RawMessage(`1`)); !errors.Is(err, rooms.ErrRoomNotFound) {
		t.Errorf("EditState(unknown room) = %v; want ErrRoomNotFound", err)
	}
}

// TestSlowClientDropped has one client that never reads: it must be dropped
// while the room keeps answering and the other client gets every message.
func TestSlowClientDropped(t *testing.T) {
	opts := anonymous()
	opts.SendQueue = 4
	opts.PongTimeout, opts.PingInterval = 10*time.Second, time.Second // only the full queue may drop slow
	e := newEnv(t, opts, map[string]RoomType{"lobby": {}})
	fast, slow := e.join(t, "lobby"), e.join(t, "lobby")
	room, _ := e.hub.Room(fast.roomID)
	big := strings.Repeat("x", 256<<10)
	for i := 0; e.clientCount(t, room.ID()) == 2; i++ {
		if i == 1000 {
			t.Fatalf("slow client still in the room after %d broadcasts of %d bytes", i, len(big))
		}
		// A room held by the slow client would never answer; a loaded
		// machine may take a while.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := room.Do(ctx, func(r *Room) { _ = r.Broadcast(big) })
		cancel()
		if err != nil {
			t.Fatalf("broadcast %d: %v; want the room to answer", i, err)
		}
		fast.until("message")
	}
	v, err := e.hub.Inspect(context.Background(), room.ID())
	if err != nil || len(v.ClientList) != 1 || v.ClientList[0].SessionID != fast.session {
		t.Fatalf("Inspect = %+v, %v; want only the fast client %s (slow was %s)", v.ClientList, err, fast.session, slow.session)
	}
}

// TestSilentClientDropped checks ping/pong: a client that does not answer
// pings is dropped, one that does stays. The one that answers counts the
// pings it answered, and stays through a pong timeout's worth of them
// after the silent one is gone: counted, not slept, so a slow machine
// only makes the test longer. The pong timeout is long enough for the
// answering client's reader to come round on a loaded machine.
func TestSilentClientDropped(t *testing.T) {
	opts := anonymous()
	opts.PongTimeout, opts.PingInterval = 3*time.Second, 100*time.Millisecond
	e := newEnv(t, opts, map[string]RoomType{"lobby": {EmptyTimeout: -1}})
	c := e.join(t, "lobby") // never reads again, so never answers a ping
	alive := e.join(t, "lobby")
	var pings atomic.Int64
	alive.conn.SetPingHandler(func(data string) error {
		pings.Add(1)
		return alive.conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(testTimeout))
	})
	go func() { // reading answers pings
		for {
			if _, _, err := alive.conn.ReadMessage(); err != nil {
				return
			}
		}
	}()
	eventually(t, "the silent client to be dropped, the answering one kept", func() bool { return e.clientCount(t, c.roomID) == 1 })
	// Had its pongs not counted, the answering client would be dropped
	// within a pong timeout of the silent one, and its pings would stop.
	want := pings.Load() + int64(opts.PongTimeout/opts.PingInterval) + 1
	eventually(t, "a pong timeout's worth of pings to the answering client", func() bool { return pings.Load() >= want })
	v, err := e.hub.Inspect(context.Background(), c.roomID)
	if err != nil || len(v.ClientList) != 1 || v.ClientList[0].SessionID != alive.session {
		t.Errorf("Inspect = %+v, %v; want the reading client %s kept", v.ClientList, err, alive.session)
	}
}

func TestClose(t *testing.T) {
	ticks := make(chan struct{}, 1)
	e := newEnv(t, anonymous(), map[string]RoomType{
		"lobby": {},
		"game": {TickInterval: 5 * time.Millisecond, OnTick: func(*Room) {
			select {
			case ticks <- struct{}{}:
			default:
			}
		}},
	})
	cs := []*client{e.join(t, "lobby"), e.join(t, "lobby"), e.join(t, "game")}
	<-ticks
	room, _ := e.hub.Room(cs[2].roomID)
	if err := e.hub.Close(); err != nil {
		t.Fatalf("Close() = %v; want nil", err)
	}
	for _, c := range cs {
		if ce := c.closed(); ce.Code != websocket.CloseGoingAway {
			t.Errorf("close = %v; want 1001", ce)
		}
	}
	if l, _ := e.hub.List(context.Background()); len(l) != 0 {
		t.Errorf("List() after Close = %+v; want none", l)
	}
	if err := room.Do(context.Background(), func(*Room) {}); err == nil {
		t.Error("Room.Do after Close = nil; want an error")
	}
	if status, code := e.refused(t, "lobby"); status != http.StatusServiceUnavailable || code != "closed" {
		t.Errorf("join after Close = %d %q; want 503 closed", status, code)
	}
	// newEnv's cleanup checks that every goroutine has stopped.
}

// TestPanickingCallbackDisposesRoom: a bug in one room's game code closes
// that room's clients (1011) and disposes it; other rooms and the hub live.
func TestPanickingCallbackDisposesRoom(t *testing.T) {
	leaves := make(chan string, 4)
	e := newEnv(t, anonymous(), map[string]RoomType{
		"buggy": {
			OnMessage: func(*Room, *Client, json.RawMessage) { panic("nil map in game code") },
			OnLeave:   func(*Room, *Client) { leaves <- "buggy" },
		},
		"fine": {OnLeave: func(*Room, *Client) { leaves <- "fine" }},
	})
	a, b, other := e.join(t, "buggy"), e.join(t, "buggy"), e.join(t, "fine")
	a.send(`"boom"`)
	for _, c := range []*client{a, b} {
		if ce := c.closed(); ce.Code != websocket.CloseInternalServerErr {
			t.Fatalf("close = %v; want 1011", ce)
		}
	}
	if _, err := e.hub.Inspect(context.Background(), a.roomID); !errors.Is(err, rooms.ErrRoomNotFound) {
		t.Fatalf("Inspect(buggy room) = %v; want ErrRoomNotFound", err)
	}
	select {
	case l := <-leaves:
		t.Fatalf("OnLeave of %s ran; a broken room's callbacks must not run again", l)
	default:
	}
	// The rest of the hub is unaffected, and the room type still works.
	if _, err := e.hub.Inspect(context.Background(), other.roomID); err != nil {
		t.Fatalf("Inspect(other room) = %v", err)
	}
	e.join(t, "buggy")
}
