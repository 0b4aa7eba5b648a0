package query

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/schema"
)

// ConvertValue types a value of a request body (decoded by encoding/json
// with UseNumber) for column c, for create and update:
//
//   - integer: a JSON integer or a string holding one -> int64
//   - number: a JSON number or a numeric string -> float64
//   - boolean: true/false, or "true"/"false"/"1"/"0" -> bool
//   - datetime: an RFC 3339 string or a 2006-01-02 date -> time.Time (UTC)
//   - json: any JSON value -> json.RawMessage
//   - bytes: a base64 string (standard or URL alphabet) -> []byte
//   - string: a JSON string -> string
//
// The kinds carried as text of their own (OwnKind) take their text, an
// array a JSON array (an Array), a unix time column a time or its
// integer. nil (JSON null) is SQL NULL for every type, json columns
// included; a NOT NULL column then fails in the database. A value that
// does not fit is an *Error with CodeInvalidValue naming the column.
func ConvertValue(c *schema.Column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	out, err := convertValue(c, v)
	if err != nil {
		err.Column = c.Name
		return nil, err
	}
	return out, nil
}

// convertValue is ConvertValue for a value that is not nil: every kind,
// then every Go type, in one switch each.
func convertValue(c *schema.Column, v any) (any, *Error) {
	switch {
	case c.Kind == schema.KindArray:
		items, ok := v.([]any)
		if !ok {
			return nil, errorf(CodeInvalidValue, "column %q: %s is not an array", c.Name, describe(v)).problem("not_an_array")
		}
		arr := make(Array, len(items))
		elem := c.ElemColumn()
		for i, it := range items {
			var err error
			if arr[i], err = convertElem(elem, it); err != nil {
				return nil, errorf(CodeInvalidValue, "column %q: item %d: %s", c.Name, i+1, message(err))
			}
		}
		return arr, nil
	case c.Unix != "":
		// An RFC 3339 time (or a bare date, midnight UTC), or for
		// compatibility the integer stored.
		switch x := v.(type) {
		case json.Number:
			if n, err := x.Int64(); err == nil {
				return n, nil
			}
		case int64:
			return x, nil
		case time.Time:
			return c.UnixValue(x), nil
		case string:
			t := strings.TrimSpace(x)
			if n, err := strconv.ParseInt(t, 10, 64); err == nil {
				return n, nil
			}
			tm, ok := parseTime(t, rfc3339|bareDate|fromYear1, nil)
			if !ok {
				return nil, errorf(CodeInvalidValue, "column %q: %s", c.Name, notATime(t).Message).problem("not_a_time")
			}
			return c.UnixValue(tm.UTC()), nil
		}
		return nil, errorf(CodeInvalidValue, "column %q: %s does not fit a time column", c.Name, describe(v)).problem("not_a_time")
	case ownKind(c) || c.Kind == schema.KindUUID:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case json.Number:
			if c.Kind != schema.KindDecimal {
				return nil, kindMisfit(c, v)
			}
			s = string(x)
		default:
			return nil, kindMisfit(c, v)
		}
		if err := checkText(c.Name, s); err != nil {
			return nil, err.(*Error)
		}
		out, err := kindText(c, s)
		switch {
		case err != nil && c.Kind == schema.KindUUID:
			e := errorf(CodeInvalidValue, "column %q: %s does not fit a uuid column", c.Name, describe(v))
			e.Plain = uuidMustBe
			return nil, e.problem("not_a_uuid")
		case err != nil:
			e := errorf(CodeInvalidValue, "column %q: %s", c.Name, message(err))
			if ke := (*Error)(nil); errors.As(err, &ke) && ke.Problem != "" {
				e.Problem, e.Params = ke.Problem, ke.Params
			}
			return nil, e
		case c.Kind == schema.KindDecimal:
			if err := fitsNumeric(c, out); err != nil {
				return nil, err
			}
		}
		if c.Kind != schema.KindUUID || c.DataType == schema.String {
			return out, nil
		}
		// A uuid of a Go type of its own (a [16]byte): typed by it below.
	}

	bad := func() (any, *Error) {
		e := errorf(CodeInvalidValue, "column %q: %s does not fit %s column", c.Name, describe(v), columnKind(c))
		e.Plain = mustBe(c)
		return nil, e.problem(mustBeProblem[e.Plain])
	}
	switch c.DataType {
	case schema.JSON:
		b, err := json.Marshal(v)
		if err != nil {
			return bad()
		}
		return json.RawMessage(b), nil
	case schema.Integer:
		switch x := v.(type) {
		case json.Number:
			n, err := x.Int64()
			if err != nil {
				return bad()
			}
			return n, nil
		case string:
			n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
			if err != nil {
				return bad()
			}
			return n, nil
		case int64:
			return x, nil
		case int:
			return int64(x), nil
		case float64:
			if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
				return bad()
			}
			return int64(x), nil
		}
	case schema.Number:
		switch x := v.(type) {
		case json.Number:
			f, err := x.Float64()
			if err != nil || math.IsInf(f, 0) {
				return bad()
			}
			return f, nil
		case string:
			if lit, ok := specialNumber(x); ok {
				return lit, nil
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return bad()
			}
			return f, nil
		case float64:
			return x, nil
		case int64:
			return float64(x), nil
		}
	case schema.Boolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			b, err := parseBool(x)
			if err != nil {
				return bad()
			}
			return b, nil
		case json.Number:
			b, err := parseBool(string(x))
			if err != nil {
				return bad()
			}
			return b, nil
		}
	case schema.Datetime:
		switch x := v.(type) {
		case string:
			if lit, ok := specialTime(x); ok {
				return lit, nil
			}
			tm, ok := parseTime(strings.TrimSpace(x), rfc3339|bareDate|fromYear1, nil)
			if !ok {
				return bad()
			}
			return tm.UTC(), nil
		case time.Time:
			return x, nil
		}
	case schema.Bytes:
		if s, ok := v.(string); ok {
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
				if b, err := enc.DecodeString(s); err == nil {
					return b, nil
				}
			}
		}
		if b, ok := v.([]byte); ok {
			return b, nil
		}
	case schema.String:
		s, ok := v.(string)
		if n, isNum := v.(json.Number); isNum && integerSQL(c.SQLType) {
			// An integer column read into a Go string (a bigint user id
			// in a built-in table) takes the JSON number the users list
			// shows as well as its text.
			s, ok = string(n), true
		}
		if !ok {
			break
		}
		// A long text is the writer's to bound (the panel's
		// MaxTextLength, the body limit), not MaxValueLen, which is the
		// query string's; a uuid or an integer is short.
		uuidCol, intCol := strings.EqualFold(c.SQLType, "uuid"), integerSQL(c.SQLType)
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 || ((uuidCol || intCol) && len(s) > MaxValueLen) {
			return bad()
		}
		var out any = s
		switch {
		case uuidCol:
			u, err := uuidText(s)
			if err != nil {
				return bad()
			}
			out = u
		case intCol:
			if _, err := strconv.ParseInt(s, 10, 64); err != nil {
				return bad()
			}
		}
		if c.MaxLength > 0 && utf8.RuneCountInString(s) > c.MaxLength {
			e := errorf(CodeInvalidValue, "column %q: longer than %d characters", c.Name, c.MaxLength)
			e.Plain = fmt.Sprintf("at most %d characters", c.MaxLength)
			return nil, e.problem("too_long", "max", c.MaxLength)
		}
		return out, nil
	}
	return bad()
}

