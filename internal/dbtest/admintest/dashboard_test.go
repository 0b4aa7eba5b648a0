package admintest

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

func widgets(t *testing.T, r *resp) map[string]map[string]any {
	t.Helper()
	list, ok := r.body["widgets"].([]any)
	if !ok {
		t.Fatalf("dashboard = %s; want {widgets: [...]}", r.raw)
	}
	out := map[string]map[string]any{}
	for _, w := range list {
		m := w.(map[string]any)
		out[m["id"].(string)] = m
	}
	return out
}

func TestDashboard(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{DashboardTotals: []string{"users", "configs", "adminAudit"}, Widgets: []Widget{
			{ID: "fine", Title: "Fine", Render: "json", Data: func(_ context.Context, op Operator) (any, error) {
				return map[string]any{"role": op.Role}, nil
			}},
			{ID: "failing", Title: "Failing", Render: "kpi", Data: func(context.Context, Operator) (any, error) {
				return nil, errors.New("upstream s3cr3t unreachable")
			}},
			{ID: "panicking", Title: "Panicking", Render: "kpi", Data: func(context.Context, Operator) (any, error) {
				panic("widget s3cr3t")
			}},
		}})
		cr := e.crew("configs")
		insert(t, db, &[]Config{{Key: "a"}, {Key: "b"}})

		cr.anon.do("GET", "/admin-api/_dashboard", nil).want(t, 401, "unauthenticated")
		cr.user.do("GET", "/admin-api/_dashboard", nil).want(t, 403, "forbidden")

		r := cr.admin.do("GET", "/admin-api/_dashboard", nil).want(t, 200)
		if strings.Contains(string(r.raw), "s3cr3t") || strings.Contains(string(r.raw), "password_hash") {
			t.Fatalf("dashboard leaks: %s", r.raw)
		}
		ws := widgets(t, r)
		for _, id := range []string{"totals", "recentUsers", "health", "fine", "failing", "panicking"} {
			if ws[id] == nil {
				t.Fatalf("dashboard widgets = %v; want %s", ws, id)
			}
		}
		if ws["liveRooms"] != nil {
			t.Fatal("liveRooms shown without Options.Rooms")
		}
		for _, id := range []string{"failing", "panicking"} {
			if ws[id]["error"] != "unavailable" {
				t.Fatalf("widget %s = %v; want error unavailable", id, ws[id])
			}
		}
		if logs := e.logs.String(); !strings.Contains(logs, "widget s3cr3t") || !strings.Contains(logs, "stack=") || !strings.Contains(logs, "dashboard_test.go") {
			t.Fatalf("the widget's panic is logged without its stack: %s", logs)
		}
		for _, id := range []string{"totals", "recentUsers", "health", "fine"} {
			if ws[id]["error"] != nil || ws[id]["data"] == nil {
				t.Fatalf("widget %s = %v; want data and no error", id, ws[id])
			}
		}
		totals := stats(t, ws["totals"])
		if totals["Users"]["value"] != float64(4) || totals["Configs"]["value"] != float64(2) || totals["Audit log"] == nil || len(totals) != 3 {
			t.Fatalf("admin totals = %v; want the three of DashboardTotals", totals)
		}
		if totals["Configs"]["link"] != "/configs" {
			t.Fatalf("totals link = %v; want /configs", totals["Configs"]["link"])
		}
		if recent := ws["recentUsers"]["data"].([]any); len(recent) != 4 {
			t.Fatalf("recentUsers = %v; want the 4 users", recent)
		}
		if h := ws["health"]["data"].(map[string]any); h["ok"] != true || h["db"] != "ok" {
			t.Fatalf("health widget = %v", h)
		}
		if ws["fine"]["data"].(map[string]any)["role"] != "admin" {
			t.Fatalf("custom widget = %v; want it computed for the admin", ws["fine"])
		}

		// A mod sees totals of what it may list only.
		ws = widgets(t, cr.modScoped.do("GET", "/admin-api/_dashboard", nil).want(t, 200))
		totals = stats(t, ws["totals"])
		if len(totals) != 1 || totals["Configs"]["value"] != float64(2) {
			t.Fatalf("mod totals = %v; want Configs only", totals)
		}
		if today := stats(t, ws["today"]); len(today) != 0 {
			t.Fatalf("mod's today = %v; want nothing (users and the audit log are out of scope)", today)
		}
		if recent, _ := ws["recentUsers"]["data"].([]any); len(recent) != 0 {
			t.Fatalf("mod recentUsers = %v; want none (users is out of scope)", recent)
		}
	})
}

