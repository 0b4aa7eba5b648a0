package querytest

import (
	"context"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

func TestApply(t *testing.T) {
	tests := []struct {
		q    string
		want []int64
	}{
		{"", []int64{1, 2, 3, 4, 5, 6}},
		// string
		{"name_eq=bob", []int64{2}},
		{"name=bob", []int64{2}},
		{"name_ne=bob", []int64{1, 3, 4, 5, 6}},
		{"name_like=ALI", []int64{1, 6}},
		{"name_like=l_x", []int64{3}},
		{"name_like=a_", nil},
		{"name_like=l_", []int64{3}},
		{"name_gt=c&name_lt=e", []int64{4}},
		{"name_gte=bob&name_lte=bob", []int64{2}},
		{"name_in=bob,Eve,nobody", []int64{2, 5}},
		{"note_ne=x", []int64{1, 2, 3, 4, 5}},
		{"note_null=true", []int64{3}},
		{"note_null=false", []int64{1, 2, 4, 5, 6}},
		// LIKE escaping: % and _ and \ are literal
		{"note_like=50%25", []int64{1}},
		{"note_like=a_b", []int64{4}},
		{"note_like=%5C", []int64{5}},
		// integer
		{"score_eq=20", []int64{2, 4}},
		{"score_ne=20", []int64{1, 3, 5, 6}},
		{"score_gt=20", []int64{3, 5}},
		{"score_gte=20", []int64{2, 3, 4, 5}},
		{"score_lt=10", []int64{6}},
		{"score_lte=10", []int64{1, 6}},
		{"score_in=-5,50", []int64{5, 6}},
		{"id_in=3", []int64{3}},
		// number
		{"ratio_eq=0.5", []int64{1}},
		{"ratio_gt=1.5", []int64{3, 6}},
		{"ratio_lte=0", []int64{4, 5}},
		{"ratio_in=-1,3.25", []int64{4, 6}},
		{"ratio_ne=0", []int64{1, 2, 3, 4, 6}},
		// boolean
		{"active_eq=true", []int64{1, 3, 5}},
		{"active=0", []int64{2, 4, 6}},
		{"active_ne=1", []int64{2, 4, 6}},
		{"active_in=true,false", []int64{1, 2, 3, 4, 5, 6}},
		// datetime
		{"at_eq=2024-01-02T12:00:00Z", []int64{2}},
		{"at_eq=2024-01-02T14:00:00%2B02:00", []int64{2}},
		{"at_gte=2024-01-02", []int64{2, 3, 4, 5}},
		{"at_lt=2024-01-01", []int64{6}},
		{"at_gt=2023-12-31T23:59:59Z", []int64{1, 2, 3, 4, 5, 6}},
		{"at_lte=2023-12-31T23:59:59.5Z", []int64{6}},
		{"at_ne=2024-01-01T00:00:00Z", []int64{2, 3, 4, 5, 6}},
		{"at_in=2024-02-01,2024-03-01", []int64{4, 5}},
		// json: _like over the JSON text, _null
		{"meta_like=vip", []int64{4}},
		{"meta_null=true", []int64{3, 5, 6}},
		// bytes: _null only
		{"blob_null=false", []int64{4}},
		// _q over text columns (name, note)
		{"_q=alice", []int64{1, 6}},
		{"_q=OFF", []int64{1, 2}},
		{"_q=50%25", []int64{1}},
		{"_q=zzz", nil},
		// combined
		{"score_gte=20&active=false&_q=o", []int64{2}},
		// sort and window
		{"_sort=score&_order=desc", []int64{5, 3, 4, 2, 1, 6}}, // ties: id in the same direction
		{"_sort=score", []int64{6, 1, 2, 4, 3, 5}},
		{"_sort=score,name&_order=asc,desc", []int64{6, 1, 4, 2, 3, 5}},
		{"_sort=at&_order=DESC&_start=1&_end=3", []int64{4, 3}},
		{"_start=4", []int64{5, 6}},
		{"_end=2", []int64{1, 2}},
		{"_start=2&_end=2", nil},
		{"_start=100", nil},
	}
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		tb, _ := setup(t, db)
		for _, tt := range tests {
			if db.Dialect().Name() == dialect.MySQL && tt.q == "name_gt=c&name_lt=e" {
				tt.want = []int64{3, 4} // MariaDB's utf8mb4 collation folds case: Carol_x is after c
			}
			v, err := url.ParseQuery(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			l, err := query.Parse(tb, v, nil)
			if err != nil {
				t.Errorf("Parse(%q) error: %v", tt.q, err)
				continue
			}
			got := ids(t, db, tb, l)
			if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("Parse(%q) rows = %v; want %v", tt.q, got, tt.want)
			}
		}
	})
}

