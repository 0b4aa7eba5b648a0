package audit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestChangesPaths: a JSON column that is an object (or an array of one
// length) before and after records its leaf changes, in path order; a
// document only spaced or ordered otherwise is no change; any other
// change of a column is its before and after.
func TestChangesPaths(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name          string
		before, after any
		want          string // the column's change as JSON, "" for none
	}{
		{"leaves", raw(`{"stats": {"gold": 100, "xp": 1}, "x": 1, "slots": [1, 2]}`), raw(`{"stats":{"gold":777,"xp":1},"slots":[1,3],"new":{"a":1}}`),
			`{"paths":[{"after":{"a":1},"path":["new"]},{"after":3,"before":2,"path":["slots",1]},{"after":777,"before":100,"path":["stats","gold"]},{"before":1,"path":["x"]}]}`},
		{"same, spaced", raw(`{"b": 1, "a": [1, 2]}`), raw(`{"a":[1,2],"b":1}`), ""},
		{"arrays of one length", raw(`[{"id": 1}, 2]`), raw(`[{"id": 2}, 2]`), `{"paths":[{"after":2,"before":1,"path":[0,"id"]}]}`},
		{"array grows", raw(`[1]`), raw(`[1, 2]`), `{"after":[1,2],"before":[1]}`},
		{"nested array grows", raw(`{"a": [1]}`), raw(`{"a": [1, 2]}`), `{"paths":[{"after":[1,2],"before":[1],"path":["a"]}]}`},
		{"type changes", raw(`{"a": 1}`), raw(`[1]`), `{"after":[1],"before":{"a":1}}`},
		{"null before", nil, raw(`{"a": 1}`), `{"after":{"a":1},"before":null}`},
		{"exact numbers", raw(`{"n": 9007199254740993}`), raw(`{"n": 9007199254740992}`), `{"paths":[{"after":9007199254740992,"before":9007199254740993,"path":["n"]}]}`},
		{"a null leaf", raw(`{"a": null}`), raw(`{"a": 0}`), `{"paths":[{"after":0,"before":null,"path":["a"]}]}`},
		{"not a document", "a", "b", `{"after":"b","before":"a"}`},
	}
	for _, tt := range tests {
		got := Changes(map[string]any{"c": tt.before}, map[string]any{"c": tt.after})
		ch, ok := got["c"]
		switch {
		case tt.want == "" && ok:
			t.Errorf("%s: Changes = %v; want no change", tt.name, got)
		case tt.want != "":
			if b, _ := json.Marshal(ch); string(b) != tt.want {
				t.Errorf("%s: change = %s; want %s", tt.name, b, tt.want)
			}
		}
	}
}

// TestCapChanges: a payload past the cap gives way column by column,
// the largest first, each marked truncated with its size, before its
// keys are cut whole; what fits stays as it was.
func TestCapChanges(t *testing.T) {
	paths := make([]any, 0, 300)
	for i := range 300 {
		paths = append(paths, map[string]any{"path": []any{fmt.Sprintf("item%03d", i)}, "before": strings.Repeat("x", 90), "after": "y"})
	}
	p := map[string]any{"ip": "192.0.2.1", "changes": map[string]any{
		"inventory": map[string]any{PathsKey: paths},
		"nickname":  map[string]any{"before": "Ann", "after": "Bo"},
	}}
	got, raw := capPayload(p, DefaultMaxPayload)
	b, _ := json.Marshal(got)
	if raw != nil || len(b) > DefaultMaxPayload {
		t.Fatalf("capPayload = %d bytes, raw %v; want it cut under %d", len(b), raw != nil, DefaultMaxPayload)
	}
	ch := got["changes"].(map[string]any)
	inv, _ := ch["inventory"].(map[string]any)
	if inv[TruncatedKey] != true || inv["bytes"].(int) < DefaultMaxPayload || got["ip"] != "192.0.2.1" || got["_truncated"] == nil {
		t.Fatalf("capped payload = %s; want inventory marked truncated with its size, the ip kept, the payload marked", b)
	}
	if nick, _ := json.Marshal(ch["nickname"]); string(nick) != `{"after":"Bo","before":"Ann"}` {
		t.Fatalf("nickname's change = %s; want it kept", nick)
	}
	if _, ok := p["changes"].(map[string]any)["inventory"].(map[string]any)[PathsKey]; !ok {
		t.Fatal("capPayload changed the payload it was given")
	}
}
