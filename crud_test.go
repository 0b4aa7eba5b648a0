package admin

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

func ptrTo[T any](v T) *T { return &v }

func date(s string) *time.Time {
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &tm
}

// gadgetRows are the seed rows of the list tests. Row 5's hidden secret
// contains "alpha" so that _q can show it is not searched.
var gadgetRows = []testGadget{
	{ID: 1, Name: "Alpha", Qty: 10, Price: 1.5, Active: true, SeenAt: date("2024-01-01T00:00:00Z"), Meta: map[string]any{"lvl": 5}, Note: ptrTo("first note")},
	{ID: 2, Name: "beta", Qty: 20, Price: 2.5, SeenAt: date("2024-02-01T00:00:00Z"), Meta: map[string]any{"tag": "vip"}},
	{ID: 3, Name: "Gamma ray", Qty: 30, Price: 0.25, Active: true, Note: ptrTo("alpha mention")},
	{ID: 4, Name: "delta", Qty: 40, Price: 10, SeenAt: date("2024-03-01T00:00:00Z"), Note: ptrTo("x")},
	{ID: 5, Name: "Epsilon", Qty: 50, Price: -1, Active: true, SeenAt: date("2024-04-01T00:00:00Z"), Meta: map[string]any{"lvl": 7}, Secret: ptrTo("alphasecret")},
	{ID: 6, Name: "zeta_1", Qty: 60, Price: 3},
}

// gadgetResource hides secret, makes owner_id read-only and fills it, the
// note (by Go name) and the price (by SQL name) from Create.Defaults.
func gadgetResource() *Resource {
	return DefineResource((*testGadget)(nil), ResourceConfig{
		List: ListConfig{DefaultSort: Sort{Field: "qty", Order: "desc"}},
		Columns: map[string]ColumnConfig{
			"secret":   {Hidden: true},
			"owner_id": {ReadOnly: true},
		},
		Create: CreateConfig{Defaults: func(_ context.Context, c DefaultsContext) (map[string]any, error) {
			return map[string]any{"OwnerID": c.OperatorID, "Note": "from defaults", "price": 9.5}, nil
		}},
	})
}

// gadgetEnv is a panel with the gadgets table, seeded unless empty.
func gadgetEnv(t *testing.T, db *bun.DB, opts Options, seed bool) *env {
	t.Helper()
	createTables(t, db, (*testGadget)(nil))
	if seed {
		rows := slices.Clone(gadgetRows)
		insert(t, db, &rows)
		if db.Dialect().Name() == dialect.PG {
			// Explicit ids do not move a serial's sequence.
			if _, err := db.ExecContext(context.Background(), "SELECT setval(pg_get_serial_sequence('gadgets', 'id'), 100)"); err != nil {
				t.Fatal(err)
			}
		}
	}
	opts.Tables = tablesWith(map[string]any{"gadgets": (*testGadget)(nil)})
	opts.Resources = map[string]*Resource{"gadgets": gadgetResource()}
	return newEnv(t, db, opts)
}

