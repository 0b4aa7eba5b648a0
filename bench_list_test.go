package admin

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// BenchmarkListHTTP measures list pages of game_analytics_events through
// the whole stack (session check, query language, count, JSON) on a table of
// 300,000 rows: the first page, a deep offset page, the same depth by keyset
// cursor, and a filtered page.
//
//	go test -run '^$' -bench ListHTTP -benchtime 50x .
func BenchmarkListHTTP(b *testing.B) {
	const rows = 300_000
	for _, d := range []struct {
		name string
		open func(testing.TB) *bun.DB
	}{{"sqlite", testdb.SQLite}, {"pg", testdb.PG}} {
		b.Run(d.name, func(b *testing.B) {
			db := d.open(b)
			a, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), RateLimit: RateLimitOptions{Bootstrap: NoLimit{}}})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			fillEvents(b, db, rows)
			srv := httptest.NewServer(a)
			defer srv.Close()
			jar, _ := cookiejar.New(nil)
			hc := &http.Client{Jar: jar}
			res, err := hc.Post(srv.URL+"/admin-api/auth/bootstrap", "application/json",
				strings.NewReader(`{"email":"bench@example.com","password":"correct horse"}`))
			if err != nil || res.StatusCode != 201 {
				b.Fatalf("bootstrap: %v %v", err, res.Status)
			}
			res.Body.Close()
			get := func(b *testing.B, path string) http.Header {
				res, err := hc.Get(srv.URL + path)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatalf("GET %s = %s", path, res.Status)
				}
				return res.Header
			}
			// The cursor of the page at the same depth as the offset page.
			deep := rows - 1000
			var cursor string
			{
				var id int64
				if err := db.NewSelect().Model((*AnalyticsEvent)(nil)).Column("id").Order("id DESC").Offset(int64(deep-1)).Limit(1).Scan(context.Background(), &id); err != nil {
					b.Fatal(err)
				}
				h := get(b, fmt.Sprintf("/admin-api/analyticsEvents?_limit=1&id_lte=%d", id))
				cursor = h.Get("X-Next-Cursor")
			}
			for _, c := range []struct{ name, path string }{
				{"first-page", "/admin-api/analyticsEvents?_start=0&_end=50"},
				{"offset-deep", fmt.Sprintf("/admin-api/analyticsEvents?_start=%d&_end=%d", deep, deep+50)},
				{"cursor-deep", "/admin-api/analyticsEvents?_limit=50&_cursor=" + cursor},
				{"filtered", "/admin-api/analyticsEvents?name=purchase&_end=50"},
			} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						get(b, c.path)
					}
				})
			}
		})
	}
}

// fillEvents inserts n analytics events quickly: generate_series on
// PostgreSQL, a recursive CTE on SQLite.
func fillEvents(b *testing.B, db *bun.DB, n int) {
	ctx := context.Background()
	var q string
	if db.Dialect().Name() == dialect.PG {
		q = `INSERT INTO game_analytics_events (user_id, name, payload, created_at)
			SELECT 'u' || (i % 5000), (ARRAY['login','match_start','match_end','purchase'])[1 + i % 4], '{"n":1}', now() - i * interval '1 second'
			FROM generate_series(1, ?) AS i`
	} else {
		q = `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
			INSERT INTO game_analytics_events (user_id, name, payload, created_at)
			SELECT 'u' || (i % 5000), CASE i % 4 WHEN 0 THEN 'login' WHEN 1 THEN 'match_start' WHEN 2 THEN 'match_end' ELSE 'purchase' END, '{"n":1}', datetime('now', '-' || i || ' seconds') FROM s`
	}
	if _, err := db.ExecContext(ctx, q, n); err != nil {
		b.Fatal(err)
	}
	if db.Dialect().Name() == dialect.PG {
		if _, err := db.ExecContext(ctx, "ANALYZE game_analytics_events"); err != nil {
			b.Fatal(err)
		}
	}
}
