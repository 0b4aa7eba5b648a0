package querytest

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// FuzzParse checks that no query string makes Parse fail with anything but
// an *Error, or makes the resulting SQL fail, on SQLite and PostgreSQL.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "name_like=a%25_b", "score_in=1,2,3", "_sort=score,name&_order=desc,asc&_start=5&_end=9",
		"at_gte=2024-01-01&at_lt=2024-02-01T00:00:00Z", "active=true&note_null=false", "_q=%27%3B--",
		"_limit=2&_sort=at&_order=desc", "meta_like=%22", "ratio_ne=-1e300", "id_in=", "name_eq=%FF%00",
		"_limit=3&_cursor=eyJrIjpbImlkIl0sInYiOlsxXX0", "blob_null=1", "name_gt=\\",
	} {
		f.Add(s)
	}
	ctx := context.Background()
	type target struct {
		db *bun.DB
		tb *schema.Table
	}
	var targets []target
	sq := testdb.SQLite(f)
	tb, _ := setup(f, sq)
	targets = append(targets, target{sq, tb})
	pg := testdb.PG(f) // skips the fuzz test when PostgreSQL is unreachable, unless ADMIN_REQUIRE_PG=1
	ptb, _ := setup(f, pg)
	targets = append(targets, target{pg, ptb})
	f.Fuzz(func(t *testing.T, qs string) {
		v, err := url.ParseQuery(qs)
		if err != nil {
			return
		}
		for _, tg := range targets {
			l, err := query.Parse(tg.tb, v, nil)
			if err != nil {
				var qe *query.Error
				if !errors.As(err, &qe) || qe.Code == "" {
					t.Fatalf("Parse(%q) = %v (%T); want an *Error", qs, err, err)
				}
				return
			}
			rows, err := query.ScanRows(ctx, l.Apply(query.Select(tg.db, tg.tb), tg.tb), tg.tb, nil)
			if err != nil {
				t.Fatalf("Parse(%q) on %s: query error %v", qs, tg.db.Dialect().Name(), err)
			}
			rows, next := l.Page(tg.tb, rows)
			if next != "" {
				v.Set("_cursor", next)
				if _, err := query.Parse(tg.tb, v, nil); err != nil {
					t.Fatalf("Parse(%q) with its own next cursor: %v", qs, err)
				}
			}
			q := l.ApplyFilters(query.Select(tg.db, tg.tb), tg.tb)
			if _, _, err := query.Count(ctx, tg.db, tg.tb, q, true, query.CountOptions{}); err != nil {
				t.Fatalf("Parse(%q) on %s: count error %v", qs, tg.db.Dialect().Name(), err)
			}
			for _, r := range rows {
				if _, err := query.DecodeID(tg.tb, query.EncodeID(tg.tb, r)); err != nil {
					t.Fatalf("DecodeID(EncodeID(%v)): %v", r, err)
				}
			}
		}
	})
}
