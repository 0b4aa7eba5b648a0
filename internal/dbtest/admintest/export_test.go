package admintest

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// exportCSV GETs an export of gadgets with query q and parses it.
func exportCSV(t *testing.T, c *client, q string) ([][]string, *resp) {
	t.Helper()
	r := c.do("GET", "/admin-api/gadgets/_export.csv?"+q, nil).want(t, 200)
	if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Fatalf("Content-Type = %q", ct)
	}
	// Excel reads non-ASCII names right only after a byte-order mark.
	body, ok := strings.CutPrefix(string(r.raw), "\ufeff")
	if !ok {
		t.Fatalf("export does not start with a UTF-8 BOM: %q", r.raw[:min(len(r.raw), 10)])
	}
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("export is not CSV: %v\n%s", err, r.raw)
	}
	return recs, r
}

func csvColumn(t *testing.T, recs [][]string, name string) []string {
	t.Helper()
	i := slices.Index(recs[0], name)
	if i < 0 {
		t.Fatalf("export header %v has no %q", recs[0], name)
	}
	out := []string{}
	for _, rec := range recs[1:] {
		out = append(out, rec[i])
	}
	return out
}

func TestExportCSV(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{ExportMaxRows: 4}, true)
		c := e.crew()

		// The list's filters, search and sort; hidden columns never.
		recs, r := exportCSV(t, c.admin, "active=true&_sort=name&_order=desc")
		if !slices.Equal(recs[0], []string{"id", "name", "qty", "price", "active", "seen_at", "meta", "note", "owner_id"}) {
			t.Errorf("header = %v", recs[0])
		}
		if got := csvColumn(t, recs, "name"); !slices.Equal(got, []string{"Gamma ray", "Epsilon", "Alpha"}) {
			t.Errorf("names = %v", got)
		}
		if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="gadgets-`) {
			t.Errorf("Content-Disposition = %q", cd)
		}
		if got := r.Header.Get("X-Export-Max-Rows"); got != "4" {
			t.Errorf("X-Export-Max-Rows = %q", got)
		}
		recs, _ = exportCSV(t, c.admin, "_q=beta")
		if got := csvColumn(t, recs, "id"); !slices.Equal(got, []string{"2"}) {
			t.Errorf("_q=beta ids = %v", got)
		}
		// Values: numbers as numbers (a negative one is not a formula),
		// times in RFC 3339, JSON as JSON text, NULL as empty.
		recs, _ = exportCSV(t, c.admin, "id=5")
		row := map[string]string{}
		for i, name := range recs[0] {
			row[name] = recs[1][i]
		}
		want := map[string]string{"id": "5", "name": "Epsilon", "qty": "50", "price": "-1", "active": "true",
			"seen_at": "2024-04-01T00:00:00Z", "meta": `{"lvl":7}`, "note": ""}
		for k, v := range want {
			if got := strings.ReplaceAll(row[k], " ", ""); got != v {
				t.Errorf("id=5 %s = %q; want %q", k, row[k], v)
			}
		}

		// The cap ends the file, which says so in its last line
		// (TestExportSaysItWasCut), and the audit says so; the entry
		// counts rows.
		capped := c.admin.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 200)
		if lines := strings.Split(strings.TrimSuffix(string(capped.raw), "\n"), "\n"); len(lines) != 6 || !strings.HasPrefix(lines[5], "[export truncated") {
			t.Errorf("capped export = %q; want the header, 4 rows and the line that says it was cut", capped.raw)
		}
		audits := e.auditRows("export")
		if len(audits) != 4 {
			t.Fatalf("%d export audit rows; want 4", len(audits))
		}
		last := audits[3]
		if last.Resource != "gadgets" || last.OperatorID != c.adminID || fmt.Sprint(last.Payload["rows"]) != "4" || last.Payload["truncated"] != true {
			t.Errorf("audit entry = %+v", last)
		}
		if first := audits[0]; fmt.Sprint(first.Payload["rows"]) != "3" || first.Payload["truncated"] != nil {
			t.Errorf("first audit entry = %+v", first)
		}

		// Same gate as the list; bad filters are 400s before any CSV.
		c.anon.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 401)
		c.modBare.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 403, "forbidden")
		c.admin.do("GET", "/admin-api/gadgets/_export.csv?nope=1", nil).want(t, 400, "unknown_column")
		c.admin.do("GET", "/admin-api/gadgets/_export.csv?qty_gt=x", nil).want(t, 400, "invalid_value")
		c.admin.do("GET", "/admin-api/nope/_export.csv", nil).want(t, 404, "unknown_resource")
		if r := c.admin.do("HEAD", "/admin-api/gadgets/_export.csv", nil).want(t, 200); r.Header.Get("Content-Type") != "text/csv; charset=utf-8" || len(r.raw) != 0 {
			t.Errorf("HEAD: Content-Type %q, %d body bytes", r.Header.Get("Content-Type"), len(r.raw))
		}
		if n := len(e.auditRows("export")); n != 4 {
			t.Errorf("refused exports and HEAD wrote audit rows: %d", n)
		}
	})
}

