// Package dashboard is the panel's dashboard: the widgets of
// GET {api}/_dashboard (today's figures, totals, the charts, recent
// moderation and users, live rooms, health, and the game's own), each
// computed under Options.WidgetTimeout; the charts' series and their
// cache; the players-online samples taken each minute; and the health
// answer of GET {api}/_health.
//
// It is handed what it needs when the engine builds it (New): the
// database, the samples table, the game's rooms runtime, the clock, a
// logger, and Resources, the few questions about resources and operators
// only the engine can answer (may this operator list it, count its rows,
// read its newest rows or the audit log as this operator does, redact a
// game widget's rows). It knows nothing else of the panel: the engine
// keeps the HTTP side (the operator-only refusal, writing the answer)
// and starts and stops the sampling.
package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/slots"
	"github.com/gameadmin/admin/rooms"
	"github.com/uptrace/bun"
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
	Data func(ctx context.Context, op authz.Operator) (any, error)
	// Series, for a "series" widget, computes the chart for the range the
	// operator picked (24 hours, 7 or 30 days, and its step), under the
	// same bound as Data. Render is then "series" whatever it says.
	Series func(ctx context.Context, op authz.Operator, r Range) (*Series, error)
}

// DefaultWidgetTimeout is Options.WidgetTimeout's default.
const DefaultWidgetTimeout = 5 * time.Second

type widgetView struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Render   string `json:"render"`
	Resource string `json:"resource,omitempty"`
	Data     any    `json:"data"`
	Error    string `json:"error,omitempty"`
	// More, on a table widget that shows some of its rows, is how many
	// there are in all and the page of the panel that lists them.
	More *Stat `json:"more,omitempty"`
	// Builtin marks the panel's own widgets (builtinWidgets), whose
	// English words the UI says in the operator's language; a game's
	// widget is shown as the game words it.
	Builtin bool `json:"builtin,omitempty"`
}

