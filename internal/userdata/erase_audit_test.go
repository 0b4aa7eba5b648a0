package userdata

import (
	"strings"
	"testing"
)

func TestReplaceFold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s, lower, want string
	}{
		{"from Bob@X.io wrote", "bob@x.io", "from [erased] wrote"},
		{"BOB@X.IO,bob@x.io", "bob@x.io", "[erased],[erased]"},
		{"nothing here", "bob@x.io", "nothing here"},
		// Lower-casing shortens these runes: the Kelvin sign (3 bytes)
		// and the dotted capital I (2 bytes) become one byte each.
		{"Mail: \u212Aate@x.io!", "kate@x.io", "Mail: [erased]!"},
		{"\u0130van@x.io and ivan@x.io.", "ivan@x.io", "[erased] and [erased]."},
		{"ünï \xff Bob@X.io \xfe", "bob@x.io", "ünï \xff [erased] \xfe"},
		{"same", "", "same"},
	}
	for _, tt := range tests {
		if got := replaceFold(tt.s, tt.lower, "[erased]"); got != tt.want {
			t.Errorf("replaceFold(%q, %q) = %q; want %q", tt.s, tt.lower, got, tt.want)
		}
	}
}

func TestLikeText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"bob@x.io", "%bob@x.io%"},
		// Wildcards, quotes, escapes and what lower() or JSON may not
		// keep as it is match anything.
		{"b_o%b@x.io", "%b%o%b@x.io%"},
		{`a"b\c&d<e@x.io`, "%a%b%c%d%e@x.io%"},
		{"jürgen@x.io", "%j%rgen@x.io%"},
		{"ü", "%"},
	}
	for _, tt := range tests {
		got := likeText(tt.in)
		if got != tt.want {
			t.Errorf("likeText(%q) = %q; want %q", tt.in, got, tt.want)
		}
		if strings.ContainsAny(got, `_\`) {
			t.Errorf("likeText(%q) = %q holds a LIKE escape or one-character wildcard", tt.in, got)
		}
	}
}
