package admintest

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestWriteJSONLength: answers go out with their length, not chunked, and
// a value that cannot be encoded (a widget's NaN) answers a logged 500
// instead of a 200 with a cut body.
func TestWriteJSONLength(t *testing.T) {
	t.Parallel()
	nan := Widget{ID: "nan", Title: "NaN", Render: "json", Data: func(context.Context, Operator) (any, error) {
		return map[string]any{"n": math.NaN()}, nil
	}}
	eachEnv(t, Options{Widgets: []Widget{nan}}, func(t *testing.T, e *env) {
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
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
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
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, "POST", e.srv.URL+"/admin-api/guilds/_action/wait", nil)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			res, err := admin.hc.Do(req)
			if err == nil {
				res.Body.Close()
			}
			done <- err
		}()
		<-started
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled request = %v; want context.Canceled", err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(logs.String(), "client went away") {
			if time.Now().After(deadline) {
				t.Fatalf("no debug line for the cancelled request:\n%s", logs.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		if strings.Contains(logs.String(), "level=ERROR") {
			t.Fatalf("a client going away is logged as an error:\n%s", logs.String())
		}
	})
}
