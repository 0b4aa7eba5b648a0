package query

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/schema"
)

// maxIDLen bounds the :id path segment.
const maxIDLen = 1024

// DecodeID parses the :id of a resource URL into the primary key values,
// keyed by SQL column name. A single-column key is the raw value typed by
// its column; a composite key is the base64url JSON array of the key
// values in table order (unpadded, padded accepted too), each typed by its
// column. Anything else is an *Error with CodeInvalidValue.
func DecodeID(t *schema.Table, raw string) (map[string]any, error) {
	if len(raw) > maxIDLen {
		return nil, errorf(CodeInvalidValue, "id is longer than %d bytes", maxIDLen)
	}
	if len(t.PK) == 1 {
		c := t.PK[0]
		v, err := parseValue(c, raw)
		if err != nil {
			return nil, errorf(CodeInvalidValue, "id: %s", message(err))
		}
		return map[string]any{c.Name: v}, nil
	}
	bad := errorf(CodeInvalidValue, "id must be the base64url JSON array of %d key values (%s)", len(t.PK), strings.Join(t.PKNames(), ", "))
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(raw, "="))
	if err != nil {
		return nil, bad
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var vals []any
	if err := d.Decode(&vals); err != nil || d.More() || len(vals) != len(t.PK) {
		return nil, bad
	}
	id := make(map[string]any, len(t.PK))
	for i, c := range t.PK {
		if vals[i] == nil {
			return nil, bad
		}
		v, err := ConvertValue(c, vals[i])
		if err != nil {
			return nil, errorf(CodeInvalidValue, "id: %s", message(err))
		}
		id[c.Name] = v
	}
	return id, nil
}

// EncodeID is the inverse of DecodeID: the :id of a row, as RowMap returns
// it. A time key is written in RFC 3339 with nanoseconds.
func EncodeID(t *schema.Table, row map[string]any) string {
	if len(t.PK) == 1 {
		return idString(row[t.PK[0].Name])
	}
	vals := make([]any, len(t.PK))
	for i, c := range t.PK {
		vals[i] = row[c.Name]
	}
	b, err := json.Marshal(vals)
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func idString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// WherePK restricts q, a single-table select, update or delete of t (with
// t's model or on the bare table), to the row with primary key id, as
// DecodeID returns it. Columns are named unqualified, so q must not join.
func WherePK[Q interface {
	Where(string, ...any) Q
}](q Q, t *schema.Table, id map[string]any) Q {
	for _, c := range t.PK {
		q = q.Where("? = ?", bun.Ident(c.Name), id[c.Name])
	}
	return q
}

// PKParams is id (as DecodeID returns it) as the driver's placeholders for
// WherePK ($first, … on PostgreSQL, ?first, … on SQLite) and the values
// that go with them, in order: a statement whose text is the same for
// every id.
func PKParams(db bun.IDB, t *schema.Table, id map[string]any, first int) (params map[string]any, args []any) {
	params = make(map[string]any, len(t.PK))
	for i, c := range t.PK {
		params[c.Name] = placeholder(db, first+i)
		args = append(args, id[c.Name])
	}
	return params, args
}

// placeholder is the driver's n-th parameter, numbered: $n on PostgreSQL,
// ?n on SQLite; on MySQL a plain ?, whose number is its place in the
// text (Bind's and PKParams's args are in the order the text names them).
func placeholder(db bun.IDB, n int) bun.Safe {
	switch db.Dialect().Name() {
	case dialect.PG:
		return bun.Safe("$" + strconv.Itoa(n))
	case dialect.MySQL:
		return "?"
	}
	return bun.Safe("?" + strconv.Itoa(n))
}
