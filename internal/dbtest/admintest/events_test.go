package admintest

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// heard collects what Options.OnAudit received.
type heard struct {
	mu     sync.Mutex
	events []AuditEvent
}

func (h *heard) add(_ context.Context, e AuditEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, e)
}

// of is the events of action heard so far.
func (h *heard) of(action string) []AuditEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []AuditEvent
	for _, e := range h.events {
		if e.Action == action {
			out = append(out, e)
		}
	}
	return out
}

// wait is the first event of action, once it has come.
func (h *heard) wait(t *testing.T, action string) AuditEvent {
	t.Helper()
	waitFor(t, func() bool { return len(h.of(action)) > 0 })
	return h.of(action)[0]
}

// TestOnAuditHearsCommittedEntries: the hook receives the entries of a
// ban, an update and an erase, labelled (an admin without a display name
// by their email, a player without one not at all: never by their
// email), after they commit; the entry of
// a write that rolls back (an erase's dry run, the game's transaction
// that fails) never comes, and a hook that panics still gets the next.
func TestOnAuditHearsCommittedEntries(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		h := &heard{}
		panicked := false
		e := newEnv(t, db, Options{OnAudit: func(ctx context.Context, ev AuditEvent) {
			if ev.Action == "game.panics" && !panicked {
				panicked = true
				panic("boom")
			}
			h.add(ctx, ev)
		}})
		root, rootID := e.bootstrap()
		uid := e.user("p@example.com", "player password")
		until := time.Now().UTC().Add(7 * 24 * time.Hour).Truncate(time.Second)
		root.do("POST", "/admin-api/users/"+uid+"/ban", map[string]any{"reason": "speed hack", "until": until}).want(t, 200)
		ban := h.wait(t, "user.ban")
		if ban.ID == 0 || ban.OperatorID != rootID || ban.Operator != "root@example.com" || ban.ActionLabel != "Banned" ||
			ban.Resource != "users" || ban.TargetID != uid || ban.Target != "" || ban.Payload["reason"] != "speed hack" {
			t.Errorf("ban event = %+v; want its id, operator (by email), label, target (unnamed) and reason", ban)
		}
		if got, _ := ban.Payload["until"].(string); !strings.HasPrefix(got, until.Format("2006-01-02T15:04:05")) {
			t.Errorf("ban event until = %v; want the stored %v", ban.Payload["until"], until)
		}
		root.do("PATCH", "/admin-api/users/"+uid, map[string]any{"display_name": "Player 07"}).want(t, 200)
		upd := h.wait(t, "update")
		changes, _ := upd.Payload["changes"].(map[string]any)
		if upd.Target != "Player 07" || changes["display_name"] == nil {
			t.Errorf("update event = %+v; want the new name and its change", upd)
		}
		root.do("POST", "/admin-api/users/"+uid+"/_erase?dryRun=true", nil).want(t, 200)
		root.do("POST", "/admin-api/users/"+uid+"/_erase", map[string]any{"confirm": "p@example.com"}).want(t, 200)
		h.wait(t, "user.erase")

		// The game's own transactions through Audit().RunInTx: one rolls
		// back, one commits. One on the game's own *bun.DB cannot be
		// seen committing: it is not sent, and a warning says why.
		ctx := context.Background()
		rolledBack := errors.New("rolled back")
		err := e.admin.Audit().RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if err := e.admin.Audit().RecordTx(ctx, tx, AuditEntry{Action: "game.rolled_back", Resource: "players"}); err != nil {
				return err
			}
			return rolledBack
		})
		if !errors.Is(err, rolledBack) {
			t.Fatalf("RunInTx = %v; want the rollback", err)
		}
		err = e.admin.Audit().RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			return e.admin.Audit().RecordTx(ctx, tx, AuditEntry{Action: "game.committed", Resource: "players", TargetID: "9"})
		})
		if err != nil {
			t.Fatal(err)
		}
		err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return e.admin.Audit().RecordTx(ctx, tx, AuditEntry{Action: "game.unseen", Resource: "players"})
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(e.auditRows("game.unseen")) != 1 || !contains(e.logs.String(), "not sent to OnAudit") {
			t.Errorf("an entry of the game's own *bun.DB: want it written and a warning that it is not sent\n%s", e.logs.String())
		}
		must(0, e.admin.Audit().Record(ctx, AuditEntry{Action: "game.panics", Resource: "players"}))
		must(0, e.admin.Audit().Record(ctx, AuditEntry{Action: "game.last", Resource: "players"}))
		h.wait(t, "game.last") // one queue, in order: everything before it has come
		if got := h.of("game.committed"); len(got) != 1 || got[0].TargetID != "9" || got[0].OperatorID != "" {
			t.Errorf("game.committed events = %+v; want the one committed", got)
		}
		if got := h.of("game.unseen"); len(got) != 0 {
			t.Errorf("events of the game's own transaction = %+v; want none (its commit is not seen)", got)
		}
		if got := h.of("game.rolled_back"); len(got) != 0 {
			t.Errorf("events of a rolled-back transaction = %+v; want none", got)
		}
		if got := h.of("user.erase"); len(got) != 1 {
			t.Errorf("user.erase events = %d; want 1 (the dry run rolls back)", len(got))
		}
		if !contains(e.logs.String(), "OnAudit panicked") {
			t.Error("the hook's panic was not logged")
		}
		if n := e.admin.AuditEventsDropped(); n != 0 {
			t.Errorf("AuditEventsDropped = %d; want 0", n)
		}
	})
}

