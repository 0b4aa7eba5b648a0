package engine

import (
	"testing"
)

func TestIsPlainPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"/monitor", true},
		{"/monitor?x=1&y=/z", true},
		{"/", true},
		{"//evil.example", false},
		{`/\evil.example`, false},
		{"https://evil.example/", false},
		{"evil.example", false},
		{"", false},
		{"/a\nb", false},
		{"/a\x7fb", false},
	}
	for _, tt := range tests {
		if got := isPlainPath(tt.in); got != tt.want {
			t.Errorf("isPlainPath(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}
