// Package query turns the list query string of the resource endpoints
// (docs/api.md, "Lists") into a validated List and applies it to
// a Bun select query. It is safe by construction: identifiers come only
// from the table's columns and are quoted by Bun; every value a client
// sends is typed by its column and bound as a value.
//
// Parse and the List are in list.go. A value goes one of three ways, each
// in its own file with its own switch over the kinds: from the query
// string (querystring.go: a filter's value, an id), from a request body
// (body.go: ConvertValue), and from the database to a JSON cell
// (cells.go). text.go holds the text forms both inputs read, time.go the
// one parser of every time string, errors.go the Error a client reads.
package query

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/schema"
)

// Limits on what a client may ask for.
const (
	DefaultWindow = 100  // rows in a page when neither _end nor _limit is given
	MaxWindow     = 1000 // most rows in one page; a larger _end - _start is capped
	MaxFilters    = 32   // most filter parameters in one request
	MaxInItems    = 100  // most comma-separated values in one _in filter
	MaxSortKeys   = 4    // most columns in _sort
	MaxQLen       = 200  // longest _q, in characters
	MaxValueLen   = 4096 // longest value of any parameter, in bytes
	MaxParams     = 64   // most query parameters in one request
	// MaxOffset is the deepest _start of an offset page where the sort
	// allows keyset pages instead: past it the database would read and
	// drop every row before the page (a page at 875,000 reads 875,050
	// index entries), so the answer is 400, naming _limit and _cursor.
	// Where the sort allows no cursor (a nullable sort column, no primary
	// key) a deeper page still runs.
	MaxOffset = 10_000
)

// Op is a filter operator, named by its parameter suffix.
type Op string

// The filter operators: <col>_like, _eq, _ne, _gt, _gte, _lt, _lte, _in,
// _null. A parameter without a known suffix is an _eq filter on the column
// of that name (json-server's convention), so "name_xx" is the unknown
// column name_xx.
const (
	Like Op = "like" // case-insensitive substring; string and json columns
	Eq   Op = "eq"
	Ne   Op = "ne"
	Gt   Op = "gt"
	Gte  Op = "gte"
	Lt   Op = "lt"
	Lte  Op = "lte"
	In   Op = "in"   // comma-separated values, at most MaxInItems
	Null Op = "null" // "true": IS NULL; "false": IS NOT NULL; any column

	// Array columns: Contains holds every one of the comma-separated
	// values, Overlaps at least one; Empty "true" has no element.
	Contains Op = "contains"
	Overlaps Op = "overlaps"
	Empty    Op = "empty"
	// Within: an inet column's address is in the network (PostgreSQL's
	// <<=); PostgreSQL only (see CheckDialect).
	Within Op = "within"
	// Key: the value at a JSON column's key (stats.level: a dot path to
	// a nested one) equals a value, given as "key:value" (the value JSON,
	// or else text), compared as JSON, so the stored spacing does not matter.
	Key Op = "key"
)

var ops = []Op{Like, Eq, Ne, Gte, Gt, Lte, Lt, In, Null, Contains, Overlaps, Empty, Within, Key}

// Filter is one validated filter: Value is typed by the column (a []any for
// In, a bool for Null, a LIKE pattern with % and _ escaped for Like).
type Filter struct {
	Column *schema.Column
	Op     Op
	Value  any
}

// SortKey is one column of the sort order.
type SortKey struct {
	Column string // SQL column name
	Desc   bool
}

