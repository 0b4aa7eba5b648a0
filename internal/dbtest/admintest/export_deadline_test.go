package admintest

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// shortWriteTimeout is the game's server of these tests: its WriteTimeout
// is far shorter than an export takes (the README's is 30 s, an export of
// a million rows longer).
const shortWriteTimeout = time.Second

// exportBehindTimeout starts an export of every gadget, by id, from e's
// panel behind an http.Server with shortWriteTimeout, as c on a client
// that asks for no compression (the bytes on the wire are the CSV's). A
// tight server's and client's connections buffer little (4 KiB a
// socket), so that a client that does not read holds the server's writes
// within a few KiB; a client that reads should not use one: windows that
// small stall loopback TCP for whole seconds.
func exportBehindTimeout(t *testing.T, e *env, c *client, tight bool) *http.Response {
	t.Helper()
	srv := httptest.NewUnstartedServer(e.admin)
	srv.Config.WriteTimeout = shortWriteTimeout
	tr := &http.Transport{DisableCompression: true}
	if tight {
		srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetWriteBuffer(4096)
			}
			return ctx
		}
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetReadBuffer(4096)
			}
			return conn, err
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	res, err := (&http.Client{Jar: c.jar, Transport: tr}).Get(srv.URL + "/admin-api/gadgets/_export.csv?_sort=id")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != 200 {
		t.Fatalf("status = %d", res.StatusCode)
	}
	return res
}

// slowBatches is a query hook that makes each batch query of an export
// of gadgets take delay: an export on a busy database.
type slowBatches struct{ delay time.Duration }

func (h slowBatches) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if strings.Contains(strings.ReplaceAll(ev.Query, "`", `"`), `FROM "gadgets"`) && strings.Contains(ev.Query, "LIMIT 501") {
		time.Sleep(h.delay)
	}
	return ctx
}

func (slowBatches) AfterQuery(context.Context, *bun.QueryEvent) {}

// wideGadgets inserts n gadgets of about 200 bytes each, ids 1..n.
func wideGadgets(t *testing.T, db *bun.DB, n int) {
	t.Helper()
	rows := make([]testGadget, n)
	for i := range rows {
		rows[i] = testGadget{ID: int64(i + 1), Name: fmt.Sprintf("g%05d-%s", i+1, strings.Repeat("w", 190)), Qty: 1}
	}
	insert(t, db, &rows)
}

// TestExportOutlastsWriteTimeout: behind a server whose WriteTimeout is
// shorter than the export, on a database that takes its time with each
// batch, a client that reads slowly still gets the whole file, every row
// once, in order, and the audit entry counts them all.
func TestExportOutlastsWriteTimeout(t *testing.T) {
	t.Parallel()
	testdb.EachParallel(t, func(t *testing.T, db *bun.DB) {
		const n = 3000 // 6 batches of 500, 300 ms each: the export takes 1.8 s or more
		e := gadgetEnv(t, db.WithQueryHook(slowBatches{delay: 300 * time.Millisecond}), Options{ExportMaxRows: -1}, false)
		c, _ := e.bootstrap()
		wideGadgets(t, db, n)

		start := time.Now()
		res := exportBehindTimeout(t, e, c, false)
		var body strings.Builder
		buf := make([]byte, 16<<10)
		for {
			k, err := res.Body.Read(buf)
			body.Write(buf[:k])
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("reading the export after %d bytes, %v: %v; want the whole file", body.Len(), time.Since(start), err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if took := time.Since(start); took < shortWriteTimeout*3/2 {
			t.Fatalf("the export took %v: it must outlast the WriteTimeout (%v) for this test to mean anything", took, shortWriteTimeout)
		}
		recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body.String(), "\ufeff"))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		ids := csvColumn(t, recs, "id")
		if len(ids) != n {
			t.Fatalf("%d rows; want %d", len(ids), n)
		}
		for i, id := range ids {
			if id != fmt.Sprint(i+1) {
				t.Fatalf("row %d has id %s; want %d", i+1, id, i+1)
			}
		}
		got := e.auditRows("export")
		if len(got) != 1 || fmt.Sprint(got[0].Payload["rows"]) != fmt.Sprint(n) || got[0].Payload["incomplete"] != nil {
			t.Errorf("audit = %+v; want one entry of %d rows, complete", got, n)
		}
	})
}

