package admintest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// TestWriteJSONLength: answers go out with their length, not chunked, and
// a value that cannot be encoded (a widget's NaN) answers a logged 500
// instead of a 200 with a cut body.
func TestWriteJSONLength(t *testing.T) {
	t.Parallel()
	nan := Widget{ID: "nan", Title: "NaN", Render: "json", Data: func(context.Context, Operator) (any, error) {
		return map[string]any{"n": math.NaN()}, nil
	}}
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{Widgets: []Widget{nan}})
		admin, _ := e.bootstrap()
		r := admin.do("GET", "/admin-api/users", nil).want(t, http.StatusOK)
		if r.ContentLength != int64(len(r.raw)) || len(r.TransferEncoding) != 0 {
			t.Errorf("list: Content-Length %d, Transfer-Encoding %v for a %d-byte body; want the length, not chunked", r.ContentLength, r.TransferEncoding, len(r.raw))
		}
		if got := r.Header.Get("Content-Length"); got != strconv.Itoa(len(r.raw)) {
			t.Errorf("list: Content-Length header %q; want %d", got, len(r.raw))
		}

		admin.do("GET", "/admin-api/_dashboard", nil).want(t, http.StatusInternalServerError, "internal")
		if !contains(e.logs.String(), "encoding the answer") {
			t.Errorf("the cause was not logged: %s", e.logs)
		}
	})
}

// A dropped game_roles table used to make bootstrap answer 403
// bootstrap_closed with no log line (errors.Join with the 403 hid the
// database error), while /auth/status answered 500.
func TestNoCauseLost(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		if _, err := e.db.ExecContext(context.Background(), "DROP TABLE game_roles"); err != nil {
			t.Fatal(err)
		}
		c := e.client()
		r := c.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "root@example.com", "password": "correct horse", "token": e.setupToken()})
		want5xx(t, e, r, 500, "internal", "game_roles")
		want5xx(t, e, c.do("GET", "/admin-api/auth/status", nil), 500, "internal", "game_roles")

		// A proxy's request id is kept when it is a plain token, and
		// replaced when it could forge a log line.
		c.hdr.Set("X-Request-Id", "edge-42.a_b")
		r = c.do("GET", "/admin-api/auth/status", nil)
		if r.body["requestId"] != "edge-42.a_b" {
			t.Fatalf("requestId = %v; want the proxy's edge-42.a_b", r.body["requestId"])
		}
		c.hdr.Set("X-Request-Id", "x\" level=INFO msg=forged")
		r = c.do("GET", "/admin-api/auth/status", nil)
		if id, _ := r.body["requestId"].(string); id == "" || strings.Contains(id, " ") {
			t.Fatalf("requestId = %q; want a fresh id", id)
		}
		// 4xx answers carry no request id.
		r = e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "x"}).want(t, 400)
		if _, ok := r.body["requestId"]; ok {
			t.Fatalf("a 400 carries a requestId: %s", r.raw)
		}
	})
}

// A client that goes away mid-request is not an error of the server.
func TestClientGoneNotLoggedAsError(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testGuild)(nil))
		started := make(chan struct{}, 1)
		logs := &syncBuffer{}
		e := newEnv(t, db, Options{
			Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			Tables: tablesWith(map[string]any{"guilds": (*testGuild)(nil)}),
			Resources: map[string]*Resource{"guilds": DefineResource((*testGuild)(nil), ResourceConfig{Actions: []Action{
				{Name: "wait", Handler: func(ctx context.Context, _ map[string]any, _ ActionContext) (any, error) {
					started <- struct{}{}
					<-ctx.Done()
					return nil, ctx.Err()
				}},
			}})},
		})
		admin, _ := e.bootstrap()
		cancelWhen(t, admin, "POST", "/admin-api/guilds/_action/wait", nil, started)
		waitForLog(t, logs, "client went away", 1)
		if strings.Contains(logs.String(), "level=ERROR") {
			t.Fatalf("a client going away is logged as an error:\n%s", logs.String())
		}
	})
}