// List is a validated list query.
type List struct {
	// Start and End are the row window of _start and _end, used when
	// Limit is 0: rows Start to End-1.
	Start, End int
	// Limit is the page size of keyset pagination (_limit, or 100 when
	// only _cursor is given); 0 means offset pagination.
	Limit int
	// Cursor is the position after which the page starts (_cursor); empty
	// for the first page.
	Cursor string
	// Sort is the requested order; Apply adds the primary key after it.
	Sort []SortKey
	Q    string // _q: substring searched in Search
	// Search are the columns _q searches; nil: every string column. The
	// caller sets it (from the resource's config) after Parse.
	Search []*schema.Column
	// SearchAlso are further conditions a row may meet instead of
	// containing Q (each ORed with the searched columns): the audit log's
	// "entries about the players Q finds".
	SearchAlso []Cond
	Filters    []Filter // ANDed together
	// Where are further conditions, ANDed with the filters: the caller's
	// own parameters (the users list's _banned).
	Where []Cond
	// Count is _count: how the caller should count the total. CountAuto
	// (absent) means the default policy: no count in keyset mode.
	Count CountMode

	// Fields are the columns _fields asks for (nil: every one): the
	// page reads them, the primary key and what its order needs, and
	// answers them and the key (Sent, Unasked).
	Fields []string
	// Also are further columns the page reads when _fields is given, for
	// the caller's own fields made from them (a users row's ban); the
	// caller takes them out after (Unasked). The caller sets it after
	// Parse.
	Also []string

	// Zone is _tz: the zone filter values on instant columns without an
	// offset are read in (nil: UTC).
	Zone *time.Location

	after []any // the decoded Cursor: one value per orderKeys column
	// offsetWalk: Walk reads a table without a primary key by offset,
	// walked rows in.
	offsetWalk bool
	walked     int
	// Deleted is DeletedOnly or DeletedInclude to list a soft-delete
	// table's deleted rows; "" leaves them out.
	Deleted string
}

// Cond is a WHERE condition: Bun's query text (?TableAlias and ?
// placeholders) and its arguments.
type Cond struct {
	Expr string
	Args []any
}

// reserved are the parameters that are not filters.
var reserved = map[string]bool{
	"_start": true, "_end": true, "_sort": true, "_order": true,
	"_q": true, "_limit": true, "_cursor": true, "_count": true, TZParam: true,
	DeletedParam: true, FieldsParam: true,
}

// TZParam is the list parameter naming the operator's time zone (an IANA
// name, "Asia/Tokyo"): a filter value on a time column without an offset
// (a bare date, a wall time) is read in it. Without it they are UTC.
// Columns of kind timestamp-local are wall clocks and take values as
// they are, whatever the zone.
const TZParam = "_tz"

// DeletedParam is the list parameter that shows a soft-delete table's
// deleted rows: only (the Deleted view) or include (with the others).
// Without it they are left out.
const DeletedParam = "_deleted"

// The values of DeletedParam.
const (
	DeletedOnly    = "only"
	DeletedInclude = "include"
)

