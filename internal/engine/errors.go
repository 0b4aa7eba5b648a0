package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/dberr"

	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/ratelimit"
	"github.com/gameadmin/admin/internal/reports"
	"github.com/gameadmin/admin/internal/users"
	"github.com/gameadmin/admin/rooms"
)

// Errors of the Go API. Callers branch on them with errors.Is; those that
// are an *APIError also say how the panel answers them over HTTP.
var (
	// ErrNotFound reports that a user, row or room does not exist.
	ErrNotFound = users.ErrNotFound
	// ErrUnsupported reports that the users table lacks a column a feature needs
	// (ban or token_version), or that no Rooms implementation is configured.
	ErrUnsupported = users.ErrUnsupported
	// ErrInvalidRole reports a role other than admin, mod or user.
	ErrInvalidRole = moderation.ErrInvalidRole
	// ErrUnknownResource reports a mod scope naming no resource of the panel.
	ErrUnknownResource = moderation.ErrUnknownResource
	// ErrLastAdmin refuses a change that would leave no admin (Moderation's
	// SetRole, a delete or demotion over HTTP): bootstrap would open again
	// to anyone who asks.
	ErrLastAdmin = users.ErrLastAdmin

	// ErrInvalidCredentials reports an unknown email or a wrong password;
	// the two are deliberately indistinguishable.
	ErrInvalidCredentials = account.ErrInvalidCredentials
	// ErrBanned reports a sign-in by a user whose ban is in force.
	ErrBanned = account.ErrBanned
	// ErrAmbiguousEmail reports an email that matches several accounts only
	// without regard to case (stored "Sam@x" and "sam@x", asked for "SAM@x"):
	// UserIDByEmail names none rather than guess.
	ErrAmbiguousEmail = account.ErrAmbiguousEmail
	// ErrRateLimited reports a sign-in refused by a rate limit before any
	// password was checked. The error Auth().Authenticate returns is a
	// *RateLimitError, which says when to try again.
	ErrRateLimited = ratelimit.ErrLimited
	// ErrLimiterUnavailable reports a sign-in refused because a rate limiter
	// failed (its shared store is down): the attempt is refused rather than
	// let through unlimited. Auth().Authenticate and AuthenticateFrom return
	// it wrapping the cause; a game answers 503.
	ErrLimiterUnavailable = ratelimit.ErrUnavailable
	// ErrSecondFactorRequired is StartSession's answer for a user with
	// two-factor sign-in on: no session was issued, a challenge is pending in
	// its cookie, and the browser should be sent to SecondFactorURL to enter
	// a code.
	ErrSecondFactorRequired = account.ErrSecondFactorRequired
	// ErrBootstrapClosed refuses the first-admin sign-up once an admin exists.
	ErrBootstrapClosed = account.ErrBootstrapClosed
	// ErrInvalidResetToken refuses a password reset link that is unknown,
	// expired or spent.
	ErrInvalidResetToken = account.ErrInvalidResetToken
)

// Errors of Admin.FileReport. Each is internal/reports'; the one
// returned wraps it with what was wrong.
var (
	// ErrReportsOff refuses a report when Options.ReportCategories is empty.
	ErrReportsOff = reports.ErrOff
	// ErrUnknownPlayer refuses a report whose player or reporter is not in
	// the users table.
	ErrUnknownPlayer = reports.ErrUnknownPlayer
	// ErrUnknownCategory refuses a report whose category the game did not
	// declare.
	ErrUnknownCategory = reports.ErrUnknownCategory
	// ErrReportLimited refuses a report past the reporter's rate
	// (RateLimitOptions.Reports); the error is also a *RateLimitError,
	// which says when to try again.
	ErrReportLimited = reports.ErrLimited
	// ErrInvalidReport refuses a report out of bounds: no reporter, a
	// player reporting themselves, text or evidence too long, evidence
	// that is not what its category declares, or what a database cannot
	// store as it is (a NUL, a bad byte, half a surrogate pair), naming
	// the field.
	ErrInvalidReport = reports.ErrInvalid
)

// Errors a Rooms implementation returns for unknown rooms and sessions,
// for a state path that does not fit the room state, and for the game's
// code failing while serving a call. The first five are package rooms'
// errors under the panel's names: the same values, so errors.Is matches
// either name.
var (
	// ErrRoomNotFound is rooms.ErrRoomNotFound.
	ErrRoomNotFound = rooms.ErrRoomNotFound
	// ErrSessionNotFound is rooms.ErrSessionNotFound.
	ErrSessionNotFound = rooms.ErrSessionNotFound
	// ErrInvalidPath is rooms.ErrInvalidPath.
	ErrInvalidPath = rooms.ErrInvalidPath
	// ErrInvalidStateValue is rooms.ErrInvalidStateValue.
	ErrInvalidStateValue = rooms.ErrInvalidStateValue
	// ErrRoomFailed is rooms.ErrRoomFailed.
	ErrRoomFailed = rooms.ErrRoomFailed
	// ErrNodeUnavailable reports that the node owning a room cannot be
	// reached (it is gone, or the shared store is down); the panel answers
	// 503 node_unavailable.
	ErrNodeUnavailable = errors.New("admin: node unavailable")
	// ErrNodeTimeout reports that the node owning a room did not answer in
	// time; the panel answers 504 node_timeout.
	ErrNodeTimeout = errors.New("admin: node timeout")
)

