package querytest

import (
	"context"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// FuzzCursor feeds arbitrary _cursor bytes to a keyset list: each is
// refused with an *Error, or the page it names runs without a database
// error on both databases.
func FuzzCursor(f *testing.F) {
	enc := func(s string) []byte { return []byte(s) }
	for _, s := range [][]byte{
		enc(`{"k":["id"],"v":[1]}`), enc(`{"k":["-score","-id"],"v":[20,2]}`), enc(`{"k":["at","id"],"v":["2024-01-02T12:00:00Z",2]}`),
		enc(`{"k":["id"],"v":[null]}`), enc(`{"k":["id"],"v":["x"]}`), enc(`{"k":["id"],"v":[1e400]}`),
		enc(`{"k":["id"],"v":[1]} {}`), enc(`{"k":[],"v":[]}`), enc(`[]`), enc(`{"k":["name","id"],"v":["\u0000",1]}`),
		{0xff, 0xfe}, {},
	} {
		f.Add(s, "")
		f.Add(s, "-score")
		f.Add(s, "at")
		f.Add(s, "name")
	}
	targets := fuzzTargets(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, cursor []byte, sort string) {
		v := url.Values{"_limit": {"2"}, "_cursor": {base64.RawURLEncoding.EncodeToString(cursor)}}
		if sort != "" {
			if sort[0] == '-' {
				v.Set("_sort", sort[1:])
				v.Set("_order", "desc")
			} else {
				v.Set("_sort", sort)
			}
		}
		for _, tg := range targets {
			l, err := query.Parse(tg.itemT, v, nil)
			if err != nil {
				wantQueryError(t, "Parse("+v.Encode()+")", err)
				continue
			}
			if _, err := query.ScanRows(ctx, l.Apply(query.Select(tg.db, tg.itemT), tg.itemT), tg.itemT, nil); err != nil {
				t.Fatalf("cursor %q on %s: query error %v", cursor, tg.db.Dialect().Name(), err)
			}
		}
	})
}

// TestCursorBoundFirst: a keyset page states the cursor's bound before
// the filters. SQLite seeks by the first bound of a column it meets, so
// with a filter on the sort key first (id_lte=…) every batch of an export
// scanned from the filter's bound down to the cursor. The page is the
// same either way; the order is what SQLite's seek follows.
func TestCursorBoundFirst(t *testing.T) {
	db := testdb.SQLite(t)
	tbl, err := schema.Inspect(db, "pets", (*pet)(nil))
	if err != nil {
		t.Fatal(err)
	}
	cursor := base64.RawURLEncoding.EncodeToString([]byte(`{"k":["-id"],"v":[500]}`))
	l, err := query.Parse(tbl, url.Values{"_limit": {"10"}, "_sort": {"id"}, "_order": {"desc"}, "id_lte": {"900"}, "_cursor": {cursor}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sql := l.Apply(query.Select(db, tbl), tbl).String()
	bound, filter := strings.Index(sql, "< (500)"), strings.Index(sql, "<= 900")
	if bound < 0 || filter < 0 || bound > filter {
		t.Fatalf("the cursor's bound is not before the filter:\n%s", sql)
	}
}
