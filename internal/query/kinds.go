package query

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect"
	bunschema "github.com/uptrace/bun/schema"

	"github.com/gameadmin/admin/internal/schema"
)

// The kinds whose values the panel carries as text of their own (the
// database's text form), whatever the Go field: they are shown, filtered
// and written exactly, never through a Go type that would round them.
// kindCell, parseKind and convertKind handle them; the other kinds go the
// DataType way.

// OwnKind reports whether c's values take the kind path: carried as
// the database's text (an array as a JSON array), not through the Go
// field's type.
func OwnKind(c *schema.Column) bool { return ownKind(c) }

// ownKind reports whether c's values take the kind path. A numeric column
// read into a Go float stays a number: the developer chose a float.
func ownKind(c *schema.Column) bool {
	if c.Unix != "" {
		return true
	}
	switch c.Kind {
	case schema.KindArray, schema.KindInet, schema.KindEnum, schema.KindDate, schema.KindTimestampLocal:
		return true
	case schema.KindDecimal:
		return c.DataType != schema.Number && c.DataType != schema.Integer
	}
	return false
}

// kindCell is a cell of an ownKind column from raw, the driver's value.
func kindCell(c *schema.Column, raw any) (any, *CellIssue) {
	if c.Unix != "" {
		return unixCell(c, raw)
	}
	if tm, ok := raw.(time.Time); ok {
		// SQLite's driver parses a column declared DATE or TIMESTAMP.
		switch c.Kind {
		case schema.KindDate:
			return tm.Format(time.DateOnly), nil
		case schema.KindTimestampLocal:
			return tm.Format(wallClock), nil
		}
	}
	s, ok := textOf(raw)
	if !ok {
		switch x := raw.(type) {
		case int64:
			s = strconv.FormatInt(x, 10)
			if c.Kind == schema.KindDecimal && c.HasScale && c.Scale > 0 {
				s += "." + strings.Repeat("0", c.Scale)
			}
		case float64:
			if sp := specialFloat(x); sp != "" {
				return sp, nil
			}
			s = strconv.FormatFloat(x, 'f', -1, 64)
			// SQLite stores a numeric(p,s) that fits a double as REAL
			// (2500.50 as 2500.5): said again with the declared scale,
			// when that loses no digit the double holds.
			if c.Kind == schema.KindDecimal && c.HasScale {
				if f := strconv.FormatFloat(x, 'f', c.Scale, 64); len(s) <= len(f) || !strings.Contains(s, ".") {
					if back, err := strconv.ParseFloat(f, 64); err == nil && back == x {
						s = f
					}
				}
			}
		default:
			return nil, &CellIssue{Message: "the stored value cannot be shown", Err: errorf(CodeInvalidValue, "unexpected %T", raw)}
		}
	}
	if !utf8.ValidString(s) {
		return strings.ToValidUTF8(s, "\uFFFD"), &CellIssue{Message: "not valid UTF-8; invalid bytes shown as U+FFFD", Err: errBadUTF8}
	}
	switch c.Kind {
	case schema.KindArray:
		if strings.HasPrefix(s, "{") {
			elems, err := parsePGArray(s, c.Elem)
			if err != nil {
				return s, &CellIssue{Message: "an array the panel cannot read; shown as stored", Err: err}
			}
			return elems, nil
		}
		return jsonCell(s, false) // SQLite: Bun stores arrays as JSON
	case schema.KindDate:
		if IsSpecial(s) {
			return s, nil
		}
		if tm, ok := parseWall(s); ok {
			return tm.Format(time.DateOnly), nil
		}
	case schema.KindTimestampLocal:
		if IsSpecial(s) {
			return s, nil
		}
		if tm, ok := parseWall(s); ok {
			return tm.Format(wallClock), nil
		}
	}
	return s, nil
}

// wallClock is how a timestamp without time zone is carried: no zone, the
// fraction only when there is one.
const wallClock = "2006-01-02T15:04:05.999999999"

// parseWall reads a date or a timestamp as the databases write it,
// keeping the wall clock and dropping any offset (SQLite's text of a
// time Bun wrote carries one).
func parseWall(s string) (time.Time, bool) {
	s = strings.Replace(s, " ", "T", 1)
	for _, layout := range []string{wallClock, time.DateOnly, time.RFC3339Nano, wallClock + "Z07:00", wallClock + "Z07"} {
		if tm, err := time.Parse(layout, s); err == nil {
			return time.Date(tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), time.UTC), true
		}
	}
	return time.Time{}, false
}

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

// decimalRE is a numeric's text: what PostgreSQL reads as numeric.
var decimalRE = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// IsDecimal reports whether s is a plain decimal number, as a numeric's
// text is: a CSV cell that needs no guard against formulas.
func IsDecimal(s string) bool { return decimalRE.MatchString(s) }

