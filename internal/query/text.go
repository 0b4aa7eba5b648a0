package query

import (
	"net"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/gameadmin/admin/internal/schema"
)

// The text forms of values that both inputs read, the query string
// (querystring.go) and a body (body.go), one function each. Each input
// decides in its own switch which of them a column takes, and words its
// errors around theirs.

// checkText rejects what no column can hold and what the databases would
// refuse as text: overlong values, invalid UTF-8 and NUL bytes.
func checkText(name, s string) error {
	if len(s) > MaxValueLen {
		return errorf(CodeInvalidValue, "%s is longer than %d bytes", name, MaxValueLen)
	}
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return errorf(CodeInvalidValue, "%s is not valid UTF-8 text", name)
	}
	return nil
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

// decimalRE is a numeric's text: what PostgreSQL reads as numeric.
var decimalRE = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// IsDecimal reports whether s is a plain decimal number, as a numeric's
// text is: a CSV cell that needs no guard against formulas.
func IsDecimal(s string) bool { return decimalRE.MatchString(s) }

// decimalText is a decimal column's value: a number as written (never
// through a float, which would round it), or NaN or an infinity.
func decimalText(s string) (string, error) {
	if lit, ok := specialNumber(s); ok {
		return lit, nil
	}
	if t := strings.TrimSpace(s); decimalRE.MatchString(t) {
		return t, nil
	}
	return "", errorf(CodeInvalidValue, "%q is not a decimal number", clip(s)).problem("not_a_number")
}

// enumText is an enum column's value: one of its labels, when the
// catalog has told them.
func enumText(c *schema.Column, s string) (string, error) {
	if labels := c.Labels(); len(labels) > 0 && !slices.Contains(labels, s) {
		return "", errorf(CodeInvalidValue, "%q is not one of %s", clip(s), labelList(labels)).problem("unknown_label", "value", clip(s), "labels", labels)
	}
	return s, nil
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

// inetText is an inet, cidr or macaddr column's value (dbType is the
// column's type): an address, a network or a MAC address, as written.
func inetText(dbType, s string) (string, error) {
	if !validInet(dbType, s) {
		return "", errorf(CodeInvalidValue, "%q is not %s", clip(s), inetWhat(dbType)).problem("not_an_address", "value", clip(s))
	}
	return s, nil
}

// validInet checks s against an inet, cidr or macaddr column's type,
// or MariaDB's inet4 and inet6 (an address without a zone; 10.11 takes
// an IPv4 one into inet6 only written as ::ffff:10.0.0.3).
func validInet(dbType, s string) bool {
	switch strings.ToLower(dbType) {
	case "macaddr", "macaddr8":
		_, err := net.ParseMAC(s)
		return err == nil
	case "cidr":
		p, err := netip.ParsePrefix(s)
		return err == nil && p.Masked() == p
	case "inet4", "inet6":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Zone() == "" && a.Is4() == (strings.ToLower(dbType) == "inet4")
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
	case "inet4":
		return "an IPv4 address such as 10.0.0.3"
	case "inet6":
		return "an IPv6 address such as ::1 (an IPv4 one as ::ffff:10.0.0.3)"
	}
	return "an IP address or network"
}

// uuidText is a uuid in its canonical lower-case form, whatever form
// uuid.Parse read: SQLite stores and compares it as text, and row keys
// built from it match the rows'.
func uuidText(s string) (string, error) {
	u, err := uuid.Parse(s)
	if err != nil {
		return "", errorf(CodeInvalidValue, "%q is not a UUID", clip(s))
	}
	return u.String(), nil
}

// dateText is a date column's value: a bare date, or infinity.
func dateText(s string) (string, error) {
	if lit, ok := specialTime(s); ok {
		return lit, nil
	}
	if tm, ok := parseTime(strings.TrimSpace(s), bareDate|fromYear1, nil); ok {
		return tm.Format(time.DateOnly), nil
	}
	return "", errorf(CodeInvalidValue, "%q is not a 2006-01-02 date", clip(s)).problem("not_a_date", "value", clip(s))
}

// wallText is a timestamp-local column's value: a wall clock (a bare date
// is its midnight), written without a zone as the column keeps it, or
// infinity.
func wallText(s string) (string, error) {
	if lit, ok := specialTime(s); ok {
		return lit, nil
	}
	if tm, ok := parseTime(strings.TrimSpace(s), bareDate|wallTime|fromYear1, nil); ok {
		return tm.Format("2006-01-02 15:04:05.999999999"), nil
	}
	return "", errorf(CodeInvalidValue, "%q is not a wall-clock time such as 2006-01-02T15:04:05 (this column has no time zone)", clip(s)).problem("not_a_wall_time", "value", clip(s))
}

// integerSQL reports whether an SQL type holds integers (the join's
// notion of it: sqlFamily).
func integerSQL(sqlType string) bool { return sqlFamily(sqlType) == "integer" }
