package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/gameadmin/admin/internal/query"
)

// Sentinel errors returned by the Go API. Callers branch on them with errors.Is.
var (
	// ErrNotFound reports that a user, row or room does not exist.
	ErrNotFound = errors.New("admin: not found")
	// ErrForbidden reports that the operator's role or a policy forbids the action.
	ErrForbidden = errors.New("admin: forbidden")
	// ErrUnsupported reports that the users table lacks a column a feature needs
	// (ban or token_version), or that no Rooms implementation is configured.
	ErrUnsupported = errors.New("admin: unsupported")
	// ErrInvalidRole reports a role other than admin, mod or user.
	ErrInvalidRole = errors.New("admin: invalid role")
)

// apiError is the one error body every endpoint answers with:
// {"error": "<human message>", "code": "<snake_case>", "status": N}.
type apiError struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Message string `json:"error"`
	// RetryAfterSec is set on 429 answers only.
	RetryAfterSec int `json:"retryAfterSec,omitempty"`
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

var (
	errUnauthenticated = errorf(http.StatusUnauthorized, "unauthenticated", "sign-in required")
	errOperatorOnly    = errorf(http.StatusForbidden, "forbidden", "an operator role (admin or mod) is required")
	errNotFoundRoute   = errorf(http.StatusNotFound, "not_found", "not found")
	errCrossOrigin     = errorf(http.StatusForbidden, "cross_origin", "cross-origin request refused")
)

// writeJSON answers v as JSON with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	// Rows, the bulk of what the panel sends, skip encoding/json's
	// reflection (same bytes, a fraction of the time).
	var b []byte
	var err error
	switch v := v.(type) {
	case []map[string]any:
		b, err = query.AppendRowsJSON(make([]byte, 0, 512*len(v)+2), v)
	case map[string]any:
		b, err = query.AppendJSON(make([]byte, 0, 512), v)
	default:
		_ = json.NewEncoder(w).Encode(v)
		return
	}
	if err == nil {
		_, _ = w.Write(append(b, '\n'))
	}
}

// writeError answers err with the error body. An *apiError is sent as it is;
// anything else is an internal error: it is logged and the client gets a
// generic 500 that never echoes the cause.
func (a *Admin) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			ae = errorf(http.StatusRequestEntityTooLarge, "body_too_large", "request body is larger than %d bytes", mbe.Limit)
		} else {
			a.log.ErrorContext(r.Context(), "admin: internal error", slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("err", err))
			ae = errorf(http.StatusInternalServerError, "internal", "internal error")
		}
	}
	if ae.Status == http.StatusTooManyRequests && ae.RetryAfterSec > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(ae.RetryAfterSec))
	}
	writeJSON(w, ae.Status, ae)
}