// kindText is the value of s for a column of a kind carried as text of
// its own, or a uuid column.
func kindText(c *schema.Column, s string) (string, error) {
	switch c.Kind {
	case schema.KindEnum:
		return enumText(c, s)
	case schema.KindInet:
		return inetText(c.DBType, s)
	case schema.KindDecimal:
		return decimalText(s)
	case schema.KindDate:
		return dateText(s)
	case schema.KindTimestampLocal:
		return wallText(s)
	case schema.KindUUID:
		return uuidText(s)
	}
	return s, nil
}

// convertElem types one element of an array body value: elem is the
// array's ElemColumn.
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
			out, err := kindText(elem, s)
			if err != nil {
				return nil, err
			}
			return out, nil
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

// numericTypeRE is a numeric's declared precision and scale:
// PostgreSQL's format_type ("numeric(12,2)") or SQLite's declared type.
var numericTypeRE = regexp.MustCompile(`(?i)^(?:numeric|decimal)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$`)

// fitsNumeric refuses a value a numeric(p,s) column would not keep as
// typed: PostgreSQL rounds extra decimal places away in silence (and
// SQLite keeps anything), so 12.345 in a numeric(12,2) would be stored as
// 12.35; more digits before the point than p-s overflow. Values of a
// numeric without a declared scale, and NaN and infinity, pass.
func fitsNumeric(c *schema.Column, s string) *Error {
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
		return e.problem("too_many_decimals", "max", scale)
	}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p-scale)), nil)
	if new(big.Rat).Abs(r).Cmp(new(big.Rat).SetInt(limit)) >= 0 {
		e := errorf(CodeInvalidValue, "column %q: %s is too large: at most %d digits before the point (the column is %s)", c.Name, clip(s), p-scale, typ)
		e.Plain = fmt.Sprintf("too large: at most %d digits before the decimal point", p-scale)
		return e.problem("too_many_digits", "max", p-scale)
	}
	return nil
}

