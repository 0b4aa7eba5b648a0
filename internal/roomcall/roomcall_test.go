package roomcall

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/rooms"
)

// gameRuntime is a game's own runtime whose every method does act.
type gameRuntime struct {
	act   func(ctx context.Context) error
	calls atomic.Int64
}

func (g *gameRuntime) do(ctx context.Context) error { g.calls.Add(1); return g.act(ctx) }

func (g *gameRuntime) List(ctx context.Context) ([]rooms.Summary, error) {
	return []rooms.Summary{{RoomID: "r1"}}, g.do(ctx)
}
func (g *gameRuntime) Inspect(ctx context.Context, id string) (rooms.View, error) {
	return rooms.View{RoomSummary: rooms.Summary{RoomID: id}}, g.do(ctx)
}
func (g *gameRuntime) Session(ctx context.Context, id, s string) (rooms.UserSession, error) {
	return rooms.UserSession{RoomID: id, SessionID: s, UserID: "u1"}, g.do(ctx)
}
func (g *gameRuntime) Kick(ctx context.Context, _, _, _ string) error           { return g.do(ctx) }
func (g *gameRuntime) SetLocked(ctx context.Context, _ string, _ bool) error    { return g.do(ctx) }
func (g *gameRuntime) DeleteState(ctx context.Context, _ string, _ []any) error { return g.do(ctx) }
func (g *gameRuntime) Dispose(ctx context.Context, _ string) error              { return g.do(ctx) }
func (g *gameRuntime) UserSessions(ctx context.Context, _ string) ([]rooms.UserSession, error) {
	return nil, g.do(ctx)
}
func (g *gameRuntime) EditState(ctx context.Context, _ string, _ []any, _ json.RawMessage) error {
	return g.do(ctx)
}
func (g *gameRuntime) DisconnectUser(ctx context.Context, _ string, _ rooms.LeaveReason, _ string) (int, error) {
	return 2, g.do(ctx)
}

// limit is the tests' RoomTimeout; none measures it.
const limit = 20 * time.Millisecond

// waitLate polls until b counts n late calls; it fails only if that never
// comes.
func waitLate(t *testing.T, b *bounded, n int64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); b.late.Load() != n; {
		if time.Now().After(deadline) {
			t.Fatalf("late calls = %d; want %d", b.late.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBoundIgnoringCtx: a runtime that ignores its ctx is answered for
// at the limit while it still blocks, with an error naming the room, the
// call and the limit; its goroutine ends when it returns.
func TestBoundIgnoringCtx(t *testing.T) {
	release := make(chan struct{})
	g := &gameRuntime{act: func(context.Context) error { <-release; return nil }}
	rt := Bound(g, limit)
	b := rt.(*bounded)
	calls := []struct {
		name string
		call func() error
	}{
		{"Inspect", func() error { _, err := rt.Inspect(context.Background(), "r1"); return err }},
		{"Kick", func() error { return rt.Kick(context.Background(), "r1", "s1", "afk") }},
		{"List", func() error { _, err := rt.List(context.Background()); return err }},
		{"DisconnectUser", func() error {
			_, err := rt.DisconnectUser(context.Background(), "u1", rooms.LeaveBanned, "banned")
			return err
		}},
	}
	for _, c := range calls {
		err := c.call()
		var te *TimeoutError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &te) || te.Op != c.name || te.Limit != limit {
			t.Fatalf("%s on a blocked runtime = %v; want a TimeoutError", c.name, err)
		}
		if c.name != "List" && c.name != "DisconnectUser" && !strings.Contains(err.Error(), `room "r1"`) {
			t.Errorf("%s error %q does not name the room", c.name, err)
		}
	}
	// Every answer came while the runtime still blocked.
	if b.late.Load() != int64(len(calls)) {
		t.Fatalf("late calls = %d; want %d", b.late.Load(), len(calls))
	}
	close(release)
	waitLate(t, b, 0)
}

// TestBoundHonouringCtx: a runtime that gives up with its ctx answers the
// time-limit error with its own as the cause; the values and errors of a
// call in time pass through.
func TestBoundHonouringCtx(t *testing.T) {
	var fail error
	g := &gameRuntime{act: func(ctx context.Context) error {
		if fail != nil {
			return fail
		}
		return nil
	}}
	rt := Bound(g, limit)
	if s, err := rt.Session(context.Background(), "r1", "s1"); err != nil || s.UserID != "u1" {
		t.Fatalf("Session = %+v, %v; want the runtime's answer", s, err)
	}
	if n, err := rt.DisconnectUser(context.Background(), "u1", rooms.LeaveRevoked, "bye"); n != 2 || err != nil {
		t.Fatalf("DisconnectUser = %d, %v; want 2, nil", n, err)
	}
	fail = rooms.ErrRoomNotFound
	if _, err := rt.Inspect(context.Background(), "r1"); !errors.Is(err, rooms.ErrRoomNotFound) {
		t.Fatalf("Inspect = %v; want the runtime's ErrRoomNotFound", err)
	}
	fail = nil
	g.act = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	err := rt.SetLocked(context.Background(), "r1", true)
	var te *TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("SetLocked on a runtime that gives up with ctx = %v; want a TimeoutError", err)
	}
	waitLate(t, rt.(*bounded), 0)
}

// TestBoundCallerGone: a caller that goes away gets its ctx's error, not
// a time-limit error: nothing timed out.
func TestBoundCallerGone(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	entered := make(chan struct{}, 1)
	rt := Bound(&gameRuntime{act: func(context.Context) error { entered <- struct{}{}; <-release; return nil }}, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rt.Dispose(ctx, "r1") }()
	<-entered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Dispose whose caller left = %v; want context.Canceled", err)
	}
}

