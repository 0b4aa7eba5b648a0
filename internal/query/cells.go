package query

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/schema"
)

// InvalidKey is the key under which a row carries the cells that could
// not be shown as stored (a CellIssues), beside the columns and _labels.
// A page with such a cell still renders: the cell shows what could be
// read of it, and the row says why it is not the stored value.
const InvalidKey = "_invalid"

// CellIssue says why one cell is not shown exactly as stored. Message is
// what the client reads; Err, the cause, is for the log only.
type CellIssue struct {
	Message string
	Err     error
}

// MarshalJSON writes the message only: the cause never leaves the server.
func (c *CellIssue) MarshalJSON() ([]byte, error) { return AppendJSON(nil, c.Message) }

// CellIssues are a row's cell issues by column name, as row[InvalidKey].
type CellIssues map[string]*CellIssue

// scanCells converts one scanned row (vals, in the order of cols) into the
// map the panel answers, without the hidden columns. Every cell is
// converted on its own: a stored value the model's Go type cannot hold
// (PostgreSQL's 'infinity' in a time.Time, 'NaN' in a numeric, text in a
// SQLite integer column) is shown as its stored text rather than failing
// the page, and a value that cannot be shown as stored at all is noted
// under InvalidKey.
func scanCells(model reflect.Value, cols []*schema.Column, plain []plainKind, vals []any, hidden map[string]bool) map[string]any {
	row := make(map[string]any, len(cols)+1)
	var issues CellIssues
	zeroed := false // the model, once a cell goes through it
	for i, c := range cols {
		if hidden[c.Name] {
			continue
		}
		if v, ok := plainCell(plain[i], vals[i]); ok {
			row[c.Name] = v
			continue
		}
		if !zeroed {
			model.SetZero()
			zeroed = true
		}
		v, issue := cellValue(c, model, vals[i])
		row[c.Name] = v
		if issue != nil {
			if issues == nil {
				issues = CellIssues{}
				row[InvalidKey] = issues
			}
			issues[c.Name] = issue
		}
	}
	return row
}

// plainKind says which driver value of a column is its cell as it is:
// the model's field is a plain Go integer, string, bool or float64 (no
// Scanner or Valuer, no kind of its own), so the model would hand the same
// value back.
type plainKind uint8

const (
	notPlain plainKind = iota
	plainInt
	plainString
	plainBool
	plainFloat
	plainTime // a time.Time field, its value within RFC 3339's years
)

// plainKinds is plainKind of each of cols.
func plainKinds(cols []*schema.Column) []plainKind {
	out := make([]plainKind, len(cols))
	for i, c := range cols {
		if c.Field == nil || ownKind(c) || c.DataType == schema.JSON {
			continue
		}
		typ := c.Field.IndirectType
		if c.DataType == schema.Datetime {
			if typ == timeType {
				out[i] = plainTime
			}
			continue
		}
		if reflect.PointerTo(typ).Implements(scannerIface) || typ.Implements(valuerType) || reflect.PointerTo(typ).Implements(valuerType) {
			continue
		}
		switch typ.Kind() {
		case reflect.Int64, reflect.Int: // 64 bits: any stored integer fits as it is
			if c.DataType == schema.Integer {
				out[i] = plainInt
			}
		case reflect.String:
			if c.DataType == schema.String {
				out[i] = plainString
			}
		case reflect.Bool:
			if c.DataType == schema.Boolean {
				out[i] = plainBool
			}
		case reflect.Float64:
			if c.DataType == schema.Number {
				out[i] = plainFloat
			}
		}
	}
	return out
}

// plainCell is raw as its cell when the column's kind takes it as it is
// (the value cellValue would give through the model), else false. raw
// itself is returned, not its value boxed again: an integer or a string
// put back in an interface is an allocation a cell.
func plainCell(k plainKind, raw any) (any, bool) {
	switch k {
	case plainInt:
		_, ok := raw.(int64)
		return raw, ok
	case plainString:
		v, ok := raw.(string)
		return raw, ok && utf8.ValidString(v)
	case plainBool:
		_, ok := raw.(bool)
		return raw, ok
	case plainFloat:
		v, ok := raw.(float64)
		return raw, ok && specialFloat(v) == ""
	case plainTime:
		// What cellValue would make of it: the driver's time, or Select's
		// text parsed; 'infinity' and years RFC 3339 cannot hold take
		// its way.
		tm, ok := raw.(time.Time)
		if !ok {
			s, text := textOf(raw)
			if !text {
				return nil, false
			}
			if tm, ok = parseTime(s, storedTimes, nil); !ok {
				return nil, false
			}
		}
		y := tm.Year()
		return tm, y >= 0 && y <= 9999
	}
	return nil, false
}

