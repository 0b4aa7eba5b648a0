package querytest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
)

func TestIDRoundTrip(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		itemT, pairT := setup(t, db)
		ctx := context.Background()
		for _, tb := range []*schema.Table{itemT, pairT} {
			rows, err := query.ScanRows(ctx, query.Select(db, tb), tb, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rows {
				raw := query.EncodeID(tb, row)
				id, err := query.DecodeID(tb, raw)
				if err != nil {
					t.Fatalf("DecodeID(%q) error: %v", raw, err)
				}
				got, err := query.ScanRow(ctx, query.WherePK(query.Select(db, tb), tb, id), tb, nil)
				if err != nil {
					t.Fatalf("%s: select by DecodeID(%q) = %v: %v", tb.Key, raw, id, err)
				}
				if again := query.EncodeID(tb, got); again != raw {
					t.Errorf("%s: EncodeID(select(DecodeID(%q))) = %q", tb.Key, raw, again)
				}
			}
		}
		// Padded base64 is accepted too.
		raw := base64.URLEncoding.EncodeToString([]byte(`["y/z",-7]`))
		if id, err := query.DecodeID(pairT, raw); err != nil || id["a"] != "y/z" || id["b"] != int64(-7) {
			t.Errorf("DecodeID(%q) = %v, %v; want a=y/z b=-7", raw, id, err)
		}
	})
}

func TestDecodeIDErrors(t *testing.T) {
	db := testdb.SQLite(t)
	itemT, pairT := setup(t, db)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		tb  *schema.Table
		raw string
	}{
		{itemT, "abc"},
		{itemT, "1.5"},
		{itemT, ""},
		{pairT, "not base64!"},
		{pairT, enc(`["x"]`)},
		{pairT, enc(`["x",1,2]`)},
		{pairT, enc(`["x","one"]`)},
		{pairT, enc(`[1,1]`)},
		{pairT, enc(`["x",null]`)},
		{pairT, enc(`{"a":"x"}`)},
		{pairT, enc(`["x",1] []`)},
	}
	for _, tt := range tests {
		id, err := query.DecodeID(tt.tb, tt.raw)
		var qe *query.Error
		if !errors.As(err, &qe) || qe.Code != query.CodeInvalidValue {
			t.Errorf("DecodeID(%s, %q) = %v, %v; want invalid_value", tt.tb.Key, tt.raw, id, err)
		}
	}
}

func TestConvertValue(t *testing.T) {
	db := testdb.SQLite(t)
	tb, _ := setup(t, db)
	c := tb.ByName
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		col  string
		in   any
		want any
	}{
		{"score", json.Number("42"), int64(42)},
		{"score", "42", int64(42)},
		{"ratio", json.Number("1.25"), 1.25},
		{"ratio", "2", 2.0},
		{"active", true, true},
		{"active", "0", false},
		{"at", "2024-05-06T09:08:09+02:00", at},
		{"name", "x", "x"},
		{"note", nil, nil},
		{"meta", map[string]any{"a": json.Number("1")}, json.RawMessage(`{"a":1}`)},
		{"meta", "text", json.RawMessage(`"text"`)},
		{"blob", "AQI=", []byte{1, 2}},
		{"blob", "AQI", []byte{1, 2}},
	}
	for _, tt := range tests {
		got, err := query.ConvertValue(c[tt.col], tt.in)
		if err != nil || !equal(got, tt.want) {
			t.Errorf("ConvertValue(%s, %#v) = %#v, %v; want %#v", tt.col, tt.in, got, err, tt.want)
		}
	}
	bad := []struct {
		col string
		in  any
	}{
		{"score", json.Number("1.5")}, {"score", "x"}, {"score", true},
		{"ratio", "NaNa"}, {"ratio", []any{}},
		{"active", "yes"}, {"active", json.Number("2")},
		{"at", "soon"}, {"at", json.Number("1")},
		{"name", json.Number("1")}, {"name", "a\x00b"},
		{"blob", "***"}, {"blob", json.Number("1")},
	}
	for _, tt := range bad {
		got, err := query.ConvertValue(c[tt.col], tt.in)
		var qe *query.Error
		if !errors.As(err, &qe) || qe.Code != query.CodeInvalidValue {
			t.Errorf("ConvertValue(%s, %#v) = %#v, %v; want invalid_value", tt.col, tt.in, got, err)
		}
	}
}

