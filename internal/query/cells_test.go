package query

import (
	"testing"
	"time"
)

func TestParseUTCWall(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2024-05-06T07:08:09", time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), true},
		{"2024-05-06T07:08:09.5", time.Date(2024, 5, 6, 7, 8, 9, 500_000_000, time.UTC), true},
		{"2024-05-06T07:08:09.123456", time.Date(2024, 5, 6, 7, 8, 9, 123_456_000, time.UTC), true},
		{"0001-01-01T00:00:00", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"2024-02-30T00:00:00", time.Time{}, false},
		{"2024-05-06T07:08:09.", time.Time{}, false},
		{"2024-05-06T07:08:09Z", time.Time{}, false},
		{"2024-05-06T24:00:00", time.Time{}, false},
		{"infinity", time.Time{}, false},
		{"2024-05-06 07:08:09", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := parseUTCWall(tt.in)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("parseUTCWall(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseUTCWall(f *testing.F) {
	f.Add("2024-05-06T07:08:09.5")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseUTCWall(s)
		if !ok {
			return
		}
		want, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", s, time.UTC)
		if err != nil || !got.Equal(want) {
			t.Fatalf("parseUTCWall(%q) = %v; time.Parse says %v, %v", s, got, want, err)
		}
	})
}