// parseKind types a query-string value for an ownKind column (and checks
// enum labels and uuids); handled is false for the other kinds.
func parseKind(c *schema.Column, s string) (out any, handled bool, err error) {
	if c.Unix != "" {
		out, err := parseUnix(c, s, nil)
		return out, true, err
	}
	switch c.Kind {
	case schema.KindEnum:
		if labels := c.Labels(); len(labels) > 0 && !slices.Contains(labels, s) {
			return nil, true, errorf(CodeInvalidValue, "%q is not one of %s", clip(s), labelList(labels))
		}
		return s, true, nil
	case schema.KindInet:
		if !validInet(c.DBType, s) {
			return nil, true, errorf(CodeInvalidValue, "%q is not %s", clip(s), inetWhat(c.DBType))
		}
		return s, true, nil
	case schema.KindDecimal:
		if !ownKind(c) {
			return nil, false, nil
		}
		if lit, ok := specialNumber(s); ok {
			return lit, true, nil
		}
		if t := strings.TrimSpace(s); decimalRE.MatchString(t) {
			return t, true, nil
		}
		return nil, true, errorf(CodeInvalidValue, "%q is not a decimal number", clip(s))
	case schema.KindDate:
		if lit, ok := specialTime(s); ok {
			return lit, true, nil
		}
		if tm, err := time.Parse(time.DateOnly, strings.TrimSpace(s)); err == nil && tm.Year() >= 1 {
			return tm.Format(time.DateOnly), true, nil
		}
		return nil, true, errorf(CodeInvalidValue, "%q is not a 2006-01-02 date", clip(s))
	case schema.KindTimestampLocal:
		if lit, ok := specialTime(s); ok {
			return lit, true, nil
		}
		t := strings.Replace(strings.TrimSpace(s), " ", "T", 1)
		for _, layout := range []string{wallClock, time.DateOnly} {
			if tm, err := time.Parse(layout, t); err == nil && tm.Year() >= 1 {
				// Written without a zone, as the column keeps it.
				return tm.Format("2006-01-02 15:04:05.999999999"), true, nil
			}
		}
		return nil, true, errorf(CodeInvalidValue, "%q is not a wall-clock time such as 2006-01-02T15:04:05 (this column has no time zone)", clip(s))
	case schema.KindUUID:
		u, err := uuid.Parse(s)
		if err != nil {
			return nil, true, errorf(CodeInvalidValue, "%q is not a UUID", clip(s))
		}
		if c.DataType != schema.String {
			return nil, false, nil
		}
		return u.String(), true, nil
	}
	return nil, false, nil
}

// kindMisfit is the error for v, of a JSON type an ownKind column does
// not take.
func kindMisfit(c *schema.Column, v any) *Error {
	e := errorf(CodeInvalidValue, "column %q: %s does not fit %s column", c.Name, describe(v), kindName(c))
	switch c.Kind {
	case schema.KindUUID:
		e.Plain = uuidMustBe
	case schema.KindDecimal:
		e.Plain = "must be a number"
	default:
		e.Plain = "must be text"
	}
	return e
}

// convertKind is ConvertValue for an ownKind column; handled is false
// for the other kinds.
func convertKind(c *schema.Column, v any) (out any, handled bool, err error) {
	if c.Kind == schema.KindArray {
		items, ok := v.([]any)
		if !ok {
			return nil, true, errorf(CodeInvalidValue, "column %q: %s is not an array", c.Name, describe(v))
		}
		arr := make(Array, len(items))
		elem := c.ElemColumn()
		for i, it := range items {
			if arr[i], err = convertElem(elem, it); err != nil {
				return nil, true, errorf(CodeInvalidValue, "column %q: item %d: %s", c.Name, i+1, message(err))
			}
		}
		return arr, true, nil
	}
	if !ownKind(c) && c.Kind != schema.KindUUID {
		return nil, false, nil
	}
	if c.Unix != "" {
		out, err := convertUnix(c, v)
		return out, true, err
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		if c.Kind != schema.KindDecimal {
			return nil, true, kindMisfit(c, v)
		}
		s = string(x)
	default:
		return nil, true, kindMisfit(c, v)
	}
	if err := checkText(c.Name, s); err != nil {
		return nil, true, err
	}
	out, handled, err = parseKind(c, s)
	if err != nil {
		if c.Kind == schema.KindUUID {
			e := errorf(CodeInvalidValue, "column %q: %s does not fit a uuid column", c.Name, describe(v))
			e.Plain = uuidMustBe
			return nil, true, e
		}
		return nil, true, errorf(CodeInvalidValue, "column %q: %s", c.Name, message(err))
	}
	if c.Kind == schema.KindDecimal {
		if t, ok := out.(string); ok {
			if err := fitsNumeric(c, t); err != nil {
				return nil, true, err
			}
		}
	}
	return out, handled, nil
}

