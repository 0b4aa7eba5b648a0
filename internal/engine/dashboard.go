package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gameadmin/admin/internal/dashboard"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
)

// The dashboard is package dashboard's: these are its names here, and the
// public API's through the root's aliases. The engine builds it over the
// resources (newDashboard), answers its two endpoints and runs its
// sampling in the background (background.go).
type (
	// Widget is a dashboard panel computed for the signed-in operator.
	Widget = dashboard.Widget
	// Stat is one figure of a "stats" widget: what it counts, how many,
	// and the page of the panel that lists them.
	Stat = dashboard.Stat
	// HealthCheck is one dependency reported by the health widget and
	// GET /admin-api/_health as "<Name>": "ok" or "unreachable".
	HealthCheck = dashboard.HealthCheck
	// Range is the window a series answers for: [From, To), points every
	// Step.
	Range = dashboard.Range
	// Series is the data of a "series" widget: one or more lines of
	// points.
	Series = dashboard.Series
	// Line is one named series of points.
	Line = dashboard.Line
	// Point is one value at a time: the start of its step.
	Point = dashboard.Point
)

// newDashboard builds the dashboard over the resources as NewContext left
// them: the totals' labels, whether the users resource shows its
// creation time, its ban condition, and the questions only the panel
// answers (dashboardRows below; the open-reports figures are the reports
// handler's).
func newDashboard(a *Admin) *dashboard.Dashboard {
	totals := make([]dashboard.Total, 0, len(a.totals))
	for _, key := range a.totals {
		totals = append(totals, dashboard.Total{Key: key, Label: a.resources[key].Label})
	}
	users := dashboard.Users{BannedParam: bannedParam}
	if res := a.resources["users"]; res != nil {
		if c := a.users.Cols.CreatedAt; c != "" && res.View.ByName[c] != nil && timeColumn(res.View.ByName[c]) {
			users.CreatedAt = c
		}
	}
	if a.users.HasBan {
		banned := a.users.WhereBanned(true)
		users.Banned = &banned
	}
	var reportsWidget *dashboard.Reports
	if a.reports.On() {
		reportsWidget = &dashboard.Reports{Open: newReportsHandler(a).openReportStats, Filed: a.reports.Filed}
	}
	labels := a.rows.labels // the lists' own
	rows := &dashboardRows{db: a.db, resources: a.resources, as: a.resourceAs, exactBelow: a.opts.ExactCountBelow, estimates: a.estimates,
		labelJoins: labels.labelJoins, addLabels: labels.addLabels, targetLabels: a.history.TargetLabels, redactAudit: a.auditRes.redact}
	return dashboard.New(dashboard.Config{
		Reports: reportsWidget,
		DB:      a.db, Samples: a.tbl("online_samples"), Rooms: a.opts.Rooms, Now: a.now, Log: a.log,
		WidgetTimeout: a.widgetTimeout, Widgets: a.opts.Widgets, HealthChecks: a.opts.HealthChecks,
		Totals: totals, Users: users, Gate: a.queries.gate,
		Resources: dashboard.Resources{
			Table: rows.table,
			Allowed: func(op Operator, key string) bool {
				// The figures, charts and recent rows count every game's
				// rows (and the charts are cached for everyone): a mod
				// narrowed to some rows has no widget of a resource the
				// narrowing applies to.
				if res := a.resources[key]; res != nil && res.Scoped(op) {
					return false
				}
				return a.allowed(op, OpList, key)
			},
			Count:  rows.countWhere,
			Newest: rows.newestRows,
			Audit:  rows.recentAudit,
			Redact: func(op Operator, key string, raw []byte) (json.RawMessage, error) {
				return a.resourceAs(op, key).RedactJSON(raw)
			},
		},
	})
}

// timeColumn reports whether c holds times the dashboard can count by:
// an instant, a wall clock, a date, or an integer declared a unix time.
func timeColumn(c *schema.Column) bool {
	switch c.Kind {
	case schema.KindTime, schema.KindTimestampLocal, schema.KindDate:
		return true
	}
	return false
}

// checkCreatedAt holds UserColumns.CreatedAt to a time column (once the
// catalog is read): the sign-ups figure and chart compare it with times,
// and an integer of unix seconds compared so counts 0 in silence. Named
// explicitly, another column is an error; the default "created_at" is a
// warning naming it, and the dashboard leaves sign-ups out.
func (a *compiler) checkCreatedAt() error {
	res, name := a.resources["users"], a.users.Cols.CreatedAt
	if res == nil || name == "" || res.Table.ByName[name] == nil || timeColumn(res.Table.ByName[name]) {
		return nil
	}
	c := res.Table.ByName[name]
	msg := fmt.Sprintf("UserColumns.CreatedAt: users column %q holds %s values, not times; if it holds unix times declare it with ColumnConfig.UnixTime or the struct tag admin:\"unixtime\" (admin:\"unixtime=ms\")", name, c.Kind)
	if a.opts.UserColumns.CreatedAt != "" {
		return errors.New("admin: " + msg)
	}
	a.log.Warn("admin: "+msg+"; the dashboard shows no sign-ups", "column", name)
	return nil
}

