package query

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/uptrace/bun/dialect"
	bunschema "github.com/uptrace/bun/schema"

	"github.com/gameadmin/admin/internal/schema"
)

// Array columns: PostgreSQL's array literal, read from a cell
// (parsePGArray) and written for an INSERT, UPDATE or filter (Array).

// parsePGArray reads a one-dimensional PostgreSQL array literal, typing
// its elements by elem: numbers as json.Number (exact), booleans, NULL as
// nil, the rest as text.
func parsePGArray(s string, elem schema.ValueKind) ([]any, error) {
	bad := errorf(CodeInvalidValue, "not a one-dimensional array literal")
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, bad
	}
	body := s[1 : len(s)-1]
	out := []any{}
	if body == "" {
		return out, nil
	}
	for i := 0; i <= len(body); {
		var item string
		quoted := false
		if i < len(body) && body[i] == '"' {
			quoted = true
			var b strings.Builder
			i++
			for ; i < len(body) && body[i] != '"'; i++ {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				b.WriteByte(body[i])
			}
			if i >= len(body) {
				return nil, bad
			}
			i++ // the closing quote
			item = b.String()
		} else {
			j := strings.IndexByte(body[i:], ',')
			if j < 0 {
				j = len(body) - i
			}
			item = body[i : i+j]
			i += j
			if strings.HasPrefix(item, "{") {
				return nil, bad // nested: more than one dimension
			}
		}
		switch {
		case !quoted && strings.EqualFold(item, "NULL"):
			out = append(out, nil)
		case elem == schema.KindNumber && decimalRE.MatchString(item) && json.Valid([]byte(item)):
			out = append(out, json.Number(item)) // exact, and valid JSON
		case elem == schema.KindNumber || elem == schema.KindDecimal:
			out = append(out, item) // NaN, Infinity, a decimal's scale
		case elem == schema.KindBool:
			out = append(out, item == "t" || item == "true")
		case elem == schema.KindJSON:
			out = append(out, rawJSON(item, false))
		default:
			out = append(out, item)
		}
		if i >= len(body) {
			break
		}
		if body[i] != ',' {
			return nil, bad
		}
		i++
	}
	return out, nil
}

// Array is an array value for an INSERT, UPDATE or filter: on PostgreSQL
// the array literal (which the column's type takes as it is, or a CAST
// names), on SQLite the JSON array Bun stores for a slice.
type Array []any

var _ bunschema.QueryAppender = Array(nil)

// AppendQuery implements bun's schema.QueryAppender.
func (a Array) AppendQuery(gen bunschema.QueryGen, b []byte) ([]byte, error) {
	if gen.Dialect().Name() != dialect.PG {
		j, err := json.Marshal([]any(a))
		if err != nil {
			return nil, err
		}
		return gen.Dialect().AppendString(b, string(j)), nil
	}
	var sb strings.Builder
	sb.WriteByte('{')
	for i, e := range a {
		if i > 0 {
			sb.WriteByte(',')
		}
		switch x := e.(type) {
		case nil:
			sb.WriteString("NULL")
		case bool:
			sb.WriteString(strconv.FormatBool(x))
		case json.Number:
			sb.WriteString(string(x))
		case json.RawMessage:
			writeArrayText(&sb, string(x))
		case string:
			writeArrayText(&sb, x)
		default:
			j, err := json.Marshal(x)
			if err != nil {
				return nil, err
			}
			writeArrayText(&sb, string(j))
		}
	}
	sb.WriteByte('}')
	return gen.Dialect().AppendString(b, sb.String()), nil
}

// writeArrayText writes one element of an array literal, quoted.
func writeArrayText(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			sb.WriteByte('\\')
		}
		sb.WriteByte(s[i])
	}
	sb.WriteByte('"')
}