// TestExportFormulaInjection: text that a spreadsheet would evaluate gets
// a leading apostrophe.
func TestExportFormulaInjection(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, false)
		if db.Dialect().Name() == dialect.MySQL {
			// The unique name compared as written: utf8mb4_unicode_ci takes
			// the full-width ＠ for @, and would refuse the pair below.
			must(db.ExecContext(context.Background(), "ALTER TABLE gadgets MODIFY name VARCHAR(255) COLLATE utf8mb4_bin NOT NULL"))
		}
		c, _ := e.bootstrap()
		names := []string{"=HYPERLINK(\"http://evil\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "plain", "a=b",
			" =1+1", "\t\t@cmd", "  -2", "＝HYPERLINK(1)", "＋1", "－1", "＠SUM(A1)", "a ＝ b"}
		for i, n := range names {
			c.do("POST", "/admin-api/gadgets", map[string]any{"name": n, "qty": i, "note": n}).want(t, 201)
		}
		recs, _ := exportCSV(t, c, "_sort=qty")
		want := []string{"'=HYPERLINK(\"http://evil\")", "'+1+1", "'-2+3", "'@SUM(A1)", "'\tx", "plain", "a=b",
			"' =1+1", "'\t\t@cmd", "'  -2", "'＝HYPERLINK(1)", "'＋1", "'－1", "'＠SUM(A1)", "a ＝ b"}
		if got := csvColumn(t, recs, "name"); !slices.Equal(got, want) {
			t.Errorf("names = %q; want %q", got, want)
		}
		if got := csvColumn(t, recs, "note"); !slices.Equal(got, want) {
			t.Errorf("notes = %q; want %q", got, want)
		}
	})
}

// TestExportBatches walks past several keyset batches, under a sort on a
// nullable column (which falls back to the primary key) and under one
// with ties, and writes every row once.
func TestExportBatches(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{ExportMaxRows: -1}, false)
		c, _ := e.bootstrap()
		const n = 1234
		rows := make([]testGadget, n)
		for i := range rows {
			rows[i] = testGadget{ID: int64(i + 1), Name: fmt.Sprintf("g%04d", i), Qty: int64(i%3 + 1)}
		}
		insert(t, db, &rows)
		for _, q := range []string{"", "_sort=qty&_order=desc", "_sort=seen_at", "qty=2"} {
			recs, _ := exportCSV(t, c, q)
			ids := csvColumn(t, recs, "id")
			seen := map[string]bool{}
			for _, id := range ids {
				if seen[id] {
					t.Fatalf("%q: id %s written twice", q, id)
				}
				seen[id] = true
			}
			want := n
			if q == "qty=2" {
				want = n / 3
			}
			if len(ids) != want {
				t.Errorf("%q: %d rows; want %d", q, len(ids), want)
			}
		}
		if got := e.auditRows("export"); len(got) != 4 || fmt.Sprint(got[0].Payload["rows"]) != fmt.Sprint(n) {
			t.Errorf("audit = %+v", got)
		}
	})
}

// TestExportIsAnOperatorsTool: a plain user may list but not export, even
// with PlayersCanRead; an operator runs one export at a time, under a
// rate limit; ExportNoBOM leaves the mark out.
func TestExportIsAnOperatorsTool(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		hold := &holdExport{started: make(chan struct{}), release: make(chan struct{})}
		// No QueryTimeout: the held export must not run out of time. Two
		// statements at once: the held export's batch takes one place of
		// the panel's share of the database, another operator's the other.
		e := gadgetEnv(t, db.WithQueryHook(hold), Options{PlayersCanRead: true, QueryTimeout: -1, DatabaseConcurrency: 2, RateLimit: RateLimitOptions{Exports: NewTokenBucket(3, 1.0/3600)}}, true)
		c := e.crew("gadgets")
		c.user.do("GET", "/admin-api/gadgets", nil).want(t, 200)
		c.user.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 403, "forbidden")
		c.modScoped.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 200)

		// An export of the admin's is running: the database has not
		// answered its first batch yet.
		hold.armed.Store(true)
		held := make(chan *resp, 1)
		go func() { held <- c.admin.do("GET", "/admin-api/gadgets/_export.csv", nil) }()
		<-hold.started
		r := c.admin.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 429, "export_in_progress")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("export_in_progress without Retry-After")
		}
		c.modScoped.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 200) // another operator's slot
		close(hold.release)
		(<-held).want(t, 200)
		// The held export spent the first of the bucket's 3.
		c.admin.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 200)
		c.admin.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 200)
		c.admin.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 429, "rate_limited")
		if n := len(e.auditRows("export")); n != 5 {
			t.Fatalf("%d export audit rows; want the 5 served", n)
		}

		plain := gadgetEnv(t, testdb.SQLite(t), Options{ExportNoBOM: true}, false)
		root, _ := plain.bootstrap()
		if r := root.do("GET", "/admin-api/gadgets/_export.csv", nil).want(t, 200); !strings.HasPrefix(string(r.raw), "id,") {
			t.Fatalf("ExportNoBOM export starts %q; want the header", r.raw[:min(len(r.raw), 10)])
		}
	})
}

