package admin

import (
	"context"
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
	// Data computes the widget. An error shows on the widget alone; its
	// message is logged, and the operator sees "unavailable".
	Data func(ctx context.Context, op Operator) (any, error)
}

// widgetTimeout bounds each widget, so one slow query cannot hold the page.
const widgetTimeout = 5 * time.Second

type widgetView struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Render string `json:"render"`
	Data   any    `json:"data"`
	Error  string `json:"error,omitempty"`
}

// builtinWidgets are totals, recentUsers, liveRooms and health.
func (a *Admin) builtinWidgets() []Widget {
	ws := []Widget{
		{ID: "totals", Title: "Totals", Render: "kpi", Data: a.widgetTotals},
		{ID: "recentUsers", Title: "Recent users", Render: "table", Data: a.widgetRecentUsers},
	}
	if a.opts.Rooms != nil {
		ws = append(ws, Widget{ID: "liveRooms", Title: "Live rooms", Render: "table", Data: func(ctx context.Context, _ Operator) (any, error) {
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
func (a *Admin) widgetTotals(ctx context.Context, op Operator) (any, error) {
	out := map[string]int64{}
	for _, key := range a.order {
		res := a.resources[key]
		if !a.allowed(op, OpList, key) {
			continue
		}
		n, _, err := query.Count(ctx, a.db, res.view, query.Select(a.db, res.table), false, query.CountOptions{})
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

func (a *Admin) widgetRecentUsers(ctx context.Context, op Operator) (any, error) {
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
func (a *Admin) handleDashboard(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	widgets := append(a.builtinWidgets(), a.opts.Widgets...)
	views := make([]widgetView, len(widgets))
	var wg sync.WaitGroup
	for i, wd := range widgets {
		views[i] = widgetView{ID: wd.ID, Title: wd.Title, Render: wd.Render}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(r.Context(), widgetTimeout)
			defer cancel()
			data, err := safeWidget(ctx, wd, op)
			if err != nil {
				a.log.ErrorContext(ctx, "admin: dashboard widget failed", "widget", wd.ID, "err", err)
				views[i].Error = "unavailable"
				return
			}
			views[i].Data = data
		})
	}
	wg.Wait()
	writeJSON(w, http.StatusOK, map[string]any{"widgets": views})
	return nil
}

func safeWidget(ctx context.Context, wd Widget, op Operator) (data any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("widget %s panicked: %v", wd.ID, p)
		}
	}()
	if wd.Data == nil {
		return nil, nil
	}
	return wd.Data(ctx, op)
}

type healthView struct {
	OK        bool    `json:"ok"`
	DB        string  `json:"db"`
	LatencyMs float64 `json:"latencyMs"`
}

func (a *Admin) health(ctx context.Context) healthView {
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
	return h
}

// GET /admin-api/_health: for load balancers; 503 when the database is down.
func (a *Admin) handleHealth(w http.ResponseWriter, r *http.Request) error {
	h := a.health(r.Context())
	status := http.StatusOK
	if !h.OK {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, h)
	return nil
}
