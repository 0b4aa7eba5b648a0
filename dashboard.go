package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gameadmin/admin/internal/query"
)

// Widget is a dashboard panel computed for the signed-in operator.
type Widget struct {
	// ID identifies the widget; unique among the widgets.
	ID string
	// Title is shown above it.
	Title string
	// Render is how the UI draws Data: "kpi" (a map of label to number),
	// "table" (a list of objects) or "json".
	Render string
	// Resource, for a "table" of one resource's rows, names it: the UI
	// then shows its list's columns, labels and order, and links each row
	// to its page. Optional.
	Resource string
	// Data computes the widget. An error shows on the widget alone; its
	// message is logged, and the operator sees "unavailable". ctx ends
	// after 5 s; the page is answered then whether Data has returned or
	// not, with "timeout" on the widgets still running.
	Data func(ctx context.Context, op Operator) (any, error)
}

// widgetTimeout bounds the dashboard: a widget not done by then shows
// "timeout", so one slow query, or a widget ignoring its ctx, cannot hold
// the page.
const widgetTimeout = 5 * time.Second

type widgetView struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Render   string `json:"render"`
	Resource string `json:"resource,omitempty"`
	Data     any    `json:"data"`
	Error    string `json:"error,omitempty"`
}

// builtinWidgets are totals, recentUsers, liveRooms and health.
func (a api) builtinWidgets() []Widget {
	ws := []Widget{
		{ID: "totals", Title: "Totals", Render: "kpi", Data: a.widgetTotals},
		{ID: "recentUsers", Title: "Recent users", Render: "table", Resource: "users", Data: a.widgetRecentUsers},
	}
	if a.opts.Rooms != nil {
		ws = append(ws, Widget{ID: "liveRooms", Title: "Live rooms", Render: "table", Data: func(ctx context.Context, op Operator) (any, error) {
			if !a.allowed(op, OpList, "rooms") {
				return []RoomSummary{}, nil // as GET /rooms: the rooms scope
			}
			return a.opts.Rooms.List(ctx)
		}})
	}
	return append(ws, Widget{ID: "health", Title: "Health", Render: "kpi", Data: func(ctx context.Context, _ Operator) (any, error) {
		h := a.health(ctx)
		return h, nil
	}})
}

// widgetTotals counts the rows of every resource the operator may list,
// with the planner's estimate for large PostgreSQL tables.
func (a api) widgetTotals(ctx context.Context, op Operator) (any, error) {
	out := map[string]int64{}
	for _, key := range a.order {
		res := a.resources[key]
		if !a.allowed(op, OpList, key) {
			continue
		}
		n, _, err := query.Count(ctx, a.db, res.view, query.Select(a.db, res.table), false, query.CountOptions{ExactBelow: a.opts.ExactCountBelow, Estimates: a.estimates})
		if err != nil {
			return nil, err
		}
		label := res.label
		if _, taken := out[label]; taken {
			label += " (" + key + ")" // two resources may share a label
		}
		out[label] = n
	}
	return out, nil
}

func (a api) widgetRecentUsers(ctx context.Context, op Operator) (any, error) {
	res := a.resources["users"]
	if res == nil || !a.allowed(op, OpList, "users") {
		return []map[string]any{}, nil
	}
	q := query.Select(a.db, res.table).Limit(5)
	if res.view.ByName["created_at"] != nil {
		q = q.Order("created_at DESC")
	}
	return query.ScanRows(ctx, q, res.table, res.hidden)
}

