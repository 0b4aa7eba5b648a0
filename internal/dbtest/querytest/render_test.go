package querytest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

type renderTier string

// renderRow has a column of every kind a page shows: those PostgreSQL
// renders (integers in 64-bit fields, booleans, text, varchar, uuid,
// timestamptz in time.Time fields, json and jsonb) and those it leaves to
// the Go path, whose cells the model or the column's kind shape (a
// timestamp without time zone is shown as its wall clock).
type renderRow struct {
	bun.BaseModel `bun:"table:render_rows,alias:rr"`

	ID      int64           `bun:"id,pk,autoincrement"`
	OwnerID *int64          `bun:"owner_id"`
	Small   int64           `bun:"small,type:smallint"`
	Count   *int64          `bun:"count,type:integer"`
	Active  bool            `bun:"active"`
	Name    string          `bun:"name,notnull"`
	Note    *string         `bun:"note,type:varchar(200)"`
	Token   string          `bun:"token,type:uuid,nullzero"`
	Tier    renderTier      `bun:"tier"`
	At      time.Time       `bun:"at,type:timestamptz,nullzero"`
	Wall    time.Time       `bun:"wall,type:timestamp,nullzero"`
	Meta    map[string]any  `bun:"meta,type:jsonb"`
	Raw     json.RawMessage `bun:"raw,type:json"`
	Secret  string          `bun:"secret"`
	Narrow  int16           `bun:"narrow"`
	Score   float64         `bun:"score"`
	Price   float64         `bun:"price,type:numeric(12,2)"`
	Day     time.Time       `bun:"day,type:date,nullzero"`
	Tags    []string        `bun:"tags,array"`
	Blob    []byte          `bun:"blob"`
	Addr    string          `bun:"addr,type:inet,nullzero"`
	Mood    string          `bun:"mood,type:render_mood,nullzero"`
	Doc     string          `bun:"doc,type:text"`
}

// rendered are the columns of renderRow that PostgreSQL renders; the
// others leave a page that sends them to the Go path.
var rendered = []string{"id", "owner_id", "small", "count", "active", "name", "note", "token", "tier", "at", "meta", "raw", "secret", "doc"}