// someRows is a built-in table widget's data when it shows some of the
// rows there are: the view gets rows as its data and more as its More.
type someRows struct {
	rows any
	more Stat
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

// Config is what New builds a dashboard from. Every field is set by the
// engine; none has a default.
type Config struct {
	// DB is the panel's database: the samples, the charts' counts and
	// the health check's ping.
	DB *bun.DB
	// Samples is the players-online samples table (OnlineSample), its
	// name prefixed as the panel's tables are.
	Samples bun.Ident
	// Rooms is the game's live-room runtime (Options.Rooms), nil when it
	// has none: no players online, no live rooms, no sampling.
	Rooms rooms.Runtime
	// Now is the panel's clock (Options.Clock, defaulted).
	Now func() time.Time
	// Log receives the failures of widgets, charts, samples and health
	// checks.
	Log *slog.Logger
	// WidgetTimeout bounds each page's widgets (Options.WidgetTimeout,
	// defaulted to DefaultWidgetTimeout).
	WidgetTimeout time.Duration
	// Widgets are the game's own (Options.Widgets), after the built-in
	// ones; their Resource names a resource of the panel.
	Widgets []Widget
	// HealthChecks are the game's dependencies (Options.HealthChecks),
	// their names checked unique and not reserved.
	HealthChecks []HealthCheck
	// Totals are the resources the totals widget counts
	// (Options.DashboardTotals, defaulted), in order.
	Totals []Total
	// Users is what the dashboard counts of the users resource.
	Users Users
	// Resources answers what only the engine knows.
	Resources Resources
	// Gate bounds the panel's database work at once (Options.
	// DatabaseConcurrency): the built-in widgets of a page run in one of
	// its places, within the widget timeout. nil: no bound.
	Gate *slots.Gate
	// Reports, when the game declares report categories, is what the
	// open-reports widget and the reports chart show; nil leaves them out.
	Reports *Reports
}

// Reports is what the dashboard shows of players' reports, to the
// operators who may list users (who work them).
type Reports struct {
	// Open is the open-reports widget's figures: how many, the oldest's
	// age, and the most reported players, each linked to its page.
	Open func(ctx context.Context, op authz.Operator) ([]Stat, error)
	// Filed counts the reports filed in [from, to) per step: the step's
	// start in seconds since the epoch to its count.
	Filed func(ctx context.Context, from, to time.Time, step time.Duration) (map[int64]int64, error)
}

// Total is one resource of the totals widget: its key, and its label as
// the sidebar shows it.
type Total struct {
	Key   string
	Label string
}

// Users is what the dashboard knows of the users table.
type Users struct {
	// CreatedAt is the column of an account's creation
	// (UserColumns.CreatedAt) when the users resource shows it, else "":
	// no sign-ups then.
	CreatedAt string
	// Banned, when the table has a ban column, is the condition that a
	// user's ban is in force now; nil leaves out "Banned now".
	Banned *query.Cond
	// BannedParam is the users list's parameter that lists the banned
	// users with the value "true" ("_banned"), for the figure's link.
	BannedParam string
}

// Resources are the engine's answers about its resources for an
// operator. A key is a resource's ("users", "adminAudit", a game's
// table) or, for Allowed only, "rooms".
type Resources struct {
	// Table is the table of resource key, nil when the panel has no such
	// resource.
	Table func(key string) *schema.Table
	// Allowed reports whether op may list resource key, by its policy or
	// the standard rule.
	Allowed func(op authz.Operator, key string) bool
	// Count counts the rows of resource key meeting conds as its list
	// counts them: exact when small and quick (within budget), else the
	// planner's estimate (estimated).
	Count func(ctx context.Context, key string, budget time.Duration, conds ...query.Cond) (n int64, estimated bool, err error)
	// Newest reads at most limit rows of resource key as op's role reads
	// its list (columns it may not read masked or left out), the newest
	// first by column by when op's role may see it.
	Newest func(ctx context.Context, op authz.Operator, key, by string, limit int) ([]map[string]any, error)
	// Audit reads at most limit entries of the audit log meeting where,
	// newest first, as op reads the audit log's list: targets named by
	// their rows' labels, payloads redacted for op's role.
	Audit func(ctx context.Context, op authz.Operator, where query.Cond, limit int) ([]map[string]any, error)
	// Redact is raw, a game widget's JSON rows of resource key, as op's
	// role reads them: the columns it may not read masked or left out.
	Redact func(op authz.Operator, key string, raw []byte) (json.RawMessage, error)
}

// Dashboard computes the dashboard's widgets and the health answer, and
// takes the players-online samples.
type Dashboard struct {
	db            *bun.DB
	samples       bun.Ident
	rooms         rooms.Runtime
	now           func() time.Time
	log           *slog.Logger
	widgetTimeout time.Duration
	widgets       []Widget
	checks        []HealthCheck
	totals        []Total
	users         Users
	res           Resources
	reports       *Reports
	charts        chartCache // the built-in charts, kept a minute (charts.go)
	gate          *slots.Gate
}

// New is the dashboard of cfg.
func New(cfg Config) *Dashboard {
	return &Dashboard{db: cfg.DB, samples: cfg.Samples, rooms: cfg.Rooms, now: cfg.Now, log: cfg.Log,
		widgetTimeout: cfg.WidgetTimeout, widgets: cfg.Widgets, checks: cfg.HealthChecks, totals: cfg.Totals,
		users: cfg.Users, res: cfg.Resources, reports: cfg.Reports, gate: cfg.Gate}
}

// moderationActions are the audit actions the dashboard calls moderation.
var moderationActions = []string{"user.ban", "user.unban", "user.revoke_sessions", "room.kick"}

// Dashboard figures are counted as lists are, under a shorter budget: a
// figure whose count runs out of time is the planner's estimate.
const (
	dashboardCountBudget = 200 * time.Millisecond
	recentModeration     = 8                  // rows of the recent-moderation widget
	recentModerationAge  = 7 * 24 * time.Hour // and how far back it looks
	recentUsers          = 5                  // rows of the recent-users widget
)

// builtinWidgets are today, totals, the charts (playersOnline, signUps,
// auditEvents), recentModeration, recentUsers, liveRooms and health, less
// those whose every row op may not list: a mod without the audit log is
// not told "no moderation this week" after moderating. dayStart is the
// start of the operator's day.
func (d *Dashboard) builtinWidgets(op authz.Operator, dayStart time.Time) []Widget {
	listRooms := d.roomsOnce()
	ws := []Widget{
		{ID: "today", Title: "Today", Render: "stats", Data: func(ctx context.Context, op authz.Operator) (any, error) {
			return d.widgetToday(ctx, op, dayStart, listRooms)
		}},
	}
	if len(d.totals) > 0 {
		ws = append(ws, Widget{ID: "totals", Title: "Totals", Render: "stats", Data: d.widgetTotals})
	}
	rooms, users, audit := d.rooms != nil && d.res.Allowed(op, "rooms"), d.res.Allowed(op, "users"), d.res.Allowed(op, "adminAudit")
	if rooms {
		ws = append(ws, Widget{ID: "playersOnline", Title: "Players online", Render: "series", Series: d.withOnlineNow(listRooms, d.cachedSeries("playersOnline", d.seriesOnline))})
	}
	if users && d.users.CreatedAt != "" {
		ws = append(ws, Widget{ID: "signUps", Title: "Sign-ups", Render: "series", Series: d.cachedSeries("signUps", d.seriesSignUps)})
	}
	if audit {
		ws = append(ws,
			Widget{ID: "auditEvents", Title: "Audit log by action", Render: "series", Series: d.cachedSeries("auditEvents", d.seriesAudit)},
			Widget{ID: "recentModeration", Title: "Recent moderation", Render: "table", Resource: "adminAudit", Data: d.widgetRecentModeration})
	}
	if users && d.reports != nil {
		ws = append(ws,
			Widget{ID: "openReports", Title: "Open reports", Render: "stats", Data: func(ctx context.Context, op authz.Operator) (any, error) {
				return d.reports.Open(ctx, op)
			}},
			Widget{ID: "reportsFiled", Title: "Reports filed", Render: "series", Series: d.cachedSeries("reportsFiled", d.seriesReports)})
	}
	if users {
		ws = append(ws, Widget{ID: "recentUsers", Title: "Recent users", Render: "table", Resource: "users", Data: d.widgetRecentUsers})
	}
	if rooms {
		ws = append(ws, Widget{ID: "liveRooms", Title: "Live rooms", Render: "table", Data: func(ctx context.Context, _ authz.Operator) (any, error) {
			return listRooms(ctx)
		}})
	}
	return append(ws, Widget{ID: "health", Title: "Health", Render: "kpi", Data: func(ctx context.Context, _ authz.Operator) (any, error) {
		h := d.Health(ctx)
		return h, nil
	}})
}

// roomsOnce lists the live rooms once for one answer of the dashboard,
// whose "Online now", players-online chart and live rooms table each
// need them (in a cluster, a round trip to every node's registry). A
// failed listing is not kept: the next widget asks again.
func (d *Dashboard) roomsOnce() func(context.Context) ([]rooms.Summary, error) {
	var mu sync.Mutex
	var got []rooms.Summary
	done := false
	return func(ctx context.Context) ([]rooms.Summary, error) {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return got, nil
		}
		list, err := d.rooms.List(ctx)
		if err != nil {
			return nil, err
		}
		got, done = list, true
		return got, nil
	}
}

