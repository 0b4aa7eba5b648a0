package query

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // _tz names zones a minimal container has no files for

	"github.com/gameadmin/admin/internal/schema"
)

// EpochBucket is the SQL for the start of the step (of length step) that
// the timestamp col holds falls in, in seconds since the epoch: an
// integer on both databases, for counting rows per step in the
// database. col is SQL: a column's name, or Bun's "?TableAlias.?" with
// the column as its argument.
func EpochBucket(pg bool, step time.Duration, col string) string {
	sec := strconv.FormatInt(int64(step.Seconds()), 10)
	if pg {
		return "(floor(extract(epoch FROM " + col + ") / " + sec + ") * " + sec + ")::bigint"
	}
	return "(unixepoch(" + col + ") / " + sec + ") * " + sec
}

// Integer columns that hold unix times (schema.Column.Unix) take the kind
// path: their cells are times, their filter and body values times (or,
// as before they were declared, integers) stored as the integer.

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

// parseUnix types a query-string value of a unix time column: a time as
// parseTimeIn reads it (in zone, nil for UTC), or an integer as stored.
func parseUnix(c *schema.Column, s string, zone *time.Location) (any, error) {
	if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
		return n, nil
	}
	tm, err := parseTimeIn(s, zone)
	if err != nil {
		return nil, err
	}
	return c.UnixValue(tm), nil
}

// convertUnix is ConvertValue for a unix time column: an RFC 3339 time
// (or a bare date, midnight UTC), or for compatibility the integer.
func convertUnix(c *schema.Column, v any) (any, error) {
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
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n, nil
		}
		tm, err := parseTime(x)
		if err != nil {
			return nil, errorf(CodeInvalidValue, "column %q: %s", c.Name, message(err))
		}
		return c.UnixValue(tm), nil
	}
	return nil, errorf(CodeInvalidValue, "column %q: %s does not fit a time column", c.Name, describe(v))
}

// TZParam is the list parameter naming the operator's time zone (an IANA
// name, "Asia/Tokyo"): a filter value on a time column without an offset
// (a bare date, a wall time) is read in it. Without it they are UTC.
// Columns of kind timestamp-local are wall clocks and take values as
// they are, whatever the zone.
const TZParam = "_tz"

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

// zonedTime reports whether a filter value on c is a time that _tz
// places: an instant column (timestamptz, a time.Time field, a unix
// time), not a wall clock (timestamp-local) nor a date.
func zonedTime(c *schema.Column) bool {
	return c.Unix != "" || (c.DataType == schema.Datetime && !ownKind(c))
}

// parseTimeIn reads a filter value of an instant column: RFC 3339 with
// its offset as it says; a bare date (its midnight) or a wall time
// without offset ("2006-01-02T15:04[:05[.frac]]", or with a space) in
// zone, UTC when zone is nil.
func parseTimeIn(s string, zone *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if tm, err := time.Parse(time.RFC3339Nano, s); err == nil && tm.Year() >= 1 {
		return tm.UTC(), nil
	}
	if zone == nil {
		zone = time.UTC
	}
	t := strings.Replace(s, " ", "T", 1)
	for _, layout := range []string{time.DateOnly, wallClock, "2006-01-02T15:04"} {
		// The year is UTC's: 0001-01-01 in Tokyo is year 0, which
		// PostgreSQL does not write as Bun does.
		if tm, err := time.ParseInLocation(layout, t, zone); err == nil && tm.UTC().Year() >= 1 {
			return tm.UTC(), nil
		}
	}
	return time.Time{}, errorf(CodeInvalidValue, "%q is not an RFC 3339 time or a 2006-01-02 date", clip(s))
}
