package querytest

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

type tier string

// plainRow has the fields whose driver values a page takes as they are,
// and their neighbours that go through the model.
type plainRow struct {
	bun.BaseModel `bun:"table:plain_rows,alias:pr"`

	ID     int64    `bun:"id,pk"`
	Count  int      `bun:"count"`
	Small  int32    `bun:"small"`
	Name   string   `bun:"name"`
	Tier   tier     `bun:"tier"`
	Active bool     `bun:"active"`
	Score  float64  `bun:"score"`
	Ratio  float32  `bun:"ratio"`
	Note   *string  `bun:"note"`
	Level  *int64   `bun:"level"`
	Rate   *float64 `bun:"rate"`
}

// TestPlainCellsMatchTheModel: a page's cells, read from the driver's
// values where the model's field would hand them back unchanged, are what
// the model gives (RowMap of the same rows loaded by Bun), NULLs and
// PostgreSQL's NaN and infinities included.
func TestPlainCellsMatchTheModel(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := db.NewCreateTable().Model((*plainRow)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		note, level, rate := "ünï <b>", int64(math.MinInt64), 2.5
		rows := []plainRow{
			{ID: 1, Count: 7, Small: -3, Name: "a", Tier: "gold", Active: true, Score: 0.1, Ratio: 0.1, Note: &note, Level: &level, Rate: &rate},
			{ID: math.MaxInt64, Count: math.MinInt32, Name: "", Score: -1e300, Ratio: 3},
			{ID: 3, Score: 1e-7},
		}
		if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		tbl, err := schema.Inspect(db, "plainRows", (*plainRow)(nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := schema.ReadCatalog(ctx, db, tbl); err != nil {
			t.Fatal(err)
		}
		got, err := query.ScanRows(ctx, query.Select(db, tbl).Order("id"), tbl, nil)
		if err != nil {
			t.Fatal(err)
		}
		var loaded []plainRow
		if err := db.NewSelect().Model(&loaded).Order("id").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(loaded) {
			t.Fatalf("%d rows; want %d", len(got), len(loaded))
		}
		for i := range loaded {
			want, err := query.RowMap(tbl, &loaded[i], nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got[i], want) {
				t.Errorf("row %d:\n got %#v\nwant %#v", i, got[i], want)
			}
		}
		if db.Dialect().Name() != dialect.PG {
			return
		}
		// Special floats are shown as their names, never as numbers.
		if _, err := db.ExecContext(ctx, "UPDATE plain_rows SET score = 'NaN', rate = '-Infinity' WHERE id = 3"); err != nil {
			t.Fatal(err)
		}
		row, err := query.ScanRow(ctx, query.Select(db, tbl).Where("id = 3"), tbl, nil)
		if err != nil {
			t.Fatal(err)
		}
		if row["score"] != "NaN" || row["rate"] != "-Infinity" {
			t.Fatalf("score %#v, rate %#v; want \"NaN\" and \"-Infinity\"", row["score"], row["rate"])
		}
	})
}