// A client that goes away while its request holds a transaction is not
// a server error either, whatever the end of the transaction says: on
// PostgreSQL the hook below lets database/sql roll the transaction back
// (the request's context ended) before the handler goes on, so its next
// statement or commit fails with "transaction has already been committed
// or rolled back", which was answered 500 and logged as the database's
// fault. A list's exact count, under QueryTimeout in a transaction of
// its own, and an update are each cut so; the update writes nothing.
func TestClientGoneInATransaction(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		app := ""
		if db.Dialect().Name() == dialect.PG {
			app = fmt.Sprintf("gameadmin_gone_%d", time.Now().UnixNano())
			db = testdb.PGNamed(t, app)
		}
		createTables(t, db, (*testGuild)(nil))
		insert(t, db, &testGuild{Name: "Night Watch", OwnerID: "u1"})
		hold := &holdAfter{db: db, app: app, started: make(chan struct{}, 1)}
		logs := &syncBuffer{}
		e := newEnv(t, db.WithQueryHook(hold), Options{
			Logger:    slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			Tables:    tablesWith(map[string]any{"guilds": (*testGuild)(nil)}),
			Resources: map[string]*Resource{"guilds": DefineResource((*testGuild)(nil), ResourceConfig{})},
		})
		admin, _ := e.bootstrap()
		type cut struct {
			method, path, match string
			body                any
		}
		from := `FROM "guilds"`
		if db.Dialect().Name() == dialect.MySQL {
			from = "FROM `guilds`"
		}
		cases := []cut{{"PATCH", "/admin-api/guilds/1", from, map[string]any{"name": "Day Watch"}}}
		if app != "" {
			// On SQLite a count runs in no transaction, and one that the
			// database answered has nothing left to fail.
			cases = append(cases, cut{"GET", "/admin-api/guilds?name_like=night&_count=exact", `SELECT count(*) FROM "guilds"`, nil})
		}
		for i, tt := range cases {
			hold.arm(tt.match)
			cancelWhen(t, admin, tt.method, tt.path, tt.body, hold.started)
			waitForLog(t, logs, "client went away", i+1)
		}
		if strings.Contains(logs.String(), "level=ERROR") || strings.Contains(logs.String(), "status=500") {
			t.Fatalf("a client going away is logged as a server error:\n%s", logs.String())
		}
		if rows, _ := admin.list(t, "/admin-api/guilds", nil); len(rows) != 1 || rows[0]["name"] != "Night Watch" {
			t.Fatalf("guilds after the cut update = %v; want Night Watch as it was", rows)
		}
	})
}

// holdAfter is a query hook that holds the first statement whose text
// holds match, once armed, after the database answered it, until the
// statement's context ends (its client went away) and, on PostgreSQL,
// until database/sql has ended the transaction it ran in (no backend of
// app is left idle in a transaction).
type holdAfter struct {
	db      *bun.DB
	app     string
	match   atomic.Pointer[string]
	started chan struct{}
}

func (h *holdAfter) arm(match string) { h.match.Store(&match) }

func (*holdAfter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h *holdAfter) AfterQuery(ctx context.Context, ev *bun.QueryEvent) {
	m := h.match.Load()
	if m == nil || !strings.Contains(ev.Query, *m) || !h.match.CompareAndSwap(m, nil) {
		return
	}
	h.started <- struct{}{}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute): // a statement its request does not end fails the test, not hangs it
		return
	}
	if h.app == "" {
		return
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var n int
		err := h.db.NewRaw(`SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND state LIKE 'idle in transaction%'`, h.app).Scan(context.Background(), &n)
		if err != nil || n == 0 {
			return
		}
	}
}

// cancelWhen sends a request of c's and, once started says the server is
// at the point the test wants, cancels it: the client goes away.
func cancelWhen(t *testing.T, c *client, method, path string, body any, started <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.e.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	done := make(chan error, 1)
	go func() {
		res, err := c.hc.Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("%s %s cancelled = %v; want context.Canceled", method, path, err)
	}
}

// waitForLog waits until logs hold line n times (30 s at most: the
// server ends a request its client left in its own time).
func waitForLog(t *testing.T, logs *syncBuffer, line string, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); strings.Count(logs.String(), line) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%q logged %d times, want %d:\n%s", line, strings.Count(logs.String(), line), n, logs.String())
		}
	}
}
