package query

import (
	"database/sql"
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	"github.com/gameadmin/admin/internal/schema"
)

type benchEvent struct {
	bun.BaseModel `bun:"table:events"`
	ID            int64          `bun:"id,pk,autoincrement"`
	UserID        string         `bun:"user_id,nullzero"`
	Name          string         `bun:"name,notnull"`
	Payload       map[string]any `bun:"payload"`
	CreatedAt     time.Time      `bun:"created_at,notnull"`
}

// BenchmarkScanCells: one 100-row page's cells, as the PostgreSQL driver
// hands them over (the timestamp as Select's text).
func BenchmarkScanCells(b *testing.B) {
	// No connection: Inspect reads the model through the dialect only.
	db := bun.NewDB(&sql.DB{}, sqlitedialect.New())
	t, err := schema.Inspect(db, "events", (*benchEvent)(nil))
	if err != nil {
		b.Fatal(err)
	}
	model := reflect.New(t.Model).Elem()
	plain := plainKinds(t.Columns)
	vals := []any{int64(1), "u12345", "match_end", []byte(`{"level": 12, "score": 3456}`), "2026-01-02 03:04:05.123456"}
	b.ReportAllocs()
	for b.Loop() {
		for range 100 {
			scanCells(model, t.Columns, plain, vals, nil)
		}
	}
}

// BenchmarkCompactRow: one 100-row page of the rows PostgreSQL renders
// (List.Render) compacted into the answer, as AppendPage does.
func BenchmarkCompactRow(b *testing.B) {
	row := []byte(`{"_labels":{"user_id" : "Player 4711"},"created_at":"2026-01-01T03:04:05.123456Z","id":199876,"name":"match_end","payload":{"level": 12, "score": 3456, "platform": "android"},"user_id":"u12345"}`)
	buf := make([]byte, 0, 32<<10)
	b.SetBytes(int64(100 * len(row)))
	b.ReportAllocs()
	for b.Loop() {
		out := buf[:0]
		for range 100 {
			out, _ = appendCompactJSON(out, row)
		}
	}
}
