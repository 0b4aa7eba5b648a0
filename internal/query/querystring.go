package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // _tz names zones a minimal container has no files for

	"github.com/gameadmin/admin/internal/schema"
)

// The query string's filters and values: a filter parameter, typed by
// its column and operator, and every value a URL holds (a filter's, an
// item of _in or _contains, a single-column id), typed by its column in
// this file's own switches (parseValue, parseFilterValue). Parse
// (list.go) reads the other list parameters; text.go and time.go hold
// the text forms the query string shares with a body's values.

// parseFilter reads the filter parameter name=raw of a list of t; zone is
// _tz (nil: UTC).
func parseFilter(t *schema.Table, name, raw string, zone *time.Location) (Filter, error) {
	c, op, err := splitFilter(t, name)
	if err != nil {
		return Filter{}, err
	}
	f, err := parseColumnFilter(c, op, name, raw, zone)
	if e := (*Error)(nil); errors.As(err, &e) {
		e.Column = c.Name
	}
	return f, err
}

// parseColumnFilter is parseFilter once the column and operator are
// known; zone is _tz (nil: UTC).
func parseColumnFilter(c *schema.Column, op Op, name, raw string, zone *time.Location) (f Filter, err error) {
	if err := checkText(name, raw); err != nil {
		return Filter{}, err
	}
	f = Filter{Column: c, Op: op}
	switch op {
	case Null:
		b, err := parseBool(raw)
		if err != nil {
			return f, errorf(CodeInvalidValue, "%s takes true or false", name)
		}
		f.Value = b
		return f, nil
	case Contains, Overlaps, Empty:
		return parseArrayFilter(c, op, name, raw)
	case Key, Within:
		return parseKindFilter(c, op, name, raw)
	}
	if c.Kind == schema.KindArray && op != Like {
		return f, errorf(CodeInvalidQuery, "%s: array columns take _contains, _overlaps, _empty and _null", name)
	}
	switch op {
	case Like:
		if (c.DataType != schema.String && c.DataType != schema.JSON && !ownKind(c)) || c.Unix != "" {
			return f, errorf(CodeInvalidQuery, "%s: _like works on text and json columns only", name)
		}
		f.Value = "%" + escapeLike(raw) + "%"
		return f, nil
	}
	if (c.DataType == schema.JSON || c.DataType == schema.Bytes) && !ownKind(c) {
		return f, errorf(CodeInvalidQuery, "%s: %s columns can only be filtered with _null%s", name, c.DataType,
			map[bool]string{true: " and _like", false: ""}[c.DataType == schema.JSON])
	}
	if c.DataType == schema.Boolean && op != Eq && op != Ne && op != In {
		return f, errorf(CodeInvalidQuery, "%s: boolean columns take _eq, _ne and _in only", name)
	}
	if op == In {
		items := strings.Split(raw, ",")
		if len(items) > MaxInItems {
			return f, errorf(CodeInvalidQuery, "%s has more than %d values", name, MaxInItems)
		}
		vals := make([]any, len(items))
		for i, item := range items {
			if vals[i], err = parseFilterValue(c, item, zone); err != nil {
				return f, errorf(CodeInvalidValue, "%s: item %d: %s", name, i+1, message(err))
			}
		}
		f.Value = vals
		return f, nil
	}
	if f.Value, err = parseFilterValue(c, raw, zone); err != nil {
		return f, errorf(CodeInvalidValue, "%s: %s", name, message(err))
	}
	if zonedTime(c) {
		return wholeDay(c, f, raw, zone)
	}
	return f, nil
}

// DayRange is the value of an _eq or _ne filter whose value is a bare
// date on an instant column: the day from From (its midnight in the
// zone) up to To (the next day's), To left out.
type DayRange struct{ From, To any }