// stats reads a "stats" widget's figures by label.
func stats(t *testing.T, w map[string]any) map[string]map[string]any {
	t.Helper()
	list, ok := w["data"].([]any)
	if !ok || w["render"] != "stats" {
		t.Fatalf("widget %v; want render stats and a list", w)
	}
	out := map[string]map[string]any{}
	for _, s := range list {
		m := s.(map[string]any)
		out[m["label"].(string)] = m
	}
	return out
}

// TestDashboardToday: the operator's figures count what they say, on
// both databases: bans in force (not ended ones), sign-ups since the
// start of the operator's day (?today=), moderation in the last 24 hours
// (not edits, not last week's); each links to a list that shows as many.
// Recent moderation names the target by label, with the reason.
func TestDashboardToday(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		root, _ := e.bootstrap()
		ctx := context.Background()
		now := time.Now().UTC()
		dayStart := now.Add(-3 * time.Hour)
		ids := map[string]string{}
		for _, name := range []string{"cheater", "spammer", "expired", "old", "fresh"} {
			ids[name] = e.user(name+"@example.com", "password "+name)
		}
		// Three sign-ups are before the day: old, expired, spammer.
		for _, name := range []string{"old", "expired", "spammer"} {
			if _, err := db.NewUpdate().Model((*User)(nil)).Set("created_at = ?", now.Add(-30*time.Hour)).Where("id = ?", ids[name]).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		root.do("POST", "/admin-api/users/"+ids["cheater"]+"/ban", map[string]any{"reason": "wallhack"}).want(t, 200)
		root.do("POST", "/admin-api/users/"+ids["spammer"]+"/ban", map[string]any{"reason": "spam", "until": now.Add(time.Hour)}).want(t, 200)
		// An ended ban stays in the column until an unban: not banned now.
		ended := BanInfo{Reason: "old", BannedAt: now.Add(-48 * time.Hour), Until: new(now.Add(-time.Hour))}
		if _, err := db.NewUpdate().Model((*User)(nil)).Set("ban = ?", string(must(json.Marshal(ended)))).Where("id = ?", ids["expired"]).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		root.do("POST", "/admin-api/users/"+ids["old"]+"/revoke-sessions", nil).want(t, 200)
		// Last week's ban, and an edit, are not today's moderation.
		must(0, e.admin.Audit().Record(ctx, AuditEntry{Action: "user.ban", Resource: "users", TargetID: ids["old"], CreatedAt: now.Add(-50 * time.Hour)}))
		root.do("PATCH", "/admin-api/users/"+ids["fresh"], map[string]any{"display_name": "Fresh"}).want(t, 200)

		ws := widgets(t, root.do("GET", "/admin-api/_dashboard?today="+url.QueryEscape(dayStart.Format(time.RFC3339)), nil).want(t, 200))
		today := stats(t, ws["today"])
		want := map[string]float64{"Banned now": 2, "Sign-ups today": 3, "Moderation (24 h)": 3} // root, cheater, fresh; ban, ban, revoke
		for label, n := range want {
			if today[label] == nil || today[label]["value"] != n {
				t.Fatalf("today = %v; want %s = %v", today, label, n)
			}
		}
		if today["Online now"] != nil {
			t.Fatal("Online now shown without Options.Rooms")
		}
		// Each figure's link lists as many rows.
		for label, n := range want {
			link, _ := today[label]["link"].(string)
			path, query, _ := strings.Cut(link, "?")
			q, err := url.ParseQuery(query)
			if err != nil {
				t.Fatal(err)
			}
			got, r := root.list(t, "/admin-api"+path, q)
			if len(got) != int(n) || r.Header.Get("X-Total-Count") != strconv.Itoa(int(n)) {
				t.Fatalf("%s links to %s: %d rows, total %s; want %v", label, link, len(got), r.Header.Get("X-Total-Count"), n)
			}
		}
		rows, _ := root.list(t, "/admin-api/users", url.Values{"_banned": {"false"}})
		if len(rows) != 4 { // root, expired, old, fresh
			t.Fatalf("_banned=false = %d users; want 4", len(rows))
		}
		root.do("GET", "/admin-api/users?_banned=maybe", nil).want(t, 400, "invalid_value")
		root.do("GET", "/admin-api/configs?_banned=true", nil).want(t, 400, "invalid_query")

		recent, _ := ws["recentModeration"]["data"].([]any)
		if ws["recentModeration"]["resource"] != "adminAudit" || len(recent) != 4 {
			t.Fatalf("recentModeration = %v; want the 4 of the week", ws["recentModeration"])
		}
		first := recent[0].(map[string]any)
		labels, _ := first["_labels"].(map[string]any)
		if first["action"] != "user.revoke_sessions" || labels["target_id"] != "old@example.com" || labels["operator_id"] != "root@example.com" {
			t.Fatalf("recentModeration[0] = %v; want the revoke of old, labelled, by root", first)
		}
		if p, _ := recent[2].(map[string]any)["payload"].(map[string]any); p["reason"] != "wallhack" {
			t.Fatalf("recentModeration[2] = %v; want the wallhack ban with its reason", recent[2])
		}
		if ws["recentModeration"]["more"] != nil {
			t.Fatalf("recentModeration more = %v with all 4 shown; want none", ws["recentModeration"]["more"])
		}
		// The audit log's search finds a player's entries by email or name.
		got, _ := root.list(t, "/admin-api/adminAudit", url.Values{"_q": {"old@example"}})
		if len(got) != 2 { // the revoke and last week's ban
			t.Fatalf("audit _q=old@example = %v; want the 2 entries about old", got)
		}
		got, _ = root.list(t, "/admin-api/adminAudit", url.Values{"_q": {"Fresh"}})
		if len(got) != 1 || got[0]["action"] != "update" {
			t.Fatalf("audit _q=Fresh = %v; want the edit of fresh, found by its new name", got)
		}

		// Nine of the week: the widget shows 8 and says how many there are,
		// linked to the audit log listing them.
		for i := range 5 {
			must(0, e.admin.Audit().Record(ctx, AuditEntry{Action: "user.unban", Resource: "users", TargetID: ids["old"], CreatedAt: now.Add(-time.Duration(i+1) * time.Hour)}))
		}
		ws = widgets(t, root.do("GET", "/admin-api/_dashboard", nil).want(t, 200))
		recent, _ = ws["recentModeration"]["data"].([]any)
		more, _ := ws["recentModeration"]["more"].(map[string]any)
		if len(recent) != 8 || more == nil || more["value"] != float64(9) {
			t.Fatalf("recentModeration of 9 = %d rows, more %v; want 8 and 9 in all", len(recent), more)
		}
		link, _ := more["link"].(string)
		path, rawQuery, _ := strings.Cut(link, "?")
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			t.Fatal(err)
		}
		if got, r := root.list(t, "/admin-api"+path, q); len(got) != 9 || r.Header.Get("X-Total-Count") != "9" {
			t.Fatalf("more links to %s: %d rows; want the 9", link, len(got))
		}

		root.do("GET", "/admin-api/_dashboard?today=yesterday", nil).want(t, 400, "invalid_value")
		root.do("GET", "/admin-api/_dashboard?today="+url.QueryEscape(now.Add(-72*time.Hour).Format(time.RFC3339)), nil).want(t, 400, "invalid_value")
	})
	_, err := New(testdb.SQLite(t), Options{Secret: testSecret, PasswordHasher: testHasher, DashboardTotals: []string{"config"}})
	if err == nil || !strings.Contains(err.Error(), `closest: "configs"`) {
		t.Fatalf("New with DashboardTotals naming no resource = %v; want an error naming configs", err)
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		r := e.client().do("GET", "/admin-api/_health", nil).want(t, 200)
		if r.body["ok"] != true || r.body["db"] != "ok" {
			t.Fatalf("GET /_health = %s; want {ok:true, db:\"ok\"}", r.raw)
		}
		if _, ok := r.body["latencyMs"].(float64); !ok {
			t.Fatalf("GET /_health = %s; want latencyMs", r.raw)
		}
	})
	// With the database gone: 503, and the cause stays in the log.
	db := testdb.SQLite(t)
	e := newEnv(t, db, Options{})
	db.Close()
	r := e.client().do("GET", "/admin-api/_health", nil).want(t, 503)
	if r.body["ok"] != false || r.body["db"] != "unreachable" {
		t.Fatalf("GET /_health with the database closed = %s", r.raw)
	}
}

