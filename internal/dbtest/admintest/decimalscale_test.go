package admintest

import (
	"context"
	"testing"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// ledger's model says only "numeric" for amount: the scale the catalog
// gives must come from the table the database has.
type ledger struct {
	bun.BaseModel `bun:"table:ledgers"`

	ID     int64  `bun:"id,pk,autoincrement"`
	Amount string `bun:"amount,type:numeric"`
	Whole  string `bun:"whole,type:numeric"`
	Free   string `bun:"free,type:numeric"`
	Tagged string `bun:"tagged,type:numeric(8,3)"`
}

// TestCatalogDecimalScale: a decimal column's scale is in the catalog, read
// from the database (PostgreSQL's typmod, SQLite's declared type), so the
// panel shows 2500.50 as numeric(12,2) keeps it; a bare numeric has none.
func TestCatalogDecimalScale(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		if _, err := db.ExecContext(context.Background(), `CREATE TABLE ledgers (id INTEGER PRIMARY KEY,
			amount NUMERIC(12,2), whole DECIMAL(10), free NUMERIC, tagged NUMERIC(8,3))`); err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"ledgers": (*ledger)(nil)})})
		c, _ := e.bootstrap()
		scales := map[string]any{}
		for _, res := range rows(t, c.do("GET", "/admin-api", nil).want(t, 200)) {
			if res["name"] != "ledgers" {
				continue
			}
			for _, col := range res["columns"].([]any) {
				col := col.(map[string]any)
				if col["name"] != "id" && col["kind"] != "decimal" {
					t.Errorf("column %s kind = %v; want decimal", col["name"], col["kind"])
				}
				if s, ok := col["scale"]; ok {
					scales[col["name"].(string)] = s
				}
			}
		}
		want := map[string]any{"amount": 2.0, "whole": 0.0, "tagged": 3.0}
		free := "1.50"
		if db.Dialect().Name() == dialect.MySQL {
			// MySQL has no unbounded decimal: a bare NUMERIC is
			// DECIMAL(10,0), whole numbers.
			want["free"], free = 0.0, "2"
		}
		if len(scales) != len(want) {
			t.Errorf("scales = %v; want %v (none for a bare numeric)", scales, want)
		}
		for k, v := range want {
			if scales[k] != v {
				t.Errorf("scale of %s = %v; want %v", k, scales[k], v)
			}
		}

		// The answer keeps the scale, though SQLite stores 2500.50 in a
		// NUMERIC column as the REAL 2500.5 (and 7 as the INTEGER 7).
		c.do("POST", "/admin-api/ledgers", map[string]any{"id": 1, "amount": "2500.50", "whole": "7", "free": free, "tagged": "7"}).want(t, 201)
		got := c.do("GET", "/admin-api/ledgers/1", nil).want(t, 200).body
		for k, v := range map[string]string{"amount": "2500.50", "whole": "7", "tagged": "7.000"} {
			if got[k] != v {
				t.Errorf("%s = %#v; want %q (body %v)", k, got[k], v, got)
			}
		}
	})
}