// Parse validates the query parameters of a list request against t. def is
// the sort used when _sort is absent (nil: the primary key). Parameters
// named in ignore are skipped (the caller's own, e.g. "_banned"); every
// other parameter that is not reserved is a filter. Every mistake is an
// *Error.
func Parse(t *schema.Table, v url.Values, def *SortKey, ignore ...string) (*List, error) {
	l := &List{Start: 0, End: DefaultWindow}
	if len(v) > MaxParams {
		return nil, errorf(CodeInvalidQuery, "too many query parameters (at most %d)", MaxParams)
	}
	get := func(name string) (string, bool, error) {
		vals, ok := v[name]
		if !ok {
			return "", false, nil
		}
		if len(vals) != 1 {
			return "", false, errorf(CodeInvalidQuery, "parameter %s given %d times", name, len(vals))
		}
		return vals[0], true, checkText(name, vals[0])
	}

	// Window: offset or keyset.
	start, hasStart, err := get("_start")
	if err != nil {
		return nil, err
	}
	end, hasEnd, err := get("_end")
	if err != nil {
		return nil, err
	}
	limit, hasLimit, err := get("_limit")
	if err != nil {
		return nil, err
	}
	cursor, hasCursor, err := get("_cursor")
	if err != nil {
		return nil, err
	}
	if (hasStart || hasEnd) && (hasLimit || hasCursor) {
		return nil, errorf(CodeInvalidQuery, "_start/_end and _limit/_cursor cannot be combined")
	}
	if hasStart {
		if l.Start, err = windowInt("_start", start); err != nil {
			return nil, err
		}
		l.End = l.Start + DefaultWindow
	}
	if hasEnd {
		if l.End, err = windowInt("_end", end); err != nil {
			return nil, err
		}
	}
	if l.End < l.Start {
		return nil, errorf(CodeInvalidQuery, "_end (%d) is before _start (%d)", l.End, l.Start)
	}
	if l.End-l.Start > MaxWindow {
		l.End = l.Start + MaxWindow
	}
	if hasLimit || hasCursor {
		l.Limit = DefaultWindow
		if hasLimit {
			if l.Limit, err = windowInt("_limit", limit); err != nil {
				return nil, err
			}
			if l.Limit < 1 || l.Limit > MaxWindow {
				return nil, errorf(CodeInvalidValue, "_limit must be between 1 and %d", MaxWindow)
			}
		}
		l.Start, l.End = 0, 0
		l.Cursor = cursor
	}

	if err := l.parseSort(t, v, def); err != nil {
		return nil, err
	}
	if l.Start > MaxOffset && l.checkKeyset(t) == nil {
		return nil, errorf(CodeInvalidQuery, "_start %d is past %d, the deepest offset page: page on with _limit and _cursor (each page's X-Next-Cursor is the next one's _cursor), or narrow the list with a filter", l.Start, MaxOffset)
	}

	if f, ok, err := get(FieldsParam); err != nil {
		return nil, err
	} else if ok {
		if err := l.parseFields(t, f); err != nil {
			return nil, err
		}
	}

	count, _, err := get("_count")
	if err != nil {
		return nil, err
	}
	switch m := CountMode(count); m {
	case CountAuto, CountExact, CountEstimate, CountNone:
		l.Count = m
	default:
		return nil, errorf(CodeInvalidValue, "_count must be exact, estimate or none")
	}

	if d, ok, err := get(DeletedParam); err != nil {
		return nil, err
	} else if ok {
		switch {
		case t.SoftDelete == nil:
			return nil, errorf(CodeInvalidQuery, "%s lists deleted rows of a table with a soft-delete column; this one has none", DeletedParam)
		case d != DeletedOnly && d != DeletedInclude:
			return nil, errorf(CodeInvalidValue, "%s must be only or include", DeletedParam)
		}
		l.Deleted = d
	}

	q, _, err := get("_q")
	if err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(q) > MaxQLen {
		return nil, errorf(CodeInvalidValue, "_q is longer than %d characters", MaxQLen)
	}
	l.Q = strings.TrimSpace(q)

	tz, hasTZ, err := get(TZParam)
	if err != nil {
		return nil, err
	}
	if hasTZ {
		if l.Zone, err = loadZone(tz); err != nil {
			return nil, err
		}
	}

	if err := l.parseFilters(t, v, ignore); err != nil {
		return nil, err
	}

	if l.Limit > 0 {
		if err := l.checkKeyset(t); err != nil {
			return nil, err
		}
		if l.Cursor != "" {
			if l.after, err = decodeCursor(t, l.orderKeys(t), l.Cursor); err != nil {
				return nil, err
			}
		}
	}
	return l, nil
}

// windowInt parses a non-negative window bound.
func windowInt(name, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<40 {
		return 0, errorf(CodeInvalidValue, "%s must be a non-negative integer", name)
	}
	return n, nil
}