func TestDefaultSort(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		tb, _ := setup(t, db)
		def := &query.SortKey{Column: "score", Desc: true}
		tests := []struct {
			q    string
			want []int64
		}{
			{"", []int64{5, 3, 4, 2, 1, 6}}, // ties broken by id in the sort's direction
			{"_order=asc", []int64{6, 1, 2, 4, 3, 5}},
			{"_sort=name", []int64{6, 1, 3, 5, 2, 4}},
		}
		for _, tt := range tests {
			if db.Dialect().Name() == dialect.MySQL && tt.q == "_sort=name" {
				tt.want = []int64{1, 6, 2, 3, 4, 5} // MariaDB's utf8mb4 collation folds case
			}
			v, _ := url.ParseQuery(tt.q)
			l, err := query.Parse(tb, v, def)
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tt.q, err)
			}
			if got := ids(t, db, tb, l); !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q) with default %v rows = %v; want %v", tt.q, *def, got, tt.want)
			}
		}
	})
}

func TestWindowCap(t *testing.T) {
	db := testdb.SQLite(t)
	tb, _ := setup(t, db)
	tests := []struct {
		q          string
		start, end int
	}{
		{"", 0, 100},
		{"_start=10", 10, 110},
		{"_end=5000", 0, 1000},
		{"_start=10&_end=5000", 10, 1010},
		{"_start=7&_end=7", 7, 7},
	}
	for _, tt := range tests {
		v, _ := url.ParseQuery(tt.q)
		l, err := query.Parse(tb, v, nil)
		if err != nil {
			t.Fatalf("Parse(%q) error: %v", tt.q, err)
		}
		if l.Start != tt.start || l.End != tt.end {
			t.Errorf("Parse(%q) window = %d..%d; want %d..%d", tt.q, l.Start, l.End, tt.start, tt.end)
		}
	}
}

func TestKeysetWalk(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		tb, _ := setup(t, db)
		ctx := context.Background()
		// More rows, with many ties on score, to make the walk interesting.
		var more []item
		for i := 0; i < 93; i++ {
			more = append(more, item{ID: int64(100 + i), Name: "n", Score: int64(i % 7), At: day("2024-01-01T00:00:00Z").Add(time.Duration(i%13) * time.Hour)})
		}
		if _, err := db.NewInsert().Model(&more).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		for _, sort := range []string{"", "_sort=score", "_sort=score&_order=desc", "_sort=score,name&_order=desc,asc", "_sort=at&_order=desc", "_sort=name,at"} {
			for _, filter := range []string{"", "&score_gte=2"} {
				base := sort + filter
				v, _ := url.ParseQuery(base + "&_start=0&_end=1000")
				all, err := query.Parse(tb, v, nil)
				if err != nil {
					t.Fatalf("Parse(%q) error: %v", base, err)
				}
				want := ids(t, db, tb, all)

				var got []int64
				cursor := ""
				for page := 0; ; page++ {
					if page > 100 {
						t.Fatalf("Parse(%q): cursor walk does not end", base)
					}
					v, _ := url.ParseQuery(base + "&_limit=7&_cursor=" + url.QueryEscape(cursor))
					l, err := query.Parse(tb, v, nil)
					if err != nil {
						t.Fatalf("Parse(%q) page %d error: %v", base, page, err)
					}
					rows, err := query.ScanRows(ctx, l.Apply(query.Select(db, tb), tb), tb, nil)
					if err != nil {
						t.Fatal(err)
					}
					rows, next := l.Page(tb, rows)
					if len(rows) > 7 {
						t.Fatalf("Page returned %d rows; want at most 7", len(rows))
					}
					for _, r := range rows {
						got = append(got, r["id"].(int64))
					}
					if next == "" {
						break
					}
					cursor = next
				}
				if !slices.Equal(got, want) {
					t.Errorf("Parse(%q) cursor walk = %v\nwant offset walk %v", base, got, want)
				}
			}
		}
	})
}

