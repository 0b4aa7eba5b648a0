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
		{"2024-05-06 07:08:09", time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), true},
		{"2024-05-06 07:08:09.25", time.Date(2024, 5, 6, 7, 8, 9, 250_000_000, time.UTC), true},
		{"2024-05-06_07:08:09", time.Time{}, false},
		{"0044-03-15 12:00:00 BC", time.Time{}, false},
		{"10000-01-01 00:00:00", time.Time{}, false},
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
	f.Add("2024-05-06 07:08:09.5")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseUTCWall(s)
		if !ok {
			return
		}
		layout := "2006-01-02T15:04:05.999999999"
		if s[10] == ' ' {
			layout = "2006-01-02 15:04:05.999999999"
		}
		want, err := time.ParseInLocation(layout, s, time.UTC)
		if err != nil || !got.Equal(want) {
			t.Fatalf("parseUTCWall(%q) = %v; time.Parse says %v, %v", s, got, want, err)
		}
	})
}
