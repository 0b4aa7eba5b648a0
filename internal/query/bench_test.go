package query_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/testdb"
)

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
	// The keyset cursor of the row before position 900,000 in score order.
	v, _ := url.ParseQuery("_sort=score&_start=899999&_end=900000")
	l, _ := query.Parse(tb, v, nil)
	rows, err := query.ScanRows(ctx, l.Apply(query.Select(db, tb), tb), tb, nil)
	if err != nil || len(rows) != 1 {
		b.Fatal(rows, err)
	}
	v, _ = url.ParseQuery("_sort=score&_limit=100")
	kl, _ := query.Parse(tb, v, nil)
	cursor := kl.NextCursor(tb, rows[0])

	b.Run("offset-page-900000", func(b *testing.B) {
		for b.Loop() {
			page(b, "_sort=score&_start=900000&_end=900100")
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
