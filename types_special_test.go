package admin

import (
	"context"
	"encoding/csv"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// testOdd has the columns a game writes special values into behind the
// panel's back.
type testOdd struct {
	bun.BaseModel `bun:"table:odd_values,alias:o"`

	ID     int64          `bun:"id,pk,autoincrement"`
	At     *time.Time     `bun:"at"`
	Local  *time.Time     `bun:"local,type:timestamp"`
	Day    *time.Time     `bun:"day,type:date"`
	Amount *float64       `bun:"amount,type:numeric"`
	Ratio  *float64       `bun:"ratio"`
	Qty    *int64         `bun:"qty"`
	Note   *string        `bun:"note"`
	Doc    map[string]any `bun:"doc"`
	Items  []*testOddItem `bun:"rel:has-many,join:id=odd_id"`
}

// testOddItem gives testOdd a tab, so _counts has something to count.
type testOddItem struct {
	bun.BaseModel `bun:"table:odd_items,alias:oi"`

	ID    int64 `bun:"id,pk,autoincrement"`
	OddID int64 `bun:"odd_id,notnull"`
}

// TestSpecialStoredValues writes by SQL the values a game's own code can
// store and the model's Go types cannot hold, and checks no page breaks:
// list, read, _counts and the CSV export answer 200 with the literal,
// update and delete still work on the row, and a cell that cannot be
// shown as stored says so and is logged with the row's key.
func TestSpecialStoredValues(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testOdd)(nil), (*testOddItem)(nil))
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"odd": (*testOdd)(nil), "oddItems": (*testOddItem)(nil)})})
		c, _ := e.bootstrap()
		ctx := context.Background()
		pg := db.Dialect().Name() == dialect.PG
		// Row 1 holds the special values; row 2 a plain one, so pages
		// with both are checked.
		stmts := []string{
			`INSERT INTO odd_values (id, at, local, day, amount, ratio, note, doc) VALUES
			 (1, 'infinity', '-infinity', 'infinity', 'NaN', 'NaN', 'plain', '"bare"')`,
			`INSERT INTO odd_values (id, at, local, day, amount, ratio, qty, note) VALUES
			 (2, '2024-05-06 07:08:09.5+00', '2024-05-06 07:08:09', '2024-05-06', 12.30, 1.5, 3, 'ok')`,
			`INSERT INTO odd_items (odd_id) VALUES (1), (1)`,
		}
		if pg {
			stmts = append(stmts, `INSERT INTO odd_values (id, at, ratio) VALUES (3, '-infinity', 'Infinity')`)
		} else {
			// SQLite keeps what it is given: invalid UTF-8 in text, text
			// in an integer column.
			stmts = append(stmts, `INSERT INTO odd_values (id, ratio, qty, note) VALUES (3, 'Infinity', 'many', CAST(X'6F6BFF21' AS TEXT))`)
		}
		for _, s := range stmts {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}

		list, _ := c.list(t, "/admin-api/odd", nil)
		if len(list) != 3 {
			t.Fatalf("list = %d rows; want 3", len(list))
		}
		byID := map[string]map[string]any{}
		for _, r := range list {
			byID[fmt.Sprint(r["id"])] = r
		}
		want := map[string]any{"at": "infinity", "local": "-infinity", "day": "infinity", "amount": "NaN", "ratio": "NaN", "doc": "bare"}
		for col, w := range want {
			if got := byID["1"][col]; got != w {
				t.Errorf("list row 1 %s = %#v; want %#v", col, got, w)
			}
		}
		if got := byID["3"]["ratio"]; got != "Infinity" {
			t.Errorf("list row 3 ratio = %#v; want \"Infinity\"", got)
		}
		if got := byID["2"]["at"]; got != "2024-05-06T07:08:09.5Z" {
			t.Errorf("list row 2 at = %#v; want 2024-05-06T07:08:09.5Z", got)
		}
		if _, ok := byID["1"]["_invalid"]; ok {
			t.Errorf("row 1 _invalid = %v; special values are values, not faults", byID["1"]["_invalid"])
		}
		// Sorted on a column holding them, the special values take the
		// database's order.
		if pg {
			sorted, _ := c.list(t, "/admin-api/odd", map[string][]string{"_sort": {"at"}, "_order": {"asc"}})
			if got := strings.Join(column(sorted, "id"), ","); got != "3,2,1" {
				t.Errorf("sorted by at = %s; want 3,2,1 (-infinity, 2024, infinity)", got)
			}
		}

		read := c.do("GET", "/admin-api/odd/1", nil).want(t, 200)
		for col, w := range want {
			if got := read.body[col]; got != w {
				t.Errorf("read %s = %#v; want %#v", col, got, w)
			}
		}
		counts := c.do("GET", "/admin-api/odd/1/_counts", nil).want(t, 200)
		if counts.body["items"] != float64(2) {
			t.Errorf("_counts = %s; want items 2", counts.raw)
		}

		r := c.do("GET", "/admin-api/odd/_export.csv?_sort=id", nil).want(t, 200)
		recs, err := csv.NewReader(strings.NewReader(string(r.raw))).ReadAll()
		if err != nil {
			t.Fatalf("CSV: %v\n%s", err, r.raw)
		}
		if len(recs) != 4 {
			t.Fatalf("CSV has %d records; want header and 3 rows:\n%s", len(recs), r.raw)
		}
		head := map[string]int{}
		for i, h := range recs[0] {
			head[h] = i
		}
		for col, w := range map[string]string{"at": "infinity", "local": "'-infinity", "day": "infinity", "amount": "NaN", "ratio": "NaN", "doc": `"bare"`} {
			if got := recs[1][head[col]]; got != w {
				t.Errorf("CSV row 1 %s = %q; want %q", col, got, w)
			}
		}
		if got := recs[2][head["amount"]]; got != "12.3" && got != "12.30" {
			t.Errorf("CSV row 2 amount = %q; want 12.30", got)
		}

		// The row can still be edited and the edit is audited.
		up := c.do("PATCH", "/admin-api/odd/1", map[string]any{"note": "edited"}).want(t, 200)
		if up.body["at"] != "infinity" || up.body["note"] != "edited" {
			t.Errorf("PATCH answer = %s; want at infinity, note edited", up.raw)
		}
		// The row read back unchanged is accepted and changes nothing.
		put := map[string]any{}
		for k, v := range read.body {
			if k != "id" && !strings.HasPrefix(k, "_") {
				put[k] = v
			}
		}
		put["note"] = "edited"
		back := c.do("PUT", "/admin-api/odd/1", put).want(t, 200)
		// A bare string sent back unchanged is kept; a new one is refused,
		// as the game's own code reads the column into a map.
		if r := c.do("PATCH", "/admin-api/odd/1", map[string]any{"doc": "other"}); r.StatusCode != 400 || r.body["fields"] == nil {
			t.Errorf("PATCH doc with a new bare string = %d %s; want 400 naming doc", r.StatusCode, r.raw)
		}
		for col, w := range want {
			if got := back.body[col]; got != w {
				t.Errorf("after PUT %s = %#v; want %#v", col, got, w)
			}
		}

		if !pg {
			bad := byID["3"]
			inv, _ := bad["_invalid"].(map[string]any)
			if bad["note"] != "ok\uFFFD!" || inv["note"] == nil {
				t.Errorf("row 3 note = %#v, _invalid = %#v; want ok\uFFFD! flagged", bad["note"], bad["_invalid"])
			}
			if bad["qty"] != "many" || inv["qty"] == nil {
				t.Errorf("row 3 qty = %#v, _invalid = %#v; want the stored text flagged", bad["qty"], bad["_invalid"])
			}
			if logs := e.logs.String(); !strings.Contains(logs, "cell cannot be shown as stored") || !strings.Contains(logs, "id=3") || !strings.Contains(logs, "column=qty") {
				t.Errorf("log lacks the cell's cause with its row key:\n%s", logs)
			}
		}
		c.do("DELETE", "/admin-api/odd/3", nil).want(t, 200)
		if len(e.auditRows("update")) == 0 || len(e.auditRows("delete")) != 1 {
			t.Errorf("audit: %d updates, %d deletes; want the edit and the delete", len(e.auditRows("update")), len(e.auditRows("delete")))
		}
	})
}