// TestRenderedPageIsGoPage: a list page PostgreSQL renders (List.Render)
// is, byte for byte, the page the Go path reads and encodes (ScanFrom,
// Page or OffsetCursor, Unasked, AppendRowsJSON) of the same query, and
// its cursor the same: every kind the database renders, over text JSON escapes, JSON
// with whitespace and nulls, timestamps with fractions, old years and
// infinities, NULLs, labels (empty ones left out) and a hidden column,
// for windows, sorts, filters, _fields and keyset walks. A column of
// every other kind, sent, leaves the page to the Go path, and so does a
// row holding a year RFC 3339 cannot write. Other databases are read in
// Go.
func TestRenderedPageIsGoPage(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if db.Dialect().Name() != dialect.PG {
			if _, err := db.NewCreateTable().Model((*owner)(nil)).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			ot, err := schema.Inspect(db, "owners", (*owner)(nil))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := schema.ReadCatalog(ctx, db, ot); err != nil {
				t.Fatal(err)
			}
			l := parseList(t, ot, "_start=0&_end=10")
			if l.Render(db, ot, ot, nil, nil) != nil {
				t.Fatal("a page is rendered by a database other than PostgreSQL")
			}
			return
		}
		if _, err := db.ExecContext(ctx, "CREATE TYPE render_mood AS ENUM ('calm', 'angry')"); err != nil {
			t.Fatal(err)
		}
		for _, m := range []any{(*owner)(nil), (*renderRow)(nil)} {
			if _, err := db.NewCreateTable().Model(m).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		owners := []owner{{ID: 1, Name: "Ann <admin> & \"co\""}, {ID: 2, Email: "bo@example.com"}, {ID: 3}, {ID: 4, Name: "line\nbreak\u2028"}, {ID: 5, Name: "Zoë 🎮"}}
		if _, err := db.NewInsert().Model(&owners).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		texts := []string{"plain", `quote " and \ back`, "tags <b> & amp", "line\nbreak\ttab\b\f\x01\x1f\x7f", "sep\u2028\u2029", "ünï©ødé 🎮", "", "/slash"}
		base := time.Date(2026, 11, 25, 16, 37, 30, 0, time.UTC)
		var rows []renderRow
		for i := int64(1); i <= 45; i++ {
			o, n := i%6+1, int64(i*1000)
			note := texts[(i+3)%int64(len(texts))]
			r := renderRow{
				ID: i, OwnerID: &o, Small: -i, Count: &n, Active: i%2 == 0, Name: texts[i%int64(len(texts))], Note: &note,
				Tier: renderTier(texts[(i+1)%int64(len(texts))]), At: base.Add(time.Duration(i) * 1234567 * time.Microsecond),
				Wall: base.Add(-time.Duration(i) * time.Hour), Meta: map[string]any{"level": i, "tag": texts[i%int64(len(texts))], "list": []any{1, "two", nil, 2.5}},
				Raw:    json.RawMessage(`{ "spaced" :  [1, 2,  {"a": "b"}] , "html": "<&>", "esc": "\u00e9\n" }`),
				Secret: "s3cret", Narrow: int16(i), Score: float64(i) / 3, Price: float64(i) * 1.25, Day: base,
				Tags: []string{"a", texts[i%int64(len(texts))]}, Blob: []byte{byte(i), 0}, Addr: "10.0.0.1", Mood: "calm", Doc: `{"a":1}`,
			}
			if i%4 == 0 {
				r.Token = fmt.Sprintf("0196f3a0-2b7c-7d4e-8f00-%012d", i)
			}
			if i%6 == 0 {
				r.OwnerID, r.Count, r.Note, r.Meta, r.Raw = nil, nil, nil, nil, nil
			}
			if i%9 == 0 {
				r.At, r.Wall = time.Time{}, time.Time{} // NULL
			}
			rows = append(rows, r)
		}
		if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{
			"UPDATE render_rows SET at = 'infinity', wall = '-infinity' WHERE id = 5",
			"UPDATE render_rows SET at = '-infinity', wall = 'infinity' WHERE id = 7",
			"UPDATE render_rows SET at = '0044-03-15 12:00:00.5+00', wall = '0999-12-31 23:59:59.999999' WHERE id = 8",
			"UPDATE render_rows SET raw = 'null', meta = 'null' WHERE id = 11",
			`UPDATE render_rows SET raw = '[]', meta = '{"deep": {"x": [[], {}]}, "n": -1.5e10, "t": true}' WHERE id = 13`,
			"UPDATE render_rows SET at = '2026-01-01 00:00:00+00', wall = '2026-01-01 00:00:00.1' WHERE id = 14",
		} {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		tbl, err := schema.Inspect(db, "renderRows", (*renderRow)(nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := schema.ReadCatalog(ctx, db, tbl); err != nil {
			t.Fatal(err)
		}
		hidden := map[string]bool{"secret": true}
		labels := []query.Label{{FK: "owner_id", Table: "owners", Ref: "id", Columns: []string{"name", "email"}}}

		// page reads q's page both ways: Go's bytes and cursor, and the
		// rendered ones (ok false: left to Go; nil Render: not rendered).
		page := func(q string, labels []query.Label) (goBody []byte, goNext string, rBody []byte, rNext string, ok, renders bool) {
			t.Helper()
			l := parseList(t, tbl, q)
			sel := l.Query(db, tbl, tbl, labels, nil)
			rs, err := sel.Rows(ctx)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			goRows, err := query.ScanFrom(rs, tbl, hidden, labels)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if l.Limit > 0 {
				goRows, goNext = l.Page(tbl, goRows)
			} else {
				goNext = l.OffsetCursor(tbl, goRows)
			}
			l.Unasked(tbl, goRows)
			if goBody, err = query.AppendRowsJSON(nil, goRows); err != nil {
				t.Fatal(err)
			}
			rd := l.Render(db, tbl, tbl, hidden, labels)
			if rd == nil {
				return goBody, goNext, nil, "", false, false
			}
			if got, want := rd.Query(db, sel).String(), rd.Text(sel.String()); got != want {
				t.Fatalf("%s: the rendered query's text\n%s\nis not its Text\n%s", q, got, want)
			}
			rs, err = rd.Query(db, sel).Rows(ctx)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			rBody, rNext, ok, err = rd.AppendPage(rs, []byte("prefix"))
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if !strings.HasPrefix(string(rBody), "prefix") {
				t.Fatalf("%s: the buffer's bytes were lost: %.20s", q, rBody)
			}
			return goBody, goNext, rBody[len("prefix"):], rNext, ok, true
		}
		same := func(q string, labels []query.Label) {
			t.Helper()
			goBody, goNext, rBody, rNext, ok, renders := page(q, labels)
			switch {
			case !renders:
				t.Fatalf("%s: not rendered", q)
			case !ok:
				t.Fatalf("%s: left to the Go path", q)
			case string(rBody) != string(goBody):
				t.Fatalf("%s (labels %v): the rendered page is not Go's:\nrendered %s\nGo       %s", q, labels != nil, rBody, goBody)
			case rNext != goNext:
				t.Fatalf("%s: cursor %q; Go's %q", q, rNext, goNext)
			}
		}
		// Every column kind alone: rendered as Go writes it, or left to Go.
		for _, c := range tbl.Columns {
			q := "_start=0&_end=100&_sort=id&_fields=" + c.Name
			goBody, _, rBody, _, ok, renders := page(q, nil)
			want := slices.Contains(rendered, c.Name)
			if renders != want {
				t.Errorf("column %s (%s, %s): rendered %v; want %v", c.Name, c.DBType, c.Kind, renders, want)
				continue
			}
			if renders && (!ok || string(rBody) != string(goBody)) {
				t.Errorf("column %s: rendered %s (ok %v); Go's %s", c.Name, rBody, ok, goBody)
			}
		}
		if _, _, _, _, _, renders := page("_start=0&_end=10", labels); renders {
			t.Error("a page sending every column was rendered; some kinds are Go's")
		}

		fields := "_fields=" + strings.Join(rendered, ",")
		for _, q := range []string{
			"_start=0&_end=100", "_sort=name&_order=desc&_start=3&_end=17", "_sort=at&_order=asc&_start=0&_end=45",
			"_sort=wall&_order=desc&_start=0&_end=45", "_limit=7", "_limit=7&_sort=name&_order=desc", "_limit=100",
			"name=plain&_start=0&_end=10", "_start=0&_end=0", "id=999", "_q=plain",
		} {
			for _, lb := range [][]query.Label{nil, labels} {
				same(q+"&"+fields, lb)
			}
		}
		same("_start=0&_end=10&_fields=name", nil) // the key and a column
		if _, goNext, _, rNext, _, _ := page("_start=0&_end=10&_sort=name&"+fields, labels); goNext == "" || rNext != goNext {
			t.Errorf("a full offset page's cursor %q; Go's %q, want one", rNext, goNext)
		}
		same("_start=0&_end=10&_fields=owner_id,at", labels)

		// Following the rendered cursors walks the table as Go's do.
		for _, sort := range []string{"name", "name&_order=desc", "id&_order=desc"} {
			cursor, seen := "", 0
			for range 20 {
				q := "_limit=8&_sort=" + sort + "&" + fields + "&_cursor=" + url.QueryEscape(cursor)
				same(q, labels)
				_, _, rBody, rNext, _, _ := page(q, labels)
				var got []map[string]any
				if err := json.Unmarshal(rBody, &got); err != nil {
					t.Fatal(err)
				}
				seen += len(got)
				if cursor = rNext; cursor == "" {
					break
				}
			}
			if seen != len(rows) {
				t.Errorf("the walk by %s saw %d rows; want %d", sort, seen, len(rows))
			}
		}

		// A year RFC 3339 cannot write: the Go path shows it.
		for _, s := range []string{"at = '10000-01-01 00:00:00+00'", "at = '0044-03-15 12:00:00+00 BC'"} {
			if _, err := db.ExecContext(ctx, "UPDATE render_rows SET "+s+" WHERE id = 2"); err != nil {
				t.Fatal(err)
			}
			if _, _, _, _, ok, renders := page("_start=0&_end=100&"+fields, labels); !renders || ok {
				t.Errorf("%s: rendered %v, ok %v; want the page left to the Go path", s, renders, ok)
			}
			if _, err := db.ExecContext(ctx, "UPDATE render_rows SET at = now(), wall = now() WHERE id = 2"); err != nil {
				t.Fatal(err)
			}
		}
		same("_start=0&_end=100&"+fields, labels)
	})
}

// parseList parses the list query q on t.
func parseList(t *testing.T, tb *schema.Table, q string) *query.List {
	t.Helper()
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	l, err := query.Parse(tb, v, nil)
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	return l
}