func equal(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if ta, ok := a.(time.Time); ok {
		tb, ok := b.(time.Time)
		return ok && ta.Equal(tb)
	}
	return string(ja) == string(jb)
}

func TestRowMap(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		tb, _ := setup(t, db)
		q := query.WherePK(query.Select(db, tb), tb, map[string]any{"id": int64(4)})
		row, err := query.ScanRow(context.Background(), q, tb, map[string]bool{"blob": true})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"id": int64(4), "name": "dave", "note": "a_b", "score": int64(20), "ratio": -1.0,
			"active": false, "at": day("2024-02-01T00:00:00Z"), "meta": map[string]any{"tag": "vip"},
		}
		if len(row) != len(want) {
			t.Errorf("RowMap keys = %v; want %v (blob hidden)", row, want)
		}
		for k, w := range want {
			if !equal(row[k], w) {
				t.Errorf("RowMap[%s] = %#v; want %#v", k, row[k], w)
			}
		}
		if _, ok := row["at"].(time.Time); !ok {
			t.Errorf("RowMap[at] is %T; want time.Time", row["at"])
		}
		row, err = query.ScanRow(context.Background(), query.WherePK(query.Select(db, tb), tb, map[string]any{"id": int64(3)}), tb, nil)
		if err != nil {
			t.Fatal(err)
		}
		if row["note"] != nil || row["meta"] != nil || row["blob"] != nil {
			t.Errorf("RowMap of NULLs = note %#v meta %#v blob %#v; want nil", row["note"], row["meta"], row["blob"])
		}
	})
}

// TestConvertValueUUID: a uuid column takes any form uuid.Parse reads and
// gives the canonical lower-case one, so keys match the stored rows (an
// upper-case id in a bulk selection answered unknown_id); text that is no
// UUID is invalid_value.
func TestConvertValueUUID(t *testing.T) {
	c := &schema.Column{Name: "id", DataType: schema.String, SQLType: "uuid"}
	for _, in := range []string{"0193A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B", "{0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b}"} {
		if got, err := query.ConvertValue(c, in); err != nil || got != "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" {
			t.Errorf("ConvertValue(uuid, %q) = %v, %v; want the canonical form", in, got, err)
		}
	}
	if _, err := query.ConvertValue(c, "not-a-uuid"); err == nil {
		t.Error("ConvertValue(uuid, not-a-uuid) = nil error")
	}
}

// brokenValuer is a column type whose Value fails.
type brokenValuer struct{}

func (brokenValuer) Value() (driver.Value, error) { return nil, errors.New("no value today") }

// TestRowMapValuerError: a driver.Valuer that fails is an error naming the
// column, not a silent null.
func TestRowMapValuerError(t *testing.T) {
	type valued struct {
		bun.BaseModel `bun:"table:valued"`
		ID            int64        `bun:"id,pk"`
		Tag           brokenValuer `bun:"tag,type:text"`
	}
	db := testdb.SQLite(t)
	tb, err := schema.Inspect(db, "valued", (*valued)(nil))
	if err != nil {
		t.Fatal(err)
	}
	row, err := query.RowMap(tb, &valued{ID: 1}, nil)
	if err == nil || !strings.Contains(err.Error(), `"tag"`) || !strings.Contains(err.Error(), "no value today") {
		t.Fatalf("RowMap = %v, %v; want an error naming tag and its cause", row, err)
	}
}

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
