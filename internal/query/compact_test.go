package query

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzCompactJSON: appendCompactJSON accepts what json.Valid accepts and
// writes what encoding/json writes for a json.RawMessage.
func FuzzCompactJSON(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, 2.5e-3, -0, true, false, null], "h": "<b>&amp;</b>"}`,
		"{\"k\": \"a \\\" <q> \\\\\",\n\t\"u\" :\r [\"\\u2028\", \"\u2029&\", {}, []]}",
		`"\ud83d\ude00 \/ \b\f\n\r\t"`, `01`, `1.`, `-`, `1e`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `"\x"`, `"\u12G4"`,
		"\"\x01\"", "\"\xff\xfe\"", `[[[[[]]]]]`, ` 7 `, `tru`, `nul`, `{}x`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, ok := appendCompactJSON([]byte("prefix"), src)
		if valid := json.Valid(src); ok != valid {
			t.Fatalf("appendCompactJSON(%q) ok = %v; json.Valid says %v", src, ok, valid)
		}
		if !ok {
			return
		}
		want, err := json.Marshal(json.RawMessage(src))
		if err != nil {
			t.Fatalf("json.Marshal(%q): %v", src, err)
		}
		if string(got) != "prefix"+string(want) {
			t.Fatalf("appendCompactJSON(%q) = %q; encoding/json writes %q", src, got[len("prefix"):], want)
		}
	})
}

// TestCompactJSONDepth: nesting is refused where encoding/json refuses it.
func TestCompactJSONDepth(t *testing.T) {
	for _, n := range []int{9999, 10000, 10001} {
		src := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if _, ok := appendCompactJSON(nil, src); ok != json.Valid(src) {
			t.Errorf("%d nested arrays: ok = %v; json.Valid says %v", n, ok, json.Valid(src))
		}
	}
}