// dashboardRows answers the dashboard's questions about rows
// (dashboard.Resources): the tables, counts, newest rows and audit
// entries, each as the operator's role reads them.
type dashboardRows struct {
	db         *bun.DB
	resources  map[string]*resource                    // by key
	as         func(op Operator, key string) *resource // resource key as op's role sees it (resourceAs)
	exactBelow int64                                   // Options.ExactCountBelow
	estimates  *query.Estimates
	// The audit log's labels and redaction, as its list answers them:
	// the joinable labels and the rest (labeler's), the targets' labels
	// (internal/history), the payloads op's role may not read.
	labelJoins   func(op Operator, res *resource) ([]query.Label, []labelRel)
	addLabels    func(ctx context.Context, rels []labelRel, rows []map[string]any) error
	targetLabels func(ctx context.Context, op Operator, res *resource, entries []map[string]any)
	redactAudit  func(op Operator, entries []map[string]any)
}

// table is resource key's table, nil when there is none.
func (d *dashboardRows) table(key string) *schema.Table {
	if res := d.resources[key]; res != nil {
		return res.Table
	}
	return nil
}

// countWhere counts the rows of resource key meeting conds as a list
// counts them: exact when small and quick, else the planner's estimate.
func (d *dashboardRows) countWhere(ctx context.Context, key string, budget time.Duration, conds ...query.Cond) (int64, bool, error) {
	res := d.resources[key]
	l := &query.List{Where: conds}
	return query.Count(ctx, d.db, res.View, l.ApplyFilters(query.Select(d.db, res.Table), res.View), len(conds) > 0,
		query.CountOptions{ExactBelow: d.exactBelow, Budget: budget, Estimates: d.estimates})
}

// newestRows are at most limit rows of resource key as op's role reads
// them, newest first by column by when that role's view has it.
func (d *dashboardRows) newestRows(ctx context.Context, op Operator, key, by string, limit int) ([]map[string]any, error) {
	res := d.as(op, key)
	q := query.Select(d.db, res.Table).Limit(int64(limit))
	if by != "" && res.View.ByName[by] != nil {
		q = q.OrderExpr("?TableAlias.? DESC", bun.Ident(by))
	}
	rows, err := query.ScanRows(ctx, q, res.Table, res.Hidden)
	res.Mask(rows)
	return rows, err
}

// recentAudit are at most limit entries of the audit log meeting where,
// newest first, as op reads the audit log: labelled as its list labels
// them, targets named (internal/history), payloads redacted for op's role.
func (d *dashboardRows) recentAudit(ctx context.Context, op Operator, where query.Cond, limit int) ([]map[string]any, error) {
	res := d.resources["adminAudit"]
	q := query.Select(d.db, res.Table).Where(where.Expr, where.Args...).OrderExpr("?TableAlias.created_at DESC").Limit(int64(limit))
	joins, rest := d.labelJoins(op, res)
	rows, err := query.ScanPage(ctx, query.JoinLabels(d.db, q, joins, []query.SortKey{{Column: "created_at", Desc: true}}), res.Table, res.Hidden, joins)
	if err != nil {
		return nil, err
	}
	if err := d.addLabels(ctx, rest, rows); err != nil {
		return nil, err
	}
	d.targetLabels(ctx, op, res, rows)
	d.redactAudit(op, rows)
	return rows, nil
}

// dashboardHandler answers the dashboard's two endpoints: the page and
// the health answer are package dashboard's.
type dashboardHandler struct {
	dash *dashboard.Dashboard
}

// GET /admin-api/_dashboard (operators only): package dashboard's page.
func (h dashboardHandler) handleDashboard(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !op.Role.IsOperator() {
		return errOperatorOnly
	}
	page, err := h.dash.Page(r.Context(), r.URL.Query(), op)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// GET /admin-api/_health: for load balancers; 503 when the database is down.
func (h dashboardHandler) handleHealth(w http.ResponseWriter, r *http.Request) error {
	health := h.dash.Health(r.Context())
	status := http.StatusOK
	if !health.OK {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, health)
	return nil
}
