package query

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes. The caller answers every *Error with HTTP 400 and the code.
const (
	CodeUnknownColumn = "unknown_column"
	CodeInvalidValue  = "invalid_value"
	CodeInvalidQuery  = "invalid_query"
)

// Error is a client mistake in a list query, an id or a body value. Its
// Message is safe to show to the client.
type Error struct {
	Code    string // CodeUnknownColumn, CodeInvalidValue or CodeInvalidQuery
	Message string
	// Column is the SQL name of the column the mistake is about, when
	// there is one: the answer's fields name it.
	Column string
	// Plain, when set, is the rule the value broke in plain words, without
	// the column ("at most 2 decimal places"): a form names the column by
	// its label before it.
	Plain string
	// Problem, when set, is the kind of problem a value of a body has,
	// a stable snake_case code ("not_a_number", "too_long") the answer's
	// problems give for its column, with Params, the values it names.
	Problem string
	Params  map[string]any
}

// problem sets e's Problem and its params, name, value pairs.
func (e *Error) problem(code string, kv ...any) *Error {
	e.Problem = code
	e.Params = make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		e.Params[kv[i].(string)] = kv[i+1]
	}
	return e
}

// Error implements error.
func (e *Error) Error() string { return "query: " + e.Message }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// message is err's message as a client reads it: an *Error's Message, or
// err's text.
func message(err error) string {
	if e := (*Error)(nil); errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// clip shortens a client value quoted in an error message.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}

// The causes of a cell's issue (CellIssue.Err), for the log.
var (
	errBadUTF8 = errors.New("query: text is not valid UTF-8")
	errBadJSON = errors.New("query: stored text is not valid JSON")
)
