package admintest

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestActionAuditBounded: a custom action open to plain users cannot grow
// the audit log by its body's size (50 × 1 MB added 50 MiB), and an
// operator's actions are rate limited.
func TestActionAuditBounded(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		var calls atomic.Int64
		e := actionEnv(t, db, Options{RateLimit: RateLimitOptions{Actions: NewTokenBucket(3, 1.0/3600)}}, &calls)
		cr := e.crew("guilds")
		body := map[string]any{"blob": strings.Repeat("x", 100<<10), "note": "hi"}
		for range 3 {
			cr.user.do("POST", "/admin-api/guilds/_action/report", body).want(t, 200)
		}
		cr.user.do("POST", "/admin-api/guilds/_action/report", body).want(t, 429, "rate_limited")
		cr.admin.do("POST", "/admin-api/guilds/_action/report", map[string]any{}).want(t, 200) // per operator
		if n := calls.Load(); n != 4 {
			t.Fatalf("handler ran %d times; want 4", n)
		}
		rows := e.auditRows("custom")
		if len(rows) != 4 {
			t.Fatalf("%d custom audit rows; want 4", len(rows))
		}
		for _, row := range rows[:3] {
			b, _ := json.Marshal(row.Payload)
			if len(b) > defaultAuditMaxPayload || row.Payload["name"] != "report" || row.Payload["_truncated"] == nil {
				t.Fatalf("audit row of a 100 KB action = %d bytes, name %v, marker %v; want ≤ %d, report, a marker",
					len(b), row.Payload["name"], row.Payload["_truncated"], defaultAuditMaxPayload)
			}
		}
	})
}