func TestListOperators(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, true)
		c, _ := e.bootstrap()

		// No query: every row, in the default sort, with the total exposed.
		got, r := c.list(t, "/admin-api/gadgets", nil)
		if ids := column(got, "id"); !slices.Equal(ids, []string{"6", "5", "4", "3", "2", "1"}) {
			t.Fatalf("GET /admin-api/gadgets ids = %v; want the default sort qty desc", ids)
		}
		if tc := r.Header.Get("X-Total-Count"); tc != "6" {
			t.Fatalf("x-total-count = %q; want 6", tc)
		}
		if h := r.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(strings.ToLower(h), "x-total-count") {
			t.Fatalf("Access-Control-Expose-Headers = %q; want x-total-count in it", h)
		}
		// Values are typed: numbers, booleans, RFC 3339 times, JSON values.
		first := got[1] // id 5
		if first["qty"] != float64(50) || first["price"] != float64(-1) || first["active"] != true {
			t.Fatalf("row 5 = %v; want typed qty, price and active", first)
		}
		if tm, err := time.Parse(time.RFC3339, fmt.Sprint(first["seen_at"])); err != nil || !tm.Equal(*date("2024-04-01T00:00:00Z")) {
			t.Fatalf("row 5 seen_at = %v; want an RFC 3339 time", first["seen_at"])
		}
		if m, ok := first["meta"].(map[string]any); !ok || m["lvl"] != float64(7) {
			t.Fatalf("row 5 meta = %#v; want a JSON object", first["meta"])
		}
		for _, row := range got {
			if _, ok := row["secret"]; ok {
				t.Fatalf("row %v carries the hidden column secret", row["id"])
			}
		}

		tests := []struct {
			query string
			want  []string // ids, sorted by id
		}{
			{"name_like=ALP", []string{"1"}},
			{"name_like=a_", []string{"6"}}, // _ is literal
			{"name_like=%25", nil},          // so is %
			{"name=beta", []string{"2"}},
			{"name_eq=beta", []string{"2"}},
			{"name_ne=beta", []string{"1", "3", "4", "5", "6"}},
			{"qty_gt=30", []string{"4", "5", "6"}},
			{"qty_gte=30", []string{"3", "4", "5", "6"}},
			{"qty_lt=30", []string{"1", "2"}},
			{"qty_lte=30", []string{"1", "2", "3"}},
			{"qty_in=10,50,99", []string{"1", "5"}},
			{"price_gt=2", []string{"2", "4", "6"}},
			{"price_lte=0.25", []string{"3", "5"}},
			{"active=true", []string{"1", "3", "5"}},
			{"active_ne=true", []string{"2", "4", "6"}},
			{"active_in=false", []string{"2", "4", "6"}},
			{"seen_at_gte=2024-02-01", []string{"2", "4", "5"}},
			{"seen_at_lt=2024-02-01T00:00:00Z", []string{"1"}},
			{"seen_at_null=true", []string{"3", "6"}},
			{"note_null=false", []string{"1", "3", "4"}},
			{"meta_like=vip", []string{"2"}},
			{"meta_null=true", []string{"3", "4", "6"}},
			{"qty_gt=10&active=true", []string{"3", "5"}},
			{"_q=alpha", []string{"1", "3"}}, // not 5: secret is hidden
			{"_q=ALPHA", []string{"1", "3"}},
			{"_q=zeta_", []string{"6"}},
			{"_q=nothing-like-it", nil},
			{"id=3", []string{"3"}},
		}
		for _, tt := range tests {
			t.Run(tt.query, func(t *testing.T) {
				q, err := url.ParseQuery(tt.query + "&_sort=id")
				if err != nil {
					t.Fatal(err)
				}
				got, r := c.list(t, "/admin-api/gadgets", q)
				if ids := column(got, "id"); !slices.Equal(ids, append([]string{}, tt.want...)) {
					t.Fatalf("GET ?%s ids = %v; want %v", tt.query, ids, tt.want)
				}
				if tc := r.Header.Get("X-Total-Count"); tc != strconv.Itoa(len(tt.want)) {
					t.Fatalf("GET ?%s x-total-count = %q; want %d", tt.query, tc, len(tt.want))
				}
			})
		}

		sorts := []struct {
			query string
			want  []string
		}{
			{"_sort=name&_order=asc", []string{"1", "5", "3", "2", "4", "6"}}, // case as the database orders it is not asserted below
			{"_sort=price&_order=desc", []string{"4", "6", "2", "1", "3", "5"}},
			{"_sort=price", []string{"5", "3", "1", "2", "6", "4"}},
			{"_order=asc", []string{"1", "2", "3", "4", "5", "6"}}, // flips the default sort
			{"_sort=active,qty&_order=desc,asc", []string{"1", "3", "5", "2", "4", "6"}},
			{"_start=1&_end=3", []string{"5", "4"}},
			{"_start=4", []string{"2", "1"}},
			{"_start=0&_end=0", []string{}},
			{"_start=10", []string{}},
		}
		for _, tt := range sorts {
			t.Run(tt.query, func(t *testing.T) {
				q := must(url.ParseQuery(tt.query))
				got, r := c.list(t, "/admin-api/gadgets", q)
				ids := column(got, "id")
				if strings.HasPrefix(tt.query, "_sort=name") {
					slices.Sort(ids) // collation differs; the sort itself is checked below
					if !slices.IsSortedFunc(got, func(a, b map[string]any) int {
						return strings.Compare(strings.ToLower(a["name"].(string)), strings.ToLower(b["name"].(string)))
					}) && !slices.IsSortedFunc(got, func(a, b map[string]any) int { return strings.Compare(a["name"].(string), b["name"].(string)) }) {
						t.Fatalf("GET ?%s names = %v; want sorted", tt.query, column(got, "name"))
					}
					return
				}
				if !slices.Equal(ids, tt.want) {
					t.Fatalf("GET ?%s ids = %v; want %v", tt.query, ids, tt.want)
				}
				if string(r.raw[:1]) != "[" {
					t.Fatalf("GET ?%s body = %s; want a JSON array", tt.query, r.raw)
				}
				if tc := r.Header.Get("X-Total-Count"); tc != "6" {
					t.Fatalf("GET ?%s x-total-count = %q; want 6 (the window does not change the total)", tt.query, tc)
				}
			})
		}

		bad := []struct {
			query, code string
		}{
			{"nope=1", "unknown_column"},
			{"name_xx=1", "unknown_column"},
			{"secret=alphasecret", "unknown_column"},
			{"secret_like=alpha", "unknown_column"},
			{"_sort=nope", "unknown_column"},
			{"_sort=secret", "unknown_column"},
			{"qty_gt=abc", "invalid_value"},
			{"price=1e", "invalid_value"},
			{"active=maybe", "invalid_value"},
			{"seen_at_gte=yesterday", "invalid_value"},
			{"id=abc", "invalid_value"},
			{"_order=sideways", "invalid_value"},
			{"_start=-1", "invalid_value"},
			{"_start=5&_end=2", "invalid_query"},
			{"_limit=0", "invalid_value"},
			{"_limit=1001", "invalid_value"},
			{"_limit=10&_start=0", "invalid_query"},
			{"_cursor=garbage", ""},
			{"active_gt=true", "invalid_query"},
			{"meta=x", "invalid_query"},
			{"qty_like=1", "invalid_query"},
			{"_sort=meta", "invalid_query"},
			{manyParams(70), "invalid_query"},
		}
		for _, tt := range bad {
			t.Run("bad/"+tt.query, func(t *testing.T) {
				r := c.do("GET", "/admin-api/gadgets?"+tt.query, nil)
				if r.StatusCode != 400 {
					t.Fatalf("GET ?%s = %d %s; want 400", tt.query, r.StatusCode, r.raw)
				}
				if tt.code != "" {
					r.want(t, 400, tt.code)
				}
			})
		}
	})
}

