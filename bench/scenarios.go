package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// report is everything one run measured.
type report struct {
	Database    string `json:"database"`
	Rows        int64  `json:"rows"`
	Concurrency int    `json:"concurrency"`
	Duration    string `json:"duration"`
	// Clients is where the requests of the panel's API came from: "internal" (this
	// process) or "external" (a child process; CPU per request is then
	// the server's).
	Clients    string  `json:"clients"`
	PeakRSSMiB float64 `json:"peakRssMiB"`
	// PeakPrivateMiB is the largest private resident set sampled
	// (RssAnon): PeakRSSMiB less the memory-mapped database's pages.
	PeakPrivateMiB float64 `json:"peakPrivateMiB"`
	// PeakRSSBeforeLoginMiB is the peak before the login scenario, whose
	// argon2id hashes (each holds its memory cost, HashConcurrency at
	// once) dominate.
	PeakRSSBeforeLoginMiB float64 `json:"peakRssBeforeLoginMiB"`
	// PeakPrivateBeforeLoginMiB is the private peak before it.
	PeakPrivateBeforeLoginMiB float64 `json:"peakPrivateBeforeLoginMiB"`
	Scenarios                 []row   `json:"scenarios"`
	// SignInPlan is the database's plan of sign-in's account lookup
	// (matching emails without regard to case) over Rows users;
	// SignInIndexed says it reads an index, not the whole table.
	SignInPlan    string `json:"signInPlan"`
	SignInIndexed bool   `json:"signInIndexed"`
	// Exports are CSV downloads of a tenth of the table and of all of it,
	// one at a time, each with the process's peak RSS while it ran.
	Exports []export `json:"exports"`
	// ExportError is why the exports could not run; SignInError why the
	// sign-in lookup's plan could not be read.
	ExportError string `json:"exportError,omitempty"`
	SignInError string `json:"signInError,omitempty"`
}

