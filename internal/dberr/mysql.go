package dberr

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
)

// MySQL and MariaDB refuse a write with an error number and a message
// naming the column or the constraint (there are no separate fields, as
// PostgreSQL has). The Go driver (github.com/go-sql-driver/mysql) answers
// a *mysql.MySQLError{Number uint16; SQLState [5]byte; Message string},
// read here by its fields' names and kinds, without importing the driver.
// The wordings are MariaDB 10.11's, checked against the server; MySQL 8's
// numbers that differ (3819 for a check, 3105 for a generated column, its
// "table.key" in a duplicate key's message) are read from its reference
// manual and untested.

// MySQL error numbers (ER_* in the server's errmsg) that a refused write,
// or a statement ended by its time limit, answers.
const (
	myDupEntry            = 1062 // ER_DUP_ENTRY: Duplicate entry '…' for key 'k'
	myRowIsReferenced     = 1451 // ER_ROW_IS_REFERENCED_2: a delete of a referenced row
	myNoReferencedRow     = 1452 // ER_NO_REFERENCED_ROW_2: a write naming a missing row
	myRowIsReferencedOld  = 1217 // ER_ROW_IS_REFERENCED, without the key's details
	myNoReferencedRowOld  = 1216 // ER_NO_REFERENCED_ROW, without the key's details
	myBadNull             = 1048 // ER_BAD_NULL_ERROR: Column 'c' cannot be null
	myNoDefault           = 1364 // ER_NO_DEFAULT_FOR_FIELD: Field 'c' doesn't have a default value
	myOutOfRange          = 1264 // ER_WARN_DATA_OUT_OF_RANGE: Out of range value for column 'c'
	myDataTooLong         = 1406 // ER_DATA_TOO_LONG: Data too long for column 'c'
	myTruncatedWrongValue = 1292 // ER_TRUNCATED_WRONG_VALUE: Incorrect datetime value: … for column …
	myWrongValueForField  = 1366 // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: Incorrect integer value: … for column …
	myDataTruncated       = 1265 // WARN_DATA_TRUNCATED: Data truncated for column 'c' (an ENUM's unknown value)
	myCheckMariaDB        = 4025 // ER_CONSTRAINT_FAILED: CONSTRAINT `c` failed for `db`.`t`
	myCheckMySQL          = 3819 // ER_CHECK_CONSTRAINT_VIOLATED (MySQL 8): Check constraint 'c' is violated.
	myGeneratedMariaDB    = 1906 // ER_WARNING_NON_DEFAULT_VALUE_FOR_VIRTUAL_COLUMN (an error in strict mode)
	myGeneratedMySQL      = 3105 // ER_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN (MySQL 8)
	myNotUpdatable        = 1288 // ER_NON_UPDATABLE_TABLE: The target table v of the UPDATE is not updatable
	myNotInsertable       = 1471 // ER_NON_INSERTABLE_TABLE: … is not insertable-into
	myViewDeleteJoin      = 1395 // ER_VIEW_DELETE_MERGE_VIEW: Can not delete from join view
	myViewMultiUpdate     = 1393 // ER_VIEW_MULTIUPDATE: Can not modify more than one base table through a join view

	// The statement ran out of its time: MariaDB's max_statement_time
	// (ER_STATEMENT_TIMEOUT), MySQL 8's MAX_EXECUTION_TIME
	// (ER_QUERY_TIMEOUT), or a KILL QUERY (ER_QUERY_INTERRUPTED, as
	// PostgreSQL's 57014 covers a cancel request too).
	myStatementTimeout = 1969
	myQueryTimeout     = 3024
	myQueryInterrupted = 1317
)

// myError is a MySQL or MariaDB error as the driver gives it.
type myError struct {
	Number   uint16
	SQLState string
	Message  string
}

