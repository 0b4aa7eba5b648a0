package querytest

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"net/url"
	"testing"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// fuzzTarget is one database with the items and pairs tables.
type fuzzTarget struct {
	db           *bun.DB
	itemT, pairT *schema.Table
}

// fuzzTargets sets up SQLite and PostgreSQL (skipped when unreachable,
// unless ADMIN_REQUIRE_PG=1).
func fuzzTargets(f *testing.F) []fuzzTarget {
	sq := testdb.SQLite(f)
	it, pt := setup(f, sq)
	pg := testdb.PG(f)
	pit, ppt := setup(f, pg)
	return []fuzzTarget{{sq, it, pt}, {pg, pit, ppt}}
}

// wantQueryError fails unless err is an *Error with a code: what the panel
// answers as a 400.
func wantQueryError(t *testing.T, what string, err error) {
	t.Helper()
	var qe *query.Error
	if !errors.As(err, &qe) || qe.Code == "" {
		t.Fatalf("%s = %v (%T); want an *Error", what, err, err)
	}
}

// FuzzDecodeID feeds arbitrary :id segments to DecodeID for a single and a
// composite key: each is refused with an *Error, or selects without a
// database error and encodes back to an id that decodes to the same key.
func FuzzDecodeID(f *testing.F) {
	for _, s := range []string{
		"1", "-7", "9223372036854775808", "1e3", " 1", "abc", "",
		base64.RawURLEncoding.EncodeToString([]byte(`["x",1]`)),
		base64.URLEncoding.EncodeToString([]byte(`["y/z",-7]`)),
		base64.RawURLEncoding.EncodeToString([]byte(`["x",1.5]`)),
		base64.RawURLEncoding.EncodeToString([]byte(`["x",null]`)),
		base64.RawURLEncoding.EncodeToString([]byte(`["x",1,2]`)),
		base64.RawURLEncoding.EncodeToString([]byte(`[{},[]]`)),
		base64.RawURLEncoding.EncodeToString([]byte(`["\u0000",99999999999999999999]`)),
		"====", "%%", "WyJ4IiwxXQ==", "WyJ4IiwxXQ=",
	} {
		f.Add(s)
	}
	targets := fuzzTargets(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, raw string) {
		for _, tg := range targets {
			for _, tb := range []*schema.Table{tg.itemT, tg.pairT} {
				id, err := query.DecodeID(tb, raw)
				if err != nil {
					wantQueryError(t, "DecodeID("+raw+")", err)
					continue
				}
				_, err = query.ScanRow(ctx, query.WherePK(query.Select(tg.db, tb), tb, id), tb, nil)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					t.Fatalf("%s on %s: select by DecodeID(%q) = %v: %v", tb.Key, tg.db.Dialect().Name(), raw, id, err)
				}
				again, err := query.DecodeID(tb, query.EncodeID(tb, id))
				if err != nil {
					t.Fatalf("%s: DecodeID(EncodeID(DecodeID(%q) = %v)): %v", tb.Key, raw, id, err)
				}
				for _, c := range tb.PK {
					if !equal(again[c.Name], id[c.Name]) {
						t.Fatalf("%s: %q decodes to %v, its encoding to %v", tb.Key, raw, id, again)
					}
				}
			}
		}
	})
}

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
