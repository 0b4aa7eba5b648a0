// Package errbody is the one error body of the admin API and of live's
// pre-upgrade answers:
//
//	{"status": N, "code": "<snake_case>", "error": "<human message>"}
//
// with "retryAfterSec" on 429s, "requestId" on 5xx answers, "row" on
// the 409 of a write to a row that changed since it was read, "params"
// where the message names specifics (a limit, a field, who holds a
// claim), and "fields" with "problems" on answers about columns: the
// message in English, and beside it a code and parameters a client
// words in its operator's language.
package errbody

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is the error body, and the error that carries it: the one type
// of every answer the admin API and live's pre-upgrade refusals give, and
// of the Go API's errors that have an answer (admin.APIError is this
// type). Cause is why the answer is what it is, when an error led to it:
// logged with a 5xx, never sent.
type Error struct {
	// Status is the HTTP status, 400-599.
	Status int `json:"status"`
	// Code is a stable snake_case identifier a client branches on.
	Code string `json:"code"`
	// Message is for a person: it says what went wrong and, where it can,
	// what to do.
	Message string `json:"error"`
	// RetryAfterSec is set on 429 answers only; Write also sends it as
	// Retry-After.
	RetryAfterSec int `json:"retryAfterSec,omitempty"`
	// RequestID is set on 5xx answers: the log line of the cause has it.
	RequestID string `json:"requestId,omitempty"`
	// Params are the specifics Message names, by name ("max": 32,
	// "field": "code"), for a client that words the answer itself from
	// Code: values, never English words. Sent only when set.
	Params map[string]any `json:"params,omitempty"`
	// Fields names the columns a 4xx is about, each with its message.
	Fields map[string]string `json:"fields,omitempty"`
	// Problems is, beside Fields and with the same keys, each field's
	// problem as a code and its parameters (Problem), on the answers
	// whose fields the server words as a code: 400 validation, a value
	// that does not fit its column, a write the database refused.
	Problems map[string]Problem `json:"problems,omitempty"`
	// Row is, on a 409 conflict of a write to a row that changed since
	// its client read it, the row as it is now, as the client's role
	// reads it.
	Row map[string]any `json:"row,omitempty"`
	// ETag is Row's version: Write sends it as the ETag header.
	ETag string `json:"-"`
	// Cause is why the answer is what it is, when an error led to it:
	// logged with a 5xx, never sent. Unwrap returns it.
	Cause error `json:"-"`
}

// Problem is one field's problem as a client words it itself: a stable
// snake_case code ("required", "too_long") and the values its message
// names ({"max": 32}); the field's label is the client's own. Message is
// the English words of Fields, kept with it by the code that collects
// problems (rows.FieldProblems); it is not sent here.
type Problem struct {
	// Code is the kind of problem, a stable snake_case identifier.
	Code string `json:"code"`
	// Params are the values the problem names; {} when none.
	Params map[string]any `json:"params"`
	// Message is the problem in English, as Fields has it.
	Message string `json:"-"`
}

// NewProblem is a Problem of code with message and params given as
// name, value pairs.
func NewProblem(code, message string, kv ...any) Problem {
	return Problem{Code: code, Params: pairs(kv), Message: message}
}

// pairs is a map of name, value pairs; an empty map for none.
func pairs(kv []any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return m
}

// WithParams returns a copy of e carrying params given as name, value
// pairs, added to any it has; e itself (often a shared sentinel) is left
// as it is.
func (e *Error) WithParams(kv ...any) *Error {
	c := *e
	c.Params = make(map[string]any, len(e.Params)+len(kv)/2)
	maps.Copy(c.Params, e.Params)
	maps.Copy(c.Params, pairs(kv))
	return &c
}

// WithProblem returns a copy of e whose fields' problem is p, for each
// column of its Fields (an answer about one field, as Field makes it).
func (e *Error) WithProblem(p Problem) *Error {
	c := *e
	c.Problems = make(map[string]Problem, len(e.Fields))
	for col := range e.Fields {
		c.Problems[col] = p
	}
	return &c
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// Unwrap returns the cause, so errors.Is and errors.As see through an
// answer to what led to it.
func (e *Error) Unwrap() error { return e.Cause }

// Is matches an answer against a sentinel answer whether or not a cause
// was attached to a copy of it: same status, code and message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status && t.Code == e.Code && t.Message == e.Message
}

// Because returns a copy of e carrying cause; e itself (often a shared
// sentinel) is left as it is. A nil cause returns e.
func (e *Error) Because(cause error) *Error {
	if cause == nil {
		return e
	}
	c := *e
	c.Cause = cause
	return &c
}

// New is an Error of status and code with a formatted message.
func New(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Field is New about one column: the body's fields name it with the
// message.
func Field(status int, code, column, format string, args ...any) *Error {
	e := New(status, code, format, args...)
	e.Fields = map[string]string{column: e.Message}
	return e
}

// MarshalJSON is the body of e: its problems hold every column its
// fields name, one a code did not word given the answer's own code
// ({"code": e.Code, "params": {}}), so that a client words each field
// from problems alone.
func (e *Error) MarshalJSON() ([]byte, error) {
	type body Error // without this method
	b := body(*e)
	copied := false
	for col := range e.Fields {
		if p, ok := b.Problems[col]; ok && p.Params != nil {
			continue
		}
		if !copied { // e's own map stays as it is
			b.Problems = make(map[string]Problem, len(e.Fields))
			maps.Copy(b.Problems, e.Problems)
			copied = true
		}
		p, ok := b.Problems[col]
		if !ok {
			p.Code = e.Code
		}
		p.Params = map[string]any{}
		b.Problems[col] = p
	}
	return json.Marshal(b)
}

// Header carries a request id in from a proxy and back out on 5xx answers.
const Header = "X-Request-Id"

// Write answers b with its status.
func Write(w http.ResponseWriter, b *Error) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	if b.Status == http.StatusTooManyRequests && b.RetryAfterSec > 0 {
		h.Set("Retry-After", strconv.Itoa(b.RetryAfterSec))
	}
	if b.RequestID != "" {
		h.Set(Header, b.RequestID)
	}
	if b.ETag != "" {
		h.Set("ETag", b.ETag)
		h.Set("Access-Control-Expose-Headers", "ETag")
	}
	w.WriteHeader(b.Status)
	_ = json.NewEncoder(w).Encode(b)
}

// RequestID is the id a 5xx is logged and answered with: the proxy's
// X-Request-Id when it is a plain token of at most 64 characters (so it
// cannot forge a log line), else a new random one.
func RequestID(r *http.Request) string {
	if id := r.Header.Get(Header); len(id) > 0 && len(id) <= 64 && strings.IndexFunc(id, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.')
	}) < 0 {
		return id
	}
	return rand.Text()[:16]
}

// Truncate shortens s to at most n runes, marked with an ellipsis, for
// quoting a value the client sent in a message.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