// TestOnAuditSlowHook: a hook that hangs slows no request; with a queue
// of one, the events past it are dropped, counted, and logged once.
func TestOnAuditSlowHook(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		release := make(chan struct{})
		defer close(release) // before the panel's Close, which waits for the hook
		e := newEnv(t, db, Options{AuditQueue: 1, OnAudit: func(ctx context.Context, ev AuditEvent) {
			select {
			case <-release:
			case <-time.After(time.Minute):
			}
		}})
		root, _ := e.bootstrap() // the hook hangs on its entry
		uid := e.user("p@example.com", "player password")
		for i := range 5 {
			start := time.Now()
			root.do("PATCH", "/admin-api/users/"+uid, map[string]any{"display_name": "Name " + string(rune('A'+i))}).want(t, 200)
			// The hook hangs for a minute: a request behind it would take
			// that; a loaded machine takes far less.
			if d := time.Since(start); d > 30*time.Second {
				t.Fatalf("a request took %v behind a hanging hook; want it unaffected", d)
			}
		}
		// The hook holds one, the queue one more: at least 3 of the 5
		// updates' events (and the bootstrap's sign-in entry) are dropped.
		if n := e.admin.AuditEventsDropped(); n < 3 {
			t.Errorf("AuditEventsDropped = %d; want at least 3", n)
		}
		if n := strings.Count(e.logs.String(), "audit events dropped"); n != 1 {
			t.Errorf("the drops were logged %d times; want once\n%s", n, e.logs.String())
		}
	})
}

// TestOnAuditCloseStops: Close lets the hook have what was queued, then
// its goroutine ends.
func TestOnAuditCloseStops(t *testing.T) {
	// Not parallel: it counts the process's goroutines.
	db := testdb.SQLite(t)
	ctx := context.Background()
	before := runtime.NumGoroutine()
	h := &heard{}
	a, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher, SetupToken: testSetupToken, OnAudit: func(ctx context.Context, ev AuditEvent) {
		time.Sleep(20 * time.Millisecond)
		h.add(ctx, ev)
	}})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		must(0, a.Audit().Record(ctx, AuditEntry{Action: "game.tick", Resource: "players"}))
	}
	a.Close()
	if n := len(h.of("game.tick")); n != 5 {
		t.Errorf("the hook had %d of 5 queued events at Close; want all", n)
	}
	must(0, a.Audit().Record(ctx, AuditEntry{Action: "game.after_close", Resource: "players"}))
	if n := a.AuditEventsDropped(); n != 1 {
		t.Errorf("AuditEventsDropped after Close = %d; want the one written after it", n)
	}
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close; want at most the %d before New", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