// TestListWindowAndCursor: the window defaults to 100 and is capped at 1000;
// a keyset walk with _limit and x-next-cursor visits every row once.
func TestListWindowAndCursor(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, false)
		c, _ := e.bootstrap()
		const n = 1100
		rows := make([]testGadget, n)
		for i := range rows {
			rows[i] = testGadget{Name: fmt.Sprintf("g%04d", n-i), Qty: int64(i % 7), Price: float64(i)}
		}
		insert(t, db, &rows)

		windows := []struct {
			query string
			want  int
		}{
			{"", 100},
			{"_start=50", 100},
			{"_start=0&_end=5000", 1000},
			{"_end=1000", 1000},
			{"_start=1050&_end=1200", 50},
			{"_limit=7&_count=exact", 7},
			{"_cursor=&_count=exact", 100},
		}
		for _, w := range windows {
			q := must(url.ParseQuery(w.query))
			got, r := c.list(t, "/admin-api/gadgets", q)
			if len(got) != w.want || r.Header.Get("X-Total-Count") != strconv.Itoa(n) {
				t.Fatalf("GET ?%s = %d rows, total %q; want %d rows, total %d", w.query, len(got), r.Header.Get("X-Total-Count"), w.want, n)
			}
		}
		// Keyset pages and _count=none send no total unless asked.
		for _, qs := range []string{"_limit=7", "_cursor=", "_count=none", "_limit=7&_count=none"} {
			q := must(url.ParseQuery(qs))
			if _, r := c.list(t, "/admin-api/gadgets", q); r.Header.Get("X-Total-Count") != "" || r.Header.Get("X-Total-Count-Estimated") != "" {
				t.Errorf("GET ?%s: X-Total-Count %q, estimated %q; want neither", qs, r.Header.Get("X-Total-Count"), r.Header.Get("X-Total-Count-Estimated"))
			}
		}

		for _, sort := range []string{"_sort=name", "_sort=qty&_order=desc", ""} {
			t.Run("walk "+sort, func(t *testing.T) {
				seen := map[string]bool{}
				var names []string
				cursor := ""
				for page := 0; ; page++ {
					if page > 10 {
						t.Fatal("the walk did not end")
					}
					q := must(url.ParseQuery(sort + "&_limit=400"))
					if cursor != "" {
						q.Set("_cursor", cursor)
					}
					got, r := c.list(t, "/admin-api/gadgets", q)
					if h := r.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(strings.ToLower(h), "x-next-cursor") {
						t.Fatalf("Access-Control-Expose-Headers = %q; want x-next-cursor", h)
					}
					for _, row := range got {
						id := fmt.Sprint(row["id"])
						if seen[id] {
							t.Fatalf("page %d repeats row %s", page, id)
						}
						seen[id] = true
						names = append(names, row["name"].(string))
					}
					cursor = r.Header.Get("X-Next-Cursor")
					if cursor == "" {
						if len(got) == 400 && len(seen) < n {
							t.Fatalf("page %d is full but x-next-cursor is empty", page)
						}
						break
					}
				}
				if len(seen) != n {
					t.Fatalf("walk saw %d rows; want %d", len(seen), n)
				}
				if sort == "_sort=name" && !slices.IsSorted(names) {
					t.Fatal("walk by name is not in name order")
				}
			})
		}
		// A cursor made under one sort is refused under another.
		_, r := c.list(t, "/admin-api/gadgets", url.Values{"_sort": {"name"}, "_limit": {"5"}})
		c.do("GET", "/admin-api/gadgets?_sort=price&_cursor="+url.QueryEscape(r.Header.Get("X-Next-Cursor")), nil).want(t, 400)
	})
}

// manyParams is a query string of n distinct parameters.
func manyParams(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "p%d=1&", i)
	}
	return b.String()
}