// widgetToday is what an operator looks at first: players banned now,
// players online now (in live rooms), sign-ups since dayStart, and
// moderation actions in the last 24 hours, each linked to its list. A
// figure op may not list, or whose column the game lacks, is left out,
// and so is the players online when the rooms do not answer.
func (d *Dashboard) widgetToday(ctx context.Context, op authz.Operator, dayStart time.Time, listRooms func(context.Context) ([]rooms.Summary, error)) (any, error) {
	stats := []Stat{}
	if d.res.Table("users") != nil && d.res.Allowed(op, "users") {
		if d.users.Banned != nil {
			n, est, err := d.res.Count(ctx, "users", dashboardCountBudget, *d.users.Banned)
			if err != nil {
				return nil, err
			}
			stats = append(stats, Stat{Label: "Banned now", Value: n, Estimated: est, Link: "/users?" + d.users.BannedParam + "=true"})
		}
		if c := d.users.CreatedAt; c != "" {
			// A unix time column compares with the integer (schema.Column.Unix).
			since := any(dayStart.UTC())
			if col := d.res.Table("users").ByName[c]; col != nil {
				since = col.UnixValue(dayStart.UTC())
			}
			n, est, err := d.res.Count(ctx, "users", dashboardCountBudget, query.Cond{Expr: "?TableAlias.? >= ?", Args: []any{bun.Ident(c), since}})
			if err != nil {
				return nil, err
			}
			v := url.Values{c + "_gte": {linkTime(d.res.Table("users").ByName[c], dayStart)}, "_sort": {c}, "_order": {"desc"}}
			stats = append(stats, Stat{Label: "Sign-ups today", Value: n, Estimated: est, Link: "/users?" + v.Encode()})
		}
	}
	if d.rooms != nil && d.res.Allowed(op, "rooms") {
		// Rooms that cannot say (past RoomTimeout, a node away) leave
		// "Online now" out, logged; the database's figures stand.
		if live, err := listRooms(ctx); err == nil {
			var n int64
			for _, r := range live {
				n += int64(r.Clients)
			}
			stats = append(stats, Stat{Label: "Online now", Value: n, Link: "/rooms"})
		} else if ctx.Err() == nil {
			d.log.WarnContext(ctx, "admin: dashboard: Online now left out, the live rooms did not answer", panicerr.Attrs(err)...)
		}
	}
	if d.res.Table("adminAudit") != nil && d.res.Allowed(op, "adminAudit") {
		since := d.now().UTC().Add(-24 * time.Hour)
		n, est, err := d.res.Count(ctx, "adminAudit", dashboardCountBudget, query.Cond{Expr: "?TableAlias.action IN (?) AND ?TableAlias.created_at >= ?", Args: []any{bun.List(moderationActions), since}})
		if err != nil {
			return nil, err
		}
		v := url.Values{"action_in": {strings.Join(moderationActions, ",")}, "created_at_gte": {linkTime(d.res.Table("adminAudit").ByName["created_at"], since.Truncate(time.Minute))}}
		stats = append(stats, Stat{Label: "Moderation (24 h)", Value: n, Estimated: est, Link: "/adminAudit?" + v.Encode()})
	}
	return stats, nil
}

