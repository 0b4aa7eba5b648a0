package admin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

// failNthExport is a query hook that fails the nth batch query of an
// export of gadgets: with a cancelled context (the database call fails)
// or a panic (a bug in the stream).
type failNthExport struct {
	n     int32
	panic bool
	seen  atomic.Int32
}

func (h *failNthExport) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if !strings.Contains(ev.Query, `FROM "gadgets"`) || !strings.Contains(ev.Query, "LIMIT 501") {
		return ctx
	}
	if h.seen.Add(1) != h.n {
		return ctx
	}
	if h.panic {
		panic("export test: batch query panics")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	return cctx
}

func (h *failNthExport) AfterQuery(context.Context, *bun.QueryEvent) {}

// ginRecovery behaves as gin.Recovery does: it recovers every panic,
// http.ErrAbortHandler included, and answers 500, which is too late once
// the body has started; its writer implements Hijack and Flush, as gin's
// does.
func ginRecovery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				w.WriteHeader(http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(&ginWriter{w}, r)
	})
}

// chiRecoverer behaves as chi v5's middleware.Recoverer does: it lets
// http.ErrAbortHandler go on up (net/http then cuts the connection) and
// answers 500 for any other panic.
func chiRecoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				w.WriteHeader(http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

type ginWriter struct{ http.ResponseWriter }

func (g *ginWriter) Flush() { g.ResponseWriter.(http.Flusher).Flush() }

func (g *ginWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return g.ResponseWriter.(http.Hijacker).Hijack()
}

// TestExportFailureIsVisible fails an export after its first batch, with
// a database error and with a panic, behind the panel's own mux, a
// gin-like recovery and chi's Recoverer: the client's download must fail
// (never a clean short file), the log has the cause and the export's
// audit entry says it is incomplete.
func TestExportFailureIsVisible(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		hook := &failNthExport{}
		db = db.WithQueryHook(hook)
		e := gadgetEnv(t, db, Options{ExportMaxRows: -1}, false)
		c, _ := e.bootstrap()
		rows := make([]testGadget, 1200)
		for i := range rows {
			rows[i] = testGadget{ID: int64(i + 1), Name: fmt.Sprintf("g%04d", i), Qty: 1}
		}
		insert(t, db, &rows)

		servers := map[string]http.Handler{"panel": e.admin, "gin": ginRecovery(e.admin), "chi": chiRecoverer(e.admin)}
		for name, h := range servers {
			srv := httptest.NewServer(h)
			for _, panics := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/panic=%v", name, panics), func(t *testing.T) {
					hook.seen.Store(0)
					hook.n, hook.panic = 2, panics
					before := len(e.auditRows("export"))
					req, _ := http.NewRequest("GET", srv.URL+"/admin-api/gadgets/_export.csv?_sort=id", nil)
					res, err := c.hc.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, err := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						t.Fatalf("status = %d; want 200 then a cut", res.StatusCode)
					}
					if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
						t.Fatalf("reading the export: err = %v after %d bytes; want io.ErrUnexpectedEOF (a cut transfer)", err, len(body))
					}
					if n := strings.Count(string(body), "\n"); n != 501 {
						t.Errorf("got %d lines before the cut; want the header and the first batch (501)", n)
					}
					got := e.auditRows("export")
					if len(got) != before+1 {
						t.Fatalf("export audit entries = %d; want %d", len(got), before+1)
					}
					p := got[len(got)-1].Payload
					reqID, _ := p["requestId"].(string)
					if p["incomplete"] != true || fmt.Sprint(p["rows"]) != "500" || reqID == "" {
						t.Errorf("audit payload = %v; want incomplete, 500 rows, a requestId", p)
					}
					if logs := e.logs.String(); !strings.Contains(logs, "export stopped") || !strings.Contains(logs, "requestId="+reqID) {
						t.Errorf("log lacks the export's failure with request id %s:\n%s", reqID, logs)
					}
				})
			}
			srv.Close()
		}
	})
}
