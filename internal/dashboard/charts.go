package dashboard

import (
	"cmp"
	"context"
	"fmt"
	"github.com/gameadmin/admin/internal/sqldialect"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/rooms"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The dashboard's charts: "series" widgets answer for a range (24 hours,
// 7 or 30 days) with points at a step. Built in: players online (sampled
// every minute from Options.Rooms into a table of the panel's own, kept
// 30 days), sign-ups per day (UserColumns.CreatedAt) and audit events per
// hour by action. A game adds its own with Widget.Series.

// Range is the window a series answers for: [From, To), points every Step.
type Range struct {
	From, To time.Time
	Step     time.Duration
}

// Series is the data of a "series" widget: one or more lines of points.
type Series struct {
	// Unit names what V counts ("players", "sign-ups"), for the axis.
	Unit string `json:"unit,omitempty"`
	// Step is the points' spacing, in seconds.
	Step int64 `json:"step"`
	// Lines are the series, each with its name and points in time order.
	Lines []Line `json:"series"`
}

// Line is one named series of points.
type Line struct {
	Name   string  `json:"name"`
	Points []Point `json:"points"`
}

// Point is one value at a time: the start of its step.
type Point struct {
	T time.Time `json:"t"`
	V float64   `json:"v"`
}

// ranges are the windows the dashboard offers (?range=), with their steps.
var ranges = map[string]struct {
	span, step time.Duration
}{
	"24h": {24 * time.Hour, time.Hour},
	"7d":  {7 * 24 * time.Hour, 6 * time.Hour},
	"30d": {30 * 24 * time.Hour, 24 * time.Hour},
}

// rangeOf reads ?range= (default 24h): it ends at the end of the current
// step, so the last point is the one filling now.
func rangeOf(q url.Values, now time.Time) (Range, error) {
	name := cmp.Or(q.Get("range"), "24h")
	rg, ok := ranges[name]
	if !ok {
		return Range{}, errbody.New(http.StatusBadRequest, "invalid_value", "range must be 24h, 7d or 30d").WithParams("field", "range", "accepted", []string{"24h", "7d", "30d"})
	}
	to := now.UTC().Truncate(rg.step).Add(rg.step)
	return Range{From: to.Add(-rg.span), To: to, Step: rg.step}, nil
}

// bucket is the start of t's step in rg.
func (rg Range) bucket(t time.Time) time.Time {
	return rg.From.Add(t.Sub(rg.From) / rg.Step * rg.Step)
}

// line turns counts by bucket into a line with a point at every step of
// rg, zero where there is none.
func (rg Range) line(name string, counts map[time.Time]float64) Line {
	l := Line{Name: name, Points: []Point{}}
	for t := rg.From; t.Before(rg.To); t = t.Add(rg.Step) {
		l.Points = append(l.Points, Point{T: t, V: counts[t]})
	}
	return l
}

// chartTTL is how long a built-in chart is reused, for every operator of
// the same role and scopes: a dashboard refreshes every 15 seconds per
// operator, and a month of sign-ups on a large table is not worth
// counting again for each (the samples come once a minute anyway).
const chartTTL = time.Minute

type chartEntry struct {
	at time.Time
	s  *Series
}

// chartCache keeps the built-in charts (cachedSeries), and the ones being
// computed.
type chartCache struct {
	mu       sync.Mutex
	m        map[string]chartEntry
	inflight map[string]*chartCall
}

// chartCall is a chart being computed, for every request that asks for it
// meanwhile; done closes when s or err is set.
type chartCall struct {
	done    chan struct{}
	s       *Series
	err     error
	waiting int // requests waiting on it (chartCache.mu)
}

// chartComputeTimeout bounds a built-in chart's computation, which runs
// past the dashboard's widget timeout so that a chart slower than that
// (a month of sign-ups over tens of millions of players on a busy
// database) is ready for the next refresh instead of started again.
const chartComputeTimeout = time.Minute

// cachedSeries is fn, its answer kept chartTTL per chart, role, scopes
// and range. Requests that find no answer share one computation, which
// is not cancelled with the request that started it: each one that waits
// stops at its own deadline, and the answer serves those that come after.
// Without that, every dashboard refresh of every operator started its
// own count of a chart slower than the widget timeout, and each count
// went on in the database after its request had given up on it.
func (d *Dashboard) cachedSeries(id string, fn func(context.Context, authz.Operator, Range) (*Series, error)) func(context.Context, authz.Operator, Range) (*Series, error) {
	return func(ctx context.Context, op authz.Operator, rg Range) (*Series, error) {
		key := id + "\x00" + string(op.Role) + "\x00" + strings.Join(op.Scopes, ",") + "\x00" + rg.From.String() + rg.Step.String()
		d.charts.mu.Lock()
		if e, ok := d.charts.m[key]; ok && time.Since(e.at) < chartTTL {
			d.charts.mu.Unlock()
			return e.s, nil
		}
		c := d.charts.inflight[key]
		if c == nil {
			c = &chartCall{done: make(chan struct{})}
			if d.charts.inflight == nil {
				d.charts.inflight = map[string]*chartCall{}
			}
			d.charts.inflight[key] = c
			go d.computeChart(context.WithoutCancel(ctx), id, key, c, func(ctx context.Context) (*Series, error) { return fn(ctx, op, rg) })
		}
		c.waiting++
		d.charts.mu.Unlock()
		select {
		case <-c.done:
			return c.s, c.err
		case <-ctx.Done():
			d.charts.mu.Lock()
			c.waiting--
			d.charts.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

// computeChart runs fn, chart id's computation for c, keeps its answer
// under key and tells the requests waiting on c. A panic is c's error, as
// safeWidget makes it; an error no request is left to report is logged
// here.
func (d *Dashboard) computeChart(ctx context.Context, id, key string, c *chartCall, fn func(context.Context) (*Series, error)) {
	ctx, cancel := context.WithTimeout(ctx, chartComputeTimeout)
	defer cancel()
	now := time.Now()
	s, err := func() (s *Series, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("chart %s: %w", id, panicerr.New(p))
			}
		}()
		return fn(ctx)
	}()
	d.charts.mu.Lock()
	delete(d.charts.inflight, key)
	if err == nil {
		if d.charts.m == nil || len(d.charts.m) > 256 {
			d.charts.m = map[string]chartEntry{}
		}
		d.charts.m[key] = chartEntry{at: now, s: s}
	}
	c.s, c.err = s, err
	unheard := c.waiting == 0
	d.charts.mu.Unlock()
	close(c.done)
	if err != nil && unheard {
		d.log.Error("admin: dashboard chart failed after its requests stopped waiting", append([]any{"chart", id}, panicerr.Attrs(err)...)...)
	}
}

// OnlineSample is one minute's count of the players in live rooms, per
// node of a cluster ("" for a single process): a row of the panel's
// online_samples table, which the engine's migrations declare with this
// model.
type OnlineSample struct {
	bun.BaseModel `bun:"table:game_online_samples,alias:os"`

	At      time.Time `bun:"at,pk"`
	Node    string    `bun:"node,pk"`
	Clients int64     `bun:"clients,notnull"`
}

// Samples are taken every minute and kept 30 days.
const (
	sampleEvery = time.Minute
	sampleKeep  = 30 * 24 * time.Hour
)

// SampleOnline writes the players online now, per node, once a minute,
// until stop closes; an old sample goes once an hour. Every node of a
// cluster samples the same rooms (Rooms lists the cluster's), and the
// rows of one minute are written once, by whichever node comes first.
// The engine runs it in the background when the game has Rooms.
func (d *Dashboard) SampleOnline(ctx context.Context, stop <-chan struct{}) {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	var pruned time.Time
	for {
		if err := d.takeSample(ctx, d.now()); err != nil {
			d.log.WarnContext(ctx, "admin: players-online sample failed", "err", err)
		}
		if time.Since(pruned) > time.Hour {
			pruned = time.Now()
			if _, err := d.db.NewDelete().TableExpr("?", d.samples).Where("at < ?", d.now().UTC().Add(-sampleKeep)).Exec(ctx); err != nil {
				d.log.WarnContext(ctx, "admin: players-online prune failed", "err", err)
			}
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// takeSample writes the players online at now, per node, for now's minute.
func (d *Dashboard) takeSample(ctx context.Context, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rooms, err := d.rooms.List(ctx)
	if err != nil {
		return err
	}
	at := now.UTC().Truncate(sampleEvery)
	byNode := map[string]int64{"": 0} // a minute without rooms is a zero, not a gap
	for _, r := range rooms {
		byNode[r.Node] += int64(r.Clients)
	}
	if len(byNode) > 1 && byNode[""] == 0 {
		delete(byNode, "")
	}
	rows := make([]OnlineSample, 0, len(byNode))
	for _, node := range slices.Sorted(maps.Keys(byNode)) {
		rows = append(rows, OnlineSample{At: at, Node: node, Clients: byNode[node]})
	}
	_, err = sqldialect.OnConflictNothing(d.db.NewInsert().Model(&rows).ModelTableExpr("?", d.samples), "at, node").Exec(ctx)
	return err
}

// seriesOnline is the players online: per step, the most at any sampled
// minute (the nodes of a minute summed).
func (d *Dashboard) seriesOnline(ctx context.Context, _ authz.Operator, rg Range) (*Series, error) {
	var rows []struct {
		At      time.Time `bun:"at"`
		Clients int64     `bun:"clients"`
	}
	err := d.db.NewSelect().TableExpr("? AS os", d.samples).
		ColumnExpr("at, sum(clients) AS clients").Where("at >= ? AND at < ?", rg.From, rg.To).
		Group("at").Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	most := map[time.Time]float64{}
	for _, r := range rows {
		b := rg.bucket(r.At.UTC())
		most[b] = max(most[b], float64(r.Clients))
	}
	return &Series{Unit: "players", Step: int64(rg.Step.Seconds()), Lines: []Line{rg.line("Players online", most)}}, nil
}

// withOnlineNow is the players-online chart with its last point, the
// step that holds now, raised to the players in the rooms now: the
// samples come once a minute and the chart is kept a minute, so without
// it the chart said none while "Online now", which lists the rooms, said
// twenty. The rooms are listed as "Online now" lists them (the cluster's,
// every node the same), by listRooms, once per answer (roomsOnce); the
// cached series is copied, not changed.
func (d *Dashboard) withOnlineNow(listRooms func(context.Context) ([]rooms.Summary, error), fn func(context.Context, authz.Operator, Range) (*Series, error)) func(context.Context, authz.Operator, Range) (*Series, error) {
	return func(ctx context.Context, op authz.Operator, rg Range) (*Series, error) {
		s, err := fn(ctx, op, rg)
		if err != nil || s == nil || len(s.Lines) != 1 || len(s.Lines[0].Points) == 0 {
			return s, err
		}
		live, err := listRooms(ctx)
		if err != nil {
			return s, nil // the samples alone: the chart still answers
		}
		var n float64
		for _, r := range live {
			n += float64(r.Clients)
		}
		pts := s.Lines[0].Points
		last := pts[len(pts)-1]
		if now := d.now().UTC(); now.Before(last.T) || !now.Before(last.T.Add(rg.Step)) || last.V >= n {
			return s, nil
		}
		c := *s
		c.Lines = []Line{{Name: s.Lines[0].Name, Points: append(slices.Clone(pts[:len(pts)-1]), Point{T: last.T, V: n})}}
		return &c, nil
	}
}

// epochBucket is the SQL for the start of col's step in rg, in seconds
// since the epoch (an integer on every database); a unix time column's
// (unix) by integer division of what it holds (DIV on MySQL, whose /
// answers a decimal).
func epochBucket(d dialect.Name, rg Range, unix schema.UnixUnit) string {
	step := int64(rg.Step.Seconds())
	div := "/"
	if d == dialect.MySQL {
		div = "DIV"
	}
	switch unix {
	case schema.UnixSeconds: // the integer is the epoch already
		return fmt.Sprintf("(?TableAlias.? %s %d) * %d", div, step, step)
	case schema.UnixMillis:
		return fmt.Sprintf("(?TableAlias.? %s %d) * %d", div, 1000*step, step)
	}
	return query.EpochBucket(d, rg.Step, "?TableAlias.?")
}

// countsByStep counts the rows of table t with col in rg, per step (and
// per group column when group is not ""), in the database.
func (d *Dashboard) countsByStep(ctx context.Context, t *schema.Table, col, group string, rg Range) (map[string]map[time.Time]float64, error) {
	// A unix time column (schema.Column.Unix) is bucketed and bounded as
	// its integer: the epoch it counts, in seconds or milliseconds.
	var unix schema.UnixUnit
	from, to := any(rg.From), any(rg.To)
	if c := t.ByName[col]; c != nil && c.Unix != "" {
		unix, from, to = c.Unix, c.UnixValue(rg.From), c.UnixValue(rg.To)
	}
	q := query.From(d.db, t).
		ColumnExpr(epochBucket(d.db.Dialect().Name(), rg, unix)+" AS b", bun.Ident(col)).ColumnExpr("count(*) AS n").
		Where("?TableAlias.? >= ? AND ?TableAlias.? < ?", bun.Ident(col), from, bun.Ident(col), to).
		GroupExpr("b")
	if group != "" {
		q = q.ColumnExpr("?TableAlias.? AS g", bun.Ident(group)).GroupExpr("g")
	} else {
		q = q.ColumnExpr("'' AS g")
	}
	var rows []struct {
		B int64  `bun:"b"`
		G string `bun:"g"`
		N int64  `bun:"n"`
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := map[string]map[time.Time]float64{}
	for _, r := range rows {
		if out[r.G] == nil {
			out[r.G] = map[time.Time]float64{}
		}
		out[r.G][rg.bucket(time.Unix(r.B, 0).UTC())] += float64(r.N)
	}
	return out, nil
}

// seriesSignUps is the new accounts per step.
func (d *Dashboard) seriesSignUps(ctx context.Context, op authz.Operator, rg Range) (*Series, error) {
	users := d.res.Table("users")
	c := d.users.CreatedAt
	if users == nil || c == "" || !d.res.Allowed(op, "users") {
		return &Series{Step: int64(rg.Step.Seconds()), Lines: []Line{}}, nil
	}
	counts, err := d.countsByStep(ctx, users, c, "", rg)
	if err != nil {
		return nil, err
	}
	return &Series{Unit: "sign-ups", Step: int64(rg.Step.Seconds()), Lines: []Line{rg.line("Sign-ups", counts[""])}}, nil
}

// seriesReports is the players' reports filed per step (folded
// duplicates count once).
func (d *Dashboard) seriesReports(ctx context.Context, _ authz.Operator, rg Range) (*Series, error) {
	filed, err := d.reports.Filed(ctx, rg.From, rg.To, rg.Step)
	if err != nil {
		return nil, err
	}
	counts := map[time.Time]float64{}
	for b, n := range filed {
		counts[rg.bucket(time.Unix(b, 0).UTC())] += float64(n)
	}
	return &Series{Unit: "reports", Step: int64(rg.Step.Seconds()), Lines: []Line{rg.line("Reports", counts)}}, nil
}

// maxAuditLines is how many actions the audit chart draws: the busiest,
// the rest summed as "other".
const maxAuditLines = 5

// seriesAudit is the audit log's entries per step, by action.
func (d *Dashboard) seriesAudit(ctx context.Context, op authz.Operator, rg Range) (*Series, error) {
	audit := d.res.Table("adminAudit")
	if audit == nil || !d.res.Allowed(op, "adminAudit") {
		return &Series{Step: int64(rg.Step.Seconds()), Lines: []Line{}}, nil
	}
	counts, err := d.countsByStep(ctx, audit, "created_at", "action", rg)
	if err != nil {
		return nil, err
	}
	total := func(m map[time.Time]float64) (n float64) {
		for _, v := range m {
			n += v
		}
		return n
	}
	actions := slices.SortedFunc(maps.Keys(counts), func(x, y string) int {
		return cmp.Or(cmp.Compare(total(counts[y]), total(counts[x])), cmp.Compare(x, y))
	})
	s := &Series{Unit: "entries", Step: int64(rg.Step.Seconds()), Lines: []Line{}}
	other := map[time.Time]float64{}
	for i, act := range actions {
		if i < maxAuditLines {
			s.Lines = append(s.Lines, rg.line(act, counts[act]))
			continue
		}
		for t, v := range counts[act] {
			other[t] += v
		}
	}
	if len(other) > 0 {
		s.Lines = append(s.Lines, rg.line("other", other))
	}
	return s, nil
}
