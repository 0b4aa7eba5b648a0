package errbody

import "testing"

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