// TestHealthChecks: each of Options.HealthChecks shows in /_health and the
// health widget by name; a failing one reads "unreachable" with its cause
// logged, and leaves ok (the database's) and the status alone.
func TestHealthChecks(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	e := newEnv(t, db, Options{HealthChecks: []HealthCheck{
		{Name: "cache", Check: func(context.Context) error { return nil }},
		{Name: "redis", Check: func(context.Context) error { return errors.New("dial tcp: connection refused") }},
		{Name: "queue", Check: func(context.Context) error { panic("queue s3cr3t") }},
	}})
	r := e.client().do("GET", "/admin-api/_health", nil).want(t, 200)
	if r.body["ok"] != true || r.body["db"] != "ok" || r.body["cache"] != "ok" || r.body["redis"] != "unreachable" || r.body["queue"] != "unreachable" {
		t.Fatalf("GET /_health = %s; want ok, cache ok, redis and queue unreachable", r.raw)
	}
	if strings.Contains(string(r.raw), "s3cr3t") {
		t.Fatalf("GET /_health leaks the panic: %s", r.raw)
	}
	if !strings.Contains(e.logs.String(), "connection refused") {
		t.Fatalf("the failing check's cause is not logged: %s", e.logs.String())
	}
	if logs := e.logs.String(); !strings.Contains(logs, "queue s3cr3t") || !strings.Contains(logs, "dashboard_test.go") {
		t.Fatalf("the panicking check is logged without its stack: %s", logs)
	}
	root, _ := e.bootstrap()
	h := widgets(t, root.do("GET", "/admin-api/_dashboard", nil).want(t, 200))["health"]["data"].(map[string]any)
	if h["redis"] != "unreachable" || h["cache"] != "ok" {
		t.Fatalf("health widget = %v; want the checks", h)
	}
	for _, name := range []string{"", "db", "ok"} {
		if _, err := New(db, Options{Secret: testSecret, HealthChecks: []HealthCheck{{Name: name}}}); err == nil {
			t.Fatalf("New with a health check named %q: want an error", name)
		}
	}
}

