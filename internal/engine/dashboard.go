package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gameadmin/admin/internal/query"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Widget is a dashboard panel computed for the signed-in operator.
type Widget struct {
	// ID identifies the widget; unique among the widgets.
	ID string
	// Title is shown above it.
	Title string
	// Render is how the UI draws Data: "kpi" (a map of label to number),
	// "stats" (a list of Stat), "table" (a list of objects), "json", or
	// "series" (a chart: set Series instead of Data).
	Render string
	// Resource, for a "table" of one resource's rows, names it: the UI
	// then shows its list's columns, labels and order, and links each row
	// to its page, and the operator is answered the rows with the columns
	// their role may not read (ReadRole, Hidden) masked or left out, as
	// a list does. Optional.
	Resource string
	// Data computes the widget. An error shows on the widget alone; its
	// message is logged, and the operator sees "unavailable". ctx ends
	// after 5 s; the page is answered then whether Data has returned or
	// not, with "timeout" on the widgets still running.
	Data func(ctx context.Context, op Operator) (any, error)
	// Series, for a "series" widget, computes the chart for the range the
	// operator picked (24 hours, 7 or 30 days, and its step), under the
	// same bound as Data. Render is then "series" whatever it says.
	Series func(ctx context.Context, op Operator, r Range) (*Series, error)
}

// defaultWidgetTimeout is Options.WidgetTimeout's default.
const defaultWidgetTimeout = 5 * time.Second

type widgetView struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Render   string `json:"render"`
	Resource string `json:"resource,omitempty"`
	Data     any    `json:"data"`
	Error    string `json:"error,omitempty"`
}

// Stat is one figure of a "stats" widget: what it counts, how many, and
// the page of the panel that lists them.
type Stat struct {
	Label string `json:"label"`
	Value int64  `json:"value"`
	// Estimated marks a figure read from the database's statistics
	// rather than counted (a large table; the UI shows "≈").
	Estimated bool `json:"estimated,omitempty"`
	// Link is a path of the panel's UI, from its root: "/users?_banned=true".
	Link string `json:"link,omitempty"`
}

// moderationActions are the audit actions the dashboard calls moderation.
var moderationActions = []string{"user.ban", "user.unban", "user.revoke_sessions", "room.kick"}

// Dashboard figures are counted as lists are, under a shorter budget: a
// figure whose count runs out of time is the planner's estimate.
const (
	dashboardCountBudget = 200 * time.Millisecond
	recentModeration     = 8                  // rows of the recent-moderation widget
	recentModerationAge  = 7 * 24 * time.Hour // and how far back it looks
)

// builtinWidgets are today, totals, the charts (playersOnline, signUps,
// auditEvents), recentModeration, recentUsers, liveRooms and health, less
// those whose every row op may not list: a mod without the audit log is
// not told "no moderation this week" after moderating. dayStart is the
// start of the operator's day.
func (a viewsAPI) builtinWidgets(op Operator, dayStart time.Time) []Widget {
	ws := []Widget{
		{ID: "today", Title: "Today", Render: "stats", Data: func(ctx context.Context, op Operator) (any, error) {
			return a.widgetToday(ctx, op, dayStart)
		}},
	}
	if len(a.totals) > 0 {
		ws = append(ws, Widget{ID: "totals", Title: "Totals", Render: "stats", Data: a.widgetTotals})
	}
	rooms, users, audit := a.opts.Rooms != nil && a.allowed(op, OpList, "rooms"), a.allowed(op, OpList, "users"), a.allowed(op, OpList, "adminAudit")
	if rooms {
		ws = append(ws, Widget{ID: "playersOnline", Title: "Players online", Render: "series", Series: a.cachedSeries("playersOnline", a.seriesOnline)})
	}
	if c := a.users.Cols.CreatedAt; users && c != "" && a.resources["users"] != nil && a.resources["users"].view.ByName[c] != nil {
		ws = append(ws, Widget{ID: "signUps", Title: "Sign-ups", Render: "series", Series: a.cachedSeries("signUps", a.seriesSignUps)})
	}
	if audit {
		ws = append(ws,
			Widget{ID: "auditEvents", Title: "Audit log by action", Render: "series", Series: a.cachedSeries("auditEvents", a.seriesAudit)},
			Widget{ID: "recentModeration", Title: "Recent moderation", Render: "table", Resource: "adminAudit", Data: a.widgetRecentModeration})
	}
	if users {
		ws = append(ws, Widget{ID: "recentUsers", Title: "Recent users", Render: "table", Resource: "users", Data: a.widgetRecentUsers})
	}
	if rooms {
		ws = append(ws, Widget{ID: "liveRooms", Title: "Live rooms", Render: "table", Data: func(ctx context.Context, _ Operator) (any, error) {
			return a.opts.Rooms.List(ctx)
		}})
	}
	return append(ws, Widget{ID: "health", Title: "Health", Render: "kpi", Data: func(ctx context.Context, _ Operator) (any, error) {
		h := a.health(ctx)
		return h, nil
	}})
}

