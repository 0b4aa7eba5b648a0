// Package dberr reads a database's refusal of a write: which constraint or
// value it refused and, where the database says, which columns. It knows
// the wording of PostgreSQL's errors (through their SQLSTATE and fields,
// from pgdriver's errors or pgx's, without importing a driver), of
// MySQL's and MariaDB's (their error numbers and messages, mysql.go) and
// of SQLite's messages. The admin package turns a Refusal into the HTTP
// answer.
package dberr

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// Kind is what the database refused.
type Kind int

// The kinds of refusal.
const (
	Unique     Kind = iota + 1 // a unique or primary key value exists already
	NotNull                    // a NOT NULL column got null
	ForeignKey                 // a reference to a missing row, or a delete of a referenced one
	Check                      // a CHECK constraint
	Generated                  // a write to a column the database generates
	Constraint                 // another integrity constraint (SQLSTATE class 23)
	BadValue                   // a value the column's type cannot hold (SQLSTATE class 22)
	// NotWritable: the relation takes no such write (a view, a
	// materialized view, a table the database cannot update or lock:
	// SQLSTATE 0A000 and 55000, SQLite's "cannot modify … because it is
	// a view").
	NotWritable
)

// Refusal is a refused write.
type Refusal struct {
	Kind Kind
	// Columns are the columns the database named, if any.
	Columns []string
	// ForeignKey, for a ForeignKey refusal whose side PostgreSQL said:
	// Missing is true for a write naming a missing row (Columns holds the
	// referencing columns), false for a delete of a row Table still
	// refers to.
	Sided   bool
	Missing bool
	Table   string
	// Constraint is the constraint the database named, if any:
	// PostgreSQL's name of it; for a check on SQLite, its name or, when
	// it has none, its expression as written; on MySQL and MariaDB the
	// key's name of a duplicate (an index: "PRIMARY", or MariaDB's
	// first column of an unnamed UNIQUE; see KeyColumns), a foreign
	// key's or a check's name (a column's own check: the column's).
	Constraint string
}

// pgError is the fields of PostgreSQL's error response, by their
// protocol codes: pgdriver.Error offers them so; pgx's *pgconn.PgError is
// read through fieldsOf.
type pgError interface{ Field(byte) string }

// pgErrorOf finds PostgreSQL's error in err's chain, from either driver,
// without importing one.
func pgErrorOf(err error) (pgError, bool) {
	var pg pgError
	if errors.As(err, &pg) {
		return pg, true
	}
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		if v := reflect.ValueOf(state); v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
			return fieldsOf{v.Elem()}, true
		}
	}
	return nil, false
}

// fieldsOf reads an error response from the exported fields of a struct
// such as pgx's pgconn.PgError (Code, Message, Detail, ColumnName, …).
type fieldsOf struct{ v reflect.Value }

// pgFieldNames are pgconn.PgError's names of the protocol's fields.
var pgFieldNames = map[byte]string{'C': "Code", 'M': "Message", 'D': "Detail", 'c': "ColumnName", 'n': "ConstraintName", 't': "TableName", 's': "SchemaName"}

func (f fieldsOf) Field(code byte) string {
	if name := pgFieldNames[code]; name != "" {
		if fv := f.v.FieldByName(name); fv.Kind() == reflect.String {
			return fv.String()
		}
	}
	return ""
}

// Classify reads err as a refused write; ok is false for any other error
// (a lost connection, a syntax error), which stays a fault of the server.
func Classify(err error) (r Refusal, ok bool) {
	if err == nil {
		return Refusal{}, false
	}
	if pg, ok := pgErrorOf(err); ok {
		return classifyPG(pg)
	}
	if me, ok := mysqlErrorOf(err); ok {
		return classifyMySQL(me)
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "UNIQUE constraint failed"), strings.Contains(msg, "PRIMARY KEY constraint failed"):
		return Refusal{Kind: Unique, Columns: sqliteColumns(msg)}, true
	case strings.Contains(msg, "NOT NULL constraint failed"):
		// Only a column name the pattern matched is given; any other
		// wording names none rather than slicing the message.
		return Refusal{Kind: NotNull, Columns: nonEmpty(sqliteNotNullColumn(msg))}, true
	case strings.Contains(msg, "FOREIGN KEY constraint failed"):
		return Refusal{Kind: ForeignKey}, true
	case strings.Contains(msg, "CHECK constraint failed"):
		return Refusal{Kind: Check, Constraint: sqliteCheck(msg)}, true
	case strings.Contains(msg, "because it is a view"), strings.Contains(msg, "may not be modified"):
		return Refusal{Kind: NotWritable}, true
	}
	return Refusal{}, false
}

