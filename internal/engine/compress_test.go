package engine

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// discard is a ResponseWriter that counts what it is given.
type discard struct {
	h http.Header
	n int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(int)             {}
func (d *discard) Write(b []byte) (int, error) { d.n += len(b); return len(b), nil }

// eventPage is a 100-row page of the bench's events table
// (game_analytics_events, bench/seed.go) as a list answers it.
func eventPage() []map[string]any {
	kinds := []string{"login", "match_start", "match_end", "level_up", "logout", "purchase"}
	rows := make([]map[string]any, 100)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		n := int64(i + 1)
		rows[i] = map[string]any{
			"id":         n,
			"user_id":    "u" + strconv.FormatInt(n*7919%50_000, 10),
			"name":       kinds[i%len(kinds)],
			"payload":    json.RawMessage(`{"level":` + strconv.FormatInt(n%60, 10) + `,"score":` + strconv.FormatInt(n*31%10_000, 10) + `,"platform":"` + [3]string{"ios", "android", "pc"}[n%3] + `"}`),
			"created_at": base.Add(-time.Duration(n) * time.Second),
		}
	}
	return rows
}

// BenchmarkCompressPage is the CPU a 100-row page takes from encoding
// to the connection, plain and compressed as each client asks: what
// compression adds to a page's cost in the game's process.
func BenchmarkCompressPage(b *testing.B) {
	rows := eventPage()
	page := compressor()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, rows)
	}))
	for _, enc := range []string{"", "gzip", "zstd"} {
		b.Run("encoding="+enc, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/admin-api/events", nil)
			if enc != "" {
				r.Header.Set("Accept-Encoding", enc)
			}
			var sent int
			for b.Loop() {
				d := &discard{h: http.Header{}}
				page(d, r)
				sent = d.n
			}
			b.ReportMetric(float64(sent), "bytes/page")
		})
	}
}