// mysqlErrorOf finds a MySQL error in err's chain: a pointer to (or a)
// struct with the fields Number (an unsigned integer), SQLState (five
// bytes) and Message (a string), as the driver's MySQLError has.
func mysqlErrorOf(err error) (myError, bool) {
	for _, e := range chain(err) {
		v := reflect.ValueOf(e)
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				continue
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			continue
		}
		num, state, msg := v.FieldByName("Number"), v.FieldByName("SQLState"), v.FieldByName("Message")
		if !num.IsValid() || !state.IsValid() || !msg.IsValid() ||
			num.Kind() != reflect.Uint16 || msg.Kind() != reflect.String ||
			state.Kind() != reflect.Array || state.Len() != 5 || state.Type().Elem().Kind() != reflect.Uint8 {
			continue
		}
		var b [5]byte
		for i := range b {
			b[i] = byte(state.Index(i).Uint())
		}
		s := string(b[:])
		if b == [5]byte{} {
			s = ""
		}
		return myError{Number: uint16(num.Uint()), SQLState: s, Message: msg.String()}, true
	}
	return myError{}, false
}

// chain is err and every error it wraps, depth first (errors.Join's and
// fmt.Errorf's several %w included).
func chain(err error) []error {
	var out []error
	var walk func(error)
	walk = func(e error) {
		for e != nil && len(out) < 64 {
			out = append(out, e)
			switch u := e.(type) {
			case interface{ Unwrap() []error }:
				for _, x := range u.Unwrap() {
					walk(x)
				}
				return
			default:
				e = errors.Unwrap(e)
			}
		}
	}
	walk(err)
	return out
}

// MySQLNumber is the error number of a MySQL or MariaDB error in err's
// chain; ok is false when there is none.
func MySQLNumber(err error) (n uint16, ok bool) {
	if err == nil {
		return 0, false
	}
	me, ok := mysqlErrorOf(err)
	return me.Number, ok
}

// IsMySQLTimeout reports a MySQL or MariaDB statement ended by its time
// limit (MariaDB's max_statement_time, 1969; MySQL's MAX_EXECUTION_TIME,
// 3024) or a KILL QUERY (1317).
func IsMySQLTimeout(err error) bool {
	n, ok := MySQLNumber(err)
	return ok && (n == myStatementTimeout || n == myQueryTimeout || n == myQueryInterrupted)
}

// myColumn finds the column a message names: 'c', or MariaDB's
// `db`.`t`.`c` (whose last part is the column), after "column" or
// "Field".
var myColumn = regexp.MustCompile("(?i)(?:column|field) ('[^']+'|`(?:[^`]|``)+`(?:\\.`(?:[^`]|``)+`)*)")

func myColumnOf(msg string) string {
	// The last one: a value quoted before it may itself read "column 'x'".
	all := myColumn.FindAllStringSubmatch(msg, -1)
	if all == nil {
		return ""
	}
	s := all[len(all)-1][1]
	if s[0] == '\'' {
		return s[1 : len(s)-1]
	}
	parts := myIdents(s)
	if len(parts) == 0 {
		return ""
	}
	return parts[len(parts)-1]
}

// myIdent is one backquoted name (a doubled backquote inside it is one).
var myIdent = regexp.MustCompile("`((?:[^`]|``)+)`")

func myIdents(s string) []string {
	var out []string
	for _, m := range myIdent.FindAllStringSubmatch(s, -1) {
		out = append(out, strings.ReplaceAll(m[1], "``", "`"))
	}
	return out
}

// myDupKey reads the key of "Duplicate entry '…' for key 'k'" (MySQL 8
// writes 'table.k'); the value before it is never kept.
var myDupKey = regexp.MustCompile(`for key '([^']+)'\s*$`)

// myForeignKey reads a foreign key's refusal: `(` + "`db`.`child`, CONSTRAINT `fk` FOREIGN KEY (`a`, `b`) REFERENCES `parent` (`id`))".
var myForeignKey = regexp.MustCompile("\\((`(?:[^`]|``)+`(?:\\.`(?:[^`]|``)+`)?), CONSTRAINT (`(?:[^`]|``)+`) FOREIGN KEY \\(((?:`(?:[^`]|``)+`(?:, )?)+)\\) REFERENCES")

