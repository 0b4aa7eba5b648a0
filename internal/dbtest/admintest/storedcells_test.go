package admintest

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// testPurchase keeps its receipt, JSON, in a TEXT column the game writes
// by hand, and tags as an array (JSON text on SQLite).
type testPurchase struct {
	bun.BaseModel `bun:"table:purchases,alias:pu"`

	ID      int64          `bun:"id,pk,autoincrement"`
	Receipt map[string]any `bun:"receipt,type:text"`
	Tags    []string       `bun:"tags,array"`
	Stock   int64          `bun:"stock"`
	Tier    string         `bun:"tier,notnull"`
}

// TestMalformedStoredJSON: a TEXT column holding JSON with a malformed
// row is filtered by _key (and an array by _contains) without a 500: the
// malformed rows match nothing, on every database; their cells show the
// stored text with the _invalid marker other unreadable cells get.
// MariaDB's JSON column checks json_valid, so there the malformed JSON is
// in the TEXT column only, and the array's text that is not JSON in the
// VARCHAR Bun creates for it, as on SQLite.
func TestMalformedStoredJSON(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testPurchase)(nil))
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"purchases": (*testPurchase)(nil)})})
		root, _ := e.bootstrap()
		ctx := context.Background()
		pg := db.Dialect().Name() == dialect.PG
		tags := `'["a","b"]'`
		if pg {
			tags = `'{a,b}'`
		}
		for _, s := range []string{
			`INSERT INTO purchases (id, receipt, tags, stock, tier) VALUES (1, '{"key": "txn:T9", "amount": 5}', ` + tags + `, 1, 'gold')`,
			`INSERT INTO purchases (id, receipt, tags, stock, tier) VALUES (2, '{"key":"txn:T1","amount":7}', ` + tags + `, 1, 'gold')`,
			`INSERT INTO purchases (id, receipt, tags, stock, tier) VALUES (3, '{"key": "txn:T9"', ` + tags + `, 1, 'gold')`,
			`INSERT INTO purchases (id, receipt, tags, stock, tier) VALUES (4, 'txn:T9', ` + tags + `, 1, 'gold')`,
		} {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		if !pg { // SQLite and MariaDB's VARCHAR keep a tags text that is not JSON
			if _, err := db.ExecContext(ctx, `INSERT INTO purchases (id, receipt, tags, stock, tier) VALUES (5, '{}', 'a,b', 1, 'gold')`); err != nil {
				t.Fatal(err)
			}
		}
		for q, want := range map[string]string{
			"receipt_key=key:txn:T9": "1",
			"receipt_key=amount:7":   "2",
			"receipt_key=key:null":   "",
			"receipt_key=gone:true":  "",
		} {
			v, _ := url.ParseQuery(q + "&_sort=id")
			got, r := root.list(t, "/admin-api/purchases", v)
			if ids := strings.Join(column(got, "id"), ","); ids != want || r.Header.Get("X-Total-Count") != strconv.Itoa(len(got)) {
				t.Errorf("?%s = %s (total %s); want %s", q, ids, r.Header.Get("X-Total-Count"), want)
			}
			root.do("GET", "/admin-api/purchases/_export.csv?"+v.Encode(), nil).want(t, 200)
		}
		for _, q := range []string{"tags_contains=a", "tags_overlaps=b,c", "tags_empty=false"} {
			v, _ := url.ParseQuery(q)
			got, _ := root.list(t, "/admin-api/purchases", v)
			if len(got) != 4 { // not row 5's text
				t.Errorf("?%s = %v; want rows 1 to 4", q, column(got, "id"))
			}
		}

		list, _ := root.list(t, "/admin-api/purchases", url.Values{"_sort": {"id"}})
		for _, r := range list {
			inv, _ := r["_invalid"].(map[string]any)
			switch r["id"] {
			case float64(1), float64(2):
				if inv != nil {
					t.Errorf("row %v _invalid = %v; want none", r["id"], inv)
				}
			case float64(3), float64(4):
				if _, ok := r["receipt"].(string); !ok || inv["receipt"] == nil {
					t.Errorf("row %v receipt = %#v, _invalid = %v; want the stored text, marked", r["id"], r["receipt"], inv)
				}
			case float64(5):
				if r["tags"] != "a,b" || inv["tags"] == nil {
					t.Errorf("row 5 tags = %#v, _invalid = %v; want the stored text, marked", r["tags"], inv)
				}
			}
		}
		read := root.do("GET", "/admin-api/purchases/4", nil).want(t, 200)
		if inv, _ := read.body["_invalid"].(map[string]any); inv["receipt"] == nil {
			t.Errorf("read of row 4 = %s; want receipt marked", read.raw)
		}

		// Text that reads as an object and is not JSON: SQLite and
		// MariaDB skip it;
		// PostgreSQL 15 has no cast that does not fail, and its refusal is
		// the client's 400, never a 500.
		if _, err := db.ExecContext(ctx, `INSERT INTO purchases (id, receipt, tier) VALUES (9, '{"key": }', 'gold')`); err != nil {
			t.Fatal(err)
		}
		if pg {
			root.do("GET", "/admin-api/purchases?receipt_key=key:txn:T9", nil).want(t, 400, "invalid_value")
		} else if got, _ := root.list(t, "/admin-api/purchases", url.Values{"receipt_key": {"key:txn:T9"}}); strings.Join(column(got, "id"), ",") != "1" {
			t.Errorf("receipt_key=key:txn:T9 with row 9 = %v; want 1", column(got, "id"))
		}
	})
}

