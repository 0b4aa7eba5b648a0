package admin

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
)

// defaultAuditMaxPayload is Options.AuditMaxPayloadBytes' default.
const defaultAuditMaxPayload = 16 << 10

// capPayload bounds what one audit row stores. A payload whose JSON is at
// most limit bytes is kept as it is. A larger one keeps its smallest values
// (the ip, an action's name, a reason) while they fit, replaces the others
// with the string "[truncated: N bytes]", and gains the marker
// "_truncated": {"bytes": <original size>}. A payload that still does not
// fit (thousands of keys) becomes the marker and the first key names. A
// limit of 0 or less keeps everything.
func capPayload(p map[string]any, limit int) map[string]any {
	if limit <= 0 || len(p) == 0 {
		return p
	}
	whole, err := json.Marshal(p)
	if err != nil || len(whole) <= limit {
		return p // one that does not marshal fails its insert with its cause
	}
	type entry struct {
		key string
		raw []byte
	}
	entries := make([]entry, 0, len(p))
	for k, v := range p {
		raw, err := json.Marshal(v)
		if err != nil {
			raw = nil
		}
		entries = append(entries, entry{k, raw})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(len(a.key)+len(a.raw), len(b.key)+len(b.raw)), cmp.Compare(a.key, b.key))
	})
	marker := map[string]any{"bytes": len(whole)}
	out := map[string]any{"_truncated": marker}
	used := 64 // the marker and the braces
	for _, e := range entries {
		cost := len(e.key) + len(e.raw) + 4
		if e.raw != nil && used+cost <= limit {
			out[e.key] = json.RawMessage(e.raw)
			used += cost
			continue
		}
		stub := fmt.Sprintf("[truncated: %d bytes]", len(e.raw))
		if used+len(e.key)+len(stub)+6 > limit {
			keys := make([]string, 0, 50)
			for _, e := range entries[:min(len(entries), 50)] {
				keys = append(keys, e.key)
			}
			marker["keys"] = keys
			return map[string]any{"_truncated": marker}
		}
		out[e.key] = stub
		used += len(e.key) + len(stub) + 6
	}
	return out
}
