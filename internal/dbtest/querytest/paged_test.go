package querytest

import (
	"context"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

type visit struct {
	bun.BaseModel `bun:"table:visits,alias:v"`

	ID      int64      `bun:"id,pk,autoincrement"`
	OwnerID *int64     `bun:"owner_id"`
	Place   string     `bun:"place,notnull"`
	At      time.Time  `bun:"at,notnull"`
	Left    *time.Time `bun:"left_at"`
}

// TestPagedMatchesSelect: a page whose timestamps are converted outside
// its window (List.Query) has the rows, values, order and labels of
// the page converted inside it (WithLabels over Select), at offsets, on
// sorts without an index, with keyset pages, and with PostgreSQL's
// infinite timestamps.
func TestPagedMatchesSelect(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		for _, m := range []any{(*owner)(nil), (*visit)(nil)} {
			if _, err := db.NewCreateTable().Model(m).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		owners := []owner{{ID: 1, Name: "Ann"}, {ID: 2, Email: "bo@example.com"}, {ID: 3}}
		if _, err := db.NewInsert().Model(&owners).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		base := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
		var visits []visit
		for i := int64(1); i <= 60; i++ {
			o := i%4 + 1
			at := base.Add(-time.Duration(i*7919%61) * 90 * time.Minute).Add(time.Duration(i) * time.Microsecond)
			v := visit{ID: i, OwnerID: &o, Place: []string{"dock", "arena", "hub"}[i%3], At: at}
			if i%5 == 0 {
				left := at.Add(time.Hour)
				v.Left = &left
			}
			visits = append(visits, v)
		}
		if _, err := db.NewInsert().Model(&visits).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if db.Dialect().Name() == dialect.PG {
			if _, err := db.ExecContext(ctx, "UPDATE visits SET left_at = 'infinity' WHERE id = 3; UPDATE visits SET at = '-infinity' WHERE id = 4"); err != nil {
				t.Fatal(err)
			}
		}
		tbl, err := schema.Inspect(db, "visits", (*visit)(nil))
		if err != nil {
			t.Fatal(err)
		}
		lb := []query.Label{{FK: "owner_id", Table: "owners", Ref: "id", Columns: []string{"name", "email"}}}
		for _, q := range []string{"_start=0&_end=100", "_start=40&_end=55", "_sort=at&_order=desc&_start=10&_end=30", "_sort=place&_start=5&_end=25", "_limit=9&_sort=at", "place=hub&_start=0&_end=10"} {
			for _, labels := range [][]query.Label{nil, lb} {
				v, _ := url.ParseQuery(q)
				l, err := query.Parse(tbl, v, nil)
				if err != nil {
					t.Fatal(err)
				}
				want, err := query.ScanPage(ctx, l.WithLabels(db, l.Apply(query.Select(db, tbl), tbl), tbl, labels), tbl, nil, labels)
				if err != nil {
					t.Fatal(err)
				}
				got, err := query.ScanPage(ctx, l.Query(db, tbl, tbl, labels, nil), tbl, nil, labels)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				if len(want) == 0 || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s (labels %v): paged %v\nwant %v", q, labels != nil, got, want)
				}
			}
		}
	})
}
