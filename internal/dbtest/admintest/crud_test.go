package admintest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/google/uuid"
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

// gadgetRows returns fresh seed rows of the list tests: each call its
// own, since an insert writes the rows back (RETURNING) through their
// pointer fields, and parallel tests must not share those. Row 5's
// hidden secret contains "alpha" so that _q can show it is not searched.
func gadgetRows() []testGadget {
	return []testGadget{
		{ID: 1, Name: "Alpha", Qty: 10, Price: 1.5, Active: true, SeenAt: date("2024-01-01T00:00:00Z"), Meta: map[string]any{"lvl": 5}, Note: ptrTo("first note")},
		{ID: 2, Name: "beta", Qty: 20, Price: 2.5, SeenAt: date("2024-02-01T00:00:00Z"), Meta: map[string]any{"tag": "vip"}},
		{ID: 3, Name: "Gamma ray", Qty: 30, Price: 0.25, Active: true, Note: ptrTo("alpha mention")},
		{ID: 4, Name: "delta", Qty: 40, Price: 10, SeenAt: date("2024-03-01T00:00:00Z"), Note: ptrTo("x")},
		{ID: 5, Name: "Epsilon", Qty: 50, Price: -1, Active: true, SeenAt: date("2024-04-01T00:00:00Z"), Meta: map[string]any{"lvl": 7}, Secret: ptrTo("alphasecret")},
		{ID: 6, Name: "zeta_1", Qty: 60, Price: 3},
	}
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
	if db.Dialect().Name() == dialect.MySQL {
		// The table a MariaDB game has: an instant is a TIMESTAMP (Bun's
		// DATETIME for a time.Time is a wall clock), a map a JSON column.
		must(db.ExecContext(context.Background(), "CREATE TABLE gadgets (id BIGINT AUTO_INCREMENT PRIMARY KEY, "+
			"name VARCHAR(255) NOT NULL UNIQUE, qty BIGINT NOT NULL DEFAULT 7, price DOUBLE NOT NULL DEFAULT 0, "+
			"active BOOLEAN NOT NULL DEFAULT FALSE, seen_at TIMESTAMP(6) NULL, meta JSON, note VARCHAR(255), "+
			"owner_id VARCHAR(255), secret VARCHAR(255))"))
	} else {
		createTables(t, db, (*testGadget)(nil))
	}
	if seed {
		rows := gadgetRows()
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
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), RateLimit: RateLimitOptions{Bootstrap: NoLimit{}}, SetupToken: testSetupToken})
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
				strings.NewReader(`{"email":"bench@example.com","password":"correct horse","token":"`+testSetupToken+`"}`))
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