// countWhere counts the rows of res meeting conds as a list counts them:
// exact when small and quick, else the planner's estimate.
func (a viewsAPI) countWhere(ctx context.Context, res *resource, conds ...query.Cond) (int64, bool, error) {
	l := &query.List{Where: conds}
	return query.Count(ctx, a.db, res.view, l.ApplyFilters(query.Select(a.db, res.table), res.view), len(conds) > 0,
		query.CountOptions{ExactBelow: a.opts.ExactCountBelow, Budget: dashboardCountBudget, Estimates: a.estimates})
}

// widgetToday is what an operator looks at first: players banned now,
// players online now (in live rooms), sign-ups since dayStart, and
// moderation actions in the last 24 hours, each linked to its list. A
// figure op may not list, or whose column the game lacks, is left out.
func (a viewsAPI) widgetToday(ctx context.Context, op Operator, dayStart time.Time) (any, error) {
	stats := []Stat{}
	pg := a.db.Dialect().Name() == dialect.PG
	if users := a.resources["users"]; users != nil && a.allowed(op, OpList, "users") {
		if a.users.HasBan {
			n, est, err := a.countWhere(ctx, users, a.users.WhereBanned(pg, true))
			if err != nil {
				return nil, err
			}
			stats = append(stats, Stat{Label: "Banned now", Value: n, Estimated: est, Link: "/users?" + bannedParam + "=true"})
		}
		if c := a.users.Cols.CreatedAt; c != "" && users.view.ByName[c] != nil {
			n, est, err := a.countWhere(ctx, users, query.Cond{Expr: "?TableAlias.? >= ?", Args: []any{bun.Ident(c), dayStart.UTC()}})
			if err != nil {
				return nil, err
			}
			v := url.Values{c + "_gte": {dayStart.UTC().Format(time.RFC3339)}, "_sort": {c}, "_order": {"desc"}}
			stats = append(stats, Stat{Label: "Sign-ups today", Value: n, Estimated: est, Link: "/users?" + v.Encode()})
		}
	}
	if a.opts.Rooms != nil && a.allowed(op, OpList, "rooms") {
		rooms, err := a.opts.Rooms.List(ctx)
		if err != nil {
			return nil, err
		}
		var n int64
		for _, r := range rooms {
			n += int64(r.Clients)
		}
		stats = append(stats, Stat{Label: "Online now", Value: n, Link: "/rooms"})
	}
	if audit := a.resources["adminAudit"]; audit != nil && a.allowed(op, OpList, "adminAudit") {
		since := a.now().UTC().Add(-24 * time.Hour)
		n, est, err := a.countWhere(ctx, audit, query.Cond{Expr: "?TableAlias.action IN (?) AND ?TableAlias.created_at >= ?", Args: []any{bun.List(moderationActions), since}})
		if err != nil {
			return nil, err
		}
		v := url.Values{"action_in": {strings.Join(moderationActions, ",")}, "created_at_gte": {since.Truncate(time.Minute).Format(time.RFC3339)}}
		stats = append(stats, Stat{Label: "Moderation (24 h)", Value: n, Estimated: est, Link: "/adminAudit?" + v.Encode()})
	}
	return stats, nil
}

// widgetTotals counts the rows of the resources in Options.DashboardTotals
// that op may list, as their lists do.
func (a viewsAPI) widgetTotals(ctx context.Context, op Operator) (any, error) {
	stats := []Stat{}
	for _, key := range a.totals {
		res := a.resources[key]
		if !a.allowed(op, OpList, key) {
			continue
		}
		n, est, err := a.countWhere(ctx, res)
		if err != nil {
			return nil, err
		}
		stats = append(stats, Stat{Label: res.label, Value: n, Estimated: est, Link: "/" + url.PathEscape(key)})
	}
	return stats, nil
}

