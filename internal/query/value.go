package query

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/gameadmin/admin/internal/schema"
)

// parseValue types a string from the query string (a filter value, an
// item of _in, a single-column id) by its column. Errors are *Error with
// CodeInvalidValue.
func parseValue(c *schema.Column, s string) (any, error) {
	if out, ok, err := parseKind(c, s); ok {
		if err != nil {
			return nil, err
		}
		if err := checkText(c.Name, s); err != nil {
			return nil, err
		}
		return out, nil
	}
	switch c.DataType {
	case schema.Integer:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, errorf(CodeInvalidValue, "%q is not an integer", clip(s))
		}
		return n, nil
	case schema.Number:
		if lit, ok := specialNumber(s); ok {
			return lit, nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, errorf(CodeInvalidValue, "%q is not a number", clip(s))
		}
		return f, nil
	case schema.Boolean:
		b, err := parseBool(s)
		if err != nil {
			return nil, err
		}
		return b, nil
	case schema.Datetime:
		if lit, ok := specialTime(s); ok {
			return lit, nil
		}
		tm, err := parseTime(s)
		if err != nil {
			return nil, err
		}
		return tm, nil
	case schema.String:
		if err := checkText(c.Name, s); err != nil {
			return nil, err
		}
		// PostgreSQL refuses to compare a uuid or integer column with text
		// that is not one; say so as a client error rather than an SQL
		// one. (A built-in table's user columns are Go strings whatever
		// the users id type, which their SQLType names.)
		switch {
		case strings.EqualFold(c.SQLType, "uuid"):
			u, err := uuid.Parse(s)
			if err != nil {
				return nil, errorf(CodeInvalidValue, "%q is not a UUID", clip(s))
			}
			// The canonical lower-case form: SQLite stores and compares
			// it as text, and row keys built from it match the rows'.
			return u.String(), nil
		case integerSQL(c.SQLType):
			if _, err := strconv.ParseInt(s, 10, 64); err != nil {
				return nil, errorf(CodeInvalidValue, "%q is not an integer", clip(s))
			}
		}
		return s, nil
	}
	return nil, errorf(CodeInvalidValue, "%s columns cannot be compared with a value", c.DataType)
}

// specialNumber is the literal PostgreSQL stores for s when s spells NaN
// or an infinity, which a list shows as that string: written back, it is
// the value it was.
func specialNumber(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "nan":
		return "NaN", true
	case "infinity", "+infinity", "inf", "+inf":
		return "Infinity", true
	case "-infinity", "-inf":
		return "-Infinity", true
	}
	return "", false
}

// specialTime is specialNumber for times: infinity and -infinity.
func specialTime(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "infinity", "+infinity":
		return "infinity", true
	case "-infinity":
		return "-infinity", true
	}
	return "", false
}

// parseBool accepts true, false, 1 and 0.
func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, errorf(CodeInvalidValue, "%q is not true or false", clip(s))
}

// parseTime accepts RFC 3339 (fractional seconds optional) and a bare date,
// which means midnight UTC. Years before 1 are refused: PostgreSQL has no
// year 0 in the format Bun writes.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		tm, err = time.Parse(time.DateOnly, s)
	}
	if err != nil || tm.Year() < 1 {
		return time.Time{}, errorf(CodeInvalidValue, "%q is not an RFC 3339 time or a 2006-01-02 date", clip(s))
	}
	return tm.UTC(), nil
}

// clip shortens a client value quoted in an error message.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}

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
// nil (JSON null) is SQL NULL for every type, json columns included; a NOT
// NULL column then fails in the database. A value that does not fit is an
// *Error with CodeInvalidValue.
func ConvertValue(c *schema.Column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if out, ok, err := convertKind(c, v); ok {
		if e, isErr := err.(*Error); isErr {
			e.Column = c.Name
		}
		return out, err
	}
	bad := func() (any, error) {
		e := errorf(CodeInvalidValue, "column %q: %s does not fit %s column", c.Name, describe(v), columnKind(c))
		e.Column, e.Plain = c.Name, mustBe(c)
		return nil, e
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
			n, err := parseValue(c, x)
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
			f, err := parseValue(c, x)
			if err != nil {
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
			tm, err := parseTime(x)
			if err != nil {
				return bad()
			}
			return tm, nil
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
		if ok {
			var out any = s
			if len(s) <= MaxValueLen || strings.EqualFold(c.SQLType, "uuid") || integerSQL(c.SQLType) {
				var err error
				if out, err = parseValue(c, s); err != nil {
					return bad()
				}
			} else if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
				// A long text is the writer's to bound (the panel's
				// MaxTextLength, the body limit), not MaxValueLen, which
				// is the query string's.
				return bad()
			}
			if c.MaxLength > 0 && utf8.RuneCountInString(s) > c.MaxLength {
				e := errorf(CodeInvalidValue, "column %q: longer than %d characters", c.Name, c.MaxLength)
				e.Column, e.Plain = c.Name, fmt.Sprintf("at most %d characters", c.MaxLength)
				return nil, e
			}
			return out, nil
		}
	}
	return bad()
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

// integerSQL reports whether an SQL type holds integers (the join's
// notion of it: sqlFamily).
func integerSQL(sqlType string) bool { return sqlFamily(sqlType) == "integer" }

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