// TestBoundRecoversPanics: a panic of the runtime's code is the call's
// ErrRoomFailed, with the stack, and the caller lives on.
func TestBoundRecoversPanics(t *testing.T) {
	rt := Bound(&gameRuntime{act: func(context.Context) error { panic("nil map in the game's runtime") }}, time.Hour)
	err := rt.EditState(context.Background(), "r1", []any{"a"}, json.RawMessage(`1`))
	var pe *panicerr.Error
	if !errors.Is(err, rooms.ErrRoomFailed) || !errors.As(err, &pe) || !strings.Contains(err.Error(), `room "r1"`) || !strings.Contains(err.Error(), "nil map") {
		t.Fatalf("EditState whose runtime panics = %v; want ErrRoomFailed naming the room and the panic", err)
	}
	if attrs := panicerr.Attrs(err); len(attrs) != 2 {
		t.Fatalf("log attributes = %v; want the error and its stack", attrs)
	}
}

// TestBoundLateCap: once MaxLate calls are still running past their
// limit, a call fails at once without reaching the runtime; when they
// return, calls reach it again.
func TestBoundLateCap(t *testing.T) {
	release := make(chan struct{})
	g := &gameRuntime{act: func(context.Context) error { <-release; return nil }}
	rt := Bound(g, limit)
	for range MaxLate {
		if err := rt.Kick(context.Background(), "r1", "s1", ""); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Kick = %v; want a time-limit error", err)
		}
	}
	err := rt.Kick(context.Background(), "r1", "s1", "")
	var te *TimeoutError
	if !errors.As(err, &te) || !te.Late || g.calls.Load() != MaxLate {
		t.Fatalf("Kick past MaxLate = %v (the runtime saw %d calls); want refused at once", err, g.calls.Load())
	}
	close(release)
	waitLate(t, rt.(*bounded), 0)
	g.act = func(context.Context) error { return nil }
	if err := rt.Kick(context.Background(), "r1", "s1", ""); err != nil {
		t.Fatalf("Kick once the late calls returned = %v", err)
	}
}

// TestBoundNil: no runtime, no bound.
func TestBoundNil(t *testing.T) {
	if rt := Bound(nil, limit); rt != nil {
		t.Fatalf("Bound(nil) = %v; want nil", rt)
	}
}