func (l *List) parseSort(t *schema.Table, v url.Values, def *SortKey) error {
	sorts, orders := v["_sort"], v["_order"]
	if len(sorts) > 1 || len(orders) > 1 {
		return errorf(CodeInvalidQuery, "_sort and _order may each be given once")
	}
	if len(sorts) == 0 || sorts[0] == "" {
		if len(orders) > 0 && orders[0] != "" {
			if def == nil {
				return errorf(CodeInvalidQuery, "_order needs _sort")
			}
			// _order alone flips the default sort (a header click on the
			// already-sorted column).
			desc, err := parseOrder(orders[0])
			if err != nil {
				return err
			}
			d := *def
			d.Desc = desc
			def = &d
		}
		if def != nil {
			if _, ok := t.ByName[def.Column]; !ok {
				return errorf(CodeUnknownColumn, "unknown column %q in the default sort", def.Column)
			}
			l.Sort = []SortKey{*def}
		}
		return nil
	}
	if err := checkText("_sort", sorts[0]); err != nil {
		return err
	}
	names := strings.Split(sorts[0], ",")
	if len(names) > MaxSortKeys {
		return errorf(CodeInvalidQuery, "_sort names more than %d columns", MaxSortKeys)
	}
	var dirs []string
	if len(orders) == 1 && orders[0] != "" {
		if err := checkText("_order", orders[0]); err != nil {
			return err
		}
		dirs = strings.Split(orders[0], ",")
		if len(dirs) != 1 && len(dirs) != len(names) {
			return errorf(CodeInvalidQuery, "_order has %d values for %d _sort columns", len(dirs), len(names))
		}
	}
	for i, name := range names {
		c, ok := t.ByName[strings.TrimSpace(name)]
		if !ok {
			return errorf(CodeUnknownColumn, "unknown column %q in _sort", name)
		}
		if !Sortable(c) {
			return errorf(CodeInvalidQuery, "column %q (%s) cannot be sorted", c.Name, c.Kind)
		}
		k := SortKey{Column: c.Name}
		if dirs != nil {
			d := dirs[0]
			if len(dirs) > 1 {
				d = dirs[i]
			}
			var err error
			if k.Desc, err = parseOrder(d); err != nil {
				return err
			}
		}
		for _, prev := range l.Sort {
			if prev.Column == k.Column {
				return errorf(CodeInvalidQuery, "column %q appears twice in _sort", c.Name)
			}
		}
		l.Sort = append(l.Sort, k)
	}
	return nil
}

func parseOrder(s string) (desc bool, err error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "asc":
		return false, nil
	case "desc":
		return true, nil
	}
	return false, errorf(CodeInvalidValue, "_order must be asc or desc")
}

func (l *List) parseFilters(t *schema.Table, v url.Values, ignore []string) error {
	names := make([]string, 0, len(v))
	for name := range v {
		if !reserved[name] && !slices.Contains(ignore, name) {
			names = append(names, name)
		}
	}
	// Sorted so the SQL, and the first error reported, do not depend on
	// map order.
	slices.Sort(names)
	for _, name := range names {
		for _, raw := range v[name] {
			if len(l.Filters) == MaxFilters {
				return errorf(CodeInvalidQuery, "too many filters (at most %d)", MaxFilters)
			}
			f, err := parseFilter(t, name, raw, l.Zone)
			if err != nil {
				return err
			}
			l.Filters = append(l.Filters, f)
		}
	}
	return nil
}

// Reserved reports whether name is a list parameter Parse reads as no
// filter: the window, _sort and _order, _q, _cursor, _count, _tz,
// _deleted, _fields.
func Reserved(name string) bool { return reserved[name] }

// FilterColumn is the column of t and the operator that the list
// parameter name filters by, as Parse reads it ("pin", "pin_eq",
// "pin_in", "meta_key"); ok is false for a reserved parameter and for
// one that names no column of t.
func FilterColumn(t *schema.Table, name string) (c *schema.Column, op Op, ok bool) {
	if reserved[name] {
		return nil, "", false
	}
	c, op, err := splitFilter(t, name)
	return c, op, err == nil
}

// splitFilter finds the column and operator a parameter names. A suffix
// counts only when what precedes it is a column, so a column named
// "logged_in" is filtered with "logged_in=true" as well as
// "logged_in_eq=true".
func splitFilter(t *schema.Table, name string) (*schema.Column, Op, error) {
	if c, ok := t.ByName[name]; ok {
		return c, Eq, nil
	}
	for _, op := range ops {
		if col, ok := strings.CutSuffix(name, "_"+string(op)); ok {
			if c, ok := t.ByName[col]; ok {
				return c, op, nil
			}
		}
	}
	if len(name) > 100 {
		name = name[:100] + "..."
	}
	if !utf8.ValidString(name) {
		name = strings.ToValidUTF8(name, "?")
	}
	return nil, "", errorf(CodeUnknownColumn, "unknown column in filter %q", name)
}