// TestCreateReadUpdateDelete walks one gadget through its life and checks
// the answers and the audit payloads.
func TestCreateReadUpdateDelete(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, true)
		c, adminID := e.bootstrap()

		// Create: 201, the row back with the database's defaults and the
		// resource's Defaults (by Go and SQL name) under the body.
		r := c.do("POST", "/admin-api/gadgets", map[string]any{"name": "new", "meta": map[string]any{"a": []int{1, 2}}}).want(t, 201)
		row := r.body
		id := fmt.Sprint(row["id"])
		want := map[string]any{"name": "new", "qty": float64(7), "price": 9.5, "active": false, "note": "from defaults", "owner_id": adminID, "seen_at": nil}
		for k, v := range want {
			if row[k] != v {
				t.Errorf("created %s = %#v; want %#v", k, row[k], v)
			}
		}
		if m, _ := row["meta"].(map[string]any); m == nil || fmt.Sprint(m["a"]) != "[1 2]" {
			t.Errorf("created meta = %#v; want the JSON value", row["meta"])
		}
		if _, ok := row["secret"]; ok {
			t.Error("create answered the hidden column secret")
		}
		// The body wins over Defaults.
		r2 := c.do("POST", "/admin-api/gadgets", map[string]any{"name": "mine", "price": 1, "note": nil}).want(t, 201)
		if r2.body["price"] != float64(1) || r2.body["note"] != nil {
			t.Errorf("create with price and note = %v; want the body's values over Defaults", r2.body)
		}
		audits := e.auditRows("create")
		if len(audits) != 2 || audits[0].Resource != "gadgets" || audits[0].TargetID != id || audits[0].OperatorID != adminID {
			t.Fatalf("create audit = %+v; want one per create, target %s", audits, id)
		}
		if ar, _ := audits[0].Payload["row"].(map[string]any); ar == nil || ar["name"] != "new" || ar["qty"] != float64(7) || ar["secret"] != nil {
			t.Fatalf("create audit payload = %v; want {row} without hidden columns", audits[0].Payload)
		}
		// Quotes, backslashes, HTML, non-ASCII and the typed text "\u0000"
		// reach the entry as sent (Bun's AppendJSON made that text a NUL
		// escape, which jsonb refuses: the create failed with a 500).
		tricky := `it's "quoted" \back\slash <tag> & é 🎮 \u0000`
		c.do("POST", "/admin-api/gadgets", map[string]any{"name": tricky, "price": 2}).want(t, 201)
		if cr := e.auditRows("create"); len(cr) != 3 || cr[2].Payload["row"].(map[string]any)["name"] != tricky {
			t.Fatalf("create audit of a tricky name = %+v; want its name %q", cr[len(cr)-1].Payload, tricky)
		}

		// Read.
		got := c.do("GET", "/admin-api/gadgets/"+id, nil).want(t, 200).body
		if got["name"] != "new" || got["owner_id"] != adminID {
			t.Fatalf("GET /gadgets/%s = %v", id, got)
		}
		c.do("GET", "/admin-api/gadgets/99999", nil).want(t, 404, "not_found")
		c.do("GET", "/admin-api/gadgets/abc", nil).want(t, 400, "invalid_value")

		// Update: PATCH and PUT, only changed columns in the audit.
		for i, method := range []string{"PATCH", "PUT"} {
			qty := float64(100 + i)
			u := c.do(method, "/admin-api/gadgets/"+id, map[string]any{"qty": qty, "name": "new"}).want(t, 200)
			if u.body["qty"] != qty || u.body["name"] != "new" || u.body["price"] != 9.5 {
				t.Fatalf("%s answered %v; want the updated row", method, u.body)
			}
			ups := e.auditRows("update")
			if len(ups) != i+1 {
				t.Fatalf("update audits after %s = %d; want %d", method, len(ups), i+1)
			}
			changes, _ := ups[i].Payload["changes"].(map[string]any)
			q, _ := changes["qty"].(map[string]any)
			if len(changes) != 1 || q["after"] != qty || ups[i].TargetID != id {
				t.Fatalf("%s audit = %+v; want changes of qty only", method, ups[i])
			}
		}
		// An update that changes nothing answers the row and audits nothing.
		c.do("PATCH", "/admin-api/gadgets/"+id, map[string]any{"qty": 101}).want(t, 200)
		c.do("PATCH", "/admin-api/gadgets/"+id, map[string]any{}).want(t, 200)
		if n := len(e.auditRows("update")); n != 2 {
			t.Fatalf("update audits after no-op updates = %d; want 2", n)
		}
		c.do("PATCH", "/admin-api/gadgets/99999", map[string]any{"qty": 1}).want(t, 404, "not_found")

		// Delete answers the deleted row and audits {row}.
		d := c.do("DELETE", "/admin-api/gadgets/"+id, nil).want(t, 200)
		if d.body["name"] != "new" || d.body["qty"] != float64(101) {
			t.Fatalf("DELETE answered %v; want the deleted row", d.body)
		}
		dels := e.auditRows("delete")
		if len(dels) != 1 || dels[0].TargetID != id || dels[0].Payload["row"].(map[string]any)["name"] != "new" {
			t.Fatalf("delete audit = %+v", dels)
		}
		c.do("DELETE", "/admin-api/gadgets/"+id, nil).want(t, 404, "not_found")
		c.do("GET", "/admin-api/gadgets/"+id, nil).want(t, 404, "not_found")
	})
}

