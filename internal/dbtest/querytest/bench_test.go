package querytest

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
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

// BenchmarkParse measures parsing a list query string with a sort, a
// window and two filters.
//
//	go test -run '^$' -bench 'Parse|AppendRows' -benchmem ./internal/query/
func BenchmarkParse(b *testing.B) {
	tb, err := schema.Inspect(testdb.SQLite(b), "items", (*item)(nil))
	if err != nil {
		b.Fatal(err)
	}
	v, _ := url.ParseQuery("_sort=score,name&_order=desc,asc&_start=100&_end=200&score_gte=10&name_like=al&_count=none")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := query.Parse(tb, v, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendRows compares the row encoder with encoding/json on a
// 100-row page of typical columns.
func BenchmarkAppendRows(b *testing.B) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := make([]map[string]any, 100)
	for i := range rows {
		rows[i] = map[string]any{"id": int64(i), "user_id": "u12345", "name": "match_end", "created_at": at,
			"payload": map[string]any{"level": 12.0, "score": 3456.0, "platform": "ios"}}
	}
	b.Run("AppendRowsJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 64<<10)
		for b.Loop() {
			if _, err := query.AppendRowsJSON(buf[:0], rows); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(rows); err != nil {
				b.Fatal(err)
			}
		}
	})
}
