package admintest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestRequestResetFloodIsBounded: a flood of request-reset calls whose
// deliveries hang holds a bounded number of goroutines (a goroutine per
// request before), every call answers the same 200, and Close still
// finishes the queued deliveries. The bound is the queue's, not the
// database's: SQLite alone (TestRequestResetUnknownEmailsCollapse floods
// both databases).
func TestRequestResetFloodIsBounded(t *testing.T) {
	// Not parallel: it counts the process's goroutines, which the
	// parallel tests' pools and servers would add to.
	db := testdb.SQLite(t)
	release := make(chan struct{})
	var mu sync.Mutex
	delivered := 0
	e := newEnv(t, db, Options{OnResetRequest: func(ctx context.Context, req ResetRequest) error {
		<-release
		mu.Lock()
		delivered++
		mu.Unlock()
		return nil
	}})
	e.user("p@example.com", "player password")
	before := runtime.NumGoroutine()
	const n = backgroundQueueCap + 200 // past the queue and its workers
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	statuses := make(chan int, n)
	for range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			statuses <- e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "p@example.com"}).StatusCode
		})
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != 200 {
			t.Fatalf("request-reset = %d; want 200 for every call", s)
		}
	}
	if g := runtime.NumGoroutine(); g > before+100 {
		t.Errorf("%d goroutines after %d hung deliveries (%d before); want a bounded pool", g, n, before)
	}
	if !contains(e.logs.String(), "background queue full") {
		t.Error("dropped deliveries were not logged")
	}
	// Hung deliveries do not starve the audit of failed sign-ins.
	e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "wrong guess"}).want(t, 401)
	waitFor(t, func() bool { return len(e.auditRows("auth.login_failed")) == 1 })
	close(release)
	e.admin.Close()
	mu.Lock()
	defer mu.Unlock()
	if delivered < backgroundQueueCap || delivered > backgroundQueueCap+backgroundWorkers {
		t.Errorf("delivered %d; want the queue's %d (plus the workers' %d)", delivered, backgroundQueueCap, backgroundWorkers)
	}
}

// TestRequestResetUnknownEmailsCollapse: 100 requests for distinct unknown
// emails from one address write two audit rows (the first, and one
// collapsed row at the end of the window or at Close), not 100; the per-IP
// bucket refuses the flood past its burst.
func TestRequestResetUnknownEmailsCollapse(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c := e.client()
		for i := range 100 {
			c.do("POST", "/admin-api/auth/request-reset", map[string]any{"email": fmt.Sprintf("ghost%d@example.com", i)}).want(t, 200)
		}
		e.admin.Close()
		rows := e.auditRows("auth.password_reset_requested")
		if len(rows) != 2 {
			t.Fatalf("%d audit rows for 100 unknown emails; want 2", len(rows))
		}
		// Workers and the flusher run in parallel: the single row may be any
		// of the first few emails, and either row may be written first.
		single, collapsed := rows[0], rows[1]
		if single.Payload["collapsed"] != nil {
			single, collapsed = collapsed, single
		}
		email, _ := single.Payload["email"].(string)
		if !strings.HasPrefix(email, "ghost") || single.Payload["collapsed"] != nil ||
			collapsed.Payload["collapsed"] != float64(99) || collapsed.Payload["ip"] != "127.0.0.1" {
			t.Fatalf("rows = %+v, %+v; want one request, and 99 collapsed", rows[0], rows[1])
		}

		// Per IP: the default bucket lets a burst of 30 through, and one
		// more every 2 s (a slow machine may earn a few while it sends).
		e2 := newEnv(t, db, Options{RateLimit: RateLimitOptions{PerIP: keepDefault{}}})
		c2 := e2.client()
		start, allowed := time.Now(), 0
		for i := 0; ; i++ {
			r := c2.do("POST", "/admin-api/auth/request-reset", map[string]any{"email": fmt.Sprintf("x%d@example.com", i)})
			if r.StatusCode == 429 {
				break
			}
			r.want(t, 200)
			allowed++
			if earned := int(time.Since(start).Seconds() / 2); allowed > defaultPerIPBurst+earned+1 {
				t.Fatalf("%d request-resets from one address let through in %s; want a burst of %d and one every 2 s", allowed, time.Since(start), defaultPerIPBurst)
			}
		}
		if allowed < defaultPerIPBurst {
			t.Fatalf("refused after %d request-resets; want a burst of %d", allowed, defaultPerIPBurst)
		}
		c2.do("POST", "/admin-api/auth/login", map[string]any{"email": "y@example.com", "password": "guess guess"}).want(t, 429, "rate_limited")
	})
}

// TestCloseStopsBackground: the workers, the failure flusher and the
// catalog's refresh (Options.CatalogRefresh) that New starts are gone
// after Close.
func TestCloseStopsBackground(t *testing.T) {
	db := testdb.SQLite(t)
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	a, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if g := runtime.NumGoroutine(); g < before+2*backgroundWorkers+2 {
		t.Fatalf("%d goroutines after New (%d before); want the 2×%d workers, the flusher and the catalog's refresh", g, before, backgroundWorkers)
	}
	a.Close()
	waitFor(t, func() bool { return runtime.NumGoroutine() <= before })
}
