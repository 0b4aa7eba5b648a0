// Package csvexport is the machinery of the panel's CSV export: one cell
// per value (text a spreadsheet would run as a formula is defused), a
// list's walk streamed as CSV a batch at a time (Stream), a streamed
// answer's writer that renews its write deadline as it writes (Writer,
// a player's data export's too), a download's file name, and ending a
// response whose status line is gone so the client sees it incomplete.
package csvexport

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

// Abort ends a response whose status line has been sent so that
// the client sees an incomplete transfer, never a short body that looks
// whole. panic(http.ErrAbortHandler) alone is not enough: a recovery
// middleware such as gin.Recovery swallows it, and net/http then ends the
// chunked body cleanly. So on HTTP/1 the connection is hijacked (through
// any wrapper with Unwrap or Hijack) and closed, leaving the body without
// its last chunk; on HTTP/2, where hijacking is not possible, the panic
// makes net/http reset the stream.
func Abort(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
	}
	panic(http.ErrAbortHandler)
}

// Cell formats one value for the CSV. Text that a spreadsheet would
// run as a formula gets a leading apostrophe (see formulaLike), so
// opening an export cannot run a player's display name. Every cell goes
// through that check, bytes (their base64 may start with +) and times
// included, but for a number in a numeric column: "-12.30" is a value,
// not a formula, and stays as it is.
func Cell(c *schema.Column, v any) string {
	var s string
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		s = v
	case json.RawMessage:
		s = string(v)
	case []byte:
		s = base64.StdEncoding.EncodeToString(v)
	case time.Time:
		s = v.UTC().Format(time.RFC3339Nano) // a year before 1 starts with -
	case bool:
		s = strconv.FormatBool(v)
	case int64:
		s = strconv.FormatInt(v, 10)
	case float64:
		s = strconv.FormatFloat(v, 'g', -1, 64) // or +Inf, -Inf
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		if len(b) > 0 && b[0] == '"' {
			var str string
			if json.Unmarshal(b, &str) == nil {
				b = []byte(str)
			}
		}
		s = string(b)
	}
	if numeric(c) && query.IsDecimal(s) {
		return s
	}
	if formulaLike(s) {
		return "'" + s
	}
	return s
}

// numeric reports a column whose values are numbers.
func numeric(c *schema.Column) bool {
	switch {
	case c.Kind == schema.KindNumber, c.Kind == schema.KindDecimal:
		return true
	case c.DataType == schema.Integer, c.DataType == schema.Number:
		return true
	}
	return false
}

// formulaLike reports text a spreadsheet may run as a formula: one that
// starts with a tab or carriage return, or whose first character past
// any run of spaces, control and format characters (Unicode Z*, Cc, Cf:
// a newline, a no-break or ideographic space, a zero-width space, a byte
// order mark, which spreadsheets skip or trim) is a formula sign.
func formulaLike(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '\t' || s[0] == '\r' {
		return true
	}
	return formulaSign(firstShown(s))
}

// firstShown is the first rune of s that is not a space, control or
// format character (Unicode categories Z*, Cc and Cf), or utf8.RuneError
// when there is none. Invalid UTF-8 counts as shown.
func firstShown(s string) rune {
	for _, r := range s {
		if !unicode.In(r, unicode.Z, unicode.Cc, unicode.Cf) {
			return r
		}
	}
	return utf8.RuneError
}

// formulaSign reports a rune that starts a formula in a spreadsheet: = +
// - @, and the forms some spreadsheets read as those: full-width
// (＝＋－＠), small (﹦﹢﹣﹫) and the minus sign U+2212.
func formulaSign(r rune) bool {
	switch r {
	case '=', '+', '-', '@',
		'\uFF1D', '\uFE66', // ＝ ﹦
		'\uFF0B', '\uFE62', // ＋ ﹢
		'\uFF0D', '\uFE63', '\u2212', // － ﹣ −
		'\uFF20', '\uFE6B': // ＠ ﹫
		return true
	}
	return false
}

// FileName keeps the letters, digits, - and _ of a resource key for a
// download's file name.
func FileName(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "export"
	}
	return string(b)
}
