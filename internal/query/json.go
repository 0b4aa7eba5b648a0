package query

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendRowsJSON appends rows as a JSON array, exactly as encoding/json
// writes them (keys sorted, HTML characters escaped), without its
// reflection: the values RowMap produces take a direct path, and anything
// else goes through json.Marshal. A list page spends most of its encoding
// time on time.Time and nested maps, which encoding/json re-validates.
func AppendRowsJSON(b []byte, rows []map[string]any) ([]byte, error) {
	b = append(b, '[')
	var err error
	// A page's rows mostly share their keys: sorted once, they serve
	// every row that has the same ones.
	keys := make([]string, 0, 16)
	for i, row := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		if row == nil {
			b = append(b, "null"...)
			continue
		}
		if i > 0 && len(row) == len(keys) {
			start := len(b)
			var same bool
			if b, same, err = appendSorted(b, row, keys); err != nil {
				return nil, err
			} else if same {
				continue
			}
			b = b[:start]
		}
		keys = sortedKeys(row, keys[:0])
		if b, _, err = appendSorted(b, row, keys); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// AppendJSON appends v as encoding/json would; see AppendRowsJSON.
func AppendJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, v), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case float64:
		// encoding/json's own format for the common range; the rest
		// (exponents, NaN errors) is left to it.
		if a := math.Abs(v); a == 0 || (a >= 1e-6 && a < 1e21) {
			return strconv.AppendFloat(b, v, 'f', -1, 64), nil
		}
	case time.Time:
		if y := v.Year(); y >= 0 && y <= 9999 {
			b = append(b, '"')
			b = v.AppendFormat(b, time.RFC3339Nano)
			return append(b, '"'), nil
		}
	case json.RawMessage:
		// Compacted and escaped in one pass, as encoding/json would (a
		// jsonb value's text has a space after each : and ,).
		if out, ok := appendCompactJSON(b, v); ok {
			return out, nil
		}
		// Not JSON: json.Marshal below names the fault.
	case map[string]any:
		var keys [8]string
		return appendObject(b, v, keys[:0])
	case []any:
		b = append(b, '[')
		var err error
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = AppendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, out...), nil
}

func appendObject(b []byte, m map[string]any, keys []string) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	b, _, err := appendSorted(b, m, sortedKeys(m, keys))
	return b, err
}

