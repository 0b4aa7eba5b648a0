package query

import (
	"strings"
	"testing"
	"time"
)

// filterTime is parseTime as a filter on an instant column reads s.
func filterTime(s string, zone *time.Location) (time.Time, bool) {
	tm, ok := parseTime(strings.TrimSpace(s), filterTimes, zone)
	return tm.UTC(), ok
}

// TestParseTime: an offset is absolute; a bare date and a wall time are
// read in the zone (UTC without one), daylight saving included; each
// reader takes its own forms.
func TestParseTime(t *testing.T) {
	tokyo, err := loadZone("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	la, err := loadZone("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		zone *time.Location
		want string
	}{
		{"2025-03-15", nil, "2025-03-15T00:00:00Z"},
		{"2025-03-15", tokyo, "2025-03-14T15:00:00Z"},
		{"2025-03-15T09:30", tokyo, "2025-03-15T00:30:00Z"},
		{"2025-03-15 09:30:05.5", tokyo, "2025-03-15T00:30:05.5Z"},
		{"2025-03-15T00:00:00Z", tokyo, "2025-03-15T00:00:00Z"},
		{"2025-03-15T00:00:00+01:00", tokyo, "2025-03-14T23:00:00Z"},
		{"2025-03-08", la, "2025-03-08T08:00:00Z"}, // PST
		{"2025-03-15", la, "2025-03-15T07:00:00Z"}, // PDT
	}
	for _, tt := range tests {
		got, ok := filterTime(tt.in, tt.zone)
		if !ok || got.Format(time.RFC3339Nano) != tt.want {
			t.Errorf("filterTime(%q, %v) = %v, %v; want %s", tt.in, tt.zone, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "2025-13-01", "0000-01-01", "2025-03-15T25:00"} {
		if _, ok := filterTime(bad, tokyo); ok {
			t.Errorf("filterTime(%q) took it", bad)
		}
	}
	// The other readers' forms.
	for _, tt := range []struct {
		in    string
		forms timeForms
		want  string // "" for refused
	}{
		{"2025-03-15T09:30:00Z", rfc3339 | bareDate | fromYear1, "2025-03-15T09:30:00Z"},
		{"2025-03-15T09:30:00", rfc3339 | bareDate | fromYear1, ""},  // a body's instant has an offset
		{"2025-03-15 09:30:00Z", rfc3339 | bareDate | fromYear1, ""}, // and a T
		{"2025-03-15 09:30:00+02", bareDate | wallTime | wallOffset, "2025-03-15T09:30:00+02:00"},
		{"2025-03-15 9:30:00", bareDate | wallTime, "2025-03-15T09:30:00Z"},
		{"2025-03-15 9:30:00", storedTimes, ""}, // not as PostgreSQL writes it
		{"2025-03-15 09:30:00.25", storedTimes, "2025-03-15T09:30:00.25Z"},
		{"0000-03-15", bareDate, "0000-03-15T00:00:00Z"},
		{"0000-03-15", bareDate | fromYear1, ""},
	} {
		got, ok := parseTime(tt.in, tt.forms, nil)
		if s := got.Format(time.RFC3339Nano); ok != (tt.want != "") || ok && s != tt.want {
			t.Errorf("parseTime(%q, %b) = %s, %v; want %q", tt.in, tt.forms, s, ok, tt.want)
		}
	}
}

// FuzzParseTime: whatever a filter value holds, parseTime does not
// panic; a time it reads without an offset is the same wall clock in the
// zone (here Tokyo, which has no daylight saving: nine hours since
// 1888), and one with an offset does not depend on the zone.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2025-03-15", "2025-03-15T09:30", "2025-03-15 09:30:05.5", "2025-03-15T00:00:00+01:00", "2025-03-15T00:00:00Z"} {
		f.Add(s)
	}
	tokyo, err := loadZone("Asia/Tokyo")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		utc, ok := filterTime(s, nil)
		zoned, zok := filterTime(s, tokyo)
		if !ok || !zok {
			if ok != zok && utc.Year() > 1 {
				t.Fatalf("filterTime(%q): UTC %v, Tokyo %v", s, ok, zok)
			}
			return
		}
		if utc.Year() < 1900 {
			return // Tokyo's local mean time, 9:18:59, before its standard time
		}
		if d := utc.Sub(zoned); d != 0 && d != 9*time.Hour {
			t.Fatalf("filterTime(%q): UTC %v, Tokyo %v: %v apart", s, utc, zoned, d)
		}
	})
}

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
