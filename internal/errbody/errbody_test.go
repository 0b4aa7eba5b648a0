package errbody

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestTruncate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"éèêëē", 2, "éè…"}, // runes, not bytes
	} {
		if got := Truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q; want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// TestProblemsBesideFields: every field of an answer has its problem in
// the body, the answer's code for one no code worded; params are sent
// only when set; WithParams leaves a shared answer as it is.
func TestProblemsBesideFields(t *testing.T) {
	e := Field(400, "invalid_value", "tag", "Tag: at most %d characters", 4)
	e.Fields["name"] = "Name is required"
	e.Problems = map[string]Problem{"tag": NewProblem("too_long", "Tag: at most 4 characters", "max", 4)}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"status":400,"code":"invalid_value","error":"Tag: at most 4 characters","fields":{"name":"Name is required","tag":"Tag: at most 4 characters"},` +
		`"problems":{"name":{"code":"invalid_value","params":{}},"tag":{"code":"too_long","params":{"max":4}}}}`
	if string(b) != want {
		t.Errorf("body = %s\nwant   %s", b, want)
	}
	if len(e.Problems) != 1 {
		t.Errorf("marshalling changed the answer's own problems: %v", e.Problems)
	}
	shared := New(429, "rate_limited", "too many requests")
	p := shared.WithParams("retryAfterSec", 3)
	if shared.Params != nil || p.Params["retryAfterSec"] != 3 || !errors.Is(p, shared) {
		t.Errorf("WithParams: shared %v, copy %v", shared.Params, p.Params)
	}
	if b, _ := json.Marshal(shared); strings.Contains(string(b), "params") {
		t.Errorf("an answer without params says params: %s", b)
	}
}
