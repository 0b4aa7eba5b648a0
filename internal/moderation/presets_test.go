package moderation

import (
	"testing"
	"time"
)

func TestBanPresetLength(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want time.Duration
		ok   bool
	}{
		{"1h", time.Hour, true}, {"1d", 24 * time.Hour, true}, {"7d", 7 * 24 * time.Hour, true},
		{"30d", 30 * 24 * time.Hour, true}, {"permanent", 0, true}, {"2d", 0, false}, {"", 0, false},
	} {
		if got, ok := BanPresetLength(tt.key); got != tt.want || ok != tt.ok {
			t.Errorf("BanPresetLength(%q) = %v, %v; want %v, %v", tt.key, got, ok, tt.want, tt.ok)
		}
	}
}