var scannerIface = reflect.TypeFor[sql.Scanner]()

// storedTimes are the forms of a timestamp's text as Select reads it from
// PostgreSQL (ISO text without an offset: a timestamp without time zone,
// or a timestamptz turned to UTC), or as RFC 3339.
const storedTimes = storedWall | rfc3339

// cellValue is one column's value as a row carries it (see RowMap), from
// raw, what the driver handed back.
func cellValue(c *schema.Column, model reflect.Value, raw any) (any, *CellIssue) {
	switch {
	case raw == nil:
		return nil, nil
	case c.Unix != "":
		return unixCell(c, raw)
	case ownKind(c):
		return kindCell(c, raw)
	case c.DataType == schema.JSON:
		return jsonCell(raw, c.Kind == schema.KindJSON && (c.DBType == "jsonb" || c.DBType == "json"))
	case c.DataType == schema.Datetime:
		// PostgreSQL's and MySQL's timestamps arrive as text (see Select).
		if s, ok := textOf(raw); ok {
			if tm, ok := parseTime(s, storedTimes, nil); ok {
				raw = tm
			} else if zeroInDate(s) {
				return s, nil
			}
		}
	}
	if err := c.Field.ScanValue(model, raw); err != nil {
		return storedText(raw, err)
	}
	v, err := columnValue(c, c.Field.Value(model))
	if err != nil {
		s, _ := storedText(raw, err)
		return s, &CellIssue{Message: "the model's Go type cannot give this value back; the stored text is shown", Err: err}
	}
	switch x := v.(type) {
	case float64:
		if s := specialFloat(x); s != "" {
			return s, nil
		}
		if s, ok := textOf(raw); ok && c.Kind == schema.KindDecimal && !floatSays(x, s) {
			// A decimal with more digits than the model's float holds
			// (MySQL's DECIMAL(65,2) holds 63 nines): its digits, as
			// stored, not the float's rounding of them.
			return s, nil
		}
	case string:
		if !utf8.ValidString(x) {
			return strings.ToValidUTF8(x, "\uFFFD"), &CellIssue{Message: "not valid UTF-8; invalid bytes shown as U+FFFD", Err: errBadUTF8}
		}
	case time.Time:
		if y := x.Year(); y < 0 || y > 9999 {
			// RFC 3339 has four-digit years; encoding/json refuses others.
			return x.Format("2006-01-02T15:04:05.999999999Z07:00"), nil
		}
	}
	return v, nil
}

// storedText is a cell the model's Go type could not take (err says why)
// shown as the text the database holds. The special values of PostgreSQL
// ('infinity', '-infinity', 'NaN') are values, not faults: they carry no
// issue.
func storedText(raw any, err error) (any, *CellIssue) {
	s, ok := textOf(raw)
	if !ok {
		return nil, &CellIssue{Message: "the stored value cannot be shown", Err: err}
	}
	if IsSpecial(s) {
		return s, nil
	}
	if !utf8.ValidString(s) {
		return strings.ToValidUTF8(s, "\uFFFD"), &CellIssue{Message: "not valid UTF-8; invalid bytes shown as U+FFFD", Err: err}
	}
	return s, &CellIssue{Message: "the stored value does not fit the column's type; shown as stored", Err: err}
}

// IsSpecial reports whether s is one of the special values PostgreSQL
// stores in time and number columns: infinity, -infinity, NaN (in the
// spellings it reads, case-insensitively).
func IsSpecial(s string) bool {
	switch strings.ToLower(s) {
	case "infinity", "-infinity", "+infinity", "nan", "inf", "-inf", "+inf":
		return true
	}
	return false
}

// floatSays reports whether f, shortest, is the number the decimal text s
// says.
func floatSays(f float64, s string) bool {
	s = strings.TrimSpace(s)
	digits := 0
	for i := 0; i < len(s) && digits <= 15; i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c != '-' && c != '+' && c != '.':
			digits = 16 // an exponent, or not a decimal: asked below
		}
	}
	if digits <= 15 {
		// Any decimal of at most 15 digits survives a float64 and back
		// (DBL_DIG): the common cell takes no big.Rat.
		return true
	}
	d, ok := new(big.Rat).SetString(s)
	if !ok {
		return true // not a decimal's text: the float stands
	}
	g, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'f', -1, 64))
	return d.Cmp(g) == 0
}

// zeroInDate reports whether s, a stored date or time's text, has a zero
// month or day: MySQL's zero date ('0000-00-00') or a date with a zero
// part ('2024-05-00'), which it stores under a permissive sql_mode. Like
// infinity, a value, shown as stored; no time.Time holds it.
func zeroInDate(s string) bool {
	return len(s) >= 10 && s[4] == '-' && s[7] == '-' && (s[5:7] == "00" || s[8:10] == "00")
}

