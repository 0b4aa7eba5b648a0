package query

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/schema"
)

// Keyset pagination. A cursor is the base64url JSON
//
//	{"k": ["-score", "id"], "v": [1200, "0193..."]}
//
// of the order keys (a leading "-" for descending) and the last row's
// values of them. It is a position, not a secret: it is not signed, and a
// client that edits it only moves its own page. A cursor made under another
// sort is refused.
//
// The order keys are the sort columns followed by the primary key columns
// not already among them, in the direction of the last sort column. Every
// order key must be NOT NULL: SQL comparisons with NULL are never true, so
// a NULL in the last row would end the walk early. Keyset pagination over a
// nullable sort column is refused with CodeInvalidQuery; sort on another
// column or use _start/_end.

type cursorJSON struct {
	K []string `json:"k"`
	V []any    `json:"v"`
}

// orderKeys is the full, unambiguous order: the sort, then the primary key.
// A table without a primary key (an append-only log) is ordered by the
// sort and then every sortable column, so that offset pages and an
// export's batches are stable but for rows equal in all of them.
func (l *List) orderKeys(t *schema.Table) []SortKey {
	keys := slices.Clone(l.Sort)
	desc := len(keys) > 0 && keys[len(keys)-1].Desc
	tie := t.PK
	if len(tie) == 0 {
		tie = slices.DeleteFunc(slices.Clone(t.Columns), func(c *schema.Column) bool { return !Sortable(c) })
	}
	for _, c := range tie {
		if !slices.ContainsFunc(keys, func(k SortKey) bool { return k.Column == c.Name }) {
			keys = append(keys, SortKey{Column: c.Name, Desc: desc})
		}
	}
	return keys
}

func keyNames(keys []SortKey) []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Column
		if k.Desc {
			names[i] = "-" + k.Column
		}
	}
	return names
}

func (l *List) checkKeyset(t *schema.Table) error {
	if len(t.PK) == 0 {
		return errorf(CodeInvalidQuery, "keyset pagination (_limit, _cursor) needs a primary key, and this table has none: page with _start/_end")
	}
	for _, k := range l.orderKeys(t) {
		if c := t.ByName[k.Column]; !c.NotNull {
			return errorf(CodeInvalidQuery, "keyset pagination (_limit, _cursor) needs NOT NULL sort columns; %q may be null", k.Column)
		}
	}
	return nil
}

func decodeCursor(t *schema.Table, keys []SortKey, s string) ([]any, error) {
	bad := errorf(CodeInvalidValue, "malformed _cursor")
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, bad
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var c cursorJSON
	if err := d.Decode(&c); err != nil || d.More() {
		return nil, bad
	}
	if !slices.Equal(c.K, keyNames(keys)) || len(c.V) != len(keys) {
		return nil, errorf(CodeInvalidValue, "_cursor was made for another sort order")
	}
	vals := make([]any, len(keys))
	for i, k := range keys {
		if c.V[i] == nil {
			return nil, bad
		}
		if vals[i], err = ConvertValue(t.ByName[k.Column], c.V[i]); err != nil {
			return nil, bad
		}
	}
	return vals, nil
}

