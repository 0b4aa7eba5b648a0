package csvexport

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/schema"
)

func TestCellDefusesFormulas(t *testing.T) {
	t.Parallel()
	text := &schema.Column{Name: "name", Kind: schema.KindText, DataType: schema.String}
	dec := &schema.Column{Name: "price", Kind: schema.KindDecimal, DataType: schema.String}
	num := &schema.Column{Name: "qty", Kind: schema.KindNumber, DataType: schema.Integer}
	bin := &schema.Column{Name: "blob", Kind: schema.KindBytes, DataType: schema.Bytes}
	when := &schema.Column{Name: "at", Kind: schema.KindTime, DataType: schema.Datetime}
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
		// Past spaces, controls and format characters, which a
		// spreadsheet skips or trims.
		{text, "\n=1+1", "'\n=1+1"},
		{text, " \r=1+1", "' \r=1+1"},
		{text, "\u00a0=1+1", "'\u00a0=1+1"},         // no-break space
		{text, "\u3000=1+1", "'\u3000=1+1"},         // ideographic space
		{text, "\u200b=1+1", "'\u200b=1+1"},         // zero-width space
		{text, "\ufeff=1+1", "'\ufeff=1+1"},         // byte order mark
		{text, "\u2028\u200e@x", "'\u2028\u200e@x"}, // line separator, left-to-right mark
		{text, "\u00a0x", "\u00a0x"},
		// Full-width and small forms, and the minus sign.
		{text, "＝1+1", "'＝1+1"},
		{text, "﹦1+1", "'﹦1+1"},
		{text, "＋1", "'＋1"},
		{text, "﹢1", "'﹢1"},
		{text, "－1", "'－1"},
		{text, "﹣1", "'﹣1"},
		{text, "＠SUM(A1)", "'＠SUM(A1)"},
		{text, "﹫SUM(A1)", "'﹫SUM(A1)"},
		{text, "\u22121", "'\u22121"},
		{text, "a＝b", "a＝b"},
		// Bytes: base64 may start with +.
		{bin, []byte{0xf8, 0x0d, 0x75, 0xf8, 0x0d, 0x76}, "'+A11+A12"},
		{text, []byte{0xf8, 0x0d, 0x75, 0xf8, 0x0d, 0x76}, "'+A11+A12"},
		// Only a number of a numeric column is let through as it is.
		{dec, "+12", "+12"},
		{num, "-3", "-3"},
		{num, "-infinity", "'-infinity"},
		{num, "=1", "'=1"},
		{text, "-12.30", "'-12.30"},
		{num, stringer("-1+A1"), "'-1+A1"},
		{num, stringer("-7"), "-7"},
		{when, time.Date(-1, 1, 2, 3, 4, 5, 0, time.UTC), "'-0001-01-02T03:04:05Z"},
		{num, math.Inf(-1), "'-Inf"},
		{text, time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), "2026-01-02T02:04:05Z"},
		{text, true, "true"},
		{num, int64(-5), "-5"},
		{text, int64(-5), "'-5"}, // a text column's values are text
		{text, 1.5, "1.5"},
	} {
		if got := Cell(tt.c, tt.v); got != tt.want {
			t.Errorf("Cell(%s, %#v) = %q; want %q", tt.c.Name, tt.v, got, tt.want)
		}
	}
}

// stringer is a value of a type Cell does not know, written as JSON.
type stringer string

// FuzzCell: whatever the text, a cell is the text as given or with a
// leading apostrophe, and without the apostrophe it neither starts with a
// tab or carriage return nor, past any spaces, controls and format
// characters (Unicode Z*, Cc, Cf), with a formula sign, unless it is a
// plain number of a numeric column.
func FuzzCell(f *testing.F) {
	for _, s := range []string{"=1", "\u200b\ufeff=1", "\u3000＋1", "-12.30", "plain", "\t", "\xff=", "\u2212", "﹫", "\r\n-1"} {
		f.Add(s, uint8(0))
	}
	cols := []*schema.Column{
		{Name: "name", Kind: schema.KindText, DataType: schema.String},
		{Name: "price", Kind: schema.KindDecimal, DataType: schema.String},
		{Name: "qty", Kind: schema.KindNumber, DataType: schema.Integer},
		{Name: "meta", Kind: schema.KindJSON, DataType: schema.JSON},
		{Name: "blob", Kind: schema.KindBytes, DataType: schema.Bytes},
	}
	const signs = "=+-@＝﹦＋﹢－﹣＠﹫\u2212"
	f.Fuzz(func(t *testing.T, s string, col uint8) {
		c := cols[int(col)%len(cols)]
		for _, v := range []any{s, json.RawMessage(s), []byte(s)} {
			text := s
			if b, ok := v.([]byte); ok {
				text = base64.StdEncoding.EncodeToString(b)
			}
			got := Cell(c, v)
			if got == "'"+text {
				continue
			}
			if got != text {
				t.Fatalf("Cell(%s, %#v) = %q; want %q, or it after an apostrophe", c.Name, v, got, text)
			}
			shown := strings.TrimLeftFunc(got, func(r rune) bool { return unicode.In(r, unicode.Z, unicode.Cc, unicode.Cf) })
			first, _ := utf8.DecodeRuneInString(shown)
			number := (c.Kind == schema.KindDecimal || c.Kind == schema.KindNumber) && plainNumber.MatchString(got)
			if strings.HasPrefix(got, "\t") || strings.HasPrefix(got, "\r") || strings.ContainsRune(signs, first) && !number {
				t.Fatalf("Cell(%s, %#v) = %q: a spreadsheet runs it", c.Name, v, got)
			}
		}
	})
}

// plainNumber is a number a spreadsheet reads as a value.
var plainNumber = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

func TestFileName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"users": "users", "cloud_saves-2": "cloud_saves-2", "../../etc\"x": "etcx", "日本": "export", "": "export"} {
		if got := FileName(in); got != want {
			t.Errorf("FileName(%q) = %q; want %q", in, got, want)
		}
	}
}
