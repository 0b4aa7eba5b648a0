package admin

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

func TestCapPayload(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 40<<10)
	many := map[string]any{}
	for i := range 5000 {
		many[fmt.Sprintf("key%04d", i)] = i
	}
	tests := []struct {
		name    string
		in      map[string]any
		limit   int
		kept    []string // keys kept as they are
		cut     []string // keys replaced by the stub
		onlyTag bool     // the payload became the marker alone
	}{
		{"small payload kept", map[string]any{"ip": "1.2.3.4", "name": "report"}, 1024, []string{"ip", "name"}, nil, false},
		{"big value cut, small kept", map[string]any{"ip": "1.2.3.4", "name": "report", "args": map[string]any{"blob": big}}, 16 << 10, []string{"ip", "name"}, []string{"args"}, false},
		{"two big values", map[string]any{"a": big, "b": big, "c": 1}, 16 << 10, []string{"c"}, []string{"a", "b"}, false},
		{"too many keys", many, 1 << 10, nil, nil, true},
		{"no limit", map[string]any{"a": big}, 0, []string{"a"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := capPayload(tt.in, tt.limit)
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if tt.limit > 0 && len(b) > tt.limit {
				t.Fatalf("capPayload(…, %d) is %d bytes", tt.limit, len(b))
			}
			var back map[string]any
			_ = json.Unmarshal(b, &back)
			for _, k := range tt.kept {
				want, _ := json.Marshal(tt.in[k])
				have, _ := json.Marshal(back[k])
				if string(want) != string(have) {
					t.Errorf("key %q = %s; want it kept as %s", k, have, want)
				}
			}
			for _, k := range tt.cut {
				if s, _ := back[k].(string); !strings.HasPrefix(s, "[truncated: ") {
					t.Errorf("key %q = %v; want the truncated stub", k, back[k])
				}
			}
			if truncated := back["_truncated"] != nil; truncated != (len(tt.cut) > 0 || tt.onlyTag) {
				t.Errorf("_truncated marker = %v; want it exactly when something was cut", back["_truncated"])
			}
			if tt.onlyTag && len(back) != 1 {
				t.Errorf("payload = %d keys; want the marker alone", len(back))
			}
		})
	}
}

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