// specialFloat is the literal of a float JSON cannot hold, or "".
func specialFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return ""
}

// textOf is raw as text when the driver handed back text.
func textOf(raw any) (string, bool) {
	switch x := raw.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return "", false
}

// kindCell is a cell of an ownKind column (not a unix time) from raw,
// the driver's value.
func kindCell(c *schema.Column, raw any) (any, *CellIssue) {
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
		return jsonArrayCell(s, c.Elem) // SQLite, MySQL: Bun stores arrays as JSON
	case schema.KindDate, schema.KindTimestampLocal:
		if IsSpecial(s) {
			return s, nil
		}
		// A date or a timestamp as the databases write it: its wall
		// clock, any offset dropped (SQLite's text of a time Bun wrote
		// carries one).
		if tm, ok := parseTime(s, bareDate|wallTime|wallOffset, nil); ok {
			if c.Kind == schema.KindDate {
				return tm.Format(time.DateOnly), nil
			}
			return tm.Format(wallClock), nil
		}
	}
	return s, nil
}

// jsonArrayCell is a cell of an array stored as JSON text (SQLite,
// MySQL): the array when it is one-dimensional with elements of elem's
// JSON types, as the OpenAPI document describes them; else the stored
// text with an issue, as a PostgreSQL array of two dimensions is.
func jsonArrayCell(s string, elem schema.ValueKind) (any, *CellIssue) {
	out, issue := jsonCell(s, false)
	raw, ok := out.(json.RawMessage)
	if !ok {
		return out, issue // null, or text that is not JSON
	}
	var elems []any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&elems) == nil && !slices.ContainsFunc(elems, func(e any) bool { return !elemFits(e, elem) }) {
		return out, nil
	}
	return s, &CellIssue{Message: "not a one-dimensional array of its elements; shown as stored", Err: errorf(CodeInvalidValue, "not a one-dimensional JSON array of %s", elem)}
}

// elemFits reports whether e, an element of a JSON array, is one of the
// JSON types of an element of kind k: any for JSON, a number (or its
// text: NaN) for numbers, a boolean for booleans, else text; null for
// every kind.
func elemFits(e any, k schema.ValueKind) bool {
	switch e.(type) {
	case nil:
		return true
	case string:
		return k != schema.KindBool
	case json.Number:
		return k == schema.KindNumber || k == schema.KindDecimal || k == schema.KindJSON
	case bool:
		return k == schema.KindBool || k == schema.KindJSON
	}
	return k == schema.KindJSON
}

// unixCell is a cell of a unix time column from raw, the driver's value.
func unixCell(c *schema.Column, raw any) (any, *CellIssue) {
	var n int64
	switch x := raw.(type) {
	case int64:
		n = x
	case float64:
		if x != float64(int64(x)) {
			return x, &CellIssue{Message: "not a whole number of the column's unit; shown as stored", Err: errorf(CodeInvalidValue, "unix time %v", x)}
		}
		n = int64(x)
	default:
		s, ok := textOf(raw)
		if !ok {
			return nil, &CellIssue{Message: "the stored value cannot be shown", Err: errorf(CodeInvalidValue, "unexpected %T", raw)}
		}
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return storedText(s, err)
		}
		n = v
	}
	tm := c.UnixTime(n)
	if y := tm.Year(); y < 0 || y > 9999 {
		// RFC 3339 has four-digit years; encoding/json refuses others.
		return tm.Format("2006-01-02T15:04:05.999999999Z07:00"), nil
	}
	return tm, nil
}

// rawJSON is a JSON column's stored value as the row carries it. valid
// says the database holds only valid JSON in the column (PostgreSQL's
// json and jsonb), which is then not checked again.
func rawJSON(v any, valid bool) any {
	var b []byte
	switch v := v.(type) {
	case nil:
		return nil
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		return v
	}
	if !valid && !json.Valid(b) {
		return string(b)
	}
	if string(b) == "null" {
		return nil
	}
	return json.RawMessage(b)
}

// jsonCell is rawJSON for a cell: text that is not JSON (a TEXT column
// the game wrote by hand) is shown as stored, with an issue, as other
// cells that do not fit their column are.
func jsonCell(v any, valid bool) (any, *CellIssue) {
	out := rawJSON(v, valid)
	if s, ok := out.(string); ok {
		if _, text := textOf(v); text {
			if !utf8.ValidString(s) {
				return strings.ToValidUTF8(s, "\uFFFD"), &CellIssue{Message: "not valid UTF-8; invalid bytes shown as U+FFFD", Err: errBadUTF8}
			}
			return s, &CellIssue{Message: "not valid JSON; shown as stored", Err: errBadJSON}
		}
	}
	return out, nil
}