// GET /admin-api/_dashboard (operators only)
func (a api) handleDashboard(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	widgets := append(a.builtinWidgets(), a.opts.Widgets...)
	views := make([]widgetView, len(widgets))
	type result struct {
		i    int
		data any
		err  error
	}
	// Each widget answers on its own buffered slot, so one that ignores
	// its ctx is left behind at the deadline instead of holding the page.
	results := make(chan result, len(widgets))
	ctx, cancel := context.WithTimeout(r.Context(), a.widgetTimeout)
	defer cancel()
	for i, wd := range widgets {
		views[i] = widgetView{ID: wd.ID, Title: wd.Title, Render: wd.Render, Resource: wd.Resource, Error: "timeout"}
		go func() {
			data, err := safeWidget(ctx, wd, op)
			results <- result{i, data, err}
		}()
	}
collect:
	for range widgets {
		select {
		case res := <-results:
			views[res.i].Error = ""
			if res.err != nil {
				a.log.ErrorContext(ctx, "admin: dashboard widget failed", append([]any{"widget", widgets[res.i].ID}, errAttrs(res.err)...)...)
				views[res.i].Error = "unavailable"
				continue
			}
			views[res.i].Data = res.data
		case <-ctx.Done():
			if r.Context().Err() != nil {
				return r.Context().Err() // the client went away
			}
			for i := range views {
				if views[i].Error == "timeout" {
					a.log.ErrorContext(ctx, "admin: dashboard widget timed out", "widget", views[i].ID, "timeout", a.widgetTimeout)
				}
			}
			break collect
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"widgets": views})
	return nil
}

func safeWidget(ctx context.Context, wd Widget, op Operator) (data any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("widget %s: %w", wd.ID, recovered(p))
		}
	}()
	if wd.Data == nil {
		return nil, nil
	}
	return wd.Data(ctx, op)
}

// HealthCheck is one dependency reported by the health widget and
// GET /admin-api/_health as "<Name>": "ok" or "unreachable".
type HealthCheck struct {
	// Name is the key of the check in the health answer, e.g. "redis";
	// "ok", "db" and "latencyMs" are taken.
	Name string
	// Check returns nil when the dependency answers. It gets the health
	// request's context, bounded to 2 seconds; its error is logged.
	Check func(ctx context.Context) error
}

type healthView struct {
	OK        bool    `json:"ok"`
	DB        string  `json:"db"`
	LatencyMs float64 `json:"latencyMs"`
	// Checks are the results of Options.HealthChecks, by name, flattened
	// into the object by MarshalJSON.
	Checks map[string]string `json:"-"`
}

// MarshalJSON writes the checks beside ok, db and latencyMs, so the
// dashboard's kpi widget shows one figure per dependency.
func (h healthView) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 3+len(h.Checks))
	for k, v := range h.Checks {
		m[k] = v
	}
	m["ok"], m["db"], m["latencyMs"] = h.OK, h.DB, h.LatencyMs
	return json.Marshal(m)
}

func (a api) health(ctx context.Context) healthView {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start := time.Now()
	err := a.db.PingContext(ctx)
	if err == nil {
		_, err = a.db.ExecContext(ctx, "SELECT 1")
	}
	h := healthView{OK: err == nil, DB: "ok", LatencyMs: float64(time.Since(start).Microseconds()) / 1000}
	if err != nil {
		a.log.ErrorContext(ctx, "admin: health check failed", "err", err)
		h.DB = "unreachable"
	}
	if len(a.opts.HealthChecks) > 0 {
		h.Checks = make(map[string]string, len(a.opts.HealthChecks))
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, c := range a.opts.HealthChecks {
			wg.Go(func() {
				status := "ok"
				if err := safeCheck(ctx, c); err != nil {
					a.log.ErrorContext(ctx, "admin: health check failed", append([]any{"check", c.Name}, errAttrs(err)...)...)
					status = "unreachable"
				}
				mu.Lock()
				h.Checks[c.Name] = status
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	return h
}

func safeCheck(ctx context.Context, c HealthCheck) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("health check %s: %w", c.Name, recovered(p))
		}
	}()
	if c.Check == nil {
		return nil
	}
	return c.Check(ctx)
}

// GET /admin-api/_health: for load balancers; 503 when the database is down.
func (a api) handleHealth(w http.ResponseWriter, r *http.Request) error {
	h := a.health(r.Context())
	status := http.StatusOK
	if !h.OK {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, h)
	return nil
}