// BenchmarkListPG compares a deep offset page with the keyset page at the
// same position, and an exact with an estimated count, on 1,000,000 rows.
//
//	ADMIN_REQUIRE_PG=1 go test -run XXX -bench ListPG ./internal/query/
func BenchmarkListPG(b *testing.B) {
	db := testdb.PG(b)
	tb := fillBig(b, db, 1_000_000)
	ctx := context.Background()
	page := func(b *testing.B, qs string) {
		v, _ := url.ParseQuery(qs)
		l, err := query.Parse(tb, v, nil)
		if err != nil {
			b.Fatal(err)
		}
		rows, err := query.ScanRows(ctx, l.Apply(query.Select(db, tb), tb), tb, nil)
		if err != nil || len(rows) < 100 {
			b.Fatalf("rows %d, %v", len(rows), err)
		}
	}
	// The keyset cursor of the row before position 900,000 in score
	// order. The panel answers no offset page that deep (query.MaxOffset):
	// the offset pages here are the statement it would have run.
	deep := func(offset int64) []map[string]any {
		rows, err := query.ScanRows(ctx, query.Select(db, tb).OrderExpr("score, id").Offset(offset).Limit(100), tb, nil)
		if err != nil || len(rows) == 0 {
			b.Fatal(rows, err)
		}
		return rows
	}
	v, _ := url.ParseQuery("_sort=score&_limit=100")
	kl, _ := query.Parse(tb, v, nil)
	cursor := kl.NextCursor(tb, deep(899999)[0])

	b.Run("offset-page-900000", func(b *testing.B) {
		for b.Loop() {
			deep(900000)
		}
	})
	b.Run("keyset-page-900000", func(b *testing.B) {
		for b.Loop() {
			page(b, "_sort=score&_limit=100&_cursor="+cursor)
		}
	})
	b.Run("offset-page-0", func(b *testing.B) {
		for b.Loop() {
			page(b, "_sort=score&_start=0&_end=100")
		}
	})
	for _, bc := range []struct {
		name     string
		filtered bool
		opts     query.CountOptions
	}{
		{"count-exact", false, query.CountOptions{Mode: query.CountExact}},
		{"count-estimated", false, query.CountOptions{}},
		{"count-filtered-auto", true, query.CountOptions{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				q := query.Select(db, tb)
				if bc.filtered {
					q = q.Where("?TableAlias.note LIKE '%1%'")
				}
				if _, _, err := query.Count(ctx, db, tb, q, bc.filtered, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// item has a column of every data type.
type item struct {
	bun.BaseModel `bun:"table:items,alias:it"`

	ID     int64          `bun:"id,pk,autoincrement"`
	Name   string         `bun:"name,notnull"`
	Note   *string        `bun:"note"`
	Score  int64          `bun:"score,notnull"`
	Ratio  float64        `bun:"ratio,notnull"`
	Active bool           `bun:"active,notnull"`
	At     time.Time      `bun:"at,notnull"`
	Meta   map[string]any `bun:"meta"`
	Blob   []byte         `bun:"blob"`
}

// pair has a composite primary key.
type pair struct {
	bun.BaseModel `bun:"table:pairs,alias:p"`

	A string    `bun:"a,pk"`
	B int64     `bun:"b,pk"`
	C time.Time `bun:"c,notnull"`
	V string    `bun:"v,notnull"`
}

func ptr[T any](v T) *T { return &v }

func day(s string) time.Time {
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return tm
}

// seedItems returns fresh rows for setup: an insert writes back through
// their pointer fields, and parallel tests must not share those.
func seedItems() []item {
	return []item{
		{ID: 1, Name: "Alice", Note: ptr("50% off"), Score: 10, Ratio: 0.5, Active: true, At: day("2024-01-01T00:00:00Z"), Meta: map[string]any{"lvl": 5}},
		{ID: 2, Name: "bob", Note: ptr("50 off"), Score: 20, Ratio: 1.5, At: day("2024-01-02T12:00:00Z"), Meta: map[string]any{"lvl": 7}},
		{ID: 3, Name: "Carol_x", Score: 30, Ratio: 2.5, Active: true, At: day("2024-01-03T00:00:00Z")},
		{ID: 4, Name: "dave", Note: ptr("a_b"), Score: 20, Ratio: -1, At: day("2024-02-01T00:00:00Z"), Meta: map[string]any{"tag": "vip"}, Blob: []byte{1, 2}},
		{ID: 5, Name: "Eve", Note: ptr(`back\slash`), Score: 50, Ratio: 0, Active: true, At: day("2024-03-01T00:00:00Z")},
		{ID: 6, Name: "ALICE2", Note: ptr("x"), Score: -5, Ratio: 3.25, At: day("2023-12-31T23:59:59.5Z")},
	}
}

// setup creates and fills the items and pairs tables and inspects them.
func setup(t testing.TB, db *bun.DB) (itemT, pairT *schema.Table) {
	t.Helper()
	ctx := context.Background()
	for _, m := range []any{(*item)(nil), (*pair)(nil)} {
		if _, err := db.NewCreateTable().Model(m).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if db.Dialect().Name() == dialect.MySQL {
		// Bun makes a time.Time a DATETIME, which drops fractions; a
		// game's table keeps them in DATETIME(6).
		for _, ddl := range []string{"ALTER TABLE items MODIFY at DATETIME(6) NOT NULL", "ALTER TABLE pairs MODIFY c DATETIME(6) NOT NULL"} {
			if _, err := db.ExecContext(ctx, ddl); err != nil {
				t.Fatal(err)
			}
		}
	}
	rows := seedItems()
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	pairs := []pair{
		{A: "x", B: 1, C: day("2024-01-01T00:00:00Z"), V: "x1"},
		{A: "x", B: 2, C: day("2024-01-01T00:00:00.123456Z"), V: "x2"},
		{A: "y/z", B: -7, C: day("2024-06-01T10:00:00Z"), V: "yz"},
	}
	if _, err := db.NewInsert().Model(&pairs).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var err error
	if itemT, err = schema.Inspect(db, "items", (*item)(nil)); err != nil {
		t.Fatal(err)
	}
	if pairT, err = schema.Inspect(db, "pairs", (*pair)(nil)); err != nil {
		t.Fatal(err)
	}
	return itemT, pairT
}

// ids runs the list and returns the id column of the rows.
func ids(t testing.TB, db bun.IDB, tb *schema.Table, l *query.List) []int64 {
	t.Helper()
	rows, err := query.ScanRows(context.Background(), l.Apply(query.Select(db, tb), tb), tb, nil)
	if err != nil {
		t.Fatalf("ScanRows: %v", err)
	}
	out := []int64{}
	for _, r := range rows {
		out = append(out, r["id"].(int64))
	}
	return out
}
