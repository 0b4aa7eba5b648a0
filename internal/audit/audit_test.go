package audit

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
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
			got, raw := capPayload(tt.in, tt.limit)
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			// The JSON handed back is what is stored in place of
			// marshalling again: the payload's own, or none when cut.
			switch cut := len(tt.cut) > 0 || tt.onlyTag; {
			case cut && raw != nil:
				t.Errorf("capPayload gave JSON %.40s… for a payload it cut", raw)
			case !cut && string(raw) != string(b):
				t.Errorf("capPayload gave JSON %.60s…; want the payload's own %.60s…", raw, b)
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

func TestPayload(t *testing.T) {
	meta := map[string]any{"ip": "192.0.2.1", "userAgent": "test"}
	p := Payload(meta, "reason", "spam", "until", nil)
	if len(p) != 4 || p["ip"] != "192.0.2.1" || p["reason"] != "spam" {
		t.Fatalf("Payload = %v", p)
	}
	if _, ok := p["until"]; !ok {
		t.Fatal("a nil value was left out")
	}
	p["ip"] = "changed"
	if meta["ip"] != "192.0.2.1" || len(meta) != 2 {
		t.Fatalf("Payload changed meta: %v", meta)
	}
	if p := Payload(nil); p == nil || len(p) != 0 {
		t.Fatalf("Payload(nil) = %#v; want an empty map", p)
	}
}

func TestRequestMeta(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("User-Agent", strings.Repeat("a", 600))
	m := RequestMeta(r, "192.0.2.1")
	if len(m) != 2 || m["ip"] != "192.0.2.1" || len(m["userAgent"].(string)) != 512 {
		t.Fatalf("RequestMeta = %v", m)
	}
}