func classifyPG(pg pgError) (Refusal, bool) {
	switch state := pg.Field('C'); {
	case state == "23505":
		return Refusal{Kind: Unique, Columns: pgKeyColumns(pg.Field('D')), Constraint: pg.Field('n')}, true
	case state == "23502":
		return Refusal{Kind: NotNull, Columns: nonEmpty(pg.Field('c'))}, true
	case state == "23503":
		r := Refusal{Kind: ForeignKey}
		if m := pgForeignKey.FindStringSubmatch(pg.Field('D')); m != nil {
			r.Sided = true
			if m[2] == "not present in" {
				r.Missing, r.Columns = true, []string{m[1]}
			} else {
				r.Table = m[3]
			}
		}
		return r, true
	case state == "23514":
		return Refusal{Kind: Check, Columns: nonEmpty(pg.Field('c')), Constraint: pg.Field('n')}, true
	case state == "428C9":
		return Refusal{Kind: Generated, Columns: nonEmpty(pgQuotedColumn(pg.Field('M')))}, true
	case strings.HasPrefix(state, "23"):
		return Refusal{Kind: Constraint}, true
	case state == "0A000", state == "55000":
		return Refusal{Kind: NotWritable}, true
	case strings.HasPrefix(state, "22"):
		return Refusal{Kind: BadValue, Columns: nonEmpty(pg.Field('c'))}, true
	}
	return Refusal{}, false
}

// ForeignKeyMessage says which side of a sided foreign key refusal failed,
// naming the column or the referring table, never the key's value.
func (r Refusal) ForeignKeyMessage() string {
	if r.Missing {
		return fmt.Sprintf("column %q: the referenced row does not exist", strings.Join(r.Columns, ", "))
	}
	return fmt.Sprintf("rows of %q still refer to this row", r.Table)
}

// SQLState is the SQLSTATE of a database error in err's chain ("sqlite"
// for SQLite's, which have none; MySQL's own, which several error numbers
// share, such as 23000), or "".
func SQLState(err error) string {
	if pg, ok := pgErrorOf(err); ok {
		return pg.Field('C')
	}
	if me, ok := mysqlErrorOf(err); ok && err != nil {
		return me.SQLState
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		return "sqlite"
	}
	return ""
}

func nonEmpty(col string) []string {
	if col == "" {
		return nil
	}
	return []string{col}
}

// pgKey reads the columns of PostgreSQL's detail of a key violation,
// `Key (a, b)=(…) already exists.`
var pgKey = regexp.MustCompile(`^Key \(([A-Za-z_][A-Za-z0-9_, ]*)\)=`)

func pgKeyColumns(detail string) []string {
	m := pgKey.FindStringSubmatch(detail)
	if m == nil {
		return nil
	}
	return strings.Split(strings.ReplaceAll(m[1], " ", ""), ",")
}

// pgColumnQuoted finds the column of a message such as `cannot insert a
// non-DEFAULT value into column "id"`.
var pgColumnQuoted = regexp.MustCompile(`column "([A-Za-z_][A-Za-z0-9_]*)"`)

func pgQuotedColumn(msg string) string {
	if m := pgColumnQuoted.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// pgForeignKey reads PostgreSQL's detail of a foreign key violation:
// `Key (owner_id)=(…) is not present in table "users".` on a write naming
// a missing row, `… is still referenced from table "guilds".` on a delete.
var pgForeignKey = regexp.MustCompile(`^Key \(([A-Za-z_][A-Za-z0-9_, ]*)\)=\(.*\) is (not present in|still referenced from) table "([^"]+)"`)

// sqliteUnique reads SQLite's "UNIQUE constraint failed: t.a, t.b".
var sqliteUnique = regexp.MustCompile(`(?:UNIQUE|PRIMARY KEY) constraint failed: ((?:[^\s.,]+\.)?[A-Za-z_][A-Za-z0-9_]*(?:, (?:[^\s.,]+\.)?[A-Za-z_][A-Za-z0-9_]*)*)`)

func sqliteColumns(msg string) []string {
	m := sqliteUnique.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	var out []string
	for _, part := range strings.Split(m[1], ", ") {
		if i := strings.LastIndexByte(part, '.'); i >= 0 {
			part = part[i+1:]
		}
		out = append(out, part)
	}
	return out
}

// sqliteNotNull finds the column in SQLite's "NOT NULL constraint failed:
// <table>.<column>" (the driver may append " (1299)", the result code).
var sqliteNotNull = regexp.MustCompile(`NOT NULL constraint failed: (?:[^\s.]+\.)?([A-Za-z_][A-Za-z0-9_]*)`)

// sqliteNotNullColumn reads the column out of SQLite's "NOT NULL constraint
// failed: <table>.<column>" message, to which drivers append the result
// code, as in "game_roles.scopes (1299)"; "" when the message does not
// match. Nothing it did not match is sliced.
func sqliteNotNullColumn(msg string) string {
	if m := sqliteNotNull.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// sqliteCheckCode is the result code a driver (modernc's) appends to
// SQLite's message: " (275)".
var sqliteCheckCode = regexp.MustCompile(` \(\d+\)$`)

// sqliteCheck reads the check out of SQLite's "CHECK constraint failed:
// <name>" (or, for a check without a name, "…: <expression>"), without
// the result code a driver appends; "" when the message names none.
func sqliteCheck(msg string) string {
	const marker = "CHECK constraint failed: "
	i := strings.Index(msg, marker)
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(sqliteCheckCode.ReplaceAllString(msg[i+len(marker):], ""))
}