// linkTime is t as a list link's filter on col takes it: RFC 3339, or
// the UTC wall clock for a column without a zone (MySQL's DATETIME,
// PostgreSQL's timestamp), whose filter refuses an offset.
func linkTime(col *schema.Column, t time.Time) string {
	if col != nil && col.Kind == schema.KindTimestampLocal {
		return t.UTC().Format("2006-01-02T15:04:05")
	}
	return t.UTC().Format(time.RFC3339)
}

// widgetTotals counts the rows of the resources in Options.DashboardTotals
// that op may list, as their lists do.
func (d *Dashboard) widgetTotals(ctx context.Context, op authz.Operator) (any, error) {
	stats := []Stat{}
	for _, t := range d.totals {
		if !d.res.Allowed(op, t.Key) {
			continue
		}
		n, est, err := d.res.Count(ctx, t.Key, dashboardCountBudget)
		if err != nil {
			return nil, err
		}
		stats = append(stats, Stat{Label: t.Label, Value: n, Estimated: est, Link: "/" + url.PathEscape(t.Key)})
	}
	return stats, nil
}

// widgetRecentModeration is the last moderation of the week: who did
// what to whom, and why (the reason is in the payload), as the audit log
// lists it, targets labelled.
func (d *Dashboard) widgetRecentModeration(ctx context.Context, op authz.Operator) (any, error) {
	if d.res.Table("adminAudit") == nil || !d.res.Allowed(op, "adminAudit") {
		return []map[string]any{}, nil
	}
	since := d.now().UTC().Add(-recentModerationAge)
	where := query.Cond{Expr: "?TableAlias.action IN (?) AND ?TableAlias.created_at >= ?", Args: []any{bun.List(moderationActions), since}}
	rows, err := d.res.Audit(ctx, op, where, recentModeration)
	if err != nil {
		return nil, err
	}
	if len(rows) < recentModeration {
		return rows, nil // all of them
	}
	n, est, err := d.res.Count(ctx, "adminAudit", dashboardCountBudget, where)
	if err != nil || n <= recentModeration {
		return rows, err
	}
	// The audit log filtered as the widget is, so "See all" lists them.
	v := url.Values{"action_in": {strings.Join(moderationActions, ",")}, "created_at_gte": {linkTime(d.res.Table("adminAudit").ByName["created_at"], since.Truncate(time.Minute))}}
	return someRows{rows: rows, more: Stat{Label: "Moderation (7 days)", Value: n, Estimated: est, Link: "/adminAudit?" + v.Encode()}}, nil
}