// TestWriteErrors: every bad write is a 4xx error body and writes nothing.
func TestWriteErrors(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{MaxBodyBytes: 4 << 10}, true)
		c, _ := e.bootstrap()
		big := `{"name":"` + strings.Repeat("x", 5<<10) + `"}`
		tests := []struct {
			name, method, path string
			body               any
			status             int
			code               string
		}{
			{"unique", "POST", "/gadgets", `{"name":"Alpha"}`, 409, "conflict"},
			{"not null", "POST", "/gadgets", `{"name":null}`, 400, "validation"},
			{"not null omitted", "POST", "/gadgets", `{"qty":3}`, 400, "validation"},
			{"not null empty", "POST", "/gadgets", `{"name":"  "}`, 400, "validation"},
			{"unknown column", "POST", "/gadgets", `{"name":"n","nope":1}`, 400, "unknown_column"},
			{"go field name", "POST", "/gadgets", `{"Name":"n"}`, 400, "unknown_column"},
			{"hidden column", "POST", "/gadgets", `{"name":"n","secret":"s"}`, 400, "unknown_column"},
			{"read-only column", "POST", "/gadgets", `{"name":"n","owner_id":"me"}`, 400, "read_only"},
			{"string for int", "POST", "/gadgets", `{"name":"n","qty":"many"}`, 400, "invalid_value"},
			{"fraction for int", "POST", "/gadgets", `{"name":"n","qty":1.5}`, 400, "invalid_value"},
			{"huge int", "POST", "/gadgets", `{"name":"n","qty":1e400}`, 400, "invalid_value"},
			{"bad bool", "POST", "/gadgets", `{"name":"n","active":"maybe"}`, 400, "invalid_value"},
			{"bad time", "POST", "/gadgets", `{"name":"n","seen_at":"yesterday"}`, 400, "invalid_value"},
			{"number for string", "POST", "/gadgets", `{"name":5}`, 400, "invalid_value"},
			{"malformed", "POST", "/gadgets", `{"name":`, 400, "invalid_json"},
			{"array", "POST", "/gadgets", `[{"name":"n"}]`, 400, "invalid_body"},
			{"null", "POST", "/gadgets", `null`, 400, "invalid_body"},
			{"empty", "POST", "/gadgets", ``, 400, "invalid_body"},
			{"trailing", "POST", "/gadgets", `{"name":"n"} {}`, 400, "invalid_body"},
			{"invalid utf-8", "POST", "/gadgets", "{\"name\":\"\xff\"}", 400, "invalid_body"},
			{"oversized", "POST", "/gadgets", big, 413, "body_too_large"},
			{"update unique", "PATCH", "/gadgets/2", `{"name":"Alpha"}`, 409, "conflict"},
			{"update not null", "PATCH", "/gadgets/2", `{"qty":null}`, 400, "missing_value"},
			{"update pk", "PATCH", "/gadgets/2", `{"id":77}`, 400, "read_only"},
			{"update read-only", "PUT", "/gadgets/2", `{"owner_id":"me"}`, 400, "read_only"},
			{"update hidden", "PATCH", "/gadgets/2", `{"secret":"s"}`, 400, "unknown_column"},
			{"update bad value", "PATCH", "/gadgets/2", `{"price":"cheap"}`, 400, "invalid_value"},
			{"update malformed", "PATCH", "/gadgets/2", `{`, 400, "invalid_json"},
			{"update empty body", "PATCH", "/gadgets/2", ``, 400, "invalid_body"},
			{"update oversized", "PATCH", "/gadgets/2", big, 413, "body_too_large"},
			{"update bad id", "PATCH", "/gadgets/two", `{"qty":1}`, 400, "invalid_value"},
			{"delete bad id", "DELETE", "/gadgets/1.5", nil, 400, "invalid_value"},
		}
		snapshot := func() string {
			var rows []testGadget
			if err := db.NewSelect().Model(&rows).Order("id").Scan(context.Background()); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(rows)
			return string(b)
		}
		before := snapshot()
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := c.do(tt.method, "/admin-api"+tt.path, tt.body)
				if r.StatusCode != tt.status {
					t.Fatalf("%s %s %s = %d %s; want %d", tt.method, tt.path, tt.body, r.StatusCode, r.raw, tt.status)
				}
				r.want(t, tt.status, tt.code)
				if after := snapshot(); after != before {
					t.Fatalf("%s %s refused but the table changed:\n%s", tt.method, tt.path, after)
				}
			})
		}
		// The messages name the column by its label, in plain words; code
		// and field stay as they were.
		for _, tt := range []struct{ method, path, body, code, field, msg string }{
			{"POST", "/gadgets", `{"name":"Alpha"}`, "conflict", "name", "Name: already taken: another row has this value"},
			{"PATCH", "/gadgets/2", `{"price":"cheap"}`, "invalid_value", "price", "Price: must be a number"},
			{"PATCH", "/gadgets/2", `{"id":77}`, "read_only", "id", "ID is read-only: send it as the row holds it, or leave it out"},
		} {
			r := c.do(tt.method, "/admin-api"+tt.path, tt.body)
			f, _ := r.body["fields"].(map[string]any)
			if r.body["code"] != tt.code || r.body["error"] != tt.msg || len(f) != 1 || f[tt.field] != tt.msg {
				t.Errorf("%s %s %s = %s; want code %s, error and fields.%s %q", tt.method, tt.path, tt.body, r.raw, tt.code, tt.field, tt.msg)
			}
		}
		for _, a := range []string{"create", "update", "delete"} {
			if n := len(e.auditRows(a)); n != 0 {
				t.Fatalf("%d %s audit rows after refused writes; want 0", n, a)
			}
		}
		if strings.Contains(e.logs.String(), "internal error") {
			t.Fatalf("a bad write caused an internal error:\n%s", e.logs)
		}
	})
}