// RateLimitError is a sign-in refused by a rate limit; errors.Is(err,
// ErrRateLimited) reports it. It is internal/ratelimit's.
type RateLimitError = ratelimit.Error

// APIError is an answer of the panel's HTTP API, and the error of the Go
// API calls that have one (ErrLastAdmin, an action's NewError). Every
// endpoint answers with its body:
// {"error": "<human message>", "code": "<snake_case>", "status": N}, plus
// "retryAfterSec" on 429s, "requestId" on 5xx answers (the id their log
// line carries), "params" where the message names specifics (a limit,
// a field, who holds a claim: values a client words the answer with in
// its own language) and "fields" with "problems" (each field's problem as
// a code and params) on answers about columns. Its fields are Status,
// Code, Message, RetryAfterSec, RequestID, Params, Fields, Problems and
// Cause (why the answer is what it is: logged with a 5xx, never sent;
// Unwrap returns it); WithParams returns a copy with params added. errors.Is matches two APIErrors of the same status, code
// and message, whatever their causes; errors.As finds one in a chain.
// The live package answers its refusals with the same type.
type APIError = errbody.Error

// fieldError is errorf about one column: the body's fields name it with
// the message.
func fieldError(status int, code, column, format string, args ...any) *APIError {
	return errbody.Field(status, code, column, format, args...)
}

func errorf(status int, code, format string, args ...any) *APIError {
	return errbody.New(status, code, format, args...)
}

// The panel's HTTP answers that are not errors of the Go API.
var (
	errUnauthenticated = account.ErrUnauthenticated
	errTOTPRequired    = account.ErrTOTPRequired
	errOperatorOnly    = errorf(http.StatusForbidden, "forbidden", "an operator role (admin or mod) is required").WithParams("reason", "operator_only")
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
	writeJSONBytes(w, status, b)
}

// writeJSONBytes is writeJSON of an answer already encoded (b, with its
// newline).
func writeJSONBytes(w http.ResponseWriter, status int, b []byte) {
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

// recovered wraps a recover() value with the current stack
// (internal/panicerr), so the log line shows where it was raised.
func recovered(p any) *panicerr.Error { return panicerr.New(p) }

// errAttrs are the log attributes of a failure: err, and the stack of a
// recovered panic inside it.
func errAttrs(err error) []any { return panicerr.Attrs(err) }

// clientGone reports whether err only says that the client went away:
// nobody reads the answer and nothing failed on the server's side. Once
// the request's context has ended, whatever failed after it is its
// consequence: a statement cut off, or a transaction that database/sql
// rolled back the moment the context ended ("transaction has already
// been committed or rolled back" from the next statement or the commit).
// A panic is a fault all the same.
func clientGone(r *http.Request, err error) bool {
	var p *panicerr.Error
	return errors.Is(r.Context().Err(), context.Canceled) && !errors.As(err, &p)
}

// writeError answers err with the error body. An *APIError is sent as it
// is, and statements ended by QueryTimeout (query.ErrTimeout) as 503
// query_timeout; anything else is an internal error answered with a
// generic 500 that never echoes the cause. Every 5xx is logged once,
// here, with its cause and a request id that the body carries as
// requestId: a query_timeout, which is the filter's and not a fault, as a
// warning. A request whose client went away is logged at debug level
// only.
func writeError(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	var ae *APIError
	var mbe *http.MaxBytesError
	switch {
	case clientGone(r, err):
		log.DebugContext(r.Context(), "admin: client went away", slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("err", err))
		ae = errorf(499, "client_closed_request", "the client closed the request")
	case errors.Is(err, query.ErrTimeout):
		ae = errQueryTimeout.Because(err)
	case errors.As(err, &ae):
	case errors.As(err, &mbe):
		ae = errorf(http.StatusRequestEntityTooLarge, "body_too_large", "request body is larger than %d bytes", mbe.Limit).WithParams("limit", mbe.Limit)
	default:
		ae = errorf(http.StatusInternalServerError, "internal", "internal error").Because(err)
	}
	if ae.Status < 500 && ae.Cause != nil {
		// A refusal the database made (a constraint, a value it would
		// not take): the client's mistake, but the database said why.
		if state := dberr.SQLState(ae.Cause); state != "" {
			log.InfoContext(r.Context(), "admin: the database refused a value", slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", ae.Status), slog.String("code", ae.Code), slog.String("sqlstate", state), slog.Any("fields", ae.Fields), slog.Any("err", ae.Cause))
		}
	}
	if ae.Status >= 500 {
		c := *ae // never stamp a shared sentinel
		c.RequestID = errbody.RequestID(r)
		ae = &c
		attrs := []any{slog.String("requestId", ae.RequestID), slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", ae.Status), slog.String("code", ae.Code)}
		switch {
		case ae.Cause == nil:
			log.WarnContext(r.Context(), "admin: "+ae.Message, attrs...)
		case ae.Code == errQueryTimeout.Code:
			// The parameters' names say which filters and sort were slow;
			// their values (an email, a token someone filtered by) stay
			// out of the log.
			log.WarnContext(r.Context(), "admin: statements ran past QueryTimeout", append(attrs, slog.Any("params", slices.Sorted(maps.Keys(r.URL.Query()))), slog.Any("err", ae.Cause))...)
		default:
			attrs = append(attrs, errAttrs(ae.Cause)...)
			log.ErrorContext(r.Context(), "admin: request failed", attrs...)
		}
	}
	errbody.Write(w, ae)
}
