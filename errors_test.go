package admin

import (
	"math"
	"net/http"
	"strconv"
	"testing"
)

// TestWriteJSONLength: answers go out with their length, not chunked, and
// a value that cannot be encoded answers a logged 500 instead of a 200
// with a cut body.
func TestWriteJSONLength(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		admin, _ := e.bootstrap()
		r := admin.do("GET", "/admin-api/users", nil).want(t, http.StatusOK)
		if r.ContentLength != int64(len(r.raw)) || len(r.TransferEncoding) != 0 {
			t.Errorf("list: Content-Length %d, Transfer-Encoding %v for a %d-byte body; want the length, not chunked", r.ContentLength, r.TransferEncoding, len(r.raw))
		}
		if got := r.Header.Get("Content-Length"); got != strconv.Itoa(len(r.raw)) {
			t.Errorf("list: Content-Length header %q; want %d", got, len(r.raw))
		}

		bad := e.admin.public(func(w http.ResponseWriter, r *http.Request) error {
			writeJSON(w, http.StatusOK, map[string]any{"n": math.NaN()})
			return nil
		})
		rec := newRecorder()
		req, _ := http.NewRequest("GET", "/x", nil)
		bad.ServeHTTP(rec, req)
		if rec.Code != http.StatusInternalServerError || !contains(rec.Body.String(), `"code":"internal"`) {
			t.Errorf("unencodable answer = %d %s; want 500 with the error body", rec.Code, rec.Body)
		}
		if !contains(e.logs.String(), "encoding the answer") {
			t.Errorf("the cause was not logged: %s", e.logs)
		}
	})
}
