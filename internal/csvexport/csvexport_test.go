package csvexport

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/schema"
)

func TestCellDefusesFormulas(t *testing.T) {
	t.Parallel()
	text := &schema.Column{Name: "name", Kind: schema.KindText, DataType: schema.String}
	dec := &schema.Column{Name: "price", Kind: schema.KindDecimal, DataType: schema.String}
	for _, tt := range []struct {
		c    *schema.Column
		v    any
		want string
	}{
		{text, "=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"},
		{text, "  +1", "'  +1"},
		{text, "-2", "'-2"},
		{text, "@SUM(A1)", "'@SUM(A1)"},
		{text, "＝1+1", "'＝1+1"},
		{text, "\tx", "'\tx"},
		{text, "\rx", "'\rx"},
		{text, "plain", "plain"},
		{text, "", ""},
		{text, nil, ""},
		{dec, "-12.30", "-12.30"}, // a number, not a formula
		{dec, "-1+1", "'-1+1"},
		{text, json.RawMessage(`{"a":"=1"}`), `{"a":"=1"}`},
		{text, []byte{0, 1, 2}, "AAEC"},
		{text, time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), "2026-01-02T02:04:05Z"},
		{text, true, "true"},
		{text, int64(-5), "-5"},
		{text, 1.5, "1.5"},
	} {
		if got := Cell(tt.c, tt.v); got != tt.want {
			t.Errorf("Cell(%s, %#v) = %q; want %q", tt.c.Name, tt.v, got, tt.want)
		}
	}
}

func TestFileName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"users": "users", "cloud_saves-2": "cloud_saves-2", "../../etc\"x": "etcx", "日本": "export", "": "export"} {
		if got := FileName(in); got != want {
			t.Errorf("FileName(%q) = %q; want %q", in, got, want)
		}
	}
}