// widgetRecentModeration is the last moderation of the week: who did
// what to whom, and why (the reason is in the payload), as the audit log
// lists it, targets labelled.
func (a viewsAPI) widgetRecentModeration(ctx context.Context, op Operator) (any, error) {
	res := a.resources["adminAudit"]
	if res == nil || !a.allowed(op, OpList, "adminAudit") {
		return []map[string]any{}, nil
	}
	q := query.Select(a.db, res.table).
		Where("?TableAlias.action IN (?) AND ?TableAlias.created_at >= ?", bun.List(moderationActions), a.now().UTC().Add(-recentModerationAge)).
		OrderExpr("?TableAlias.created_at DESC").Limit(recentModeration)
	joins, rest := rowsAPI(a).labelJoins(op, res)
	rows, err := query.ScanPage(ctx, query.JoinLabels(a.db, q, joins, []query.SortKey{{Column: "created_at", Desc: true}}), res.table, res.hidden, joins)
	if err != nil {
		return nil, err
	}
	if err := rowsAPI(a).addLabels(ctx, rest, rows); err != nil {
		return nil, err
	}
	a.addAuditTargetLabels(ctx, op, res, rows)
	a.redactRestricted(op, rows)
	return rows, nil
}

func (a viewsAPI) widgetRecentUsers(ctx context.Context, op Operator) (any, error) {
	res := a.resourceAs(op, "users")
	if res == nil || !a.allowed(op, OpList, "users") {
		return []map[string]any{}, nil
	}
	q := query.Select(a.db, res.table).Limit(5)
	if c := a.users.Cols.CreatedAt; c != "" && res.view.ByName[c] != nil {
		q = q.OrderExpr("?TableAlias.? DESC", bun.Ident(c))
	}
	rows, err := query.ScanRows(ctx, q, res.table, res.hidden)
	res.mask(rows)
	return rows, err
}

// GET /admin-api/_dashboard (operators only)
func (a viewsAPI) handleDashboard(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	dayStart, err := dayStartOf(r, a.now())
	if err != nil {
		return err
	}
	rg, err := rangeOf(r, a.now())
	if err != nil {
		return err
	}
	builtins := a.builtinWidgets(op, dayStart)
	widgets := append(builtins, a.opts.Widgets...)
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
		render := wd.Render
		if wd.Series != nil {
			render = "series"
		}
		views[i] = widgetView{ID: wd.ID, Title: wd.Title, Render: render, Resource: wd.Resource, Error: "timeout"}
		go func() {
			data, err := safeWidget(ctx, wd, op, rg)
			if err == nil && wd.Resource != "" && i >= len(builtins) {
				data, err = a.widgetRows(op, wd.Resource, data)
			}
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

// widgetRows is the data of a game's widget of resource key's rows as
// op's role reads them: the columns it may not read masked or left out
// (the built-in widgets read their rows so already).
func (a viewsAPI) widgetRows(op Operator, key string, data any) (any, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return a.resourceAs(op, key).redactJSON(raw)
}

// dayStartOf is the start of the operator's day: the "today" parameter,
// the UI's local midnight as RFC 3339 (the server cannot know the
// operator's zone), within a day of now; else midnight UTC.
func dayStartOf(r *http.Request, now time.Time) (time.Time, error) {
	v := r.URL.Query().Get("today")
	if v == "" {
		return now.UTC().Truncate(24 * time.Hour), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil || t.After(now) || now.Sub(t) > 48*time.Hour {
		return time.Time{}, errorf(http.StatusBadRequest, "invalid_value", "today must be the start of the current day in RFC 3339, e.g. 2026-11-25T00:00:00+01:00")
	}
	return t, nil
}

func safeWidget(ctx context.Context, wd Widget, op Operator, rg Range) (data any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("widget %s: %w", wd.ID, recovered(p))
		}
	}()
	if wd.Series != nil {
		return wd.Series(ctx, op, rg)
	}
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

func (a viewsAPI) health(ctx context.Context) healthView {
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
func (a viewsAPI) handleHealth(w http.ResponseWriter, r *http.Request) error {
	h := a.health(r.Context())
	status := http.StatusOK
	if !h.OK {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, h)
	return nil
}
