package querytest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

type renderOwner struct {
	bun.BaseModel `bun:"table:render_owners,alias:ro"`

	ID    int64  `bun:"id,pk,autoincrement"`
	Name  string `bun:"name"`
	Email string `bun:"email"`
}

// renderRow has a column of every kind the database renders, and NULLs.
type renderRow struct {
	bun.BaseModel `bun:"table:render_rows,alias:rr"`

	ID      int64           `bun:"id,pk,autoincrement"`
	OwnerID *int64          `bun:"owner_id"`
	Small   int16           `bun:"small,type:smallint"`
	Count   *int32          `bun:"count"`
	Name    string          `bun:"name,notnull"`
	Note    *string         `bun:"note,type:varchar(200)"`
	Token   string          `bun:"token,type:uuid,nullzero"`
	Active  bool            `bun:"active"`
	At      time.Time       `bun:"at,type:timestamptz,nullzero"`
	Meta    map[string]any  `bun:"meta,type:jsonb"`
	Raw     json.RawMessage `bun:"raw,type:json"`
	Secret  string          `bun:"secret"`
}

// TestRenderMatchesGo: a page the database renders is, byte for byte, the
// page the Go path reads and encodes (ScanPage, Page, AppendRowsJSON), for
// sorts, windows, keyset pages and labels, over text that JSON escapes,
// JSON with whitespace, infinite and fractional timestamps and NULLs; and
// the cursor is the same. A year RFC 3339 cannot write leaves the page to
// the Go path. SQLite, and a column of another kind, are not rendered.
func TestRenderMatchesGo(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		for _, m := range []any{(*renderOwner)(nil), (*renderRow)(nil)} {
			if _, err := db.NewCreateTable().Model(m).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		owners := []renderOwner{{ID: 1, Name: "Ann <admin>"}, {ID: 2, Email: "bo@example.com"}, {ID: 3}}
		if _, err := db.NewInsert().Model(&owners).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		texts := []string{"plain", `quote " and \ back`, "tags <b> & amp", "line\nbreak\ttab\b\f\x01", "sep\u2028\u2029", "ünï©ødé 🎮", ""}
		base := time.Date(2026, 11, 25, 16, 37, 30, 0, time.UTC)
		var rows []renderRow
		for i := int64(1); i <= 40; i++ {
			o := i%5 + 1
			n := int32(i * 1000)
			note := texts[(i+3)%int64(len(texts))]
			r := renderRow{
				ID: i, OwnerID: &o, Small: int16(-i), Count: &n, Name: texts[i%int64(len(texts))], Note: &note,
				Active: i%2 == 0, At: base.Add(time.Duration(i) * 1234567 * time.Microsecond),
				Meta: map[string]any{"level": i, "tag": texts[i%int64(len(texts))], "list": []any{1, "two", nil}},
				Raw:  json.RawMessage(`{ "spaced" :  [1, 2,  {"a": "b"}] , "html": "<&>" }`), Secret: "s3cret",
			}
			if i%4 == 0 {
				r.Token = fmt.Sprintf("0196f3a0-2b7c-7d4e-8f00-%012d", i)
			}
			if i%6 == 0 {
				r.OwnerID, r.Count, r.Note, r.Meta, r.Raw = nil, nil, nil, nil, nil
			}
			if i%9 == 0 {
				r.At = time.Time{} // NULL
			}
			rows = append(rows, r)
		}
		if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if db.Dialect().Name() == dialect.PG {
			if _, err := db.ExecContext(ctx, "UPDATE render_rows SET at = 'infinity' WHERE id = 5; UPDATE render_rows SET at = '-infinity' WHERE id = 7; UPDATE render_rows SET raw = 'null' WHERE id = 11"); err != nil {
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
		lb := []query.Label{{FK: "owner_id", Table: "render_owners", Ref: "id", Columns: []string{"name", "email"}}}
		pg := db.Dialect().Name() == dialect.PG

		page := func(q string, labels []query.Label) (goBody []byte, goNext string, rendered []byte, rNext string, ok bool) {
			t.Helper()
			v, _ := url.ParseQuery(q)
			l, err := query.Parse(tbl, v, nil)
			if err != nil {
				t.Fatal(err)
			}
			sel := l.WithLabels(db, l.Apply(query.Select(db, tbl), tbl), tbl, labels)
			goRows, err := query.ScanPage(ctx, sel, tbl, hidden, labels)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if l.Limit > 0 {
				goRows, goNext = l.Page(tbl, goRows)
			}
			if goBody, err = query.AppendRowsJSON(nil, goRows); err != nil {
				t.Fatal(err)
			}
			rd := l.Render(db, sel, tbl, hidden, labels)
			if !pg {
				if rd != nil {
					t.Fatal("SQLite pages are rendered in Go, not by the database")
				}
				return goBody, goNext, nil, "", false
			}
			if rd == nil {
				t.Fatalf("%s: not rendered", q)
			}
			rendered, _, rNext, ok, err = rd.Page(ctx, l, []byte("prefix"))
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if !strings.HasPrefix(string(rendered), "prefix") {
				t.Fatalf("%s: the buffer's bytes were lost: %.20s", q, rendered)
			}
			return goBody, goNext, rendered[len("prefix"):], rNext, ok
		}
		queries := []string{
			"_start=0&_end=100", "_sort=name&_order=desc&_start=3&_end=17", "_sort=at&_order=asc&_start=0&_end=40",
			"_limit=7", "_limit=7&_sort=name&_order=desc", "_limit=100", "name=plain&_start=0&_end=10", "_start=0&_end=0",
		}
		for _, q := range queries {
			for _, labels := range [][]query.Label{nil, lb} {
				goBody, goNext, rendered, rNext, ok := page(q, labels)
				if !pg {
					continue
				}
				if !ok {
					t.Fatalf("%s: the page was left to Go", q)
				}
				if string(rendered) != string(goBody) {
					t.Fatalf("%s (labels %v): rendered page differs from Go's:\nrendered %s\ngo       %s", q, labels != nil, rendered, goBody)
				}
				if rNext != goNext {
					t.Fatalf("%s: cursor %q, Go's %q", q, rNext, goNext)
				}
				if strings.HasPrefix(q, "_limit=7") && rNext == "" {
					t.Fatalf("%s: no cursor for a page with more rows", q)
				}
			}
		}
		if !pg {
			return
		}
		// Following the rendered cursors walks the table as Go's do.
		cursor := ""
		seen := 0
		for range 10 {
			_, goNext, rendered, rNext, _ := page("_limit=15&_sort=name&_cursor="+cursor, lb)
			var got []map[string]any
			if err := json.Unmarshal(rendered, &got); err != nil {
				t.Fatal(err)
			}
			seen += len(got)
			if rNext != goNext {
				t.Fatalf("cursor %q, Go's %q", rNext, goNext)
			}
			if cursor = rNext; cursor == "" {
				break
			}
		}
		if seen != 40 {
			t.Fatalf("the walk saw %d rows, want 40", seen)
		}
		// One row by its key, as a read renders it: the object of the
		// row, as Go's.
		for id := int64(1); id <= 41; id++ {
			one := query.JoinLabels(db, query.WherePK(query.Select(db, tbl), tbl, map[string]any{"id": id}), lb, nil)
			goRows, err := query.ScanPage(ctx, one, tbl, hidden, lb)
			if err != nil {
				t.Fatal(err)
			}
			goBody, _ := query.AppendRowsJSON(nil, goRows)
			rendered, n, _, ok, err := (&query.List{}).Render(db, one, tbl, hidden, lb).Page(ctx, nil, nil)
			if err != nil || !ok || n != len(goRows) || string(rendered) != string(goBody) {
				t.Fatalf("row %d: rendered %s (%d rows, ok %v, %v), Go's %s", id, rendered, n, ok, err, goBody)
			}
		}
		// A year RFC 3339 cannot write: the Go path shows it with a note.
		if _, err := db.ExecContext(ctx, "UPDATE render_rows SET at = '10000-01-01' WHERE id = 2"); err != nil {
			t.Fatal(err)
		}
		if _, _, _, _, ok := page("_start=0&_end=100", nil); ok {
			t.Fatal("a page with year 10000 was rendered by the database")
		}
		// Another kind of column: not rendered.
		if _, err := db.ExecContext(ctx, "ALTER TABLE render_rows ALTER COLUMN count TYPE numeric"); err != nil {
			t.Fatal(err)
		}
		if _, err := schema.ReadCatalog(ctx, db, tbl); err != nil {
			t.Fatal(err)
		}
		v, _ := url.ParseQuery("_start=0&_end=10")
		l, _ := query.Parse(tbl, v, nil)
		if l.Render(db, l.Apply(query.Select(db, tbl), tbl), tbl, hidden, nil) != nil {
			t.Fatal("a numeric column was rendered by the database")
		}
	})
}
