package query_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/query"
)

// TestAppendRowsJSON: the fast encoder writes what encoding/json writes.
func TestAppendRowsJSON(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.FixedZone("x", 3600))
	rows := []map[string]any{
		{"id": int64(1), "name": "alice", "score": 12.5, "active": true, "at": at, "meta": map[string]any{"b": []any{1.0, "x"}, "a": nil}},
		{"id": int64(-9007199254740993), "name": `quote " back \ <b>&</b> é 日本 ` + "\u2028\x01", "score": 1e-9, "big": 1e22, "zero": 0.0, "neg": -3.25, "at": time.Time{}},
		{"plain": json.RawMessage(`{"z":1,"a":[true,"x"]}`), "spaced": json.RawMessage(`{"a": [1, 2], "h": "<b>"}`), "sep": json.RawMessage(`"\u2028 â` + "\u0080" + `¨"`),
			"raw": json.RawMessage(`{"z":1,"a":[true]}`), "jsonb": json.RawMessage("{\"k\": \"a \\\" <q> \\\\\",\n\t\"u\" :\r [\"\\u2028\", \"\u2029&\", {}, []]}"), "bytes": []byte("hi"), "int": 7, "u": uint64(math.MaxUint64), "nil": nil, "empty": map[string]any{}, "list": []any{}},
		{},
		// The same number of keys as the row before, not the same keys.
		{"a": int64(1), "b": "x"}, {"a": int64(2), "c": "y"}, {"a": int64(3), "c": "z"}, nil, {"a": nil, "c": nil},
	}
	got, err := query.AppendRowsJSON(nil, rows)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("AppendRowsJSON =\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []any{math.NaN(), json.RawMessage(`{"a":`)} {
		if _, err := query.AppendRowsJSON(nil, []map[string]any{{"v": bad}}); err == nil {
			t.Errorf("AppendRowsJSON(%v) succeeded; want the error encoding/json gives", bad)
		}
	}
}

// StoredJSON writes a NUL character's escape as text and leaves every
// other escape, an escaped backslash before "u0000" among them, alone.
func TestStoredJSON(t *testing.T) {
	for _, s := range []string{"plain", "nul\x00here", `text \u0000 typed`, `\\u0000`, "\\\x00", `ends with \`, "\x00\x00", `"quoted" \"`} {
		in, err := json.Marshal(map[string]any{"v": s})
		if err != nil {
			t.Fatal(err)
		}
		out := query.StoredJSON(in)
		var back map[string]string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("StoredJSON(%s) = %s, not JSON: %v", in, out, err)
		}
		want := strings.ReplaceAll(s, "\x00", `\u0000`)
		if back["v"] != want {
			t.Errorf("StoredJSON(%s) reads back %q; want %q", in, back["v"], want)
		}
		if bytes.Contains(bytes.ReplaceAll(out, []byte(`\\`), nil), []byte(`\u0000`)) {
			t.Errorf("StoredJSON(%s) = %s still escapes a NUL", in, out)
		}
	}
}

func TestLoneSurrogate(t *testing.T) {
	for _, tt := range []struct {
		js   string
		want bool
	}{
		{`"plain"`, false},
		{`"\u00e9 \u0000"`, false},
		{`"\ud83d\ude00"`, false},                  // a pair: 😀
		{`"\uD83D\uDE00 and \ud83d\ude01"`, false}, // upper-case hex, two pairs
		{`"\ud800"`, true},
		{`"a \ud800 b"`, true},
		{`"\ud800\u0041"`, true}, // a high half before another escape
		{`"\ud800\ud800\udc00"`, true},
		{`"\udc00"`, true},
		{`"\udc00\ud800"`, true}, // the halves reversed
		{`"\\ud800"`, false},     // an escaped backslash: the text \ud800
		{`"\\\ud800"`, true},     // a backslash, then a lone half
		{`{"k\ud800": 1}`, true}, // a key holds one too
		{`"\u12"`, false},        // not an escape of four digits
	} {
		if got := query.LoneSurrogate([]byte(tt.js)); got != tt.want {
			t.Errorf("LoneSurrogate(%s) = %v; want %v", tt.js, got, tt.want)
		}
	}
}
