package query

import (
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
		if json.Valid(v) {
			return appendCompactJSON(b, v), nil
		}
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
// it: no whitespace between tokens (jsonb's text and json_build_object's
// have some), and <, >, &, U+2028 and U+2029 escaped in strings.
func appendCompactJSON(b, src []byte) []byte {
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !inString {
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			case '"':
				inString = true
			}
			b = append(b, c)
			continue
		}
		switch c {
		case '\\':
			b = append(b, c)
			if i+1 < len(src) {
				i++
				b = append(b, src[i])
			}
			continue
		case '"':
			inString = false
		case '<':
			b = append(b, `\u003c`...)
			continue
		case '>':
			b = append(b, `\u003e`...)
			continue
		case '&':
			b = append(b, `\u0026`...)
			continue
		case 0xE2:
			if i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9) {
				b = append(b, `\u202`...)
				b = append(b, "89"[src[i+2]-0xA8])
				i += 2
				continue
			}
		}
		b = append(b, c)
	}
	return b
}