// TestCompositeIDs addresses cloudSaves by the base64url JSON array of
// (user_id, slot).
func TestCompositeIDs(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, _ := e.bootstrap()
		insert(t, db, &[]User{{ID: "u1", Email: "u1@example.com"}, {ID: "u2", Email: "u2@example.com"}})
		insert(t, db, &[]CloudSave{
			{UserID: "u1", Slot: "a", Data: map[string]any{"lvl": 1}},
			{UserID: "u1", Slot: "b/c", Data: map[string]any{"lvl": 2}},
		})
		enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
		id := enc(`["u1","b/c"]`)
		got := c.do("GET", "/admin-api/cloudSaves/"+id, nil).want(t, 200).body
		if got["slot"] != "b/c" || got["data"].(map[string]any)["lvl"] != float64(2) {
			t.Fatalf("GET cloudSaves/%s = %v", id, got)
		}
		c.do("GET", "/admin-api/cloudSaves/"+base64.URLEncoding.EncodeToString([]byte(`["u1","a"]`)), nil).want(t, 200)
		u := c.do("PATCH", "/admin-api/cloudSaves/"+id, map[string]any{"version": 3}).want(t, 200)
		if u.body["version"] != float64(3) {
			t.Fatalf("PATCH answered %v", u.body)
		}
		if ups := e.auditRows("update"); len(ups) != 1 || ups[0].TargetID != id {
			t.Fatalf("update audit = %+v; want target_id %s", ups, id)
		}
		c.do("PATCH", "/admin-api/cloudSaves/"+id, map[string]any{"slot": "z"}).want(t, 400, "read_only")

		bad := []string{
			"!!!",
			enc(`["u1"]`),
			enc(`["u1","a","x"]`),
			enc(`[1,"a"]`),
			enc(`["u1",{"x":1}]`),
			enc(`["u1",null]`),
			enc(`{"user_id":"u1"}`),
			enc(`["u1","a"`),
			enc(`"u1"`),
			"u1",
		}
		for _, b := range bad {
			for _, m := range []string{"GET", "PATCH", "DELETE"} {
				r := c.do(m, "/admin-api/cloudSaves/"+b, map[string]any{"version": 9})
				r.want(t, 400, "invalid_value")
			}
			c.do("GET", "/admin-api/cloudSaves/"+b+"/_counts", nil).want(t, 400, "invalid_value")
		}
		c.do("GET", "/admin-api/cloudSaves/"+enc(`["u1","zz"]`), nil).want(t, 404, "not_found")

		// A save of no user is refused: the table's foreign key.
		orphan := c.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": "not-a-user", "slot": "s"}).want(t, 400, "invalid_reference")
		if db.Dialect().Name() == dialect.PG && orphan.body["error"] != "User: the row it names does not exist" {
			t.Errorf("orphan save: %s; want the message to name user_id by its label", orphan.raw)
		}
		// Create answers the row; its id addresses it.
		r := c.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": "u2", "slot": "s", "data": map[string]any{"lvl": 1}}).want(t, 201)
		if r.body["version"] != float64(0) {
			t.Fatalf("created save = %v; want the database default version 0", r.body)
		}
		cr := e.auditRows("create")
		if len(cr) != 1 || cr[0].TargetID != enc(`["u2","s"]`) {
			t.Fatalf("create audit target = %+v; want %s", cr, enc(`["u2","s"]`))
		}
		c.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": "u2", "slot": "s"}).want(t, 409, "conflict")
		// data is a map in the model: an array would be stored and then
		// fail every read of the row.
		c.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": "u3", "slot": "s", "data": []any{1}}).want(t, 400, "invalid_value")
		c.do("PATCH", "/admin-api/cloudSaves/"+id, map[string]any{"data": "text"}).want(t, 400, "invalid_value")
		d := c.do("DELETE", "/admin-api/cloudSaves/"+cr[0].TargetID, nil).want(t, 200)
		if d.body["user_id"] != "u2" {
			t.Fatalf("DELETE answered %v", d.body)
		}
		if n := count(t, db, (*CloudSave)(nil)); n != 2 {
			t.Fatalf("saves = %d; want 2", n)
		}
	})
}

