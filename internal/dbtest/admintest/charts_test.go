package admintest

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// countedRooms lists the rooms a test sets, counting the listings; the
// rest is farRooms'.
type countedRooms struct {
	farRooms
	mu    sync.Mutex
	rooms []RoomSummary
	lists int
}

func (c *countedRooms) set(rooms ...RoomSummary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rooms = rooms
}

func (c *countedRooms) List(context.Context) ([]RoomSummary, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lists++
	return c.rooms, nil
}

// series reads a "series" widget: its step and its lines by name.
func series(t *testing.T, w map[string]any) (step float64, lines map[string][]map[string]any) {
	t.Helper()
	data, ok := w["data"].(map[string]any)
	if !ok || w["render"] != "series" {
		t.Fatalf("widget %v; want render series with data", w)
	}
	lines = map[string][]map[string]any{}
	for _, l := range data["series"].([]any) {
		l := l.(map[string]any)
		var pts []map[string]any
		for _, p := range l["points"].([]any) {
			pts = append(pts, p.(map[string]any))
		}
		lines[l["name"].(string)] = pts
	}
	return data["step"].(float64), lines
}

// valueAt is the value of the point of line at step start t.
func valueAt(t *testing.T, pts []map[string]any, at time.Time) float64 {
	t.Helper()
	for _, p := range pts {
		pt, err := time.Parse(time.RFC3339, p["t"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if pt.Equal(at) {
			return p["v"].(float64)
		}
	}
	t.Fatalf("no point at %s in %v", at, pts)
	return 0
}

// onlineNow is the "Online now" figure of the today widget.
func onlineNow(t *testing.T, ws map[string]map[string]any) float64 {
	t.Helper()
	stats, _ := ws["today"]["data"].([]any)
	for _, s := range stats {
		if s := s.(map[string]any); s["label"] == "Online now" {
			return s["value"].(float64)
		}
	}
	t.Fatalf("no Online now in %v", ws["today"])
	return 0
}

// TestDashboardCharts: players online are sampled per minute (the nodes
// of a minute summed, a step showing its busiest minute, a minute written
// once however many nodes sample it); sign-ups and audit entries are
// counted per step in the database, on both; each chart answers for 24
// hours, 7 or 30 days with a point at every step; a game's own Series
// widget gets the range.
//
// A panel samples as it starts, at its Options.Clock: the test's nodes
// start at the minutes it sets, three hours ago.
func TestDashboardCharts(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		rooms := &countedRooms{}
		var asked Range
		now := time.Now().UTC()
		hour := now.Truncate(time.Hour)
		clk := &clock{}
		// Three hours ago: 4 then 6 players (on two nodes), sampled twice.
		clk.set(hour.Add(-3*time.Hour + time.Minute))
		rooms.set(RoomSummary{RoomID: "a", Clients: 3, Node: "n1"}, RoomSummary{RoomID: "b", Clients: 1, Node: "n2"})
		e := newEnv(t, db, Options{Rooms: rooms, Clock: clk.now, Widgets: []Widget{{ID: "mine", Title: "Mine", Series: func(_ context.Context, _ Operator, r Range) (*Series, error) {
			asked = r
			return &Series{Unit: "coins", Step: int64(r.Step.Seconds()), Lines: []Line{{Name: "coins", Points: []Point{{T: r.From, V: 7}}}}}, nil
		}}}})
		// The panel's first sample, n1 and n2, written in the background.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			n, err := db.NewSelect().TableExpr("game_online_samples").Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d samples rows 30 s after the panel started; want its first sample's 2", n)
			}
		}
		rooms.set(RoomSummary{RoomID: "a", Clients: 5, Node: "n1"}, RoomSummary{RoomID: "b", Clients: 1, Node: "n2"})
		clk.set(hour.Add(-3*time.Hour + 2*time.Minute))
		for range 2 { // another node, then a third in the same minute: written once
			logs := &syncBuffer{}
			node, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher, Rooms: rooms, Clock: clk.now, Logger: slog.New(slog.NewTextHandler(logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			node.Close() // waits for the sample it took as it started
			if strings.Contains(logs.String(), "sample failed") {
				t.Fatalf("a node sampling a minute already sampled: %s", logs)
			}
		}
		clk.set(now)
		root, _ := e.bootstrap()
		// Two sign-ups two hours ago, one 40 days ago.
		for i, at := range []time.Time{hour.Add(-2*time.Hour + time.Minute), hour.Add(-2*time.Hour + 30*time.Minute), now.Add(-40 * 24 * time.Hour)} {
			id := e.user("charted"+string(rune('a'+i))+"@example.com", "password")
			if _, err := db.NewUpdate().Model((*User)(nil)).Set("created_at = ?", at).Where("id = ?", id).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for range 3 {
			must(0, e.admin.Audit().Record(ctx, AuditEntry{Action: "game.refund", Resource: "shop", CreatedAt: hour.Add(-time.Hour + time.Minute)}))
		}

		ws := widgets(t, root.do("GET", "/admin-api/_dashboard", nil).want(t, 200))
		step, online := series(t, ws["playersOnline"])
		if step != 3600 || len(online["Players online"]) != 24 {
			t.Fatalf("players online: step %v, %d points; want 3600 and 24", step, len(online["Players online"]))
		}
		if v := valueAt(t, online["Players online"], hour.Add(-3*time.Hour)); v != 6 {
			t.Fatalf("players online three hours ago = %v; want 6, the busiest minute", v)
		}
		// The step of now agrees with "Online now" before a sample of it
		// is taken, and after the rooms change while the chart is kept.
		if v := valueAt(t, online["Players online"], hour); v != 6 {
			t.Fatalf("players online now = %v; want 6, the rooms' count, with no sample of this hour", v)
		}
		rooms.set(RoomSummary{RoomID: "a", Clients: 12, Node: "n1"}, RoomSummary{RoomID: "b", Clients: 8, Node: "n2"})
		rooms.mu.Lock()
		rooms.lists = 0
		rooms.mu.Unlock()
		again := widgets(t, root.do("GET", "/admin-api/_dashboard", nil).want(t, 200))
		rooms.mu.Lock()
		lists := rooms.lists
		rooms.mu.Unlock()
		if lists != 1 { // Online now, the chart's last point and the table
			t.Errorf("one answer of the dashboard listed the rooms %d times; want once", lists)
		}
		_, online = series(t, again["playersOnline"])
		if v := valueAt(t, online["Players online"], hour); v != 20 || onlineNow(t, again) != 20 {
			t.Fatalf("players online now = %v, Online now %v; want both 20", v, onlineNow(t, again))
		}
		if v := valueAt(t, online["Players online"], hour.Add(-3*time.Hour)); v != 6 {
			t.Fatalf("players online three hours ago = %v after the rooms changed; want 6 still", v)
		}
		_, signUps := series(t, ws["signUps"])
		if v := valueAt(t, signUps["Sign-ups"], hour.Add(-2*time.Hour)); v != 2 {
			t.Fatalf("sign-ups two hours ago = %v; want 2", v)
		}
		_, audit := series(t, ws["auditEvents"])
		if v := valueAt(t, audit["game.refund"], hour.Add(-time.Hour)); v != 3 {
			t.Fatalf("audit game.refund an hour ago = %v; want 3 (lines: %v)", v, audit)
		}
		if _, mine := series(t, ws["mine"]); mine["coins"] == nil || asked.Step != time.Hour || !asked.To.Equal(hour.Add(time.Hour)) {
			t.Fatalf("a game's series widget = %v, asked %+v", ws["mine"], asked)
		}
		for rg, want := range map[string][2]float64{"7d": {6 * 3600, 28}, "30d": {24 * 3600, 30}} {
			ws := widgets(t, root.do("GET", "/admin-api/_dashboard?range="+rg, nil).want(t, 200))
			step, signUps := series(t, ws["signUps"])
			var total float64
			for _, p := range signUps["Sign-ups"] {
				total += p["v"].(float64)
			}
			if step != want[0] || float64(len(signUps["Sign-ups"])) != want[1] || total != 3 { // root, and the two charted within
				t.Fatalf("range %s: step %v, %d points, %v sign-ups; want %v, %v and 3", rg, step, len(signUps["Sign-ups"]), total, want[0], want[1])
			}
		}
		root.do("GET", "/admin-api/_dashboard?range=1y", nil).want(t, 400, "invalid_value")
	})
}

// heldCharts holds each count of a chart's buckets (the sign-ups and
// audit charts' statements) until release closes, and counts them.
type heldCharts struct {
	release chan struct{}
	n       atomic.Int64
}

func (h *heldCharts) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	// MySQL counts the seconds since the epoch with TIMESTAMPDIFF.
	if (strings.Contains(ev.Query, "epoch") || strings.Contains(ev.Query, "TIMESTAMPDIFF(SECOND, '1970-01-01'")) && strings.Contains(ev.Query, "GROUP BY") {
		h.n.Add(1)
		select {
		case <-h.release:
		case <-ctx.Done():
		}
	}
	return ctx
}

