package admin

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/testdb"
)

// BenchmarkSessionCheck measures the per-request session check: the JWT
// and the one statement that reads the operator's token version, ban and
// role live.
//
//	go test -run '^$' -bench SessionCheck -benchmem .
func BenchmarkSessionCheck(b *testing.B) {
	for _, d := range []struct {
		name string
		open func(testing.TB) *bun.DB
	}{{"sqlite", testdb.SQLite}, {"pg", testdb.PG}} {
		b.Run(d.name, func(b *testing.B) {
			a, err := New(d.open(b), Options{Secret: testSecret, PasswordHasher: testHasher,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), RateLimit: RateLimitOptions{Bootstrap: NoLimit{}}})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("POST", "/admin-api/auth/bootstrap", strings.NewReader(`{"email":"bench@example.com","password":"correct horse"}`))
			req.Header.Set("Content-Type", "application/json")
			a.ServeHTTP(rec, req)
			cookies := rec.Result().Cookies()
			if rec.Code != 201 || len(cookies) == 0 {
				b.Fatalf("bootstrap: %d %s", rec.Code, rec.Body)
			}
			r := httptest.NewRequest("GET", "/admin-api/auth/me", nil)
			r.AddCookie(cookies[0])
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.authenticate(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