// TestHiddenAndReadOnlyBuiltins: users' password_hash never leaves the
// server and cannot be named; token_version and ban are read-only; a note's
// author comes from the session.
func TestHiddenAndReadOnlyBuiltins(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, adminID := e.bootstrap()
		uid := e.user("p@example.com", "player password")

		check := func(r *resp) {
			t.Helper()
			if strings.Contains(string(r.raw), "password_hash") || strings.Contains(string(r.raw), "argon2") {
				t.Fatalf("%s %s leaks the password hash: %s", r.Request.Method, r.Request.URL, r.raw)
			}
		}
		check(c.do("GET", "/admin-api/users", nil).want(t, 200))
		check(c.do("GET", "/admin-api/users/"+uid, nil).want(t, 200))
		check(c.do("GET", "/admin-api/users?_q=argon2", nil).want(t, 200))
		if n := len(rows(t, c.do("GET", "/admin-api/users?_q=argon2", nil))); n != 0 {
			t.Fatalf("_q=argon2 found %d users; want 0 (password_hash is not searched)", n)
		}
		for _, q := range []string{"password_hash=x", "password_hash_like=argon", "password_hash_null=false", "_sort=password_hash"} {
			c.do("GET", "/admin-api/users?"+q, nil).want(t, 400, "unknown_column")
		}
		c.do("POST", "/admin-api/users", map[string]any{"email": "x@example.com", "password_hash": "h"}).want(t, 400, "unknown_column")
		c.do("PATCH", "/admin-api/users/"+uid, map[string]any{"password_hash": "h"}).want(t, 400, "unknown_column")
		c.do("PATCH", "/admin-api/users/"+uid, map[string]any{"token_version": 9}).want(t, 400, "read_only")
		c.do("PATCH", "/admin-api/users/"+uid, map[string]any{"ban": map[string]any{"reason": "x"}}).want(t, 400, "read_only")
		c.do("POST", "/admin-api/users", map[string]any{"email": "y@example.com", "ban": nil}).want(t, 400, "read_only")

		// A user created through the panel gets its id from the model hook.
		r := c.do("POST", "/admin-api/users", map[string]any{"email": "new@example.com", "display_name": "New"}).want(t, 201)
		check(r)
		if id, _ := r.body["id"].(string); len(id) != 36 || r.body["token_version"] != float64(0) || r.body["created_at"] == nil {
			t.Fatalf("created user = %v; want a UUID id and the defaults", r.body)
		}
		u := c.do("PATCH", "/admin-api/users/"+uid, map[string]any{"display_name": "Renamed"}).want(t, 200)
		check(u)
		d := c.do("DELETE", "/admin-api/users/"+r.body["id"].(string), nil).want(t, 200)
		check(d)
		var payloads []string
		for _, a := range []string{"create", "update", "delete"} {
			for _, row := range e.auditRows(a) {
				b, _ := json.Marshal(row.Payload)
				payloads = append(payloads, string(b))
			}
		}
		if all := strings.Join(payloads, "\n"); strings.Contains(all, "password_hash") || strings.Contains(all, "argon2") {
			t.Fatalf("audit payloads leak the password hash:\n%s", all)
		}

		// userNotes: author_id is the session's, never the body's.
		n := c.do("POST", "/admin-api/userNotes", map[string]any{"user_id": uid, "body": "watch this one"}).want(t, 201)
		if n.body["author_id"] != adminID {
			t.Fatalf("note author_id = %v; want the signed-in admin %s", n.body["author_id"], adminID)
		}
		c.do("POST", "/admin-api/userNotes", map[string]any{"user_id": uid, "body": "x", "author_id": uid}).want(t, 400, "read_only")
		c.do("PATCH", fmt.Sprintf("/admin-api/userNotes/%v", n.body["id"]), map[string]any{"author_id": uid}).want(t, 400, "read_only")
		if got := count(t, db, (*UserNote)(nil)); got != 1 {
			t.Fatalf("notes = %d; want 1", got)
		}
	})
}

