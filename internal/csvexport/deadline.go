package csvexport

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// writeWindow is how long one write of a streamed answer may wait for the
// client when the server sets no WriteTimeout of its own.
const writeWindow = 30 * time.Second

// Writer is a streamed answer's writer that moves the connection's write
// deadline forward before each write and flush: a game's http.Server with
// a WriteTimeout (30 s in the README) would otherwise cut an export that
// takes longer as a whole. Each write gets the server's WriteTimeout
// afresh (writeWindow when it has none), so a client that stops reading
// still ends the answer: its write waits out the window and fails.
type Writer struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	window time.Duration
	own    bool // the server sets no write deadline: Close clears this one
}

// NewWriter is a Writer over w for the request whose context is ctx,
// which names the server (http.ServerContextKey).
func NewWriter(ctx context.Context, w http.ResponseWriter) *Writer {
	sw := &Writer{w: w, rc: http.NewResponseController(w), window: writeWindow, own: true}
	if srv, ok := ctx.Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 {
		sw.window, sw.own = srv.WriteTimeout, false
	}
	return sw
}

// extend gives the next write its window. A writer without deadlines
// (http.ErrNotSupported: a recorder, a wrapper without Unwrap) is left as
// it is; any other error is the connection's, which the write reports.
func (sw *Writer) extend() error {
	err := sw.rc.SetWriteDeadline(time.Now().Add(sw.window))
	if errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	return err
}

// Write writes b within a fresh window.
func (sw *Writer) Write(b []byte) (int, error) {
	if err := sw.extend(); err != nil {
		return 0, err
	}
	return sw.w.Write(b)
}

// Flush sends what is buffered (a compressor's too) within a fresh window.
func (sw *Writer) Flush() error {
	if err := sw.extend(); err != nil {
		return err
	}
	if err := sw.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// Close clears the deadline the Writer set when the server sets none:
// net/http moves a deadline forward for the next request on the
// connection only when it has a WriteTimeout, and the next request must
// not inherit this answer's.
func (sw *Writer) Close() {
	if sw.own {
		_ = sw.rc.SetWriteDeadline(time.Time{})
	}
}
