package querytest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/query"
)

// BenchmarkAppendRows compares the row encoder with encoding/json on a
// 100-row page of typical columns.
func BenchmarkAppendRows(b *testing.B) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := make([]map[string]any, 100)
	for i := range rows {
		rows[i] = map[string]any{"id": int64(i), "user_id": "u12345", "name": "match_end", "created_at": at,
			"payload": map[string]any{"level": 12.0, "score": 3456.0, "platform": "ios"}}
	}
	b.Run("AppendRowsJSON", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 64<<10)
		for b.Loop() {
			if _, err := query.AppendRowsJSON(buf[:0], rows); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(rows); err != nil {
				b.Fatal(err)
			}
		}
	})
}
