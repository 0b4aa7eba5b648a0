package dashboard

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

// downDB is a database that never answers: the module has no SQL driver,
// and these tests need none (the dbtest module's run on real ones).
func downDB() *bun.DB {
	return bun.NewDB(sql.OpenDB(downConnector{}), sqlitedialect.New())
}

type downConnector struct{}

func (downConnector) Connect(context.Context) (driver.Conn, error) {
	return nil, errors.New("connection refused")
}
func (downConnector) Driver() driver.Driver { return downDriver{} }

type downDriver struct{}

func (downDriver) Open(string) (driver.Conn, error) { return nil, errors.New("connection refused") }

// newTest is a dashboard with no resources an operator may list and no
// rooms: the built-in widgets are today (empty) and health.
func newTest(t *testing.T, cfg Config) (*Dashboard, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	cfg.DB, cfg.Log = downDB(), slog.New(slog.NewTextHandler(logs, nil))
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.WidgetTimeout == 0 {
		cfg.WidgetTimeout = DefaultWidgetTimeout
	}
	cfg.Resources.Table = func(string) *schema.Table { return nil }
	cfg.Resources.Allowed = func(authz.Operator, string) bool { return false }
	return New(cfg), logs
}

func page(t *testing.T, d *Dashboard, q url.Values) map[string]widgetView {
	t.Helper()
	p, err := d.Page(t.Context(), q, authz.Operator{Role: authz.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]widgetView{}
	for _, v := range p["widgets"].([]widgetView) {
		out[v.ID] = v
	}
	return out
}

func TestPage(t *testing.T) {
	t.Parallel()
	var redacted []string
	d, logs := newTest(t, Config{Widgets: []Widget{
		{ID: "kpi", Render: "kpi", Data: func(context.Context, authz.Operator) (any, error) { return map[string]int{"a": 1}, nil }},
		{ID: "chart", Render: "kpi", Series: func(_ context.Context, _ authz.Operator, rg Range) (*Series, error) {
			return &Series{Step: int64(rg.Step.Seconds())}, nil
		}},
		{ID: "boom", Data: func(context.Context, authz.Operator) (any, error) { panic("s3cr3t") }},
		{ID: "fails", Data: func(context.Context, authz.Operator) (any, error) { return nil, errors.New("no") }},
		{ID: "rows", Render: "table", Resource: "players", Data: func(context.Context, authz.Operator) (any, error) {
			return []map[string]any{{"id": 1, "email": "a@b.c"}}, nil
		}},
	}})
	d.res.Redact = func(_ authz.Operator, key string, raw []byte) (json.RawMessage, error) {
		redacted = append(redacted, key+" "+string(raw))
		return json.RawMessage(`[{"id":1}]`), nil
	}
	ws := page(t, d, url.Values{"range": {"7d"}})
	if len(ws) != 7 || ws["today"].Error != "" || ws["health"].Error != "" {
		t.Fatalf("widgets = %+v; want today, health and the game's five", ws)
	}
	if s, ok := ws["chart"].Data.(*Series); ws["chart"].Render != "series" || !ok || s.Step != 6*3600 {
		t.Fatalf("a Series widget: %+v; want render series, the 7d step", ws["chart"])
	}
	if ws["boom"].Error != "unavailable" || ws["fails"].Error != "unavailable" || ws["kpi"].Error != "" {
		t.Fatalf("failing widgets: %+v %+v", ws["boom"], ws["fails"])
	}
	if l := logs.String(); !strings.Contains(l, "widget=boom") || !strings.Contains(l, "s3cr3t") || !strings.Contains(l, "stack=") || !strings.Contains(l, "widget=fails") {
		t.Fatalf("the failures are logged without their cause or stack: %s", l)
	}
	if len(redacted) != 1 || redacted[0] != `players [{"email":"a@b.c","id":1}]` || string(ws["rows"].Data.(json.RawMessage)) != `[{"id":1}]` {
		t.Fatalf("the game's widget of a resource: redacted %q, answered %v", redacted, ws["rows"].Data)
	}
	if h, ok := ws["health"].Data.(Health); !ok || h.OK || h.DB != "unreachable" {
		t.Fatalf("health with the database down: %+v", ws["health"].Data)
	}
}

// TestPageBuiltin: the panel's own widgets say so (the UI words them in
// the operator's language); a game's never, even under a built-in's
// English title.
func TestPageBuiltin(t *testing.T) {
	t.Parallel()
	d, _ := newTest(t, Config{Widgets: []Widget{
		{ID: "gameToday", Title: "Today", Render: "stats", Data: func(context.Context, authz.Operator) (any, error) { return []Stat{}, nil }},
		{ID: "gameHealth", Title: "Health", Render: "kpi", Data: func(context.Context, authz.Operator) (any, error) { return map[string]int{"ok": 1}, nil }},
	}})
	p, err := d.Page(t.Context(), url.Values{}, authz.Operator{Role: authz.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Widgets []map[string]any `json:"widgets"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"today": true, "health": true, "gameToday": false, "gameHealth": false}
	if len(got.Widgets) != len(want) {
		t.Fatalf("widgets = %s; want %v", raw, want)
	}
	for _, w := range got.Widgets {
		id, _ := w["id"].(string)
		builtin, has := w["builtin"]
		if want[id] && builtin != true {
			t.Errorf("widget %q: builtin = %v; want true", id, builtin)
		}
		if !want[id] && has {
			t.Errorf("widget %q: builtin = %v; want it left out", id, builtin)
		}
	}
}

func TestPageBadQuery(t *testing.T) {
	t.Parallel()
	d, _ := newTest(t, Config{})
	for _, q := range []url.Values{{"range": {"1y"}}, {"today": {"yesterday"}}, {"today": {time.Now().Add(time.Hour).Format(time.RFC3339)}}, {"today": {time.Now().Add(-72 * time.Hour).Format(time.RFC3339)}}} {
		var e *errbody.Error
		if _, err := d.Page(t.Context(), q, authz.Operator{Role: authz.RoleAdmin}); !errors.As(err, &e) || e.Status != http.StatusBadRequest {
			t.Errorf("%v: %v; want 400", q, err)
		}
	}
}

// TestPageTimeout: the page is answered at the widget timeout, a widget
// that ignores its ctx marked "timeout" and the others computed. The stuck
// widget waits for the test, so it is late whatever the speed; the
// timeout is long enough for the others on a loaded machine.
func TestPageTimeout(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	d, logs := newTest(t, Config{WidgetTimeout: 10 * time.Second, Widgets: []Widget{
		{ID: "stuck", Data: func(context.Context, authz.Operator) (any, error) { <-stuck; return nil, nil }},
	}})
	ws := page(t, d, nil)
	if ws["stuck"].Error != "timeout" || ws["today"].Error != "" {
		t.Fatalf("widgets at the timeout: %+v", ws)
	}
	if !strings.Contains(logs.String(), "widget=stuck") {
		t.Fatalf("the timed-out widget is not logged: %s", logs)
	}
	// A client gone is the page's error, not a page.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := d.Page(ctx, nil, authz.Operator{Role: authz.RoleAdmin}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled request: %v", err)
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	d, logs := newTest(t, Config{HealthChecks: []HealthCheck{
		{Name: "redis", Check: func(context.Context) error { return nil }},
		{Name: "queue", Check: func(context.Context) error { panic("queue s3cr3t") }},
		{Name: "none"},
	}})
	h := d.Health(t.Context())
	raw, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got["ok"] != false || got["db"] != "unreachable" || got["redis"] != "ok" || got["queue"] != "unreachable" || got["none"] != "ok" || got["latencyMs"] == nil {
		t.Fatalf("health = %s", raw)
	}
	if l := logs.String(); !strings.Contains(l, "connection refused") || !strings.Contains(l, "queue s3cr3t") || !strings.Contains(l, "stack=") {
		t.Fatalf("the failures are logged without their cause or stack: %s", l)
	}
}
