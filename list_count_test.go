package admin

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"testing"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/testdb"
)

// TestListCountPolicy: a list counts exactly when the statistics say the
// result is small, estimates past Options.ExactCountBelow without running
// COUNT(*), and counts as asked with _count.
func TestListCountPolicy(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		const n = 12_000
		e := gadgetEnv(t, db, Options{ExactCountBelow: 1000}, false)
		c, _ := e.bootstrap()
		rows := make([]testGadget, n)
		for i := range rows {
			note := fmt.Sprintf("n%d", i%8)
			rows[i] = testGadget{Name: fmt.Sprintf("g%05d", i), Note: &note}
		}
		insert(t, db, &rows)
		if _, err := db.ExecContext(context.Background(), "ANALYZE gadgets"); err != nil {
			t.Fatal(err)
		}
		total := func(qs string) (int64, bool) {
			t.Helper()
			q, _ := url.ParseQuery(qs)
			_, r := c.list(t, "/admin-api/gadgets", q)
			got, err := strconv.ParseInt(r.Header.Get("X-Total-Count"), 10, 64)
			if err != nil {
				t.Fatalf("GET ?%s: X-Total-Count %q", qs, r.Header.Get("X-Total-Count"))
			}
			return got, r.Header.Get("X-Total-Count-Estimated") == "true"
		}
		tests := []struct {
			query    string
			lo, hi   int64
			estimate bool
		}{
			{"", n * 9 / 10, n * 11 / 10, true},
			{"note_eq=n3", n / 8 / 2, n / 8 * 2, true},
			{"name_eq=g00042", 1, 1, false},
			{"_count=exact", n, n, false},
			{"note_eq=n3&_count=exact", n / 8, n / 8, false},
			{"_count=estimate", n * 9 / 10, n * 11 / 10, true},
			{"_limit=5&_count=exact", n, n, false},
		}
		for _, tt := range tests {
			got, est := total(tt.query)
			if got < tt.lo || got > tt.hi || est != tt.estimate {
				t.Errorf("GET ?%s: total %d, estimated %v; want %d..%d, estimated %v", tt.query, got, est, tt.lo, tt.hi, tt.estimate)
			}
		}
		c.do("GET", "/admin-api/gadgets?_count=maybe", nil).want(t, 400, "invalid_value")
	})
}

// TestListCountDefaultExact: below the default threshold every total is
// exact.
func TestListCountDefaultExact(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, true)
		c, _ := e.bootstrap()
		want := strconv.Itoa(count(t, db, (*testGadget)(nil)))
		_, r := c.list(t, "/admin-api/gadgets", nil)
		if got := r.Header.Get("X-Total-Count"); got != want || r.Header.Get("X-Total-Count-Estimated") != "" {
			t.Errorf("GET: X-Total-Count %q, estimated %q; want %s, exact", got, r.Header.Get("X-Total-Count-Estimated"), want)
		}
	})
}
