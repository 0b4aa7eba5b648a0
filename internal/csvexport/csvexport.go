// Package csvexport is the machinery of the panel's CSV export: one cell
// per value (text a spreadsheet would run as a formula is defused), a
// download's file name, and ending a response whose status line is gone
// so the client sees it incomplete.
package csvexport

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
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
// run as a formula (a leading =, +, -, @, tab or carriage return) gets a
// leading apostrophe, so opening an export cannot run a player's
// display name; numbers, booleans and times are written as they are.
func Cell(c *schema.Column, v any) string {
	var s string
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		if c.Kind == schema.KindDecimal && query.IsDecimal(v) {
			return v // a number, not a formula: "-12.30" stays as it is
		}
		s = v
	case json.RawMessage:
		s = string(v)
	case []byte:
		return base64.StdEncoding.EncodeToString(v)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
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
		if c.DataType != schema.String && c.DataType != schema.JSON {
			return s
		}
	}
	if formulaLike(s) {
		return "'" + s
	}
	return s
}

// formulaLike reports text a spreadsheet may run as a formula: one that
// starts, after any spaces and tabs, with =, +, - or @, or their
// full-width forms (＝＋－＠, which some spreadsheets read as the plain
// ones), or that starts with a tab or carriage return.
func formulaLike(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '\t' || s[0] == '\r' {
		return true
	}
	r, _ := utf8.DecodeRuneInString(strings.TrimLeft(s, " \t"))
	switch r {
	case '=', '+', '-', '@', '＝', '＋', '－', '＠':
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
