package query

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/schema"
)

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
	if v, issue := cellValue(s, reflect.Value{}, int64(1690003600)); issue != nil || v != time.Date(2023, 7, 22, 5, 26, 40, 0, time.UTC) {
		t.Errorf("cell 1690003600 = %v, %v", v, issue)
	}
	if v, issue := cellValue(ms, reflect.Value{}, int64(1690003600123)); issue != nil || v.(time.Time).Format(time.RFC3339Nano) != "2023-07-22T05:26:40.123Z" {
		t.Errorf("ms cell = %v, %v", v, issue)
	}
	if v, issue := cellValue(s, reflect.Value{}, "soon"); v != "soon" || issue == nil {
		t.Errorf("text cell = %v, %v; want the text with an issue", v, issue)
	}
	if v, _ := cellValue(ms, reflect.Value{}, int64(1)<<62); v == nil {
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

// TestStoredAsText: MySQL's zero dates and a decimal wider than a float
// are shown as the text stored; a decimal the float says exactly, and a
// real date, are not.
func TestStoredAsText(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"0000-00-00", true}, {"0000-00-00 00:00:00.000000", true}, {"2024-05-00", true}, {"2024-00-10 01:02:03", true},
		{"2024-05-06", false}, {"2024-05-06 00:00:00", false}, {"infinity", false}, {"", false},
	} {
		if got := zeroInDate(tt.s); got != tt.want {
			t.Errorf("zeroInDate(%q) = %v; want %v", tt.s, got, tt.want)
		}
	}
	for _, tt := range []struct {
		f    float64
		s    string
		want bool
	}{
		{12.3, "12.30", true}, {-0.5, "-0.50", true}, {1e63, "1000000000000000000000000000000000000000000000000000000000000000", true},
		{1e63, "999999999999999999999999999999999999999999999999999999999999999.99", false},
		{0.1, "0.10000000000000001", false}, {3, "junk", true},
		{0.1, " 0.1 ", true}, {9007199254740992, "9007199254740993", false}, {1.5, "1.5e0", true}, {2, "1e400", false},
	} {
		if got := floatSays(tt.f, tt.s); got != tt.want {
			t.Errorf("floatSays(%v, %q) = %v; want %v", tt.f, tt.s, got, tt.want)
		}
	}
}
