package querytest

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// item has a column of every data type.
type item struct {
	bun.BaseModel `bun:"table:items,alias:it"`

	ID     int64          `bun:"id,pk,autoincrement"`
	Name   string         `bun:"name,notnull"`
	Note   *string        `bun:"note"`
	Score  int64          `bun:"score,notnull"`
	Ratio  float64        `bun:"ratio,notnull"`
	Active bool           `bun:"active,notnull"`
	At     time.Time      `bun:"at,notnull"`
	Meta   map[string]any `bun:"meta"`
	Blob   []byte         `bun:"blob"`
}

// pair has a composite primary key.
type pair struct {
	bun.BaseModel `bun:"table:pairs,alias:p"`

	A string    `bun:"a,pk"`
	B int64     `bun:"b,pk"`
	C time.Time `bun:"c,notnull"`
	V string    `bun:"v,notnull"`
}

func ptr[T any](v T) *T { return &v }

func day(s string) time.Time {
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return tm
}

var items = []item{
	{ID: 1, Name: "Alice", Note: ptr("50% off"), Score: 10, Ratio: 0.5, Active: true, At: day("2024-01-01T00:00:00Z"), Meta: map[string]any{"lvl": 5}},
	{ID: 2, Name: "bob", Note: ptr("50 off"), Score: 20, Ratio: 1.5, At: day("2024-01-02T12:00:00Z"), Meta: map[string]any{"lvl": 7}},
	{ID: 3, Name: "Carol_x", Score: 30, Ratio: 2.5, Active: true, At: day("2024-01-03T00:00:00Z")},
	{ID: 4, Name: "dave", Note: ptr("a_b"), Score: 20, Ratio: -1, At: day("2024-02-01T00:00:00Z"), Meta: map[string]any{"tag": "vip"}, Blob: []byte{1, 2}},
	{ID: 5, Name: "Eve", Note: ptr(`back\slash`), Score: 50, Ratio: 0, Active: true, At: day("2024-03-01T00:00:00Z")},
	{ID: 6, Name: "ALICE2", Note: ptr("x"), Score: -5, Ratio: 3.25, At: day("2023-12-31T23:59:59.5Z")},
}

// setup creates and fills the items and pairs tables and inspects them.
func setup(t testing.TB, db *bun.DB) (itemT, pairT *schema.Table) {
	t.Helper()
	ctx := context.Background()
	for _, m := range []any{(*item)(nil), (*pair)(nil)} {
		if _, err := db.NewCreateTable().Model(m).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	rows := append([]item(nil), items...)
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	pairs := []pair{
		{A: "x", B: 1, C: day("2024-01-01T00:00:00Z"), V: "x1"},
		{A: "x", B: 2, C: day("2024-01-01T00:00:00.123456Z"), V: "x2"},
		{A: "y/z", B: -7, C: day("2024-06-01T10:00:00Z"), V: "yz"},
	}
	if _, err := db.NewInsert().Model(&pairs).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var err error
	if itemT, err = schema.Inspect(db, "items", (*item)(nil)); err != nil {
		t.Fatal(err)
	}
	if pairT, err = schema.Inspect(db, "pairs", (*pair)(nil)); err != nil {
		t.Fatal(err)
	}
	return itemT, pairT
}

// ids runs the list and returns the id column of the rows.
func ids(t testing.TB, db bun.IDB, tb *schema.Table, l *query.List) []int64 {
	t.Helper()
	rows, err := query.ScanRows(context.Background(), l.Apply(query.Select(db, tb), tb), tb, nil)
	if err != nil {
		t.Fatalf("ScanRows: %v", err)
	}
	out := []int64{}
	for _, r := range rows {
		out = append(out, r["id"].(int64))
	}
	return out
}
