// Package roomcall bounds the panel's calls into a game's live-room
// runtime (rooms.Runtime, Options.Rooms). The panel never calls the
// game's runtime but through Bound: the room endpoints, the dashboard's
// live rooms and players-online samples, the reports' room links, a
// user's live sessions and the moderation path's DisconnectUser. Each
// call
//
//   - has a time limit (Options.RoomTimeout): past it the call answers an
//     error wrapping context.DeadlineExceeded, whether or not the
//     runtime has returned, and its ctx ends, so a runtime that honours
//     ctx (package live, redisstore's cluster) drops the work;
//   - runs on a goroutine of its own, which recovers a panic of the
//     runtime's code as an error wrapping rooms.ErrRoomFailed, with its
//     stack (internal/panicerr);
//
// so a game's runtime that blocks or panics costs an operator's answer,
// never the panel's request or process.
//
// A call's goroutine ends when the runtime's method returns: at once,
// past the limit, for a runtime that honours its ctx. One that does not
// keeps its goroutine until it returns; at most MaxLate such calls run at
// once, and past that every call fails at once with the time-limit error
// until some of them return, so a stuck runtime holds a bounded number of
// goroutines.
package roomcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/rooms"
)

// MaxLate is how many calls past their limit a runtime may still be
// running before Bound fails new calls at once.
const MaxLate = 64

// Bound returns rt with every call bounded by limit (see the package
// documentation), or nil when rt is nil.
func Bound(rt rooms.Runtime, limit time.Duration) rooms.Runtime {
	if rt == nil {
		return nil
	}
	return &bounded{rt: rt, limit: limit}
}

// TimeoutError is the error of a call that ran past its limit, or whose
// deadline (an earlier one of the caller's) passed: errors.Is(err,
// context.DeadlineExceeded) reports it. The panel answers 504
// room_timeout.
type TimeoutError struct {
	Op     string        // the Runtime method: "Inspect", "Kick", …
	RoomID string        // "" for a call about no one room
	Limit  time.Duration // Options.RoomTimeout
	// Late says the call was refused at once: MaxLate calls of the
	// runtime were still running past their limit.
	Late bool
	// Cause is what the runtime answered, when it answered after the
	// deadline with an error of its own; nil when it had not answered.
	Cause error
}

// Error names the room, the call and the limit.
func (e *TimeoutError) Error() string {
	what := "the live rooms"
	if e.RoomID != "" {
		what = fmt.Sprintf("room %q", e.RoomID)
	}
	msg := fmt.Sprintf("admin: %s did not answer %s within RoomTimeout (%v)", what, e.Op, e.Limit)
	if e.Late {
		msg += fmt.Sprintf("; refused at once: %d calls of the runtime are still running past their limit", MaxLate)
	}
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns context.DeadlineExceeded, and the runtime's own error
// when it gave one.
func (e *TimeoutError) Unwrap() []error {
	if e.Cause != nil {
		return []error{context.DeadlineExceeded, e.Cause}
	}
	return []error{context.DeadlineExceeded}
}

// panicError is a panic of the runtime's own code on the call's
// goroutine: rooms.ErrRoomFailed, with the stack.
type panicError struct {
	op, room string
	p        *panicerr.Error
}

func (e *panicError) Error() string {
	if e.room == "" {
		return fmt.Sprintf("admin: the room runtime's %s failed: %v", e.op, e.p)
	}
	return fmt.Sprintf("admin: room %q: the room runtime's %s failed: %v", e.room, e.op, e.p)
}

func (e *panicError) Unwrap() []error { return []error{rooms.ErrRoomFailed, e.p} }

// bounded is Bound's runtime.
type bounded struct {
	rt    rooms.Runtime
	limit time.Duration
	late  atomic.Int64 // calls past their limit the runtime has not returned from
}

// callState is one call's end: whoever comes second (the runtime
// returning, the caller giving up) keeps the count of late calls right.
type callState struct {
	mu                  sync.Mutex
	returned, abandoned bool
}

// call runs fn on a goroutine of its own under b's limit.
func call[T any](b *bounded, ctx context.Context, op, roomID string, fn func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if b.late.Load() >= MaxLate {
		return zero, &TimeoutError{Op: op, RoomID: roomID, Limit: b.limit, Late: true}
	}
	cctx, cancel := context.WithTimeout(ctx, b.limit)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1) // never blocks: the caller may be gone
	st := &callState{}
	go func() {
		var res result
		defer func() {
			if p := recover(); p != nil {
				res = result{err: &panicError{op: op, room: roomID, p: panicerr.New(p)}}
			}
			st.mu.Lock()
			st.returned = true
			if st.abandoned {
				b.late.Add(-1)
			}
			st.mu.Unlock()
			done <- res
		}()
		res.v, res.err = fn(cctx)
	}()
	select {
	case res := <-done:
		if res.err != nil && cctx.Err() != nil && !errors.Is(ctx.Err(), context.Canceled) {
			// The runtime answered its deadline's end (live's "context
			// deadline exceeded"): the time limit is the cause to name.
			if !errors.Is(res.err, context.DeadlineExceeded) {
				return res.v, res.err
			}
			return res.v, &TimeoutError{Op: op, RoomID: roomID, Limit: b.limit, Cause: res.err}
		}
		return res.v, res.err
	case <-cctx.Done():
		st.mu.Lock()
		if !st.returned {
			st.abandoned = true
			b.late.Add(1)
		}
		st.mu.Unlock()
		if err := ctx.Err(); errors.Is(err, context.Canceled) {
			return zero, err // the caller went away: nothing timed out
		}
		return zero, &TimeoutError{Op: op, RoomID: roomID, Limit: b.limit}
	}
}

