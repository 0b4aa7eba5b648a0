package engine

import (
	"testing"
)

func TestAcceptsEncoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header, enc string
		want        bool
	}{
		{"gzip, deflate, br, zstd", "br", true},
		{"gzip, deflate", "br", false},
		{"gzip;q=0", "gzip", false},
		{"GZIP; q=0.5", "gzip", true},
		{"*", "gzip", true},
		{"", "gzip", false},
		{"x-gzip", "gzip", false},
	}
	for _, tt := range tests {
		if got := acceptsEncoding(tt.header, tt.enc); got != tt.want {
			t.Errorf("acceptsEncoding(%q, %q) = %v; want %v", tt.header, tt.enc, got, tt.want)
		}
	}
}
