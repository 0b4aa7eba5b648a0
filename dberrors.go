package admin

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// sqliteNotNull finds the column in SQLite's "NOT NULL constraint failed:
// <table>.<column>" (the driver may append " (1299)", the result code).
var sqliteNotNull = regexp.MustCompile(`NOT NULL constraint failed: (?:[^\s.]+\.)?([A-Za-z_][A-Za-z0-9_]*)`)

// dbError turns a constraint violation or a value the database refuses into
// a 4xx: the client sent it, and the write did not happen. Anything else is
// returned as it is (a 500, logged). The driver is never imported: the
// PostgreSQL driver's errors carry the SQLSTATE through Field('C'), and
// SQLite's messages name the constraint.
func dbError(err error) error {
	if err == nil {
		return nil
	}
	var pg interface{ Field(byte) string }
	if errors.As(err, &pg) {
		switch state := pg.Field('C'); {
		case state == "23505":
			return errorf(http.StatusConflict, "conflict", "a row with that unique value exists already")
		case state == "23502":
			return errorf(http.StatusBadRequest, "missing_value", "column %q cannot be null", pg.Field('c'))
		case state == "23503":
			if msg, ok := pgForeignKeyMessage(pg.Field('D')); ok {
				return errorf(http.StatusBadRequest, "invalid_reference", "%s", msg)
			}
			return errReference
		case state == "23514":
			return errorf(http.StatusBadRequest, "invalid_value", "a value breaks a check constraint")
		case strings.HasPrefix(state, "22"):
			return errorf(http.StatusBadRequest, "invalid_value", "a value does not fit its column")
		}
		return err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "UNIQUE constraint failed"), strings.Contains(msg, "PRIMARY KEY constraint failed"):
		return errorf(http.StatusConflict, "conflict", "a row with that unique value exists already")
	case strings.Contains(msg, "NOT NULL constraint failed"):
		// Only a column name the pattern matched is quoted back; any other
		// wording keeps the message generic rather than slicing it.
		if col := sqliteNotNullColumn(msg); col != "" {
			return errorf(http.StatusBadRequest, "missing_value", "column %q cannot be null", col)
		}
		return errorf(http.StatusBadRequest, "missing_value", "a column that cannot be null was null")
	case strings.Contains(msg, "FOREIGN KEY constraint failed"):
		return errReference
	case strings.Contains(msg, "CHECK constraint failed"):
		return errorf(http.StatusBadRequest, "invalid_value", "a value breaks a check constraint")
	}
	return err
}

// errReference is a foreign key violation whose side the database did not
// say (SQLite, or a PostgreSQL detail in another wording).
var errReference = errorf(http.StatusBadRequest, "invalid_reference", "the referenced row does not exist, or other rows refer to this one")

// insertError is dbError for an INSERT and deleteError for a DELETE: on
// SQLite, whose message does not say which side of a foreign key failed,
// the statement does. An insert can only name a row that is missing; a
// delete can only leave rows that refer to the deleted one. (An update can
// do either, and keeps the message that says both.)
func insertError(err error) error { return sideOf(dbError(err), "a referenced row does not exist") }

func deleteError(err error) error { return sideOf(dbError(err), "other rows refer to this row") }

func sideOf(err error, msg string) error {
	if errors.Is(err, errReference) {
		return errorf(errReference.Status, errReference.Code, "%s", msg)
	}
	return err
}

// pgForeignKey reads PostgreSQL's detail of a foreign key violation:
// `Key (owner_id)=(…) is not present in table "users".` on a write naming
// a missing row, `… is still referenced from table "guilds".` on a delete.
var pgForeignKey = regexp.MustCompile(`^Key \(([A-Za-z_][A-Za-z0-9_, ]*)\)=\(.*\) is (not present in|still referenced from) table "([^"]+)"`)

// pgForeignKeyMessage says which side of a foreign key failed, naming the
// column or the referring table but never the key's value; ok is false for
// a detail in another wording.
func pgForeignKeyMessage(detail string) (msg string, ok bool) {
	m := pgForeignKey.FindStringSubmatch(detail)
	switch {
	case m == nil:
		return "", false
	case m[2] == "not present in":
		return fmt.Sprintf("column %q: the referenced row does not exist", m[1]), true
	default:
		return fmt.Sprintf("rows of %q still refer to this row", m[3]), true
	}
}

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