// TestPutRowAsRead: a row read and sent back by PUT changes nothing and
// answers 200, whatever its cells hold: text in a SQLite INTEGER column
// (MariaDB and PostgreSQL refuse it), a value no longer among the
// column's Choices, JSON text that does not parse. A changed value is still
// checked, and an unchanged one beside it does not stop a change.
func TestPutRowAsRead(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testPurchase)(nil))
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"purchases": (*testPurchase)(nil)}), Resources: map[string]*Resource{
			"purchases": DefineResource((*testPurchase)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"tier": {Choices: []string{"gold", "silver"}}}}),
		}})
		// The OpenAPI document's row schema lists Choices as an enum, which
		// a stored value outside them (bronze) does not fit: not checked.
		e.spec = nil
		root, _ := e.bootstrap()
		ctx := context.Background()
		sqlite := db.Dialect().Name() == dialect.SQLite
		stock := "3"
		if sqlite {
			stock = "'many'" // SQLite keeps text in an INTEGER column
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO purchases (id, receipt, stock, tier) VALUES (1, '{"key":"a"}', `+stock+`, 'bronze')`); err != nil {
			t.Fatal(err)
		}
		read := root.do("GET", "/admin-api/purchases/1", nil).want(t, 200)
		if sqlite && read.body["stock"] != "many" {
			t.Fatalf("read = %s; want stock \"many\"", read.raw)
		}
		back := root.do("PUT", "/admin-api/purchases/1", read.body).want(t, 200)
		if back.body["stock"] != read.body["stock"] || back.body["tier"] != "bronze" {
			t.Errorf("after PUT = %s; want the row as it was", back.raw)
		}
		// JSON text that does not parse, in the TEXT column (MariaDB's
		// JSON column would refuse it), read as its text: sent back, it
		// is the cell unchanged.
		if _, err := db.ExecContext(ctx, `INSERT INTO purchases (id, receipt, stock, tier) VALUES (2, '{"key": ', 1, 'gold')`); err != nil {
			t.Fatal(err)
		}
		bad := root.do("GET", "/admin-api/purchases/2", nil).want(t, 200)
		if bad.body["receipt"] != `{"key": ` {
			t.Fatalf("read = %s; want the stored receipt text", bad.raw)
		}
		if got := root.do("PUT", "/admin-api/purchases/2", bad.body).want(t, 200); got.body["receipt"] != `{"key": ` {
			t.Errorf("after PUT = %s; want the receipt as it was", got.raw)
		}
		if n := len(e.auditRows("update")); n != 0 {
			t.Errorf("%d update entries after a PUT of the rows as read; want none", n)
		}

		// A change is checked; the unchanged cells beside it pass.
		put := map[string]any{}
		for k, v := range read.body {
			put[k] = v
		}
		put["tier"] = "copper"
		root.do("PUT", "/admin-api/purchases/1", put).want(t, 400, "invalid_value")
		put["tier"], put["stock"] = "bronze", "lots"
		r := root.do("PUT", "/admin-api/purchases/1", put).want(t, 400, "invalid_value")
		if f, _ := r.body["fields"].(map[string]any); f["stock"] == nil {
			t.Errorf("PUT with new text in stock = %s; want stock named", r.raw)
		}
		put["stock"] = 7
		if got := root.do("PUT", "/admin-api/purchases/1", put).want(t, 200); got.body["stock"] != float64(7) || got.body["tier"] != "bronze" {
			t.Errorf("PUT stock 7 = %s; want stock 7, tier bronze", got.raw)
		}
		ups := e.auditRows("update")
		if len(ups) != 1 {
			t.Fatalf("%d update entries; want 1", len(ups))
		}
		if ch, _ := ups[0].Payload["changes"].(map[string]any); len(ch) != 1 || ch["stock"] == nil {
			t.Errorf("update's changes = %v; want stock only", ups[0].Payload["changes"])
		}
		var n int64
		if err := db.NewSelect().Table("purchases").Column("stock").Where("id = 1").Scan(ctx, &n); err != nil || n != 7 {
			t.Fatalf("stored stock = %d, %v; want 7", n, err)
		}
	})
}