// myCheck reads MariaDB's "CONSTRAINT `c` failed for `db`.`t`" and MySQL
// 8's "Check constraint 'c' is violated."
var (
	myCheckMaria = regexp.MustCompile("^CONSTRAINT `((?:[^`]|``)+)` failed for (`(?:[^`]|``)+`(?:\\.`(?:[^`]|``)+`)?)")
	myCheckMy    = regexp.MustCompile(`^Check constraint '([^']+)' is violated`)
)

// classifyMySQL reads a MySQL or MariaDB error as a refused write.
func classifyMySQL(me myError) (Refusal, bool) {
	switch me.Number {
	case myDupEntry:
		// The message names the key (an index), not its columns: MariaDB
		// names an unnamed UNIQUE (a, b) after its first column, so the
		// name alone does not say the columns. The catalog's indexes do,
		// for the caller that has the table.
		r := Refusal{Kind: Unique}
		if m := myDupKey.FindStringSubmatch(me.Message); m != nil {
			key := m[1]
			if i := strings.LastIndexByte(key, '.'); i >= 0 { // MySQL 8's "table.key"
				key = key[i+1:]
			}
			r.Constraint = key
		}
		return r, true
	case myNoReferencedRow, myRowIsReferenced:
		r := Refusal{Kind: ForeignKey}
		m := myForeignKey.FindStringSubmatch(me.Message)
		if m == nil {
			return r, true
		}
		child := myIdents(m[1])
		if c := myIdents(m[2]); len(c) == 1 {
			r.Constraint = c[0]
		}
		r.Sided = true
		if me.Number == myNoReferencedRow {
			r.Missing, r.Columns = true, myIdents(m[3])
		} else {
			r.Table = child[len(child)-1]
		}
		return r, true
	case myNoReferencedRowOld, myRowIsReferencedOld:
		return Refusal{Kind: ForeignKey}, true
	case myBadNull, myNoDefault:
		return Refusal{Kind: NotNull, Columns: nonEmpty(myColumnOf(me.Message))}, true
	case myCheckMariaDB:
		r := Refusal{Kind: Check}
		if m := myCheckMaria.FindStringSubmatch(me.Message); m != nil {
			r.Constraint = strings.ReplaceAll(m[1], "``", "`")
			// A column's own CHECK is named after the column, and the
			// message names it "table.column" (the catalog's
			// CHECK_CONSTRAINTS says "column", LEVEL Column).
			if t := myIdents(m[2]); len(t) > 0 {
				if col, ok := strings.CutPrefix(r.Constraint, t[len(t)-1]+"."); ok && col != "" {
					r.Constraint, r.Columns = col, []string{col}
				}
			}
		}
		return r, true
	case myCheckMySQL:
		r := Refusal{Kind: Check}
		if m := myCheckMy.FindStringSubmatch(me.Message); m != nil {
			r.Constraint = m[1]
		}
		return r, true
	case myGeneratedMariaDB, myGeneratedMySQL:
		return Refusal{Kind: Generated, Columns: nonEmpty(myColumnOf(me.Message))}, true
	case myNotUpdatable, myNotInsertable, myViewDeleteJoin, myViewMultiUpdate:
		return Refusal{Kind: NotWritable}, true
	case myOutOfRange, myDataTooLong, myTruncatedWrongValue, myWrongValueForField, myDataTruncated:
		return Refusal{Kind: BadValue, Columns: nonEmpty(myColumnOf(me.Message))}, true
	}
	switch {
	case me.SQLState == "23000":
		return Refusal{Kind: Constraint}, true
	case strings.HasPrefix(me.SQLState, "22"):
		return Refusal{Kind: BadValue, Columns: nonEmpty(myColumnOf(me.Message))}, true
	}
	return Refusal{}, false
}

// KeyColumns completes a duplicate key's refusal that names its key but
// not its columns (MySQL's and MariaDB's, whose message names an index):
// columns is the caller's lookup of a key's columns in the table's
// catalog (its indexes), answering none for a key it does not know. Any
// other refusal, or one that names its columns already, is answered as
// it is.
func (r Refusal) KeyColumns(columns func(key string) []string) Refusal {
	if r.Kind != Unique || len(r.Columns) > 0 || r.Constraint == "" || columns == nil {
		return r
	}
	r.Columns = columns(r.Constraint)
	return r
}
