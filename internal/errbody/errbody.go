// Package errbody is the one error body of the admin API and of live's
// pre-upgrade answers:
//
//	{"status": N, "code": "<snake_case>", "error": "<human message>"}
//
// with "retryAfterSec" on 429s and "requestId" on 5xx answers.
package errbody

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// Body is the error body.
type Body struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Message string `json:"error"`
	// RetryAfterSec is set on 429 answers only; Write also sends it as
	// Retry-After.
	RetryAfterSec int `json:"retryAfterSec,omitempty"`
	// RequestID is set on 5xx answers: the log line of the cause has it.
	RequestID string `json:"requestId,omitempty"`
	// Fields names the columns of a refused value, each with what is
	// wrong with it.
	Fields map[string]string `json:"fields,omitempty"`
}

// Header carries a request id in from a proxy and back out on 5xx answers.
const Header = "X-Request-Id"

// Write answers b with its status.
func Write(w http.ResponseWriter, b Body) {
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
