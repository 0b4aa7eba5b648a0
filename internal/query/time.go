package query

import (
	"strings"
	"time"
)

// Times. Every time string the package reads, from the query string, a
// body or the database, is read by parseTime, each reader saying which
// forms it takes.

// timeForms is a set of the forms of a time string parseTime reads.
type timeForms uint8

const (
	// rfc3339 is "2006-01-02T15:04:05[.frac]Z07:00": an instant, as its
	// offset says.
	rfc3339 timeForms = 1 << iota
	// bareDate is "2006-01-02": its midnight in the zone.
	bareDate
	// wallTime is "2006-01-02T15:04:05[.frac]", or with a space for the
	// T, in the zone: as time.Parse reads it (a one-digit hour, a comma
	// before the fraction, more than nine digits of it).
	wallTime
	// wallMinutes is "2006-01-02T15:04", or with a space, in the zone.
	wallMinutes
	// wallOffset is a wallTime followed by an offset, "Z07:00" or
	// PostgreSQL's "Z07": a time as a database writes it.
	wallOffset
	// storedWall is "2006-01-02 15:04:05[.frac]", or with a T, in UTC,
	// exactly as PostgreSQL writes a timestamp, and nothing time.Parse
	// would take besides: read without time.Parse (parseUTCWall), which
	// is most of a list page's conversion cost.
	storedWall
	// fromYear1 refuses years before 1, in UTC for a time read in the
	// zone: PostgreSQL has no year 0 in the format Bun writes.
	fromYear1
)

// wallClock is how a timestamp without time zone is carried: no zone, the
// fraction only when there is one.
const wallClock = "2006-01-02T15:04:05.999999999"

// parseTime reads s in one of forms; a form without an offset is read in
// zone (nil: UTC). The time keeps the offset or zone it was read in. s is
// read as it is: a reader of client text trims it first.
func parseTime(s string, forms timeForms, zone *time.Location) (time.Time, bool) {
	loc := zone
	if loc == nil {
		loc = time.UTC
	}
	// A time with an offset is the instant it says, its year checked as
	// written; one read in the zone has its year checked in UTC.
	written := func(tm time.Time) bool { return forms&fromYear1 == 0 || tm.Year() >= 1 }
	inZone := func(tm time.Time) bool { return forms&fromYear1 == 0 || tm.UTC().Year() >= 1 }
	// First, as it is the common case of a list page and the cheapest.
	if forms&(storedWall|wallTime) != 0 && loc == time.UTC {
		if tm, ok := parseUTCWall(s); ok && inZone(tm) {
			return tm, true
		}
	}
	if forms&rfc3339 != 0 {
		if tm, err := time.Parse(time.RFC3339Nano, s); err == nil && written(tm) {
			return tm, true
		}
	}
	t := strings.Replace(s, " ", "T", 1)
	layouts := make([]string, 0, 3)
	if forms&bareDate != 0 {
		layouts = append(layouts, time.DateOnly)
	}
	if forms&wallTime != 0 {
		layouts = append(layouts, wallClock)
	}
	if forms&wallMinutes != 0 {
		layouts = append(layouts, "2006-01-02T15:04")
	}
	for _, layout := range layouts {
		if tm, err := time.ParseInLocation(layout, t, loc); err == nil && inZone(tm) {
			return tm, true
		}
	}
	if forms&wallOffset != 0 {
		for _, layout := range []string{time.RFC3339Nano, wallClock + "Z07"} {
			if tm, err := time.Parse(layout, t); err == nil && written(tm) {
				return tm, true
			}
		}
	}
	return time.Time{}, false
}

// notATime is the error for s, a client's time that parseTime did not
// read as an instant.
func notATime(s string) *Error {
	return errorf(CodeInvalidValue, "%q is not an RFC 3339 time or a 2006-01-02 date", clip(s))
}

// specialTime is the literal PostgreSQL stores for s when s spells one of
// its special times, infinity and -infinity, which a list shows as that
// string: written back, it is the value it was.
func specialTime(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "infinity", "+infinity":
		return "infinity", true
	case "-infinity":
		return "-infinity", true
	}
	return "", false
}

// parseUTCWall reads storedWall: "2006-01-02 15:04:05[.fraction]" (or
// with a 'T' between date and time) as UTC without time.Parse. It is what
// Select gives for every timestamp on PostgreSQL.
func parseUTCWall(s string) (time.Time, bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(a, b int) (int, bool) {
		n := 0
		for i := a; i < b; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	h, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	ns := 0
	if len(s) > 19 {
		if s[19] != '.' || len(s) == 20 || len(s) > 29 {
			return time.Time{}, false
		}
		frac, ok := num(20, len(s))
		if !ok {
			return time.Time{}, false
		}
		for i := len(s) - 20; i < 9; i++ {
			frac *= 10
		}
		ns = frac
	}
	tm := time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.UTC)
	if tm.Day() != d {
		return time.Time{}, false // February 30th
	}
	return tm, true
}
