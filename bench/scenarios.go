package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// report is everything one run measured.
type report struct {
	Database    string  `json:"database"`
	Rows        int64   `json:"rows"`
	Concurrency int     `json:"concurrency"`
	Duration    string  `json:"duration"`
	PeakRSSMiB  float64 `json:"peakRssMiB"`
	// PeakRSSBeforeLoginMiB is the peak before the login scenario, whose
	// argon2id hashes (each holds its memory cost, HashConcurrency at
	// once) dominate.
	PeakRSSBeforeLoginMiB float64 `json:"peakRssBeforeLoginMiB"`
	Scenarios             []row   `json:"scenarios"`
	// SignInPlan is the database's plan of sign-in's account lookup
	// (matching emails without regard to case) over Rows users;
	// SignInIndexed says it reads an index, not the whole table.
	SignInPlan    string `json:"signInPlan"`
	SignInIndexed bool   `json:"signInIndexed"`
	// Exports are CSV downloads of a tenth of the table and of all of it,
	// one at a time, each with the process's peak RSS while it ran.
	Exports []export `json:"exports"`
}

// export is one CSV download and the peak RSS while it ran.
type export struct {
	Rows       int64   `json:"rows"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	PeakRSSMiB float64 `json:"peakRssMiB"`
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
		out = append(out, export{Rows: n, Bytes: b, Seconds: time.Since(start).Seconds(), PeakRSSMiB: peakRSSMiB()})
	}
	return out, nil
}

// row is a scenario next to its floor (measured in the same run, in
// alternating windows); Ratio is the scenario's req/s over the floor's,
// P50Ratio its p50 over the floor's. Target is the least Ratio the
// scenario should reach (0: none).
type row struct {
	result
	Floor    *result `json:"floor,omitempty"`
	FloorIs  string  `json:"floorIs,omitempty"`
	Ratio    float64 `json:"reqPerSecRatio,omitempty"`
	P50Ratio float64 `json:"p50Ratio,omitempty"`
	Target   float64 `json:"target,omitempty"`
}

const events = "/admin-api/analyticsEvents"

// scenarios runs every scenario and the floors they are compared with.
func scenarios(ctx context.Context, db *bun.DB, c *client, fl *floors, dsn string, rows int64, d time.Duration, conc int, email, password, only string, quiet bool) (*report, error) {
	depth := min(500_000, rows-100)
	// The cursors of pages that start where the offset page does and
	// further on (ids are 1..rows, listed newest first): the cursor
	// scenario walks through them, so each request's cursor differs from
	// the one before, as an operator's do.
	var cursors []string
	for k := range min(64, (rows-depth)/100) {
		h, err := c.do(ctx, "GET", fmt.Sprintf("%s?_limit=1&id_lte=%d", events, rows-depth+1-k*100), "", 200)
		if err != nil {
			return nil, err
		}
		cursors = append(cursors, h.Get("X-Next-Cursor"))
	}
	pg := db.Dialect().Name() == dialect.PG

	get := func(path string) func(ctx context.Context, i int) error {
		return func(ctx context.Context, i int) error {
			_, err := c.do(ctx, "GET", path, "", 200)
			return err
		}
	}
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
	list := []struct {
		name   string
		floor  *floor
		http   string // a floor served over HTTP by this process
		target float64
		op     func(ctx context.Context, i int) error
	}{
		{"first page (default count)", firstPage, "", 0.6, get(events + "?_start=0&_end=100")},
		{"first page _count=none", fl.page("session + page", same), "", 0.6, get(events + "?_start=0&_end=100&_count=none")},
		// Not the panel: the same first page served by a handler written
		// by hand for it (handPage), against the same floor.
		{"hand-written handler, first page", fl.page("session + page", same), "", 0, get("/handpage")},
		{"first page _count=exact", fl.page("session + page + count(*)", same, "SELECT count(*) FROM game_analytics_events"), "", 0, get(events + "?_start=0&_end=100&_count=exact")},
		{fmt.Sprintf("offset %d", depth), fl.page("session + offset page", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Offset(depth) }), "", 0,
			get(fmt.Sprintf("%s?_start=%d&_end=%d", events, depth, depth+100))},
		{fmt.Sprintf("cursor at %d", depth), fl.page("session + keyset page", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Where("id < ?", rows-depth+1) }), "", 0.6,
			func(ctx context.Context, i int) error {
				_, err := c.do(ctx, "GET", events+"?_limit=100&_cursor="+cursors[i%len(cursors)], "", 200)
				return err
			}},
		{"filtered name=purchase (default count)", filtered, "", 0.6, get(events + "?name_eq=purchase&_end=100")},
		{"filtered name=purchase _count=none", filtered, "", 0.6, get(events + "?name_eq=purchase&_end=100&_count=none")},
		{"_q=purch", fl.page("session + search page", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
				return q.WhereOr(like, bun.Ident("user_id"), "%purch%").WhereOr(like, bun.Ident("name"), "%purch%")
			})
		}), "", 0, get(events + "?_q=purch&_end=100")},
		{"read by id", fl.read(), "", 0.6, func(ctx context.Context, i int) error {
			_, err := c.do(ctx, "GET", events+"/"+strconv.FormatInt(int64(i)*7919%rows+1, 10), "", 200)
			return err
		}},
		{"create", fl.insert(), "", 0.5, func(ctx context.Context, i int) error {
			_, err := c.do(ctx, "POST", events, fmt.Sprintf(`{"user_id":"u1","name":"bench","payload":{"i":%d},"created_at":%q}`, i, time.Now().UTC().Format(time.RFC3339)), 201)
			return err
		}},
		{"update", fl.update(), "", 0.5, func(ctx context.Context, i int) error {
			_, err := c.do(ctx, "PATCH", events+"/"+strconv.FormatInt(int64(i)*7919%rows+1, 10), fmt.Sprintf(`{"name":"bench%d"}`, i%2), 200)
			return err
		}},
		{"guarded route", nil, "/selfcheck", 0.8, get("/guarded?i=1")},
		// The whole dashboard, with its charts over 30 days: every widget
		// of the panel's, the event table's total among them.
		{"dashboard, 30 days", nil, "", 0, get("/admin-api/_dashboard?range=30d")},
		{"login", nil, "", 0, func(ctx context.Context, i int) error {
			_, err := (&client{hc: c.hc, base: c.base}).login(ctx, email, password)
			return err
		}},
	}
	rep := &report{}
	for _, s := range list {
		if only != "" && !strings.Contains(s.name, only) {
			continue
		}
		if s.name == "login" {
			rep.PeakRSSBeforeLoginMiB = peakRSSMiB()
		}
		progress(quiet, "%s...\n", s.name)
		var (
			floorRun runner
			floorIs  string
		)
		switch {
		case s.floor != nil:
			var err error
			if floorRun, err = fl.runnerFor(s.floor, dsn); err != nil {
				return nil, err
			}
			floorIs = s.floor.name
		case s.http != "":
			floorRun, floorIs = loadRunner(func(ctx context.Context, i int) error {
				_, err := c.do(ctx, "GET", s.http+"?i="+strconv.Itoa(i), "", 200)
				return err
			}), "the route checking the session itself"
		}
		res, base, err := drivePair(s.name, "floor", conc, d, s.op, floorRun)
		if err != nil {
			return nil, err
		}
		r := row{result: res, Target: s.target}
		if floorRun != nil {
			r.Floor, r.FloorIs = &base, floorIs
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

func (rep *report) find(prefix string) *row {
	for i := range rep.Scenarios {
		if strings.HasPrefix(rep.Scenarios[i].Name, prefix) {
			return &rep.Scenarios[i]
		}
	}
	return nil
}

// print writes the results as a Markdown table and the targets.
func (rep *report) print(w io.Writer) {
	fmt.Fprintf(w, "%s, %d rows, %d clients, %s per scenario and again per floor\n\n", rep.Database, rep.Rows, rep.Concurrency, rep.Duration)
	fmt.Fprintln(w, "| request | req/s | p50 ms | p95 ms | CPU µs/req | floor | floor req/s | floor p50 ms | req/s ratio | p50 ratio | target |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|")
	var missed []string
	for _, s := range rep.Scenarios {
		floor, frps, f50, ratio, p50r, target := "–", "–", "–", "–", "–", "–"
		if s.Floor != nil {
			floor, frps, f50 = s.FloorIs, fmt.Sprintf("%.0f", s.Floor.RPS), fmt.Sprintf("%.2f", s.Floor.P50ms)
			ratio, p50r = fmt.Sprintf("%.2f×", s.Ratio), fmt.Sprintf("%.2f×", s.P50Ratio)
		}
		if s.Target > 0 {
			target = fmt.Sprintf("≥ %.1f× met", s.Target)
			if s.Ratio < s.Target {
				target = fmt.Sprintf("≥ %.1f× **missed**", s.Target)
				missed = append(missed, s.Name)
			}
		}
		fmt.Fprintf(w, "| %s | %.0f | %.2f | %.2f | %.0f | %s | %s | %s | %s | %s | %s |\n", s.Name, s.RPS, s.P50ms, s.P95ms, s.CPUus, floor, frps, f50, ratio, p50r, target)
	}
	fmt.Fprintln(w, "\nCPU µs/req is this process's: clients, server and (SQLite) the database; PostgreSQL's own work is not in it.")
	fmt.Fprintf(w, "\npeak RSS (server and clients, one process): %.1f MiB; before the login scenario: %.1f MiB\n\ntargets:\n", rep.PeakRSSMiB, rep.PeakRSSBeforeLoginMiB)
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
	if def, ex := rep.find("first page (default"), rep.find("first page _count=exact"); def != nil && ex != nil && def.P50ms > 0 {
		check("default first page >= 100x faster than _count=exact", ex.P50ms/def.P50ms >= 100, "%.1fx (p50 %.2f vs %.2f ms)", ex.P50ms/def.P50ms, def.P50ms, ex.P50ms)
	}
	if d := rep.find("dashboard"); d != nil {
		check("dashboard with 30 days of charts p50 < 300 ms", d.P50ms < 300, "%.2f ms", d.P50ms)
	}
	for _, e := range rep.Exports {
		fmt.Fprintf(w, "\nCSV export of %d rows: %.1f MB in %.1f s, peak RSS %.1f MiB", e.Rows, float64(e.Bytes)/1e6, e.Seconds, e.PeakRSSMiB)
	}
	if len(rep.Exports) > 0 {
		fmt.Fprintln(w)
	}
	for _, e := range rep.Exports {
		check(fmt.Sprintf("peak RSS exporting %d rows < 100 MiB", e.Rows), e.PeakRSSMiB < 100, "%.1f MiB", e.PeakRSSMiB)
	}
	check("peak RSS < 100 MiB", rep.PeakRSSMiB < 100, "%.1f MiB (%.1f MiB before login)", rep.PeakRSSMiB, rep.PeakRSSBeforeLoginMiB)
	check(fmt.Sprintf("sign-in's email lookup over %d users reads an index", rep.Rows), rep.SignInIndexed, "%s", rep.SignInPlan)
	if len(missed) > 0 {
		fmt.Fprintf(w, "\nratios missed: %s\n", strings.Join(missed, "; "))
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
		if s.Target <= 0 || s.Floor == nil || s.Floor.RPS <= 0 || s.Name == g.Name {
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
