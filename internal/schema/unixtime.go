package schema

import (
	"fmt"
	"strings"
	"time"
)

// UnixUnit is the unit of an integer column that holds a unix time
// (ColumnConfig.UnixTime, or the admin:"unixtime" struct tag): such a
// column is a time to the panel (KindTime), shown, filtered, sorted,
// written, exported and charted as one, and stored as the integer.
type UnixUnit string

// The units of a unix time column.
const (
	UnixSeconds UnixUnit = "s"  // seconds since 1970-01-01 UTC
	UnixMillis  UnixUnit = "ms" // milliseconds since 1970-01-01 UTC
)

// AdminTag is the struct tag a model field may carry besides bun's:
// admin:"unixtime" (seconds) or admin:"unixtime=ms" declares the
// field's integer column a unix time.
const AdminTag = "admin"

// SetUnix declares c an integer column holding unix times in unit u:
// its kind becomes KindTime (ReadCatalog keeps it). It refuses an unknown
// unit and a column that does not hold integers.
func (c *Column) SetUnix(u UnixUnit) error {
	if u != UnixSeconds && u != UnixMillis {
		return fmt.Errorf("column %q: unix time unit %q: want %q (seconds) or %q (milliseconds)", c.Name, u, UnixSeconds, UnixMillis)
	}
	if c.DataType != Integer {
		return fmt.Errorf("column %q: a unix time needs an integer column, not %s", c.Name, c.DataType)
	}
	c.Unix, c.Kind, c.Elem = u, KindTime, ""
	return nil
}

// UnixValue is tm as c's integer when c holds unix times (truncated to
// its unit), else tm itself: the argument that compares with c in SQL.
func (c *Column) UnixValue(tm time.Time) any {
	switch c.Unix {
	case UnixSeconds:
		return tm.Unix()
	case UnixMillis:
		return tm.UnixMilli()
	}
	return tm
}

// UnixTime is the time n, a stored value of c, stands for (c.Unix set).
func (c *Column) UnixTime(n int64) time.Time {
	if c.Unix == UnixMillis {
		return time.UnixMilli(n).UTC()
	}
	return time.Unix(n, 0).UTC()
}

// unixTag reads the admin:"unixtime[=s|ms]" option of a field's admin
// tag; false when it has none.
func unixTag(tag string) (UnixUnit, bool) {
	for _, opt := range strings.Split(tag, ",") {
		name, val, hasVal := strings.Cut(strings.TrimSpace(opt), "=")
		if name != "unixtime" {
			continue
		}
		if !hasVal || val == "" {
			return UnixSeconds, true
		}
		return UnixUnit(val), true
	}
	return "", false
}
