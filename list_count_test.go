package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/testdb"
)

// TestListCountPolicy: a list counts exactly when the statistics say the
// result is small, estimates past Options.ExactCountBelow without running
// COUNT(*), and counts as asked with _count.
func TestListCountPolicy(t *testing.T) {
	t.Parallel()
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
			q := must(url.ParseQuery(qs))
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
	t.Parallel()
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

// TestListSearchColumns: ResourceConfig.Search limits _q to its columns,
// and the catalog says which columns sort and filter.
func TestListSearchColumns(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testGadget)(nil))
		rows := slices.Clone(gadgetRows)
		insert(t, db, &rows)
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"gadgets": (*testGadget)(nil)}),
			Resources: map[string]*Resource{"gadgets": DefineResource((*testGadget)(nil), ResourceConfig{Search: []string{"note"}})}})
		c, _ := e.bootstrap()
		got, _ := c.list(t, "/admin-api/gadgets", url.Values{"_q": {"alpha"}})
		if ids := column(got, "id"); !slices.Equal(ids, []string{"3"}) {
			t.Errorf("GET ?_q=alpha with Search [note] = ids %v; want [3] (name and secret are not searched)", ids)
		}

		var catalog []struct {
			Name    string `json:"name"`
			Columns []struct {
				Name       string `json:"name"`
				Sortable   bool   `json:"sortable"`
				Filterable bool   `json:"filterable"`
			} `json:"columns"`
		}
		r := c.do("GET", "/admin-api", nil).want(t, 200)
		if err := json.Unmarshal(r.raw, &catalog); err != nil {
			t.Fatal(err)
		}
		want := map[string][2]bool{"name": {true, true}, "meta": {false, true}, "seen_at": {true, true}}
		for _, res := range catalog {
			if res.Name != "gadgets" {
				continue
			}
			for _, col := range res.Columns {
				if w, ok := want[col.Name]; ok && (col.Sortable != w[0] || col.Filterable != w[1]) {
					t.Errorf("catalog column %s: sortable %v, filterable %v; want %v, %v", col.Name, col.Sortable, col.Filterable, w[0], w[1])
				}
				delete(want, col.Name)
			}
		}
		if len(want) > 0 {
			t.Errorf("catalog lacks gadgets columns %v", want)
		}
		c.do("GET", "/admin-api/gadgets?_sort=meta", nil).want(t, 400, "invalid_query")
	})
}