// TestCreateWithoutKey: one rule for new ids. A single text key left out
// of the body, without a default, is a UUIDv7 made by the panel; a key
// sent as null, or a composite key left out, is refused (SQLite lets a
// non-integer primary key be NULL, so the panel checks it itself).
func TestCreateWithoutKey(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, _ := e.bootstrap()
		tests := []struct {
			path string
			body map[string]any
		}{
			{"/admin-api/configs", map[string]any{"key": nil, "value": 1}},
			{"/admin-api/cloudSaves", map[string]any{"user_id": "u1"}},
		}
		for _, tt := range tests {
			c.do("POST", tt.path, tt.body).want(t, 400, "missing_value")
		}
		for _, m := range []any{(*Config)(nil), (*Leaderboard)(nil), (*CloudSave)(nil)} {
			if n := count(t, db, m); n != 0 {
				t.Fatalf("%T rows = %d after refused creates; want 0", m, n)
			}
		}
		r := c.do("POST", "/admin-api/configs", map[string]any{"value": 1}).want(t, 201)
		if id, err := uuid.Parse(fmt.Sprint(r.body["key"])); err != nil || id.Version() != 7 {
			t.Fatalf("config created without a key = %s; want a UUIDv7 key", r.raw)
		}
		r = c.do("POST", "/admin-api/leaderboards", map[string]any{"name": "weekly"}).want(t, 201)
		if id, err := uuid.Parse(fmt.Sprint(r.body["id"])); err != nil || id.Version() != 7 {
			t.Fatalf("leaderboard created without an id = %s; want a UUIDv7 id", r.raw)
		}
		r = c.do("POST", "/admin-api/configs", map[string]any{"key": "motd", "value": map[string]any{"text": "hi"}}).want(t, 201)
		if r.body["key"] != "motd" || r.body["value"].(map[string]any)["text"] != "hi" {
			t.Fatalf("created config = %s", r.raw)
		}
	})
}

// TestUserEmailNormalized: an email written through the panel is trimmed
// and otherwise kept as typed (a citext or mixed-case column of the game's
// is not rewritten), and sign-in matches it in any case.
func TestUserEmailNormalized(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		root, _ := e.bootstrap()
		id := e.user("p@example.com", "player password")
		r := root.do("PATCH", "/admin-api/users/"+id, map[string]any{"email": "  New.Address@Example.COM "}).want(t, 200)
		if r.body["email"] != "New.Address@Example.COM" {
			t.Fatalf("email = %v; want it trimmed, case kept", r.body["email"])
		}
		e.login("NEW.address@example.com", "player password")
	})
}

// TestUpdateBumpsUpdatedAt: a panel edit moves updated_at forward unless
// the body sets it; roles edits too.
func TestUpdateBumpsUpdatedAt(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, _ := e.bootstrap()
		old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		c.do("POST", "/admin-api/configs", map[string]any{"key": "motd", "value": "hi", "updated_at": old}).want(t, 201)
		r := c.do("PATCH", "/admin-api/configs/motd", map[string]any{"value": "hello"}).want(t, 200)
		got, err := time.Parse(time.RFC3339Nano, fmt.Sprint(r.body["updated_at"]))
		if err != nil || !got.After(old.Add(24*time.Hour)) {
			t.Fatalf("updated_at after an edit = %v (%v); want now, not %v", r.body["updated_at"], err, old)
		}
		r = c.do("PATCH", "/admin-api/configs/motd", map[string]any{"value": "again", "updated_at": old}).want(t, 200)
		if got, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(r.body["updated_at"])); !got.Equal(old) {
			t.Fatalf("updated_at set by the body = %v; want %v", r.body["updated_at"], old)
		}
	})
}

