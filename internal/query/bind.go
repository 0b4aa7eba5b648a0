package query

import (
	"bytes"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	bunschema "github.com/uptrace/bun/schema"
)

// Bind is a write's column values (a Bun map model's, as InsertRow and
// UpdateRow build it) as driver parameters, so that the statement's text
// is the same for every row and can be prepared: params maps each column
// to its placeholder ($n on PostgreSQL, ?n on SQLite, counting from
// first), and args holds the values in placeholder order.
//
// Each value is bound as the literal Bun would inline for it reads: the
// text of a quoted literal as a string parameter, which the database
// reads with the column's own input, as it reads the literal; a number
// on PostgreSQL as text cast to numeric, the type its literal has there
// before it is assigned; a boolean cast to boolean; on SQLite numbers as
// integers or reals, and X'…' as bytes, the storage classes their
// literals have. So JSON (Bun's escaping of \u0000 included), arrays,
// decimals, times and 'NaN' or 'Infinity' are stored exactly as the
// inline statement stores them. ok is false when a value's literal has no
// such form (an expression, or an error Bun wrote into the text): the
// write then goes inline, as before, and fails or succeeds as it would.
func Bind(db bun.IDB, vals map[string]any, first int) (params map[string]any, args []any, ok bool) {
	pg := db.Dialect().Name() == dialect.PG
	my := db.Dialect().Name() == dialect.MySQL
	gen := bunschema.NewQueryGen(db.Dialect())
	params = make(map[string]any, len(vals))
	args = make([]any, 0, len(vals))
	var lit []byte
	// In the columns' order, so that the same columns make the same text.
	for _, col := range slices.Sorted(maps.Keys(vals)) {
		v := vals[col]
		if e, isExpr := v.(Expr); isExpr {
			text, eargs, ok := e.bind(db, gen, pg, first+len(args))
			if !ok {
				return nil, nil, false
			}
			args = append(args, eargs...)
			params[col] = bun.Safe(text)
			continue
		}
		lit = gen.Append(lit[:0], v)
		arg, cast, ok := literalArg(lit, pg, my)
		if !ok {
			return nil, nil, false
		}
		n := first + len(args)
		args = append(args, arg)
		params[col] = bun.Safe(string(placeholder(db, n)) + cast)
	}
	return params, args, true
}

// Expr is a value of a write that the database computes from the row
// (a JSON document's edit, applied to the stored one): SQL text with a ?
// for each of Args, in order, and no other ? (none in a literal). Its
// identifiers are quoted by the caller, from the table's columns. Run
// through Bun, the arguments are quoted by Bun; through Bind, each is a
// parameter.
type Expr struct {
	SQL  string
	Args []any
}

// AppendQuery writes e with its arguments inline, quoted by Bun.
func (e Expr) AppendQuery(gen bunschema.QueryGen, b []byte) ([]byte, error) {
	return gen.AppendQuery(b, e.SQL, e.Args...), nil
}

// bind is e's text with each ? a placeholder, counting from first (with
// the cast its literal needs, as Bind casts a value's), and the
// arguments; ok is false when an argument has no parameter form.
func (e Expr) bind(db bun.IDB, gen bunschema.QueryGen, pg bool, first int) (string, []any, bool) {
	var b strings.Builder
	args := make([]any, 0, len(e.Args))
	var lit []byte
	rest := e.SQL
	for _, a := range e.Args {
		i := strings.IndexByte(rest, '?')
		if i < 0 {
			return "", nil, false
		}
		lit = gen.Append(lit[:0], a)
		arg, cast, ok := literalArg(lit, pg, db.Dialect().Name() == dialect.MySQL)
		if !ok {
			return "", nil, false
		}
		b.WriteString(rest[:i])
		b.WriteString(string(placeholder(db, first+len(args))))
		b.WriteString(cast)
		args = append(args, arg)
		rest = rest[i+1:]
	}
	if strings.IndexByte(rest, '?') >= 0 {
		return "", nil, false
	}
	b.WriteString(rest)
	return b.String(), args, true
}

// literalArg is the driver parameter that stands for the SQL literal lit,
// with the cast its placeholder needs to have the literal's type (""
// for a quoted literal, whose type the column decides, and for NULL).
// my: the literal is MySQL's, whose backslashes are doubled too.
func literalArg(lit []byte, pg, my bool) (arg any, cast string, ok bool) {
	switch s := string(lit); {
	case s == "NULL":
		return nil, "", true
	case s == "TRUE" || s == "FALSE":
		if pg {
			return s == "TRUE", "::boolean", true
		}
		if s == "TRUE" {
			return int64(1), "", true
		}
		return int64(0), "", true
	case len(lit) >= 2 && lit[0] == '\'' && lit[len(lit)-1] == '\'':
		return unquote(lit[1:len(lit)-1], my)
	case !pg && len(lit) >= 3 && (lit[0] == 'X' || lit[0] == 'x') && lit[1] == '\'' && lit[len(lit)-1] == '\'':
		b, err := hex.DecodeString(s[2 : len(s)-1])
		return b, "", err == nil
	}
	integer, ok := number(lit)
	switch {
	case !ok:
		return nil, "", false
	case pg:
		return string(lit), "::numeric", true
	case integer:
		if n, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
			return n, "", true
		}
		// Past int64, SQLite reads the literal as a real.
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, "", err == nil
}

// unquote is the text of a quoted literal's inside, whose quotes are
// doubled, and with backslash its backslashes too (MySQL's dialect
// writes a \ as \\: the parameter is the one backslash the value holds).
func unquote(in []byte, backslash bool) (any, string, bool) {
	if bytes.IndexByte(in, '\'') < 0 && (!backslash || bytes.IndexByte(in, '\\') < 0) {
		return string(in), "", true
	}
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		if c := in[i]; c == '\'' || (backslash && c == '\\') {
			if i+1 == len(in) || in[i+1] != c {
				return nil, "", false
			}
			i++
		}
		out = append(out, in[i])
	}
	return string(out), "", true
}

// number reports whether lit is a decimal number as Bun writes one
// (strconv's 'f' format: a sign, digits, a fraction), and whether it is
// an integer.
func number(lit []byte) (integer, ok bool) {
	i := 0
	if i < len(lit) && lit[i] == '-' {
		i++
	}
	digits, dot := 0, false
	for ; i < len(lit); i++ {
		switch c := lit[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false, false
		}
	}
	return !dot, digits > 0
}
