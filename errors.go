package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/query"
)

// Sentinel errors returned by the Go API. Callers branch on them with errors.Is.
var (
	// ErrNotFound reports that a user, row or room does not exist.
	ErrNotFound = errors.New("admin: not found")
	// ErrUnsupported reports that the users table lacks a column a feature needs
	// (ban or token_version), or that no Rooms implementation is configured.
	ErrUnsupported = errors.New("admin: unsupported")
	// ErrInvalidRole reports a role other than admin, mod or user.
	ErrInvalidRole = errors.New("admin: invalid role")
)

// apiError is the one error body every endpoint answers with (written as
// an errbody.Body, which live's answers share):
// {"error": "<human message>", "code": "<snake_case>", "status": N}, plus
// "requestId" on 5xx answers, the id their log line carries.
type apiError struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Message string `json:"error"`
	// RetryAfterSec is set on 429 answers only.
	RetryAfterSec int `json:"retryAfterSec,omitempty"`
	// RequestID is set on 5xx answers: the log line of the cause has it.
	RequestID string `json:"requestId,omitempty"`
	// Fields names the columns a 4xx is about, each with its message.
	Fields map[string]string `json:"fields,omitempty"`
	// cause is why the answer is what it is, when an error led to it:
	// logged with a 5xx, never sent.
	cause error
}

func (e *apiError) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Code, e.Message, e.cause)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// Unwrap returns the cause, so errors.Is and errors.As see through an
// answer to what led to it.
func (e *apiError) Unwrap() error { return e.cause }

// Is matches an answer against a sentinel answer such as errBootstrapClosed
// whether or not a cause was attached to a copy of it.
func (e *apiError) Is(target error) bool {
	t, ok := target.(*apiError)
	return ok && t.Status == e.Status && t.Code == e.Code && t.Message == e.Message
}

// because returns a copy of e carrying cause; e itself (often a shared
// sentinel) is left as it is. A nil cause returns e.
func (e *apiError) because(cause error) *apiError {
	if cause == nil {
		return e
	}
	c := *e
	c.cause = cause
	return &c
}

// fieldError is errorf about one column: the body's fields name it with
// the message.
func fieldError(status int, code, column, format string, args ...any) *apiError {
	e := errorf(status, code, format, args...)
	e.Fields = map[string]string{column: e.Message}
	return e
}

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

var (
	errUnauthenticated = errorf(http.StatusUnauthorized, "unauthenticated", "sign-in required")
	errOperatorOnly    = errorf(http.StatusForbidden, "forbidden", "an operator role (admin or mod) is required")
	errNotFoundRoute   = errorf(http.StatusNotFound, "not_found", "not found")
	errCrossOrigin     = errorf(http.StatusForbidden, "cross_origin", "cross-origin request refused")
	errClosed          = errorf(http.StatusServiceUnavailable, "closed", "the admin panel is shutting down")
)

// writeJSON answers v as JSON with the given status. The body is encoded
// first, so it goes out with a Content-Length in as few writes as the
// connection allows rather than in chunks. A value that cannot be encoded
// is a fault of the server: writeJSON panics before anything is written,
// and the request's recovery logs the cause and answers 500.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := jsonBufs.Get().(*[]byte)
	defer putJSONBuf(buf)
	b, err := appendJSONBody((*buf)[:0], v)
	if err != nil {
		panic(fmt.Errorf("admin: encoding the answer: %w", err))
	}
	*buf = b
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// appendJSONBody appends v and a newline to b. Rows, the bulk of what
// the panel sends, skip encoding/json's reflection (same bytes, a
// fraction of the time); anything else goes through encoding/json.
func appendJSONBody(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case []map[string]any:
		out, err := query.AppendRowsJSON(b, v)
		return append(out, '\n'), err
	case map[string]any:
		out, err := query.AppendJSON(b, v)
		return append(out, '\n'), err
	}
	w := bytes.NewBuffer(b)
	err := json.NewEncoder(w).Encode(v)
	return w.Bytes(), err
}

// jsonBufs are writeJSON's encoding buffers: a 100-row page is tens of
// kilobytes, which each request allocated afresh. Write does not keep the
// slice, so it is reused once written.
var jsonBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// putJSONBuf returns a buffer to jsonBufs, unless a large answer (an
// export-sized page) grew it past what is worth keeping.
func putJSONBuf(b *[]byte) {
	if cap(*b) <= 1<<20 {
		jsonBufs.Put(b)
	}
}

// panicError is a recovered panic, kept with the stack it was raised on so
// the log line shows where.
type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// recovered wraps a recover() value with the current stack.
func recovered(p any) *panicError { return &panicError{value: p, stack: debug.Stack()} }

// errAttrs are the log attributes of a failure: err, and the stack of a
// recovered panic inside it.
func errAttrs(err error) []any {
	attrs := []any{slog.Any("err", err)}
	var pe *panicError
	if errors.As(err, &pe) {
		attrs = append(attrs, slog.String("stack", string(pe.stack)))
	}
	return attrs
}

// clientGone reports whether err only says that the client went away:
// nobody reads the answer and nothing failed on the server's side.
func clientGone(r *http.Request, err error) bool {
	return errors.Is(err, context.Canceled) && errors.Is(r.Context().Err(), context.Canceled)
}

// writeError answers err with the error body. An *apiError is sent as it
// is; anything else is an internal error answered with a generic 500 that
// never echoes the cause. Every 5xx is logged once, here, with its cause
// and a request id that the body carries as requestId. A request whose
// client went away is logged at debug level only.
func (a *Admin) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	var mbe *http.MaxBytesError
	switch {
	case clientGone(r, err):
		a.log.DebugContext(r.Context(), "admin: client went away", slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("err", err))
		ae = errorf(499, "client_closed_request", "the client closed the request")
	case errors.As(err, &ae):
	case errors.As(err, &mbe):
		ae = errorf(http.StatusRequestEntityTooLarge, "body_too_large", "request body is larger than %d bytes", mbe.Limit)
	default:
		ae = errorf(http.StatusInternalServerError, "internal", "internal error").because(err)
	}
	if ae.Status < 500 && ae.cause != nil {
		// A refusal the database made (a constraint, a value it would
		// not take): the client's mistake, but the database said why.
		if state := sqlState(ae.cause); state != "" {
			a.log.InfoContext(r.Context(), "admin: the database refused a value", slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", ae.Status), slog.String("code", ae.Code), slog.String("sqlstate", state), slog.Any("fields", ae.Fields), slog.Any("err", ae.cause))
		}
	}
	if ae.Status >= 500 {
		c := *ae // never stamp a shared sentinel
		c.RequestID = errbody.RequestID(r)
		ae = &c
		attrs := []any{slog.String("requestId", ae.RequestID), slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", ae.Status), slog.String("code", ae.Code)}
		if ae.cause == nil {
			a.log.WarnContext(r.Context(), "admin: "+ae.Message, attrs...)
		} else {
			attrs = append(attrs, errAttrs(ae.cause)...)
			a.log.ErrorContext(r.Context(), "admin: request failed", attrs...)
		}
	}
	errbody.Write(w, errbody.Body{Status: ae.Status, Code: ae.Code, Message: ae.Message, RetryAfterSec: ae.RetryAfterSec, RequestID: ae.RequestID, Fields: ae.Fields})
}