// wholeDay makes a bare date on an instant column mean that whole day in
// the operator's zone, as a day picker means it: _eq is within the day,
// _ne outside it, _gt after it and _lte up to its end; _gte and _lt keep
// its midnight. f holds the date's midnight already.
func wholeDay(c *schema.Column, f Filter, raw string, zone *time.Location) (Filter, error) {
	day, ok := parseTime(strings.TrimSpace(raw), bareDate, nil)
	if !ok {
		return f, nil // a time, not a bare date
	}
	next, err := parseFilterValue(c, day.AddDate(0, 0, 1).Format(time.DateOnly), zone)
	if err != nil {
		return f, nil // past the last day a time holds: the midnight stands
	}
	switch f.Op {
	case Eq, Ne:
		f.Value = DayRange{From: f.Value, To: next}
	case Gt:
		f.Op, f.Value = Gte, next
	case Lte:
		f.Op, f.Value = Lt, next
	}
	return f, nil
}

// parseFilterValue is parseValue for a filter: a value on an instant
// column (zonedTime) without an offset is read in zone (nil: UTC).
func parseFilterValue(c *schema.Column, s string, zone *time.Location) (any, error) {
	switch {
	case c.Unix != "":
		return parseUnix(c, s, zone)
	case zonedTime(c):
		if lit, ok := specialTime(s); ok {
			return lit, nil
		}
		t := strings.TrimSpace(s)
		tm, ok := parseTime(t, filterTimes, zone)
		if !ok {
			return nil, notATime(t)
		}
		return tm.UTC(), nil
	}
	return parseValue(c, s)
}

// filterTimes are the forms of a filter's value on an instant column:
// RFC 3339 with its offset as it says; a bare date (its midnight) or a
// wall time without offset ("2006-01-02T15:04[:05[.frac]]", or with a
// space) in the zone of _tz.
const filterTimes = rfc3339 | bareDate | wallTime | wallMinutes | fromYear1

// parseUnix types a value of a unix time column: a time (filterTimes, in
// zone, nil for UTC), or an integer as stored.
func parseUnix(c *schema.Column, s string, zone *time.Location) (any, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return n, nil
	}
	tm, ok := parseTime(t, filterTimes, zone)
	if !ok {
		return nil, notATime(t)
	}
	return c.UnixValue(tm.UTC()), nil
}

// zonedTime reports whether a filter value on c is a time that _tz
// places: an instant column (timestamptz, a time.Time field, a unix
// time), not a wall clock (timestamp-local) nor a date.
func zonedTime(c *schema.Column) bool {
	return c.Unix != "" || (c.DataType == schema.Datetime && !ownKind(c))
}

// loadZone reads _tz's value.
func loadZone(name string) (*time.Location, error) {
	bad := errorf(CodeInvalidValue, "%s: %q is not an IANA time zone name such as Europe/Paris", TZParam, clip(name))
	bad.Column = TZParam
	if name == "" || name == "Local" {
		return nil, bad
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, bad
	}
	return loc, nil
}

// parseValue types s, a value from the URL (a filter value, an item of
// _in, a single-column id), by its column: first the kinds carried as
// text of their own (OwnKind) and uuids, then by the Go type. Errors are
// *Error with CodeInvalidValue.
func parseValue(c *schema.Column, s string) (any, error) {
	var (
		out any
		err error
	)
	switch {
	case c.Unix != "":
		out, err = parseUnix(c, s, nil)
	case c.Kind == schema.KindEnum:
		out, err = enumText(c, s)
	case c.Kind == schema.KindInet:
		out, err = inetText(c.DBType, s)
	case c.Kind == schema.KindDecimal && ownKind(c):
		out, err = decimalText(s)
	case c.Kind == schema.KindDate:
		out, err = dateText(s)
	case c.Kind == schema.KindTimestampLocal:
		out, err = wallText(s)
	case c.Kind == schema.KindUUID && c.DataType == schema.String:
		out, err = uuidText(s)
	default:
		if c.Kind == schema.KindUUID {
			// A Go type of its own (a [16]byte): a uuid, then typed by it.
			if _, err := uuidText(s); err != nil {
				return nil, err
			}
		}
		return parseGoValue(c, s)
	}
	if err != nil {
		return nil, err
	}
	if err := checkText(c.Name, s); err != nil {
		return nil, err
	}
	return out, nil
}