// none is call's value for the methods that answer only an error.
type none struct{}

// callErr is call for a method that answers only an error.
func callErr(b *bounded, ctx context.Context, op, roomID string, fn func(ctx context.Context) error) error {
	_, err := call(b, ctx, op, roomID, func(ctx context.Context) (none, error) { return none{}, fn(ctx) })
	return err
}

// List is the runtime's, bounded.
func (b *bounded) List(ctx context.Context) ([]rooms.Summary, error) {
	return call(b, ctx, "List", "", b.rt.List)
}

// Inspect is the runtime's, bounded.
func (b *bounded) Inspect(ctx context.Context, roomID string) (rooms.View, error) {
	return call(b, ctx, "Inspect", roomID, func(ctx context.Context) (rooms.View, error) { return b.rt.Inspect(ctx, roomID) })
}

// Session is the runtime's, bounded.
func (b *bounded) Session(ctx context.Context, roomID, sessionID string) (rooms.UserSession, error) {
	return call(b, ctx, "Session", roomID, func(ctx context.Context) (rooms.UserSession, error) {
		return b.rt.Session(ctx, roomID, sessionID)
	})
}

// Kick is the runtime's, bounded.
func (b *bounded) Kick(ctx context.Context, roomID, sessionID, reason string) error {
	return callErr(b, ctx, "Kick", roomID, func(ctx context.Context) error { return b.rt.Kick(ctx, roomID, sessionID, reason) })
}

// SetLocked is the runtime's, bounded.
func (b *bounded) SetLocked(ctx context.Context, roomID string, locked bool) error {
	return callErr(b, ctx, "SetLocked", roomID, func(ctx context.Context) error { return b.rt.SetLocked(ctx, roomID, locked) })
}

// EditState is the runtime's, bounded.
func (b *bounded) EditState(ctx context.Context, roomID string, path []any, value json.RawMessage) error {
	return callErr(b, ctx, "EditState", roomID, func(ctx context.Context) error { return b.rt.EditState(ctx, roomID, path, value) })
}

// DeleteState is the runtime's, bounded.
func (b *bounded) DeleteState(ctx context.Context, roomID string, path []any) error {
	return callErr(b, ctx, "DeleteState", roomID, func(ctx context.Context) error { return b.rt.DeleteState(ctx, roomID, path) })
}

// Dispose is the runtime's, bounded.
func (b *bounded) Dispose(ctx context.Context, roomID string) error {
	return callErr(b, ctx, "Dispose", roomID, func(ctx context.Context) error { return b.rt.Dispose(ctx, roomID) })
}

// UserSessions is the runtime's, bounded.
func (b *bounded) UserSessions(ctx context.Context, userID string) ([]rooms.UserSession, error) {
	return call(b, ctx, "UserSessions", "", func(ctx context.Context) ([]rooms.UserSession, error) {
		return b.rt.UserSessions(ctx, userID)
	})
}

// DisconnectUser answers the count the runtime gave with its error when
// it returned, and 0 with the time-limit error when it did not: the
// moderation path says the closing was partial.
func (b *bounded) DisconnectUser(ctx context.Context, userID string, why rooms.LeaveReason, message string) (int, error) {
	return call(b, ctx, "DisconnectUser", "", func(ctx context.Context) (int, error) {
		return b.rt.DisconnectUser(ctx, userID, why, message)
	})
}