// kindMisfit is the error for v, of a JSON type an ownKind column does
// not take.
func kindMisfit(c *schema.Column, v any) *Error {
	e := errorf(CodeInvalidValue, "column %q: %s does not fit %s column", c.Name, describe(v), kindArticle(c.Kind))
	switch c.Kind {
	case schema.KindUUID:
		e.Plain = uuidMustBe
	case schema.KindDecimal:
		e.Plain = "must be a number"
	default:
		e.Plain = "must be text"
	}
	return e.problem(mustBeProblem[e.Plain])
}

// columnKind names what a column holds for an error message, with its
// article: its SQL family where that says more than the Go type (a uuid
// or an integer column read into a Go string), else its data type.
func columnKind(c *schema.Column) string {
	kind := fmt.Sprint(c.DataType)
	if f := sqlFamily(c.SQLType); f == "uuid" || f == "integer" {
		kind = f
	}
	if kind == "integer" {
		return "an integer"
	}
	return "a " + kind
}

// uuidMustBe says what a uuid column takes.
const uuidMustBe = "must be an id like 123e4567-e89b-12d3-a456-426614174000"

// mustBeProblem is the problem code of each of mustBe's rules.
var mustBeProblem = map[string]string{
	uuidMustBe:               "not_a_uuid",
	"must be a whole number": "not_an_integer",
	"must be a number":       "not_a_number",
	"must be yes or no":      "not_a_boolean",
	"must be a date and time, like 2026-12-04 18:00": "not_a_time",
	"must be base64 data":                            "not_base64",
	"must be JSON":                                   "not_json",
	"must be text":                                   "not_text",
}

// mustBe is what a value of c must be, in plain words, for a value
// that does not fit it.
func mustBe(c *schema.Column) string {
	switch f := sqlFamily(c.SQLType); {
	case f == "uuid":
		return uuidMustBe
	case f == "integer":
		return "must be a whole number"
	}
	switch c.DataType {
	case schema.Integer:
		return "must be a whole number"
	case schema.Number:
		return "must be a number"
	case schema.Boolean:
		return "must be yes or no"
	case schema.Datetime:
		return "must be a date and time, like 2026-12-04 18:00"
	case schema.Bytes:
		return "must be base64 data"
	case schema.JSON:
		return "must be JSON"
	}
	return "must be text"
}

// describe names the JSON type of a decoded value for an error message.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return "the string " + strconv.Quote(clip(x))
	case json.Number:
		return "the number " + clip(string(x))
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "the value"
}

// kindArticle names a kind with its article for a message.
func kindArticle(k schema.ValueKind) string {
	switch k {
	case schema.KindEnum, schema.KindInet, schema.KindArray:
		return "an " + string(k)
	case "":
		return "a text"
	}
	return "a " + string(k)
}

// ReferenceKey is v, a key read from one table, as a value of col, the column of
// another table it is compared with: a game's text owner_id against a
// bigint users id, or the reverse. PostgreSQL compares no text with a
// bigint, so the value takes col's type; ok is false when it cannot be one
// (a NULL key, "abc" for an integer column), and then no row matches.
func ReferenceKey(col *schema.Column, v any) (any, bool) {
	if v == nil || col == nil {
		return nil, false
	}
	if _, isString := v.(string); col.DataType == schema.String && !isString {
		v = fmt.Sprint(v)
	}
	cv, err := ConvertValue(col, v)
	return cv, err == nil && cv != nil
}
