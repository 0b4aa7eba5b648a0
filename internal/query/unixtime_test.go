package query

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/schema"
)

// TestParseTimeIn: an offset is absolute; a bare date and a wall time are
// read in the zone (UTC without one), daylight saving included.
func TestParseTimeIn(t *testing.T) {
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
		got, err := parseTimeIn(tt.in, tt.zone)
		if err != nil || got.Format(time.RFC3339Nano) != tt.want {
			t.Errorf("parseTimeIn(%q, %v) = %v, %v; want %s", tt.in, tt.zone, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "2025-13-01", "0000-01-01", "2025-03-15T25:00"} {
		if _, err := parseTimeIn(bad, tokyo); err == nil {
			t.Errorf("parseTimeIn(%q) took it", bad)
		}
	}
	for _, bad := range []string{"", "Local", "Mars/Olympus", "../etc/passwd", "/etc/localtime"} {
		if _, err := loadZone(bad); err == nil || err.(*Error).Column != TZParam {
			t.Errorf("loadZone(%q) = %v; want an error naming _tz", bad, err)
		}
	}
}

// TestUnixValues: a unix column's cells are times (in RFC 3339's years,
// else text), its body values times or integers, stored as the integer.
func TestUnixValues(t *testing.T) {
	s := &schema.Column{Name: "at", DataType: schema.Integer}
	ms := &schema.Column{Name: "at_ms", DataType: schema.Integer}
	if err := s.SetUnix(schema.UnixSeconds); err != nil {
		t.Fatal(err)
	}
	if err := ms.SetUnix(schema.UnixMillis); err != nil {
		t.Fatal(err)
	}
	if err := (&schema.Column{Name: "x", DataType: schema.String}).SetUnix(schema.UnixSeconds); err == nil {
		t.Error("SetUnix took a text column")
	}
	if err := (&schema.Column{Name: "x", DataType: schema.Integer}).SetUnix("h"); err == nil {
		t.Error("SetUnix took unit h")
	}
	if v, issue := kindCell(s, int64(1690003600)); issue != nil || v != time.Date(2023, 7, 22, 5, 26, 40, 0, time.UTC) {
		t.Errorf("cell 1690003600 = %v, %v", v, issue)
	}
	if v, issue := kindCell(ms, int64(1690003600123)); issue != nil || v.(time.Time).Format(time.RFC3339Nano) != "2023-07-22T05:26:40.123Z" {
		t.Errorf("ms cell = %v, %v", v, issue)
	}
	if v, issue := kindCell(s, "soon"); v != "soon" || issue == nil {
		t.Errorf("text cell = %v, %v; want the text with an issue", v, issue)
	}
	if v, _ := kindCell(ms, int64(1)<<62); v == nil {
		t.Error("a time past year 9999 gave nothing")
	} else if _, err := json.Marshal(v); err != nil {
		t.Errorf("a time past year 9999 does not encode: %v", err)
	}
	for in, want := range map[any]int64{"2023-07-22T05:26:40Z": 1690003600, json.Number("1690003600"): 1690003600, "1690003600": 1690003600, "2023-07-22T07:26:40.9+02:00": 1690003600} {
		if got, err := ConvertValue(s, in); err != nil || got != want {
			t.Errorf("ConvertValue(%#v) = %v, %v; want %d", in, got, err, want)
		}
	}
	if got, err := ConvertValue(ms, "2023-07-22T05:26:40.123Z"); err != nil || got != int64(1690003600123) {
		t.Errorf("ConvertValue ms = %v, %v", got, err)
	}
	for _, bad := range []any{"next week", true, json.Number("1.5"), map[string]any{}} {
		if _, err := ConvertValue(s, bad); err == nil {
			t.Errorf("ConvertValue(%#v) took it", bad)
		}
	}
}

// FuzzParseTimeIn: whatever a filter value holds, parseTimeIn does not
// panic; a time it reads without an offset is the same wall clock in the
// zone (here Tokyo, which has no daylight saving: nine hours since
// 1888), and one with an offset does not depend on the zone.
func FuzzParseTimeIn(f *testing.F) {
	for _, s := range []string{"2025-03-15", "2025-03-15T09:30", "2025-03-15 09:30:05.5", "2025-03-15T00:00:00+01:00", "2025-03-15T00:00:00Z"} {
		f.Add(s)
	}
	tokyo, err := loadZone("Asia/Tokyo")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		utc, err := parseTimeIn(s, nil)
		zoned, zerr := parseTimeIn(s, tokyo)
		if err != nil || zerr != nil {
			if (err == nil) != (zerr == nil) && utc.Year() > 1 {
				t.Fatalf("parseTimeIn(%q): UTC %v, Tokyo %v", s, err, zerr)
			}
			return
		}
		if utc.Year() < 1900 {
			return // Tokyo's local mean time, 9:18:59, before its standard time
		}
		if utc.Location() != time.UTC || zoned.Location() != time.UTC {
			t.Fatalf("parseTimeIn(%q) not in UTC: %v, %v", s, utc, zoned)
		}
		if d := utc.Sub(zoned); d != 0 && d != 9*time.Hour {
			t.Fatalf("parseTimeIn(%q): UTC %v, Tokyo %v: %v apart", s, utc, zoned, d)
		}
	})
}
