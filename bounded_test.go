package admin

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Every wait is bounded (issue 12).

// A widget that ignores its ctx no longer holds the dashboard: the page is
// answered at the widget timeout, that widget marked "timeout".
func TestDashboardAnswersAtWidgetTimeout(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		release := make(chan struct{})
		defer close(release)
		e := newEnv(t, db, Options{Widgets: []Widget{
			{ID: "stuck", Title: "Stuck", Render: "json", Data: func(context.Context, Operator) (any, error) {
				<-release // ignores ctx
				return "late", nil
			}},
			{ID: "fine", Title: "Fine", Render: "json", Data: func(context.Context, Operator) (any, error) { return "ok", nil }},
		}})
		e.admin.widgetTimeout = 300 * time.Millisecond
		admin, _ := e.bootstrap()
		done := make(chan *resp, 1)
		go func() { done <- admin.do("GET", "/admin-api/_dashboard", nil) }()
		var r *resp
		select {
		case r = <-done:
		case <-time.After(30 * time.Second):
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

// NewContext gives up when its ctx ends, here while another node holds the
// migration lock on PostgreSQL, instead of waiting for the lock.
func TestNewContextBoundsMigrations(t *testing.T) {
	t.Parallel()
	db := testdb.PG(t)
	ctx := context.Background()
	a, err := NewContext(ctx, db, Options{Secret: testSecret, PasswordHasher: testHasher})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NewContext(cancelled, testdb.SQLite(t), Options{Secret: testSecret, PasswordHasher: testHasher}); !errors.Is(err, context.Canceled) {
		t.Fatalf("NewContext with a cancelled ctx = %v; want context.Canceled", err)
	}

	other := bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(testdb.PGDSN()))), pgdialect.New())
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", migrateLockID); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_unlock(?)", migrateLockID); err != nil {
			t.Error(err)
		}
	}()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := NewContext(short, db, Options{Secret: testSecret, PasswordHasher: testHasher})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "migrate") {
			t.Fatalf("NewContext under a held migration lock = %v; want a migrate error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("NewContext waited on the migration lock past its ctx")
	}
}

// After Close, the API, the UI and every Guard answer 503 closed.
func TestClosedAnswers503(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		admin, _ := e.bootstrap()
		guarded := httptest.NewServer(e.admin.Guard(GuardOptions{Role: RoleUser})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		})))
		defer guarded.Close()
		get := func(url string) *http.Response {
			req, err := http.NewRequest("GET", url, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range admin.jar.Cookies(req.URL) {
				req.AddCookie(c)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res
		}
		// The cookie's host is the panel's; the guard's server is on the
		// same host, another port.
		panelURL, err := url.Parse(e.srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		cookies := admin.jar.Cookies(panelURL)
		guardedGet := func() *http.Response {
			req, _ := http.NewRequest("GET", guarded.URL, nil)
			for _, c := range cookies {
				req.AddCookie(c)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res
		}
		if res := guardedGet(); res.StatusCode != http.StatusNoContent {
			t.Fatalf("guarded route before Close = %d; want 204", res.StatusCode)
		}
		if err := e.admin.Close(); err != nil {
			t.Fatal(err)
		}
		if res := guardedGet(); res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("guarded route after Close = %d; want 503", res.StatusCode)
		}
		for _, path := range []string{"/admin-api/auth/me", "/admin-api/auth/status", "/admin-api/_health", "/admin/", "/admin-api/nothing"} {
			if res := get(e.srv.URL + path); res.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("GET %s after Close = %d; want 503", path, res.StatusCode)
			}
		}
		admin.do("GET", "/admin-api/auth/me", nil).want(t, 503, "closed")
	})
}