// export is one CSV download and the peak RSS while it ran.
type export struct {
	Rows       int64   `json:"rows"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	PeakRSSMiB float64 `json:"peakRssMiB"`
	// PeakPrivateMiB is the largest private resident set sampled.
	PeakPrivateMiB float64 `json:"peakPrivateMiB"`
}

// exports downloads the events with id ≤ rows/10 as CSV, then all of them,
// each after resetting the peak RSS: memory flat in row count is the same
// peak for both.
func exports(ctx context.Context, c *client, rows int64) ([]export, error) {
	var out []export
	for _, n := range []int64{rows / 10, rows} {
		debug.FreeOSMemory() // what earlier scenarios left is not the export's
		resetPeakRSS()
		start := time.Now()
		b, err := c.download(ctx, fmt.Sprintf("%s/_export.csv?id_lte=%d", events, n))
		if err != nil {
			return nil, err
		}
		out = append(out, export{Rows: n, Bytes: b, Seconds: time.Since(start).Seconds(), PeakRSSMiB: peakRSSMiB(), PeakPrivateMiB: peakPrivateMiB()})
	}
	return out, nil
}

// row is a scenario next to its floor (measured in the same run, in
// alternating windows); Ratio is the scenario's req/s over the floor's,
// P50Ratio its p50 over the floor's. Target is the least Ratio the
// scenario should reach (0: none).
type row struct {
	result
	Floor   *result `json:"floor,omitempty"`
	FloorIs string  `json:"floorIs,omitempty"`
	// FloorServed says the floor is a reference served over HTTP by this
	// process, whose CPU per request (Floor.CPUus) is then the
	// reference's own, to set beside the panel's.
	FloorServed bool    `json:"floorServed,omitempty"`
	Ratio       float64 `json:"reqPerSecRatio,omitempty"`
	P50Ratio    float64 `json:"p50Ratio,omitempty"`
	Target      float64 `json:"target,omitempty"`
	// Error is why the scenario or its floor could not run (the first
	// failed request): the run goes on to the next and exits non-zero.
	Error string `json:"error,omitempty"`
}

const events = "/admin-api/analyticsEvents"

// op is a scenario's request: one of the panel's API by its method,
// path and body for call i (a GET when method is empty), or any other
// request by its function.
type op struct {
	method string
	path   func(i int) string
	body   func(i int) string // nil: none
	want   int                // the status answered; 0: 200
	fn     func(ctx context.Context, i int) error
}

// send is o's request i from c.
func (o op) send(ctx context.Context, c *client, i int) error {
	method, body, want := cmp.Or(o.method, "GET"), "", cmp.Or(o.want, 200)
	if o.body != nil {
		body = o.body(i)
	}
	_, err := c.do(ctx, method, o.path(i), body, want)
	return err
}

// runner sends o's requests from this process, or from a child process
// when external.
func (o op) runner(c *client, external bool) runner {
	if o.path == nil {
		return loadRunner(o.fn)
	}
	if external {
		return newExternal(c, o)
	}
	return loadRunner(func(ctx context.Context, i int) error { return o.send(ctx, c, i) })
}

// pageJSONName is the first page set beside the page PostgreSQL renders,
// pagePgxName beside the page read from pgx's own rows.
const (
	pageJSONName = "first page _count=none, against PostgreSQL's JSON"
	pagePgxName  = "first page _count=none, against pgx's raw rows"
)

// handIs names the hand-written references (hand) in the report.
const handIs = "hand-written handler"

// offsetDepth is the offset of the deep-page scenarios, and how many
// cursors the cursor scenario walks through from there.
func offsetDepth(rows int64) (depth, cursors int64) {
	depth = min(500_000, rows-100)
	return depth, min(64, (rows-depth)/100)
}

// cursorID is the id the k-th cursor's page starts below (its first row
// is the one before it, newest first).
func cursorID(rows, depth, k int64) int64 { return rows - depth + 1 - k*100 }

// readID is the id the i-th read by id asks for: spread over the table.
func readID(rows, i int64) int64 { return i*7919%rows + 1 }

// scenarios runs every scenario and the floors they are compared with.
func scenarios(ctx context.Context, db *bun.DB, c *client, fl *floors, dsn string, rows int64, d time.Duration, conc int, email, password, only string, quiet, external bool) (*report, error) {
	depth, n := offsetDepth(rows)
	// The cursors of pages that start where the offset page does and
	// further on (ids are 1..rows, listed newest first): the cursor
	// scenario walks through them, so each request's cursor differs from
	// the one before, as an operator's do. When the panel cannot answer
	// them, the cursor scenario says so.
	var (
		cursors   []string
		cursorErr error
	)
	for k := range n {
		h, err := c.do(ctx, "GET", fmt.Sprintf("%s?_limit=1&id_lte=%d", events, cursorID(rows, depth, k)), "", 200)
		if err != nil {
			cursorErr = fmt.Errorf("its cursors: %w", err)
			break
		}
		cursors = append(cursors, h.Get("X-Next-Cursor"))
	}
	cursorName := fmt.Sprintf("cursor at %d", depth)
	pg := db.Dialect().Name() == dialect.PG

	// A request of the panel's API is its path (and body) for call i,
	// sent from another process with -clients external; any other
	// request is its function.
	getf := func(path func(i int) string) op { return op{path: path} }
	get := func(path string) op { return getf(func(int) string { return path }) }
	call := func(fn func(ctx context.Context, i int) error) op { return op{fn: fn} }
	like := "? LIKE ?"
	if pg {
		like = "CAST(? AS TEXT) ILIKE ?"
	}
	same := func(q *bun.SelectQuery) *bun.SelectQuery { return q }
	firstPage := fl.page("session + page", same)
	if pg {
		firstPage = fl.page("session + page + estimate", same, estimate)
	}
	filtered := fl.page("session + filtered page", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Where("name = ?", "purchase") })
	// The pages are judged by the hand-written handler of the same page
	// (hand, over HTTP here): at least 1.5x its req/s on PostgreSQL, 1.2x
	// on SQLite, where the database runs in this process too. MariaDB
	// takes SQLite's until docs/performance.md sets its own.
	pageTarget := 1.2
	if pg {
		pageTarget = 1.5
	}
	// created_at is an instant on every database: on MariaDB the
	// panel's own DATETIME(6) columns hold UTC instants.
	createdAt := time.RFC3339
	// The deepest offset page the panel answers (query.MaxOffset): past
	// it, cursors.
	offset := min(depth, 10_000)
	read := getf(func(i int) string { return events + "/" + strconv.FormatInt(readID(rows, int64(i)), 10) })
	type scenario struct {
		name   string
		floor  *floor
		http   string // a reference served over HTTP by this process
		httpIs string
		target float64
		op     op
	}
	list := []scenario{
		{"first page (default count)", firstPage, "", "", 0, get(events + "?_start=0&_end=100")},
		{"first page _count=none", nil, "/hand/page", handIs, pageTarget, get(events + "?_start=0&_end=100&_count=none")},
		// The page's CPU beside a handler that only copies the JSON
		// PostgreSQL renders (handJSON): the least a page costs this
		// process. PostgreSQL only (dropped below elsewhere).
		{pageJSONName, nil, "/hand/page-json", "hand-written, PostgreSQL's JSON", 0, get(events + "?_start=0&_end=100&_count=none")},
		// And beside a handler that reads pgx's own rows (handPgx): the
		// least a page read in Go costs it. PostgreSQL only too.
		{pagePgxName, nil, "/hand/page-pgx", "hand-written, pgx's raw rows", 0, get(events + "?_start=0&_end=100&_count=none")},
		{"first page _count=none, against the database", fl.page("session + page", same), "", "", 0, get(events + "?_start=0&_end=100&_count=none")},
		{"first page _count=exact", fl.page("session + page + count(*)", same, "SELECT count(*) FROM game_analytics_events"), "", "", 0, get(events + "?_start=0&_end=100&_count=exact")},
		{fmt.Sprintf("offset %d", offset), fl.page("session + offset page", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Offset(offset) }), "", "", 0,
			get(fmt.Sprintf("%s?_start=%d&_end=%d", events, offset, offset+100))},
		{cursorName, nil, "/hand/cursor", handIs, pageTarget,
			getf(func(i int) string { return events + "?_limit=100&_cursor=" + cursors[i%len(cursors)] })},
		{"filtered name=purchase (default count)", filtered, "", "", 0, get(events + "?name_eq=purchase&_end=100")},
		{"filtered name=purchase _count=none", nil, "/hand/filtered", handIs, pageTarget, get(events + "?name_eq=purchase&_end=100&_count=none")},
		{"_q=purch", fl.page("session + search page", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
				return q.WhereOr(like, bun.Ident("user_id"), "%purch%").WhereOr(like, bun.Ident("name"), "%purch%")
			})
		}), "", "", 0, get(events + "?_q=purch&_end=100")},
		{"read by id", nil, "/hand/read", handIs, 1.2, read},
		{"read by id, against the database", fl.read(), "", "", 0, read},
		{"create", fl.insert(), "", "", 0.6, op{method: "POST", want: 201, path: func(int) string { return events }, body: func(i int) string {
			return fmt.Sprintf(`{"user_id":"u1","name":"bench","payload":{"i":%d},"created_at":%q}`, i, time.Now().UTC().Format(createdAt))
		}}},
		{"update", fl.update(), "", "", 0.6, op{method: "PATCH", path: func(i int) string { return events + "/" + strconv.FormatInt(readID(rows, int64(i)), 10) }, body: func(i int) string {
			return fmt.Sprintf(`{"name":"bench%d"}`, i%2)
		}}},
		{"guarded route", nil, "/selfcheck", "the route checking the session itself", 0.8, get("/guarded?i=1")},
		// The whole dashboard, with its charts over 30 days: every widget
		// of the panel's, the event table's total among them.
		{dashboardName, nil, "", "", 0, get(dashboardPath)},
		{"login", nil, "", "", 0, call(func(ctx context.Context, i int) error {
			_, err := (&client{hc: c.hc, base: c.base}).login(ctx, email, password)
			return err
		})},
	}
	if !pg {
		list = slices.DeleteFunc(list, func(s scenario) bool { return s.name == pageJSONName || s.name == pagePgxName })
	}
	cannot := map[string]error{cursorName: cursorErr} // why a scenario cannot run
	rep := &report{}
	for _, s := range list {
		if only != "" && !strings.Contains(s.name, only) {
			continue
		}
		if s.name == "login" {
			rep.PeakRSSBeforeLoginMiB, rep.PeakPrivateBeforeLoginMiB = peakRSSMiB(), peakPrivateMiB()
		}
		progress(quiet, "%s...\n", s.name)
		if s.name == dashboardName {
			// It answers 200 with the widgets that failed saying so:
			// measured then, it would time pages without their figures.
			cannot[s.name] = c.widgetErrors(ctx, dashboardPath)
		}
		if err := cannot[s.name]; err != nil {
			rep.failed(s.name, err, quiet)
			continue
		}
		var (
			floorRun runner
			floorIs  string
		)
		switch {
		case s.floor != nil:
			var err error
			if floorRun, err = fl.runnerFor(s.floor, dsn); err != nil {
				rep.failed(s.name, fmt.Errorf("its floor: %w", err), quiet)
				continue
			}
			floorIs = s.floor.name
		case s.http != "":
			floorRun, floorIs = getf(func(i int) string { return s.http + "?i=" + strconv.Itoa(i) }).runner(c, external), s.httpIs
		}
		res, base, err := drivePair(s.name, "floor", conc, d, s.op.runner(c, external), floorRun)
		if err != nil {
			rep.failed(s.name, err, quiet)
			continue
		}
		r := row{result: res, Target: s.target}
		if floorRun != nil {
			r.Floor, r.FloorIs, r.FloorServed = &base, floorIs, s.http != ""
			if base.P50ms > 0 {
				r.P50Ratio = r.P50ms / base.P50ms
			}
			if base.RPS > 0 {
				r.Ratio = r.RPS / base.RPS
			}
		}
		rep.Scenarios = append(rep.Scenarios, r)
	}
	return rep, nil
}

// The dashboard scenario.
const (
	dashboardName = "dashboard, 30 days"
	dashboardPath = "/admin-api/_dashboard?range=30d"
)

// widgetErrors asks for the dashboard at path once and returns the
// errors its widgets answered ("timeout" and "busy" aside: a widget
// still counting, or over the count limit, is the dashboard working), or
// nil.
func (c *client) widgetErrors(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Cookie", c.cookie)
	res, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return nil // the scenario reports it
	}
	var page struct {
		Widgets []struct {
			ID    string `json:"id"`
			Error string `json:"error"`
		} `json:"widgets"`
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
		return fmt.Errorf("the dashboard's answer: %w", err)
	}
	var failed []string
	for _, w := range page.Widgets {
		if w.Error != "" && w.Error != "timeout" && w.Error != "busy" {
			msg := w.ID + ": " + w.Error
			if c, ok := causes.Load("widget " + w.ID); ok {
				msg += ", " + c.(string)
			}
			failed = append(failed, msg)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("its widgets answered errors (%s)", strings.Join(failed, "; "))
	}
	return nil
}

// failed records that scenario name could not run, and why.
func (rep *report) failed(name string, err error, quiet bool) {
	msg := strings.TrimPrefix(withCause(err), name+": ")
	progress(quiet, "%s: FAILED: %s\n", name, msg)
	rep.Scenarios = append(rep.Scenarios, row{result: result{Name: name}, Error: msg})
}

// failures names the scenarios that could not run.
func (rep *report) failures() []string {
	var names []string
	for _, s := range rep.Scenarios {
		if s.Error != "" {
			names = append(names, s.Name)
		}
	}
	return names
}

// find is the scenario measured whose name starts with prefix, or nil.
func (rep *report) find(prefix string) *row {
	for i := range rep.Scenarios {
		if strings.HasPrefix(rep.Scenarios[i].Name, prefix) && rep.Scenarios[i].Error == "" {
			return &rep.Scenarios[i]
		}
	}
	return nil
}

// print writes the results as a Markdown table and the targets.
func (rep *report) print(w io.Writer) {
	fmt.Fprintf(w, "%s, %d rows, %d clients (%s), %s per scenario and again per floor\n\n", rep.Database, rep.Rows, rep.Concurrency, rep.Clients, rep.Duration)
	fmt.Fprintln(w, "| request | req/s | p50 ms | p95 ms | CPU µs/req | floor | floor req/s | floor p50 ms | floor CPU µs/req | req/s ratio | p50 ratio | target |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|")
	var missed []string
	for _, s := range rep.Scenarios {
		if s.Error != "" {
			fmt.Fprintf(w, "| %s | **failed** | | | | | | | | | | |\n", s.Name)
			continue
		}
		floor, frps, f50, fcpu, ratio, p50r, target := "–", "–", "–", "–", "–", "–", "–"
		if s.Floor != nil {
			floor, frps, f50 = s.FloorIs, fmt.Sprintf("%.0f", s.Floor.RPS), fmt.Sprintf("%.2f", s.Floor.P50ms)
			ratio, p50r = fmt.Sprintf("%.2f×", s.Ratio), fmt.Sprintf("%.2f×", s.P50Ratio)
			if s.FloorServed {
				fcpu = fmt.Sprintf("%.0f", s.Floor.CPUus)
			}
		}
		if s.Target > 0 {
			target = fmt.Sprintf("≥ %.1f× met", s.Target)
			if s.Ratio < s.Target {
				target = fmt.Sprintf("≥ %.1f× **missed**", s.Target)
				missed = append(missed, s.Name)
			}
		}
		fmt.Fprintf(w, "| %s | %.0f | %.2f | %.2f | %.0f | %s | %s | %s | %s | %s | %s | %s |\n", s.Name, s.RPS, s.P50ms, s.P95ms, s.CPUus, floor, frps, f50, fcpu, ratio, p50r, target)
	}
	if rep.Clients == "external" {
		fmt.Fprintln(w, "\nCPU µs/req is this process's: the server and (SQLite) the database; the clients of the panel's API ran in another process, PostgreSQL's and MariaDB's work is in their own.")
	} else {
		fmt.Fprintln(w, "\nCPU µs/req is this process's: clients, server and (SQLite) the database; PostgreSQL's and MariaDB's own work is not in it.")
	}
	fmt.Fprintf(w, "\npeak RSS (the server, and the clients unless external): %.1f MiB, of which private (heap, stacks, SQLite's page caches) at most %.1f MiB, the rest file pages: the program's and a memory-mapped database's (the kernel's page cache, counted once per connection mapping it); before the login scenario: %.1f MiB, private %.1f MiB\n\ntargets:\n", rep.PeakRSSMiB, rep.PeakPrivateMiB, rep.PeakRSSBeforeLoginMiB, rep.PeakPrivateBeforeLoginMiB)
	check := func(name string, ok bool, format string, args ...any) {
		mark := "MET   "
		if !ok {
			mark = "MISSED"
		}
		fmt.Fprintf(w, "  %s %s: %s\n", mark, name, fmt.Sprintf(format, args...))
	}
	for _, s := range rep.Scenarios {
		if s.Target > 0 && s.Floor != nil {
			check(fmt.Sprintf("%s req/s >= %.1fx its floor (%s)", s.Name, s.Target, s.FloorIs), s.Ratio >= s.Target, "%.2fx (%.0f vs %.0f req/s)", s.Ratio, s.RPS, s.Floor.RPS)
		}
	}
	if s := rep.find("first page _count=none"); s != nil && s.Floor != nil {
		check("first page _count=none p50 <= 1.5x its floor's", s.P50Ratio <= 1.5, "%.2fx (%.2f vs %.2f ms)", s.P50Ratio, s.P50ms, s.Floor.P50ms)
	}
	// On PostgreSQL, where count(*) reads the whole table; SQLite's,
	// memory-mapped, is a few milliseconds.
	if def, ex := rep.find("first page (default"), rep.find("first page _count=exact"); def != nil && ex != nil && def.P50ms > 0 && rep.Database == "pg" {
		check("default first page >= 100x faster than _count=exact", ex.P50ms/def.P50ms >= 100, "%.1fx (p50 %.2f vs %.2f ms)", ex.P50ms/def.P50ms, def.P50ms, ex.P50ms)
	}
	if d := rep.find("dashboard"); d != nil {
		check("dashboard with 30 days of charts p50 < 300 ms", d.P50ms < 300, "%.2f ms", d.P50ms)
	}
	for _, e := range rep.Exports {
		fmt.Fprintf(w, "\nCSV export of %d rows: %.1f MB in %.1f s, peak RSS %.1f MiB (private %.1f MiB)", e.Rows, float64(e.Bytes)/1e6, e.Seconds, e.PeakRSSMiB, e.PeakPrivateMiB)
	}
	if len(rep.Exports) > 0 {
		fmt.Fprintln(w)
	}
	for _, e := range rep.Exports {
		check(fmt.Sprintf("peak private memory exporting %d rows < 100 MiB", e.Rows), e.PeakPrivateMiB < 100, "%.1f MiB (RSS %.1f MiB)", e.PeakPrivateMiB, e.PeakRSSMiB)
	}
	check("peak private memory < 100 MiB", rep.PeakPrivateMiB < 100, "%.1f MiB (RSS %.1f MiB)", rep.PeakPrivateMiB, rep.PeakRSSMiB)
	if rep.PeakPrivateBeforeLoginMiB > 0 {
		check("peak private memory before the login scenario (whose argon2id hashes hold their memory cost, HashConcurrency at once) < 100 MiB", rep.PeakPrivateBeforeLoginMiB < 100, "%.1f MiB (RSS %.1f MiB)", rep.PeakPrivateBeforeLoginMiB, rep.PeakRSSBeforeLoginMiB)
	}
	check(fmt.Sprintf("sign-in's email lookup over %d users reads an index", rep.Rows), rep.SignInIndexed, "%s", rep.SignInPlan)
	if len(missed) > 0 {
		fmt.Fprintf(w, "\nratios missed: %s\n", strings.Join(missed, "; "))
	}
	if rep.ExportError != "" {
		fmt.Fprintf(w, "\nCSV export FAILED: %s\n", rep.ExportError)
	}
	if rep.SignInError != "" {
		fmt.Fprintf(w, "\nsign-in plan FAILED: %s\n", rep.SignInError)
	}
	if failed := rep.failures(); len(failed) > 0 {
		fmt.Fprintf(w, "\nFAILED, not measured (%d):\n", len(failed))
		for _, s := range rep.Scenarios {
			if s.Error != "" {
				fmt.Fprintf(w, "  %s: %s\n", s.Name, s.Error)
			}
		}
	}
	rep.printCeiling(w)
}

// printCeiling says how close to its floor any request served over HTTP
// here can come: the guarded route's floor is a handler that runs the
// session check and nothing else, in this process, over loopback HTTP,
// so no panel request, which runs that check and more, can pass its
// req/s. Against a floor that a database client reaches without HTTP,
// that bounds the ratio on this machine whatever the panel does.
func (rep *report) printCeiling(w io.Writer) {
	g := rep.find("guarded route")
	if g == nil || g.Floor == nil || g.Floor.RPS <= 0 {
		return
	}
	ceiling := g.Floor.RPS
	fmt.Fprintf(w, "\nceiling: the session check alone over HTTP in this process (the guarded route's floor) does %.0f req/s; no request that runs it and more can pass that, so the best ratio a request served over HTTP here can reach is at most:\n", ceiling)
	for _, s := range rep.Scenarios {
		if s.Target <= 0 || s.Floor == nil || s.Floor.RPS <= 0 || s.Name == g.Name || s.FloorIs == handIs {
			continue
		}
		best := ceiling / s.Floor.RPS
		verdict := ""
		if best < s.Target {
			verdict = fmt.Sprintf(", below the %.1fx target", s.Target)
		}
		fmt.Fprintf(w, "  %s: %.2fx (floor %.0f req/s)%s; the panel reaches %.2fx\n", s.Name, best, s.Floor.RPS, verdict, s.Ratio)
	}
}