// TestExportEndsWhenTheClientStopsReading: a client that takes the
// headers and stops reading (without closing) ends the export within the
// server's WriteTimeout and a margin, not never: its operator's export
// slot is free again, the audit entry says the export is incomplete, and
// what the client had not read ends cut, not as a whole file.
func TestExportEndsWhenTheClientStopsReading(t *testing.T) {
	t.Parallel()
	testdb.EachParallel(t, func(t *testing.T, db *bun.DB) {
		const n = 3000 // ~600 KB: far more than the sockets between them hold
		e := gadgetEnv(t, db, Options{ExportMaxRows: -1}, false)
		c, _ := e.bootstrap()
		wideGadgets(t, db, n)

		res := exportBehindTimeout(t, e, c, true)
		rd := bufio.NewReader(res.Body)
		if _, err := rd.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		stopped := time.Now()
		// The margin is for a busy machine; a server that never gives
		// up takes forever.
		const bound = shortWriteTimeout + 6*time.Second
		var entry []AuditEntry
		for time.Since(stopped) < bound {
			if entry = e.auditRows("export"); len(entry) > 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if len(entry) != 1 {
			t.Fatalf("no export audit entry %v after the client stopped reading: the export still runs", bound)
		}
		if p := entry[0].Payload; p["incomplete"] != true || p["error"] != "the client went away" {
			t.Errorf("audit payload = %v; want incomplete, the client went away", p)
		}
		if rows := fmt.Sprint(entry[0].Payload["rows"]); rows == fmt.Sprint(n) {
			t.Errorf("audit counts %s rows: every row left the server though the client read one line", rows)
		}
		rest, err := io.ReadAll(rd)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("reading what was left: %v after %d bytes; want a cut transfer (io.ErrUnexpectedEOF)", err, len(rest))
		}
		// The slot the export held is free.
		c.do("GET", "/admin-api/gadgets/_export.csv?id=1", nil).want(t, 200)
	})
}

// TestExportSaysItWasCut: an export that ExportMaxRows cuts says so to a
// script (the X-Export-Truncated trailer, declared up front) and to a
// person reading the file (its last line), compressed or not; a whole
// export's trailer says it is whole and its last line is a row.
func TestExportSaysItWasCut(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{ExportMaxRows: 1000}, false)
		c, _ := e.bootstrap()
		wideGadgets(t, db, 1200)
		for _, enc := range []string{"identity", "gzip", "zstd"} {
			t.Run(enc, func(t *testing.T) {
				for q, cut := range map[string]bool{"_sort=id": true, "_sort=id&id_lte=1000": false} {
					res := getEncoded(t, c, "/admin-api/gadgets/_export.csv?"+q, enc)
					if res.Header.Get("X-Export-Max-Rows") != "1000" {
						t.Errorf("%s: X-Export-Max-Rows = %q; want 1000", q, res.Header.Get("X-Export-Max-Rows"))
					}
					lines := strings.Split(strings.TrimSuffix(string(res.body), "\n"), "\n")
					last := lines[len(lines)-1]
					// Go's client takes the declared trailer (the Trailer
					// header) out of the headers into res.Trailer.
					if got := res.Trailer.Get("X-Export-Truncated"); got != fmt.Sprint(cut) {
						t.Errorf("%s: trailer X-Export-Truncated = %q (trailers %v); want %v", q, got, res.Trailer, cut)
					}
					if cut {
						if len(lines) != 1002 || !strings.HasPrefix(last, "[export truncated: the first 1000 rows only (ExportMaxRows)") {
							t.Errorf("%s: %d lines, the last %q; want the header, 1000 rows and the line that says it was cut", q, len(lines), last)
						}
					} else if len(lines) != 1001 || !strings.HasPrefix(last, "1000,") {
						t.Errorf("%s: %d lines, the last %q; want the header and 1000 rows", q, len(lines), last)
					}
				}
			})
		}
	})
}