func (*heldCharts) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestChartsComputedOnce: dashboards asked for at once share one
// computation of each chart, and a chart slower than the widget timeout
// is finished after the requests have answered "timeout", for the next
// one, rather than counted again by each refresh. The charts' statements
// are held until the four dashboards have answered, so each of them
// meets a chart still being computed however slow the machine; the test
// counts the computations, never times them.
func TestChartsComputedOnce(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		hook := &heldCharts{release: make(chan struct{})}
		released := false
		release := func() {
			if !released {
				released = true
				close(hook.release)
			}
		}
		defer release()
		// The panel's clock stands still, so every dashboard asks for the
		// same 30 days even across midnight.
		clk := &clock{}
		clk.set(time.Now())
		e := newEnv(t, db.WithQueryHook(hook), Options{WidgetTimeout: 200 * time.Millisecond, Clock: clk.now})
		root, _ := e.bootstrap()
		var wg sync.WaitGroup
		answers := make([]map[string]map[string]any, 4)
		for i := range answers {
			wg.Go(func() {
				answers[i] = widgets(t, root.do("GET", "/admin-api/_dashboard?range=30d", nil).want(t, 200))
			})
		}
		wg.Wait()
		for i, ws := range answers {
			if ws["signUps"]["error"] != "timeout" || ws["auditEvents"]["error"] != "timeout" {
				t.Fatalf("dashboard %d: signUps %v, auditEvents %v; want both timed out", i, ws["signUps"], ws["auditEvents"])
			}
		}
		release()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			ws := widgets(t, root.do("GET", "/admin-api/_dashboard?range=30d", nil).want(t, 200))
			if ws["signUps"]["error"] == nil && ws["auditEvents"]["error"] == nil {
				series(t, ws["signUps"])
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the charts never came: signUps %v", ws["signUps"])
			}
		}
		// Two charts, each counted once for the four dashboards and the
		// ones after them.
		if n := hook.n.Load(); n != 2 {
			t.Fatalf("the charts were counted %d times in all; want 2 (one per chart)", n)
		}
	})
}