// holdExport is a query hook that holds the first batch query of the
// next export of gadgets, once armed, until release is closed: an export
// still running, as one on a slow database is.
type holdExport struct {
	armed            atomic.Bool
	started, release chan struct{}
}

func (h *holdExport) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if strings.Contains(strings.ReplaceAll(ev.Query, "`", `"`), `FROM "gadgets"`) && strings.Contains(ev.Query, "LIMIT 501") && h.armed.CompareAndSwap(true, false) {
		close(h.started)
		<-h.release
	}
	return ctx
}

func (*holdExport) AfterQuery(context.Context, *bun.QueryEvent) {}

// failNthExport is a query hook that fails the nth batch query of an
// export of gadgets: with a cancelled context (the database call fails)
// or a panic (a bug in the stream).
type failNthExport struct {
	n     int32
	panic bool
	seen  atomic.Int32
}

func (h *failNthExport) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if !strings.Contains(strings.ReplaceAll(ev.Query, "`", `"`), `FROM "gadgets"`) || !strings.Contains(ev.Query, "LIMIT 501") {
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

// TestExportLabels: _headers=labels heads the columns with their labels
// and says a users row's ban in words; without it (or with names) the
// header is the column names and the ban its JSON, as scripts read them.
func TestExportLabels(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, true)
		root, _ := e.bootstrap()
		names, _ := exportCSV(t, root, "_sort=id")
		labelled, _ := exportCSV(t, root, "_sort=id&_headers=labels")
		if len(labelled) != len(names) || !slices.Equal(labelled[1], names[1]) {
			t.Fatalf("labelled export rows differ: %v vs %v", labelled, names)
		}
		if h := labelled[0]; len(h) != len(names[0]) || h[1] != "Name" || h[3] != "Price" || slices.Contains(h, "seen_at") {
			t.Errorf("labelled header = %v; want the columns' labels", h)
		}
		if again, _ := exportCSV(t, root, "_headers=names&_sort=id"); !slices.Equal(again[0], names[0]) {
			t.Errorf("_headers=names header = %v; want %v", again[0], names[0])
		}
		root.do("GET", "/admin-api/gadgets/_export.csv?_headers=pretty", nil).want(t, 400, "invalid_value")

		until := time.Date(2030, 12, 4, 0, 0, 0, 0, time.UTC)
		cheat := e.user("cheat@example.com", "password")
		root.do("POST", "/admin-api/users/"+cheat+"/ban", map[string]any{"reason": "speed hack", "until": until}).want(t, 200)
		forever := e.user("forever@example.com", "password")
		root.do("POST", "/admin-api/users/"+forever+"/ban", map[string]any{"reason": "bot"}).want(t, 200)
		users := func(q, email string) map[string]map[string]string {
			r := root.do("GET", "/admin-api/users/_export.csv?_sort=email&"+q, nil).want(t, 200)
			recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(r.raw), "\ufeff"))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]map[string]string{}
			for _, rec := range recs[1:] {
				row := map[string]string{}
				for i, h := range recs[0] {
					row[h] = rec[i]
				}
				out[rec[slices.Index(recs[0], email)]] = row
			}
			return out
		}
		words := users("_headers=labels", "Email")
		if got := words["cheat@example.com"]["Ban"]; got != "Banned until 2030-12-04 00:00 UTC — speed hack" {
			t.Errorf("cheat's ban in words = %q (row %v)", got, words["cheat@example.com"])
		}
		if got := words["forever@example.com"]["Ban"]; got != "Banned for good — bot" {
			t.Errorf("forever's ban in words = %q", got)
		}
		if got := words["root@example.com"]["Ban"]; got != "" {
			t.Errorf("root's ban in words = %q; want empty", got)
		}
		machine := users("", "email")
		var ban map[string]any
		if err := json.Unmarshal([]byte(machine["cheat@example.com"]["ban"]), &ban); err != nil || ban["reason"] != "speed hack" {
			t.Errorf("cheat's ban without _headers = %q; want its JSON", machine["cheat@example.com"]["ban"])
		}
	})
}