// widgetRecentUsers are the newest accounts, as op's role reads the users
// list.
func (d *Dashboard) widgetRecentUsers(ctx context.Context, op authz.Operator) (any, error) {
	if d.res.Table("users") == nil || !d.res.Allowed(op, "users") {
		return []map[string]any{}, nil
	}
	return d.res.Newest(ctx, op, "users", d.users.CreatedAt, recentUsers)
}

// Page is the answer of GET {api}/_dashboard for op, an operator: every
// widget op may see, computed at once, each under the widget timeout
// (the page is answered then, "timeout" on those still running), the
// game's after the built-in ones. q is the request's query: "today",
// the start of the operator's day, and "range", the charts' (24h, 7d or
// 30d); either malformed is a 400 (an *errbody.Error). The error is
// ctx's when ctx ends first: the client went away.
func (d *Dashboard) Page(ctx context.Context, q url.Values, op authz.Operator) (map[string]any, error) {
	dayStart, err := dayStartOf(q, d.now())
	if err != nil {
		return nil, err
	}
	rg, err := rangeOf(q, d.now())
	if err != nil {
		return nil, err
	}
	builtins := d.builtinWidgets(op, dayStart)
	widgets := append(builtins, d.widgets...)
	views := make([]widgetView, len(widgets))
	type result struct {
		i    int
		data any
		err  error
	}
	// Each widget answers on its own buffered slot, so one that ignores
	// its ctx is left behind at the deadline instead of holding the page.
	results := make(chan result, len(widgets))
	answered := make([]bool, len(widgets))
	parent := ctx
	ctx, cancel := context.WithTimeout(parent, d.widgetTimeout)
	defer cancel()
	// The built-in widgets run together in one place of the panel's gate,
	// taken by the first to start and given back when the last is done,
	// or at the widget timeout, whatever they do after it; the game's own
	// widgets are the game's to bound.
	var inside sync.WaitGroup
	inside.Add(len(builtins))
	enter := sync.OnceValues(func() (context.Context, error) {
		in, leave, err := d.gate.Enter(ctx, time.Time{})
		if err != nil {
			return nil, err
		}
		stop := context.AfterFunc(ctx, leave)
		go func() {
			inside.Wait()
			stop()
			leave()
		}()
		return in, nil
	})
	for i, wd := range widgets {
		render := wd.Render
		if wd.Series != nil {
			render = "series"
		}
		views[i] = widgetView{ID: wd.ID, Title: wd.Title, Render: render, Resource: wd.Resource, Error: "timeout", Builtin: i < len(builtins)}
		go func() {
			wctx := ctx
			if i < len(builtins) {
				defer inside.Done()
				var err error
				if wctx, err = enter(); err != nil {
					results <- result{i, nil, err}
					return
				}
			}
			data, err := safeWidget(wctx, wd, op, rg)
			if err == nil && wd.Resource != "" && i >= len(builtins) {
				data, err = d.widgetRows(op, wd.Resource, data)
			}
			results <- result{i, data, err}
		}()
	}
collect:
	for range widgets {
		select {
		case res := <-results:
			views[res.i].Error, answered[res.i] = "", true
			if res.err != nil {
				views[res.i].Error = d.widgetError(ctx, widgets[res.i].ID, res.err)
				continue
			}
			views[res.i].Data = res.data
			if some, ok := res.data.(someRows); ok {
				views[res.i].Data, views[res.i].More = some.rows, &some.more
			}
		case <-ctx.Done():
			if parent.Err() != nil {
				return nil, parent.Err() // the client went away
			}
			for i := range views {
				if !answered[i] {
					d.log.ErrorContext(ctx, "admin: dashboard widget timed out", "widget", views[i].ID, "timeout", d.widgetTimeout)
				}
			}
			break collect
		}
	}
	return map[string]any{"widgets": views}, nil
}