// sortedKeys appends m's keys to keys, sorted.
func sortedKeys(m map[string]any, keys []string) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendSorted appends m as a JSON object with the members keys names, in
// that order; ok is false, and b is left part written, when m lacks one
// of them.
func appendSorted(b []byte, m map[string]any, keys []string) (_ []byte, ok bool, err error) {
	b = append(b, '{')
	for i, k := range keys {
		v, ok := m[k]
		if !ok {
			return b, false, nil
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		if b, err = AppendJSON(b, v); err != nil {
			return nil, false, err
		}
	}
	return append(b, '}'), true, nil
}

// appendString writes s quoted; strings that need escaping (control and
// HTML characters, non-ASCII that encoding/json treats specially) are
// left to encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			out, _ := json.Marshal(s)
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendCompactJSON appends the JSON text src as encoding/json writes
// a json.RawMessage: no whitespace between tokens (jsonb's text and
// json_build_object's have some), and <, >, &, U+2028 and U+2029 escaped
// in strings. It checks src as it goes, as json.Valid would, and reports
// false (b then part written) when src is not JSON: one pass instead of
// json.Valid's and then this one's.
func appendCompactJSON(b, src []byte) ([]byte, bool) {
	c := compactor{src: src, b: b}
	c.space()
	if !c.value(0) {
		return c.b, false
	}
	c.space()
	return c.b, c.i == len(src)
}

// maxJSONDepth is encoding/json's limit of nested arrays and objects.
const maxJSONDepth = 10000

type compactor struct {
	src []byte
	i   int
	b   []byte
}

func (c *compactor) space() {
	for c.i < len(c.src) {
		switch c.src[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *compactor) value(depth int) bool {
	if c.i >= len(c.src) {
		return false
	}
	switch ch := c.src[c.i]; {
	case ch == '{' || ch == '[':
		if depth >= maxJSONDepth {
			return false
		}
		return c.container(ch, depth+1)
	case ch == '"':
		return c.str()
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if len(c.src)-c.i >= len(lit) && string(c.src[c.i:c.i+len(lit)]) == lit {
			c.b = append(c.b, lit...)
			c.i += len(lit)
			return true
		}
	}
	return false
}

// container reads an object ({) or an array ([) from its opening byte.
func (c *compactor) container(open byte, depth int) bool {
	end := byte(']')
	if open == '{' {
		end = '}'
	}
	c.b = append(c.b, open)
	c.i++
	c.space()
	if c.i < len(c.src) && c.src[c.i] == end {
		c.b = append(c.b, end)
		c.i++
		return true
	}
	for {
		if open == '{' {
			if c.i >= len(c.src) || c.src[c.i] != '"' || !c.str() {
				return false
			}
			c.space()
			if c.i >= len(c.src) || c.src[c.i] != ':' {
				return false
			}
			c.b = append(c.b, ':')
			c.i++
			c.space()
		}
		if !c.value(depth) {
			return false
		}
		c.space()
		if c.i >= len(c.src) {
			return false
		}
		switch c.src[c.i] {
		case ',':
			c.b = append(c.b, ',')
			c.i++
			c.space()
		case end:
			c.b = append(c.b, end)
			c.i++
			return true
		default:
			return false
		}
	}
}

// asIs are the bytes a string's text is copied with as they are: not a
// quote, a backslash, a control character, an HTML character or the first
// byte of U+2028 and U+2029, which str looks at one by one.
var asIs = func() (t [256]bool) {
	for i := 0x20; i < 256; i++ {
		t[i] = true
	}
	for _, ch := range []byte{'"', '\\', '<', '>', '&', 0xE2} {
		t[ch] = false
	}
	return t
}()

// str reads a string from its opening quote. Runs of ordinary bytes are
// copied at once: most of a page's bytes are its strings' text.
func (c *compactor) str() bool {
	c.b = append(c.b, '"')
	c.i++
	for c.i < len(c.src) {
		j := c.i
		for j < len(c.src) && asIs[c.src[j]] {
			j++
		}
		c.b = append(c.b, c.src[c.i:j]...)
		if c.i = j; c.i == len(c.src) {
			return false
		}
		ch := c.src[c.i]
		switch {
		case ch == '"':
			c.b = append(c.b, '"')
			c.i++
			return true
		case ch < 0x20:
			return false
		case ch == '\\':
			if c.i+1 >= len(c.src) {
				return false
			}
			switch e := c.src[c.i+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.b = append(c.b, '\\', e)
				c.i += 2
			case 'u':
				if c.i+6 > len(c.src) {
					return false
				}
				for _, h := range c.src[c.i+2 : c.i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				c.b = append(c.b, c.src[c.i:c.i+6]...)
				c.i += 6
			default:
				return false
			}
		case ch == '<':
			c.b = append(c.b, `\u003c`...)
			c.i++
		case ch == '>':
			c.b = append(c.b, `\u003e`...)
			c.i++
		case ch == '&':
			c.b = append(c.b, `\u0026`...)
			c.i++
		case ch == 0xE2 && c.i+2 < len(c.src) && c.src[c.i+1] == 0x80 && (c.src[c.i+2] == 0xA8 || c.src[c.i+2] == 0xA9):
			c.b = append(c.b, `\u202`...)
			c.b = append(c.b, "89"[c.src[c.i+2]-0xA8])
			c.i += 3
		default:
			c.b = append(c.b, ch)
			c.i++
		}
	}
	return false
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (c *compactor) number() bool {
	start := c.i
	digits := func() int {
		n := 0
		for c.i < len(c.src) && c.src[c.i] >= '0' && c.src[c.i] <= '9' {
			c.i++
			n++
		}
		return n
	}
	if c.src[c.i] == '-' {
		c.i++
	}
	if c.i < len(c.src) && c.src[c.i] == '0' {
		c.i++
	} else if digits() == 0 {
		return false
	}
	if c.i < len(c.src) && c.src[c.i] == '.' {
		c.i++
		if digits() == 0 {
			return false
		}
	}
	if c.i < len(c.src) && (c.src[c.i] == 'e' || c.src[c.i] == 'E') {
		c.i++
		if c.i < len(c.src) && (c.src[c.i] == '+' || c.src[c.i] == '-') {
			c.i++
		}
		if digits() == 0 {
			return false
		}
	}
	c.b = append(c.b, c.src[start:c.i]...)
	return true
}

// StoredJSON is the JSON text js as the panel writes its own JSON (an
// audit payload, a ban, a report's evidence): each NUL character's escape (\u0000, which
// PostgreSQL's jsonb cannot hold) becomes the text "\u0000", as Bun means
// its AppendJSON to do; an escaped backslash before "u0000" is text already
// and stays as it is, where Bun's AppendJSON makes it a NUL escape (a
// value holding the typed text "\u0000" then failed on PostgreSQL and
// came back changed on SQLite). js is returned as it is when it has no
// NUL escape.
func StoredJSON(js []byte) []byte {
	if !bytes.Contains(js, []byte(`u0000`)) {
		return js
	}
	out := make([]byte, 0, len(js)+8)
	for i := 0; i < len(js); i++ {
		c := js[i]
		if c != '\\' || i+1 == len(js) {
			out = append(out, c)
			continue
		}
		if bytes.HasPrefix(js[i+1:], []byte("u0000")) {
			out = append(out, `\\u0000`...)
			i += 5
			continue
		}
		out = append(out, c, js[i+1]) // an escape: its next byte is not one of its own
		i++
	}
	return out
}

// LoneSurrogate reports whether the JSON text js escapes half of a UTF-16
// surrogate pair without the other (a \ud800 alone, or a low half
// first). encoding/json reads such an escape as U+FFFD; PostgreSQL's json
// and jsonb refuse the whole value.
func LoneSurrogate(js []byte) bool {
	high := false // the escape just before was a pair's high half
	for i := 0; i < len(js); i++ {
		r := -1 // the escaped code unit at i, if \uXXXX is there
		if js[i] == '\\' && i+1 < len(js) {
			if js[i+1] == 'u' && i+6 <= len(js) {
				if n, err := strconv.ParseUint(string(js[i+2:i+6]), 16, 16); err == nil {
					r = int(n)
				}
			}
			if r < 0 {
				i++ // another escape: its next byte is not one of its own
			} else {
				i += 5
			}
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if high {
				return true
			}
			high = true
		case r >= 0xDC00 && r < 0xE000:
			if !high {
				return true
			}
			high = false
		case high:
			return true
		}
	}
	return high
}
