package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	admin "github.com/gameadmin/admin"
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
}

// row is a scenario next to its baseline; Ratio is the scenario's p50
// over the baseline's.
type row struct {
	result
	Baseline *result `json:"baseline,omitempty"`
	Ratio    float64 `json:"p50Ratio,omitempty"`
}

const events = "/admin-api/analyticsEvents"

// scenarios runs every scenario and the baselines they are compared with.
func scenarios(ctx context.Context, db *bun.DB, c *client, rows int64, d time.Duration, conc int, email, password, only string, quiet bool) (*report, error) {
	depth := min(500_000, rows-100)
	// The cursor of the page that starts where the offset page does (ids
	// are 1..rows, listed newest first).
	h, err := c.do(ctx, "GET", fmt.Sprintf("%s?_limit=1&id_lte=%d", events, rows-depth+1), "", 200)
	if err != nil {
		return nil, err
	}
	cursor := h.Get("X-Next-Cursor")
	pg := db.Dialect().Name() == dialect.PG

	page := func(q func(*bun.SelectQuery) *bun.SelectQuery) func(ctx context.Context, i int) error {
		return func(ctx context.Context, i int) error {
			var evs []admin.AnalyticsEvent
			return q(db.NewSelect().Model(&evs).Order("id DESC").Limit(100)).Scan(ctx)
		}
	}
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
	baselines := map[string]func(ctx context.Context, i int) error{
		"first page": page(func(q *bun.SelectQuery) *bun.SelectQuery { return q }),
		"offset":     page(func(q *bun.SelectQuery) *bun.SelectQuery { return q.Offset(depth) }),
		"cursor":     page(func(q *bun.SelectQuery) *bun.SelectQuery { return q.Where("id < ?", rows-depth+1) }),
		"filtered":   page(func(q *bun.SelectQuery) *bun.SelectQuery { return q.Where("name = ?", "purchase") }),
		"_q": page(func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
				return q.WhereOr(like, bun.Ident("user_id"), "%purch%").WhereOr(like, bun.Ident("name"), "%purch%")
			})
		}),
		"read": func(ctx context.Context, i int) error {
			var ev admin.AnalyticsEvent
			return db.NewSelect().Model(&ev).Where("id = ?", int64(i)*7919%rows+1).Scan(ctx)
		},
		"create": func(ctx context.Context, i int) error {
			_, err := db.NewInsert().Model(&admin.AnalyticsEvent{UserID: "u1", Name: "bench", Payload: map[string]any{"i": i}, CreatedAt: time.Now()}).Exec(ctx)
			return err
		},
		"plain route": func(ctx context.Context, i int) error {
			_, err := c.do(ctx, "GET", "/plain?i="+strconv.Itoa(i), "", 200)
			return err
		},
	}
	list := []struct {
		name, baseline string
		op             func(ctx context.Context, i int) error
	}{
		{"first page (default count)", "first page", get(events + "?_start=0&_end=100")},
		{"first page _count=none", "first page", get(events + "?_start=0&_end=100&_count=none")},
		{"first page _count=exact", "first page", get(events + "?_start=0&_end=100&_count=exact")},
		{fmt.Sprintf("offset %d", depth), "offset", get(fmt.Sprintf("%s?_start=%d&_end=%d", events, depth, depth+100))},
		{fmt.Sprintf("cursor at %d", depth), "cursor", get(events + "?_limit=100&_cursor=" + cursor)},
		{"filtered name=purchase (default count)", "filtered", get(events + "?name_eq=purchase&_end=100")},
		{"filtered name=purchase _count=none", "filtered", get(events + "?name_eq=purchase&_end=100&_count=none")},
		{"_q=purch", "_q", get(events + "?_q=purch&_end=100")},
		{"read by id", "read", func(ctx context.Context, i int) error {
			_, err := c.do(ctx, "GET", events+"/"+strconv.FormatInt(int64(i)*7919%rows+1, 10), "", 200)
			return err
		}},
		{"create", "create", func(ctx context.Context, i int) error {
			_, err := c.do(ctx, "POST", events, fmt.Sprintf(`{"user_id":"u1","name":"bench","payload":{"i":%d},"created_at":%q}`, i, time.Now().UTC().Format(time.RFC3339)), 201)
			return err
		}},
		{"guarded route", "plain route", func(ctx context.Context, i int) error {
			_, err := c.do(ctx, "GET", "/guarded?i="+strconv.Itoa(i), "", 200)
			return err
		}},
		// The whole dashboard, with its charts over 30 days: every widget
		// of the panel's, the event table's total among them.
		{"dashboard, 30 days", "", get("/admin-api/_dashboard?range=30d")},
		{"login", "", func(ctx context.Context, i int) error {
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
		res, base, err := drivePair(s.name, "baseline "+s.baseline, conc, d, s.op, baselines[s.baseline])
		if err != nil {
			return nil, err
		}
		r := row{result: res}
		if s.baseline != "" {
			r.Baseline = &base
			if base.P50ms > 0 {
				r.Ratio = r.P50ms / base.P50ms
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

// print writes the results as a Markdown table and the targets of issue 8.
func (rep *report) print(w io.Writer) {
	fmt.Fprintf(w, "%s, %d rows, %d clients, %s per scenario\n\n", rep.Database, rep.Rows, rep.Concurrency, rep.Duration)
	fmt.Fprintln(w, "| scenario | p50 ms | p95 ms | p99 ms | req/s | CPU µs/req | baseline p50 ms | baseline req/s | baseline CPU µs/req | p50 ratio | req/s ratio |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range rep.Scenarios {
		b50, brps, bcpu, ratio, rpsRatio := "–", "–", "–", "–", "–"
		if s.Baseline != nil {
			b50, brps, bcpu = fmt.Sprintf("%.2f", s.Baseline.P50ms), fmt.Sprintf("%.0f", s.Baseline.RPS), fmt.Sprintf("%.0f", s.Baseline.CPUus)
			ratio = fmt.Sprintf("%.2fx", s.Ratio)
			if s.Baseline.RPS > 0 {
				rpsRatio = fmt.Sprintf("%.2fx", s.RPS/s.Baseline.RPS)
			}
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %.2f | %.0f | %.0f | %s | %s | %s | %s | %s |\n", s.Name, s.P50ms, s.P95ms, s.P99ms, s.RPS, s.CPUus, b50, brps, bcpu, ratio, rpsRatio)
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
	for _, p := range []string{"first page (default", "cursor", "filtered name=purchase _count=none"} {
		if s := rep.find(p); s != nil && s.Baseline != nil {
			check(s.Name+" p50 <= 3x baseline", s.Ratio <= 3, "%.2fx", s.Ratio)
		}
	}
	if def, ex := rep.find("first page (default"), rep.find("first page _count=exact"); def != nil && ex != nil && def.P50ms > 0 {
		check("default first page >= 100x faster than _count=exact", ex.P50ms/def.P50ms >= 100, "%.1fx (p50 %.2f vs %.2f ms)", ex.P50ms/def.P50ms, def.P50ms, ex.P50ms)
	}
	if g := rep.find("guarded"); g != nil && g.Baseline != nil && g.Baseline.RPS > 0 {
		check("guarded req/s >= 0.8x plain", g.RPS/g.Baseline.RPS >= 0.8, "%.2fx (%.0f vs %.0f req/s)", g.RPS/g.Baseline.RPS, g.RPS, g.Baseline.RPS)
	}
	if d := rep.find("dashboard"); d != nil {
		check("dashboard with 30 days of charts p50 < 300 ms", d.P50ms < 300, "%.2f ms", d.P50ms)
	}
	check("peak RSS < 100 MiB", rep.PeakRSSMiB < 100, "%.1f MiB (%.1f MiB before login)", rep.PeakRSSMiB, rep.PeakRSSBeforeLoginMiB)
	check(fmt.Sprintf("sign-in's email lookup over %d users reads an index", rep.Rows), rep.SignInIndexed, "%s", rep.SignInPlan)
}