// widgetError is what a widget's view says of err, logged: "timeout"
// when its statements ran past QueryTimeout or the live rooms did not
// answer within RoomTimeout, "busy" when the operator's QueryConcurrency
// slots were taken (the panel's limits, logged as warnings), else
// "unavailable" (logged as an error, with its cause).
func (d *Dashboard) widgetError(ctx context.Context, id string, err error) string {
	var refused *errbody.Error
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		d.log.DebugContext(ctx, "admin: dashboard widget stopped, client went away", "widget", id, "err", err)
		return "unavailable"
	case errors.Is(err, query.ErrTimeout):
		d.log.WarnContext(ctx, "admin: dashboard widget ran past QueryTimeout", "widget", id, "err", err)
		return "timeout"
	case errors.Is(err, context.DeadlineExceeded):
		d.log.WarnContext(ctx, "admin: dashboard widget ran past its time limit", "widget", id, "err", err)
		return "timeout"
	case errors.As(err, &refused) && refused.Status == http.StatusTooManyRequests:
		d.log.WarnContext(ctx, "admin: dashboard widget waited for none of the operator's busy query slots", "widget", id)
		return "busy"
	}
	d.log.ErrorContext(ctx, "admin: dashboard widget failed", append([]any{"widget", id}, panicerr.Attrs(err)...)...)
	return "unavailable"
}

// widgetRows is the data of a game's widget of resource key's rows as
// op's role reads them: the columns it may not read masked or left out
// (the built-in widgets read their rows so already).
func (d *Dashboard) widgetRows(op authz.Operator, key string, data any) (any, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return d.res.Redact(op, key, raw)
}

// dayStartOf is the start of the operator's day: the "today" parameter,
// the UI's local midnight as RFC 3339 (the server cannot know the
// operator's zone), within a day of now; else midnight UTC.
func dayStartOf(q url.Values, now time.Time) (time.Time, error) {
	v := q.Get("today")
	if v == "" {
		return now.UTC().Truncate(24 * time.Hour), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil || t.After(now) || now.Sub(t) > 48*time.Hour {
		return time.Time{}, errbody.New(http.StatusBadRequest, "invalid_value", "today must be the start of the current day in RFC 3339, e.g. 2026-11-25T00:00:00+01:00")
	}
	return t, nil
}

func safeWidget(ctx context.Context, wd Widget, op authz.Operator, rg Range) (data any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("widget %s: %w", wd.ID, panicerr.New(p))
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