// numericTypeRE is a numeric's declared precision and scale:
// PostgreSQL's format_type ("numeric(12,2)") or SQLite's declared type.
var numericTypeRE = regexp.MustCompile(`(?i)^(?:numeric|decimal)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$`)

// fitsNumeric refuses a value a numeric(p,s) column would not keep as
// typed: PostgreSQL rounds extra decimal places away in silence (and
// SQLite keeps anything), so 12.345 in a numeric(12,2) would be stored as
// 12.35; more digits before the point than p-s overflow. Values of a
// numeric without a declared scale, and NaN and infinity, pass.
func fitsNumeric(c *schema.Column, s string) error {
	typ := c.DBType
	if typ == "" { // a table New could not find: the model's tag
		typ = c.SQLType
	}
	m := numericTypeRE.FindStringSubmatch(strings.TrimSpace(typ))
	if m == nil {
		return nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil // NaN, infinity: the database's to refuse
	}
	p, _ := strconv.Atoi(m[1])
	scale := 0
	if m[2] != "" {
		scale, _ = strconv.Atoi(m[2])
	}
	if p > 1000 || scale > p {
		return nil
	}
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	if !new(big.Rat).Mul(r, new(big.Rat).SetInt(unit)).IsInt() {
		e := errorf(CodeInvalidValue, "column %q: %s has more than %d decimal places (the column is %s)", c.Name, clip(s), scale, typ)
		e.Plain = fmt.Sprintf("at most %d decimal places", scale)
		if scale == 0 {
			e.Plain = "a whole number, without decimals"
		}
		return e
	}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p-scale)), nil)
	if new(big.Rat).Abs(r).Cmp(new(big.Rat).SetInt(limit)) >= 0 {
		e := errorf(CodeInvalidValue, "column %q: %s is too large: at most %d digits before the point (the column is %s)", c.Name, clip(s), p-scale, typ)
		e.Plain = fmt.Sprintf("too large: at most %d digits before the decimal point", p-scale)
		return e
	}
	return nil
}

// convertElem types one element of an array body value.
func convertElem(elem *schema.Column, v any) (any, error) {
	switch elem.Kind {
	case schema.KindNumber:
		if n, ok := v.(json.Number); ok {
			return n, nil
		}
	case schema.KindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case schema.KindJSON:
		j, err := json.Marshal(v)
		if err != nil {
			return nil, errorf(CodeInvalidValue, "not JSON")
		}
		return json.RawMessage(j), nil
	case schema.KindEnum, schema.KindInet, schema.KindDecimal, schema.KindDate, schema.KindTimestampLocal, schema.KindUUID:
		s, ok := v.(string)
		if n, isNum := v.(json.Number); isNum && elem.Kind == schema.KindDecimal {
			s, ok = string(n), true
		}
		if ok {
			out, _, err := parseKind(elem, s)
			return out, err
		}
	default:
		if s, ok := v.(string); ok {
			if err := checkText(elem.Name, s); err != nil {
				return nil, err
			}
			return s, nil
		}
	}
	if v == nil {
		return nil, nil
	}
	return nil, errorf(CodeInvalidValue, "%s is not %s", describe(v), kindArticle(elem.Kind))
}

// validInet checks s against an inet, cidr or macaddr column's type.
func validInet(dbType, s string) bool {
	switch strings.ToLower(dbType) {
	case "macaddr", "macaddr8":
		_, err := net.ParseMAC(s)
		return err == nil
	case "cidr":
		p, err := netip.ParsePrefix(s)
		return err == nil && p.Masked() == p
	}
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	_, err := netip.ParsePrefix(s)
	return err == nil
}

func inetWhat(dbType string) string {
	switch strings.ToLower(dbType) {
	case "macaddr", "macaddr8":
		return "a MAC address"
	case "cidr":
		return "a network such as 10.0.0.0/8"
	}
	return "an IP address or network"
}

// labelList quotes an enum's labels for a message, the first few.
func labelList(labels []string) string {
	shown := labels
	if len(shown) > 8 {
		shown = shown[:8]
	}
	q := make([]string, len(shown))
	for i, l := range shown {
		q[i] = strconv.Quote(l)
	}
	out := strings.Join(q, ", ")
	if len(labels) > len(shown) {
		out += ", ..."
	}
	return out
}

// kindName names c's kind with its article for a message.
func kindName(c *schema.Column) string { return kindArticle(c.Kind) }

func kindArticle(k schema.ValueKind) string {
	switch k {
	case schema.KindEnum, schema.KindInet, schema.KindArray:
		return "an " + string(k)
	case "":
		return "a text"
	}
	return "a " + string(k)
}
