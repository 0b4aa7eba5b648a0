package querytest

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
)

func TestParseErrors(t *testing.T) {
	db := testdb.SQLite(t)
	tb, _ := setup(t, db)
	many := make([]string, query.MaxFilters+1)
	for i := range many {
		many[i] = fmt.Sprintf("score_gt=%d", i)
	}
	longIn := "id_in=" + strings.Repeat("1,", query.MaxInItems) + "1"
	badCursor := base64.RawURLEncoding.EncodeToString([]byte(`{"k":["name","id"],"v":["a",1]}`))
	tests := []struct {
		q    string
		code string
	}{
		{"nme_eq=1", query.CodeUnknownColumn},
		{"name_xx=1", query.CodeUnknownColumn},
		{"nope=1", query.CodeUnknownColumn},
		{"_sort=nope", query.CodeUnknownColumn},
		{"_sort=name,nope", query.CodeUnknownColumn},
		{"score_eq=abc", query.CodeInvalidValue},
		{"score_eq=1.5", query.CodeInvalidValue},
		{"score_eq=99999999999999999999", query.CodeInvalidValue},
		{"ratio_gt=NaNx", query.CodeInvalidValue},
		{"active_eq=yes", query.CodeInvalidValue},
		{"at_gt=yesterday", query.CodeInvalidValue},
		{"at_gt=2024-13-01", query.CodeInvalidValue},
		{"at_gt=0000-01-01", query.CodeInvalidValue},
		{"score_in=1,x,3", query.CodeInvalidValue},
		{"note_null=maybe", query.CodeInvalidValue},
		{"name_eq=a%00b", query.CodeInvalidValue},
		{"name_eq=%FF", query.CodeInvalidValue},
		{"name_eq=" + strings.Repeat("a", query.MaxValueLen+1), query.CodeInvalidValue},
		{"_q=" + strings.Repeat("a", query.MaxQLen+1), query.CodeInvalidValue},
		{longIn, query.CodeInvalidQuery},
		{strings.Join(many, "&"), query.CodeInvalidQuery},
		{"score_like=1", query.CodeInvalidQuery},
		{"active_gt=true", query.CodeInvalidQuery},
		{"meta_eq=1", query.CodeInvalidQuery},
		{"blob_eq=1", query.CodeInvalidQuery},
		{"blob_like=1", query.CodeInvalidQuery},
		{"_sort=meta", query.CodeInvalidQuery},
		{"_sort=name,name", query.CodeInvalidQuery},
		{"_sort=a,b,c,d,e", query.CodeInvalidQuery},
		{"_sort=name&_order=up", query.CodeInvalidValue},
		{"_sort=name,id&_order=asc,desc,asc", query.CodeInvalidQuery},
		{"_order=desc", query.CodeInvalidQuery},
		{"_start=-1", query.CodeInvalidValue},
		{"_end=-5", query.CodeInvalidValue},
		{"_start=x", query.CodeInvalidValue},
		{"_start=10&_end=5", query.CodeInvalidQuery},
		{"_start=1&_start=2", query.CodeInvalidQuery},
		{"_start=0&_limit=10", query.CodeInvalidQuery},
		{"_limit=0", query.CodeInvalidValue},
		{"_limit=1001", query.CodeInvalidValue},
		{"_limit=10&_sort=note", query.CodeInvalidQuery},
		{"_limit=10&_cursor=!!!", query.CodeInvalidValue},
		{"_limit=10&_cursor=e30", query.CodeInvalidValue},
		{"_limit=10&_cursor=" + badCursor, query.CodeInvalidValue},
		{"_limit=10&_sort=name&_cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"k":["name","id"],"v":["a","x"]}`)), query.CodeInvalidValue},
		{"_limit=10&_sort=name&_cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"k":["name","id"],"v":["a",null]}`)), query.CodeInvalidValue},
	}
	for _, tt := range tests {
		v, err := url.ParseQuery(tt.q)
		if err != nil {
			t.Fatalf("url.ParseQuery(%q): %v", tt.q, err)
		}
		l, err := query.Parse(tb, v, nil)
		var qe *query.Error
		if !errors.As(err, &qe) || qe.Code != tt.code {
			t.Errorf("Parse(%.80q) = %v, %v; want code %s", tt.q, l, err, tt.code)
		}
	}

	// A cursor for _sort=name is accepted with _sort=name.
	v, _ := url.ParseQuery("_limit=10&_sort=name&_cursor=" + badCursor)
	if _, err := query.Parse(tb, v, nil); err != nil {
		t.Errorf("Parse(name cursor) = %v; want nil", err)
	}
	// Ignored parameters are not filters.
	v, _ = url.ParseQuery("_banned=true&score_eq=1")
	if l, err := query.Parse(tb, v, nil, "_banned"); err != nil || len(l.Filters) != 1 {
		t.Errorf("Parse(_banned ignored) = %v, %v; want one filter", l, err)
	}
	// _fields names columns; it is no filter.
	v, _ = url.ParseQuery("_fields=name, score,name&score_eq=1")
	if l, err := query.Parse(tb, v, nil); err != nil || len(l.Filters) != 1 || !slices.Equal(l.Fields, []string{"name", "score"}) {
		t.Errorf("Parse(_fields=name, score,name) = %v, %v; want fields name and score, one filter", l, err)
	}
	for _, tt := range []struct{ q, code string }{{"_fields=a", query.CodeUnknownColumn}, {"_fields=name,", query.CodeUnknownColumn}, {"_fields=", query.CodeInvalidValue}} {
		v, _ = url.ParseQuery(tt.q)
		var qe *query.Error
		if _, err := query.Parse(tb, v, nil); !errors.As(err, &qe) || qe.Code != tt.code {
			t.Errorf("Parse(%s) = %v; want %s", tt.q, err, tt.code)
		}
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

// FuzzParse checks that no query string makes Parse fail with anything but
// an *Error, or makes the resulting SQL fail, on SQLite and PostgreSQL.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "name_like=a%25_b", "score_in=1,2,3", "_sort=score,name&_order=desc,asc&_start=5&_end=9",
		"at_gte=2024-01-01&at_lt=2024-02-01T00:00:00Z", "active=true&note_null=false", "_q=%27%3B--",
		"_limit=2&_sort=at&_order=desc", "meta_like=%22", "ratio_ne=-1e300", "id_in=", "name_eq=%FF%00",
		"_limit=3&_cursor=eyJrIjpbImlkIl0sInYiOlsxXX0", "blob_null=1", "name_gt=\\",
		"meta_key=stats.level:3", "meta_key=items.0.id:7", "meta_key=%22a%27b%22.%22c;--%22:1", "meta_key=a..b:1", "meta_key=$.a:1",
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