// NextCursor returns the cursor of the page after lastRow, a row of this
// list as ScanRows returns it. It returns "" if the row lacks an order
// key. Page calls it; call it directly only when not using Page.
func (l *List) NextCursor(t *schema.Table, lastRow map[string]any) string {
	keys := l.orderKeys(t)
	c := cursorJSON{K: keyNames(keys), V: make([]any, len(keys))}
	for i, k := range keys {
		v, ok := lastRow[k.Column]
		if !ok || v == nil {
			return ""
		}
		c.V[i] = v
	}
	b, err := json.Marshal(c)
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// OffsetCursor is the cursor of the page after rows, a full offset page
// of this list, where its order allows keyset pages; "" otherwise. It is
// how a client pages on past MaxOffset without reading the rows before.
func (l *List) OffsetCursor(t *schema.Table, rows []map[string]any) string {
	if l.Limit > 0 || len(rows) == 0 || len(rows) < l.End-l.Start || l.checkKeyset(t) != nil {
		return ""
	}
	return l.NextCursor(t, rows[len(rows)-1])
}

// Page trims the rows of a keyset query to the page and returns the cursor
// of the next page, empty on the last page. In keyset mode Apply fetches
// one row more than Limit to know whether a next page exists; in offset
// mode Page returns rows unchanged and no cursor.
func (l *List) Page(t *schema.Table, rows []map[string]any) (page []map[string]any, next string) {
	if l.Limit == 0 || len(rows) <= l.Limit {
		return rows, ""
	}
	rows = rows[:l.Limit]
	return rows, l.NextCursor(t, rows[len(rows)-1])
}

// Walk prepares l to read its whole result in keyset batches of n rows,
// for an export: the window is dropped, and a sort that keyset pagination
// cannot follow (a nullable column) gives way to the primary key. Call
// Apply and ScanRows for a batch, then Advance with its last row.
//
// A table without a primary key is walked by offset (orderKeys' order):
// rows written while the export runs may move a row across batches.
func (l *List) Walk(t *schema.Table, n int) {
	l.Start, l.End, l.Limit, l.Cursor, l.after = 0, 0, n, "", nil
	l.offsetWalk, l.walked = len(t.PK) == 0, 0
	if l.offsetWalk {
		return
	}
	if l.checkKeyset(t) != nil {
		l.Sort = nil
	}
}

// Advance moves a walk past lastRow, a row of the batch Apply selected.
// It reports false when the row lacks an order key (the walk cannot go
// on).
func (l *List) Advance(t *schema.Table, lastRow map[string]any) bool {
	if l.offsetWalk {
		l.walked += l.Limit
		return true
	}
	c := l.NextCursor(t, lastRow)
	if c == "" {
		return false
	}
	after, err := decodeCursor(t, l.orderKeys(t), c)
	if err != nil {
		return false
	}
	l.after = after
	return true
}

// CursorParams is l with its cursor's values replaced by the driver's
// numbered placeholders ($1 on PostgreSQL, ?1 on SQLite), and those
// values in order, so that every page of a keyset walk has one text,
// which the statement cache prepares and the database plans once. ok is
// false when l has no cursor, or a value is of a type a driver might bind
// otherwise than Bun writes it inline: then only the text with the values
// in it is right. A time is bound as the text Bun writes for it. On
// MySQL, whose ? are not numbered and where a seek names a value twice,
// each value's ? carries its number in a comment (?/*1*/): the caller
// hands the page's text to CursorArgs for the args in the text's order.
func (l *List) CursorParams(db bun.IDB) (_ *List, args []any, ok bool) {
	if l.Limit <= 0 || len(l.after) == 0 {
		return nil, nil, false
	}
	params := make([]any, len(l.after))
	args = make([]any, len(l.after))
	for i, v := range l.after {
		switch x := v.(type) {
		case int64, bool, string:
			args[i] = x
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, nil, false
			}
			args[i] = x
		case time.Time:
			lit := db.Dialect().AppendTime(nil, x)
			if len(lit) < 2 || lit[0] != '\'' || lit[len(lit)-1] != '\'' {
				return nil, nil, false
			}
			args[i] = string(lit[1 : len(lit)-1])
		default:
			return nil, nil, false
		}
		params[i] = placeholder(db, i+1)
		if db.Dialect().Name() == dialect.MySQL {
			params[i] = bun.Safe("?/*" + strconv.Itoa(i+1) + "*/")
		}
	}
	out := *l
	out.after = params
	return &out, args, true
}

// CursorArgs is the arguments of text, a page's statement made with
// CursorParams' list, from CursorParams' args: on MySQL one per ?, in the
// text's order (a value the text names twice is passed twice), read from
// the numbers in their comments outside quoted text and identifiers;
// elsewhere args as they are. ok is false when the text's ? do not match.
func CursorArgs(db bun.IDB, text string, args []any) (_ []any, ok bool) {
	if db.Dialect().Name() != dialect.MySQL {
		return args, true
	}
	var out []any
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\'', '"', '`':
			// Skip the quoted part: a doubled quote stays inside, and in
			// a string a backslash escapes the next byte.
			for i++; i < len(text); i++ {
				if text[i] == '\\' && c != '`' {
					i++
				} else if text[i] == c {
					if i+1 < len(text) && text[i+1] == c {
						i++
						continue
					}
					break
				}
			}
		case '?':
			rest := text[i+1:]
			if !strings.HasPrefix(rest, "/*") {
				return nil, false
			}
			end := strings.Index(rest, "*/")
			n, err := strconv.Atoi(rest[2:max(end, 2)])
			if end < 0 || err != nil || n < 1 || n > len(args) {
				return nil, false
			}
			out = append(out, args[n-1])
			i += end + 2
		}
	}
	return out, true
}