// parseGoValue is parseValue for a column typed by its Go type.
func parseGoValue(c *schema.Column, s string) (any, error) {
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
		// An id: RFC 3339 or a bare date, midnight UTC; a filter's value
		// takes more (parseFilterValue).
		if lit, ok := specialTime(s); ok {
			return lit, nil
		}
		t := strings.TrimSpace(s)
		tm, ok := parseTime(t, rfc3339|bareDate|fromYear1, nil)
		if !ok {
			return nil, notATime(t)
		}
		return tm.UTC(), nil
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
			u, err := uuidText(s)
			if err != nil {
				return nil, err
			}
			return u, nil
		case integerSQL(c.SQLType):
			if _, err := strconv.ParseInt(s, 10, 64); err != nil {
				return nil, errorf(CodeInvalidValue, "%q is not an integer", clip(s))
			}
		}
		return s, nil
	}
	return nil, errorf(CodeInvalidValue, "%s columns cannot be compared with a value", c.DataType)
}

// parseKindFilter parses _key on a JSON column and _within on an inet one.
func parseKindFilter(c *schema.Column, op Op, name, raw string) (Filter, error) {
	f := Filter{Column: c, Op: op}
	switch op {
	case Key:
		if c.DataType != schema.JSON || c.Kind == schema.KindArray {
			return f, errorf(CodeInvalidQuery, "%s: _key works on json columns only", name)
		}
		path, val, err := parseKeyPath(name, raw)
		if err != nil {
			return f, err
		}
		var v any
		d := json.NewDecoder(strings.NewReader(val))
		d.UseNumber()
		if err := d.Decode(&v); err != nil || d.More() {
			v = val // not JSON: the text
		}
		switch v.(type) {
		case map[string]any, []any:
			return f, errorf(CodeInvalidValue, "%s: the value must be a string, number, boolean or null", name)
		}
		f.Value = KeyValue{Path: path, Value: v}
		return f, nil
	case Within:
		if c.Kind != schema.KindInet || strings.Contains(strings.ToLower(c.DBType), "mac") {
			return f, errorf(CodeInvalidQuery, "%s: _within works on inet and cidr columns only", name)
		}
		p, err := netip.ParsePrefix(strings.TrimSpace(raw))
		if err != nil {
			a, aerr := netip.ParseAddr(strings.TrimSpace(raw))
			if aerr != nil {
				return f, errorf(CodeInvalidValue, "%s: %q is not a network such as 10.0.0.0/8", name, clip(raw))
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		f.Value = p.Masked().String()
		return f, nil
	}
	return f, errorf(CodeInvalidQuery, "%s: unknown operator", name)
}

// maxKeyDepth is the most segments in a _key path.
const maxKeyDepth = 16

// parseKeyPath reads the key of a _key filter's key:value, up to the
// colon that ends it, and returns its path and the value's text. The key
// is a dot path (stats.level); a segment holding a dot, colon, quote or
// bracket is a JSON string ("a.b".c). A bare segment of digits names an
// array's element as well as an object's key (items.0.id), as
// PostgreSQL's #> reads it. The syntaxes of other tools (JSONPath's $.,
// JSON Pointer's /, the -> operator, brackets) are refused rather than
// read as a key no document holds: a filter that matches nothing for a
// reason the reader cannot see is worse than a 400.
func parseKeyPath(name, raw string) ([]KeyStep, string, error) {
	bad := func(why string) error {
		return errorf(CodeInvalidValue, `%s: %s; write key:value, a nested key as a dot path (stats.level:3, items.0.id:7), a key holding a dot, colon or quote in double quotes as in JSON ("a.b".c:3)`, name, why)
	}
	switch {
	case raw == "" || raw[0] == ':':
		return nil, "", bad("the key is empty")
	case strings.HasPrefix(raw, "$.") || strings.HasPrefix(raw, "$["):
		return nil, "", bad("JSONPath ($.) is not the path syntax")
	case raw[0] == '/':
		return nil, "", bad("a JSON Pointer (/) is not the path syntax")
	}
	var path []KeyStep
	s := raw
	for {
		if len(path) == maxKeyDepth {
			return nil, "", bad(fmt.Sprintf("the key has more than %d segments", maxKeyDepth))
		}
		var step KeyStep
		if s != "" && s[0] == '"' {
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) || json.Unmarshal([]byte(s[:end+1]), &step.Name) != nil {
				return nil, "", bad("a quoted key segment is not a JSON string")
			}
			s = s[end+1:]
			if s != "" && s[0] != '.' && s[0] != ':' {
				return nil, "", bad("a quoted key segment is followed by a dot or the colon")
			}
		} else {
			i := strings.IndexAny(s, ".:")
			if i < 0 {
				i = len(s)
			}
			step.Name, s = s[:i], s[i:]
			switch {
			case step.Name == "":
				return nil, "", bad("a key segment is empty")
			case strings.Contains(step.Name, "->"):
				return nil, "", bad("-> is not the path syntax")
			case strings.ContainsAny(step.Name, "[]"):
				return nil, "", bad("an array index is a segment (items.0), not a bracket")
			case strings.Contains(step.Name, `"`):
				return nil, "", bad("a key holding a quote is written whole in double quotes")
			}
			step.Index = strings.Trim(step.Name, "0123456789") == ""
			if _, err := strconv.ParseInt(step.Name, 10, 32); err != nil {
				step.Index = false
			}
		}
		path = append(path, step)
		if s == "" {
			return nil, "", bad("the key has no :value")
		}
		if s[0] == ':' {
			return path, s[1:], nil
		}
		s = s[1:] // the dot
	}
}

// parseArrayFilter parses _contains, _overlaps (comma-separated elements)
// and _empty (true or false) on an array column.
func parseArrayFilter(c *schema.Column, op Op, name, raw string) (Filter, error) {
	f := Filter{Column: c, Op: op}
	if c.Kind != schema.KindArray {
		return f, errorf(CodeInvalidQuery, "%s: _%s works on array columns only", name, op)
	}
	if op == Empty {
		b, err := parseBool(raw)
		if err != nil {
			return f, errorf(CodeInvalidValue, "%s takes true or false", name)
		}
		f.Value = b
		return f, nil
	}
	items := strings.Split(raw, ",")
	if len(items) > MaxInItems {
		return f, errorf(CodeInvalidQuery, "%s has more than %d values", name, MaxInItems)
	}
	elem := c.ElemColumn()
	arr := make(Array, len(items))
	for i, it := range items {
		var err error
		switch c.Elem {
		case schema.KindNumber:
			if _, err := strconv.ParseFloat(it, 64); err != nil {
				return f, errorf(CodeInvalidValue, "%s: item %d: %q is not a number", name, i+1, clip(it))
			}
			arr[i] = json.Number(it)
		case schema.KindBool:
			arr[i], err = parseBool(it)
		case schema.KindJSON:
			// An element of a JSON array is compared as the JSON string.
			j, _ := json.Marshal(it)
			arr[i] = json.RawMessage(j)
		default:
			arr[i], err = parseValue(elem, it)
		}
		if err != nil {
			return f, errorf(CodeInvalidValue, "%s: item %d: %s", name, i+1, message(err))
		}
	}
	f.Value = arr
	return f, nil
}

// escapeLike makes s match literally inside a LIKE pattern with ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