// FuzzListHTTP sends arbitrary query strings to the list endpoint of a
// custom table as an admin: every answer must be below 500, and every
// refusal the error body.
func FuzzListHTTP(f *testing.F) {
	db := testdb.SQLite(f)
	ctx := context.Background()
	if _, err := db.NewCreateTable().Model((*testGadget)(nil)).Exec(ctx); err != nil {
		f.Fatal(err)
	}
	rows := gadgetRows()
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		f.Fatal(err)
	}
	logs := &syncBuffer{}
	a, err := New(db, Options{
		Secret: testSecret, PasswordHasher: testHasher, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Tables:     tablesWith(map[string]any{"gadgets": (*testGadget)(nil)}),
		Resources:  map[string]*Resource{"gadgets": gadgetResource()},
		RateLimit:  RateLimitOptions{Login: NoLimit{}, Bootstrap: NoLimit{}, RequestReset: NoLimit{}, LoginFailuresPerEmail: NoLimit{}, LoginFailuresPerNetwork: NoLimit{}, PerIP: NoLimit{}, Actions: NoLimit{}},
		SetupToken: testSetupToken,
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { a.Close() })
	srv := httptest.NewServer(a)
	f.Cleanup(srv.Close)
	res, err := http.Post(srv.URL+"/admin-api/auth/bootstrap", "application/json",
		strings.NewReader(`{"email":"root@example.com","password":"correct horse","token":"`+testSetupToken+`"}`))
	if err != nil || res.StatusCode != 201 {
		f.Fatalf("bootstrap: %v %v", res.Status, err)
	}
	res.Body.Close()
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == sessionCookieName {
			cookie = c
		}
	}

	seeds := []string{
		"", "_sort=name&_order=desc", "_start=1&_end=3", "_q=alpha", "name_like=a_%25",
		"qty_in=1,2,3", "qty_gt=abc", "active=true", "seen_at_gte=2024-01-01", "meta_like=vip",
		"note_null=true", "_limit=2", "_limit=2&_cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"k":["-qty","-id"],"v":[50,5]}`)),
		"_cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"k":["-qty","-id"],"v":["x",{}]}`)),
		"_sort=price,qty&_order=asc,desc", "_order=asc", "price_lte=1e308", "qty=9223372036854775808",
		"seen_at=0000-01-01", "id_in=" + strings.Repeat("1,", 120), "secret=x", "%zz=1", "name=%00",
		"_q=" + strings.Repeat("%", 300), "_start=99999999999999", "_end=-1", "meta_null=false",
		"_sort=meta", "active_lt=1", "name_in=", "_limit=1000&_sort=seen_at",
		"meta_key=stats.level:3", "meta_key=items.0.id:7", "meta_key=%22a%27b%5C%22%22.0:1", "meta_key=a->b:1",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	client := srv.Client()
	f.Fuzz(func(t *testing.T, raw string) {
		req, err := http.NewRequest("GET", srv.URL+"/admin-api/gadgets", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.RawQuery = wireQuery(raw)
		req.AddCookie(cookie)
		res, err := client.Do(req)
		if err != nil {
			return // the client refused to send it: nothing reached the server
		}
		// Read to the end so the connection is reused: a new one per
		// request soon runs out of ports.
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		n := min(len(body), 512)
		if res.StatusCode >= 500 {
			t.Fatalf("GET /admin-api/gadgets?%s = %d %s; want < 500\n%s", raw, res.StatusCode, body[:n], logs.String())
		}
		if res.StatusCode != 200 && !strings.Contains(string(body[:n]), `"code"`) {
			t.Fatalf("GET /admin-api/gadgets?%s = %d %s; want the error body", raw, res.StatusCode, body[:n])
		}
	})
}

// wireQuery percent-encodes the bytes an HTTP request line cannot carry,
// so the fuzzer tests the panel rather than net/http's request parser.
func wireQuery(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c >= 0x7f || c == '#' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

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
		analyze := "ANALYZE gadgets"
		if db.Dialect().Name() == dialect.MySQL {
			// The columns' statistics too, as PostgreSQL's ANALYZE
			// gathers them: InnoDB's own count only the rows.
			analyze = "ANALYZE TABLE gadgets PERSISTENT FOR ALL"
		}
		if _, err := db.ExecContext(context.Background(), analyze); err != nil {
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
		rows := gadgetRows()
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

// TestEmptyPrimaryKeyRefused: a row keyed "" could be neither opened nor
// deleted (its URL has no id), so create and update refuse it, on both
// databases.
func TestEmptyPrimaryKeyRefused(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, _ := e.bootstrap()
		c.do("POST", "/admin-api/configs", map[string]any{"key": "", "value": 1}).want(t, 400, "invalid_value")
		if n := count(t, e.db, (*Config)(nil)); n != 0 {
			t.Fatalf("configs after a create with key \"\" = %d rows; want 0", n)
		}
		c.do("POST", "/admin-api/configs", map[string]any{"key": "motd", "value": 1}).want(t, 201)
		c.do("PATCH", "/admin-api/configs/motd", map[string]any{"key": ""}).want(t, 400, "invalid_value")
		c.do("POST", "/admin-api/leaderboards", map[string]any{"id": "", "name": "x"}).want(t, 400, "invalid_value")
		c.do("GET", "/admin-api/configs/motd", nil).want(t, 200)
	})
}

// TestReadSentBackByPUT: a row as a read returns it (its key, read-only
// columns, "_labels") sent back by PUT is an update that changes
// nothing; the same body with a readable column changed updates only
// that; a changed key or read-only value is still refused.
func TestReadSentBackByPUT(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, adminID := e.bootstrap()
		uid := e.user("p@example.com", "player password")
		c.do("POST", "/admin-api/users/"+uid+"/ban", map[string]any{"reason": "spam", "until": time.Now().Add(time.Hour)}).want(t, 200)
		n := c.do("POST", "/admin-api/userNotes", map[string]any{"user_id": uid, "body": "a note"}).want(t, 201)
		note := fmt.Sprintf("/admin-api/userNotes/%v", n.body["id"])
		entries := count(t, db, (*AuditEntry)(nil))

		for _, path := range []string{"/admin-api/users/" + uid, note} {
			row := exact(t, c.do("GET", path, nil).want(t, 200).raw)
			if path == note && row["_labels"] == nil {
				t.Fatalf("GET %s = %v; want _labels for the test to send back", path, row)
			}
			c.do("PUT", path, row).want(t, 200)
		}
		if got := count(t, db, (*AuditEntry)(nil)); got != entries {
			t.Fatalf("audit entries = %d after sending rows back; want %d (no change, no entry)", got, entries)
		}

		row := exact(t, c.do("GET", "/admin-api/users/"+uid, nil).want(t, 200).raw)
		row["display_name"] = "Renamed"
		if r := c.do("PUT", "/admin-api/users/"+uid, row).want(t, 200); r.body["display_name"] != "Renamed" {
			t.Fatalf("PUT with a new display name = %s", r.raw)
		}
		if ups := e.auditRows("update"); len(ups) != 1 || len(ups[0].Payload["changes"].(map[string]any)) != 1 {
			t.Fatalf("update entries = %+v; want one, changing display_name only", ups)
		}
		for col, v := range map[string]any{"id": adminID, "token_version": json.Number("7")} {
			changed := exact(t, c.do("GET", "/admin-api/users/"+uid, nil).want(t, 200).raw)
			changed[col] = v
			c.do("PUT", "/admin-api/users/"+uid, changed).want(t, 400, "read_only")
		}
		changed := exact(t, c.do("GET", "/admin-api/users/"+uid, nil).want(t, 200).raw)
		changed["ban"].(map[string]any)["reason"] = "something else"
		c.do("PUT", "/admin-api/users/"+uid, changed).want(t, 400, "read_only")
		c.do("PUT", "/admin-api/users/"+uid, map[string]any{"nonsense": 1}).want(t, 400, "unknown_column")
	})
}