// TestWidgetResource: a table widget names the resource its rows belong
// to (the UI shows them as that list does); a name that is no resource
// fails New with the closest one.
func TestWidgetResource(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	e := newEnv(t, db, Options{Widgets: []Widget{{ID: "mine", Title: "Mine", Render: "table", Resource: "guilds",
		Data: func(context.Context, Operator) (any, error) { return []any{}, nil }}}, Tables: tablesWith(map[string]any{"guilds": (*testGuild)(nil)})})
	admin, _ := e.bootstrap()
	ws := widgets(t, admin.do("GET", "/admin-api/_dashboard", nil).want(t, 200))
	if ws["recentUsers"]["resource"] != "users" || ws["mine"]["resource"] != "guilds" || ws["totals"]["resource"] != nil {
		t.Fatalf("widgets = %v; want recentUsers and mine naming their resources", ws)
	}
	_, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher, Widgets: []Widget{{ID: "x", Render: "table", Resource: "user"}}})
	if err == nil || !strings.Contains(err.Error(), `"user"`) || !strings.Contains(err.Error(), `closest: "users"`) {
		t.Fatalf("New with a widget naming no resource = %v; want an error naming it and users", err)
	}
}

// A widget that ignores its ctx no longer holds the dashboard: the page is
// answered at the widget timeout, that widget marked "timeout". The stuck
// widget waits for the test, so it is late whatever the machine's speed;
// the timeout is long enough for every other widget to be done before it
// on a loaded machine, which the subtests spend waiting side by side.
func TestDashboardAnswersAtWidgetTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 10 * time.Second
	testdb.EachParallel(t, func(t *testing.T, db *bun.DB) {
		release := make(chan struct{})
		defer close(release)
		e := newEnv(t, db, Options{Widgets: []Widget{
			{ID: "stuck", Title: "Stuck", Render: "json", Data: func(context.Context, Operator) (any, error) {
				<-release // ignores ctx
				return "late", nil
			}},
			{ID: "fine", Title: "Fine", Render: "json", Data: func(context.Context, Operator) (any, error) { return "ok", nil }},
		}, WidgetTimeout: timeout})
		admin, _ := e.bootstrap()
		done := make(chan *resp, 1)
		go func() { done <- admin.do("GET", "/admin-api/_dashboard", nil) }()
		var r *resp
		select {
		case r = <-done:
		case <-time.After(timeout + 20*time.Second):
			t.Fatal("the dashboard waited on a widget that ignores its ctx")
		}
		ws := widgets(t, r.want(t, 200))
		if ws["stuck"]["error"] != "timeout" || ws["stuck"]["data"] != nil {
			t.Fatalf("stuck widget = %v; want error timeout", ws["stuck"])
		}
		if ws["fine"]["data"] != "ok" || ws["fine"]["error"] != nil || ws["health"]["data"] == nil {
			t.Fatalf("widgets = %v; want the others computed", ws)
		}
		if !strings.Contains(e.logs.String(), "widget=stuck") {
			t.Fatalf("the timed-out widget is not logged: %s", e.logs.String())
		}
	})
}
