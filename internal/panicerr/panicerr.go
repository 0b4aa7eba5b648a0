// Package panicerr keeps a recovered panic as an error, with the stack it
// was raised on, so that the log line of the failure shows where. The
// engine's request recovery, actions and exports use it, and so does
// every concern that runs a game's code (a dashboard widget, a health
// check) behind a recover.
package panicerr

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
)

// Error is a recovered panic: its value and the stack it was raised on.
type Error struct {
	value any
	stack []byte
}

func (p *Error) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// New wraps a recover() value with the current stack. Call it in the
// deferred function that recovered, so the stack still holds the panic.
func New(p any) *Error { return &Error{value: p, stack: debug.Stack()} }

// Attrs are the log attributes of a failure: err, and the stack of a
// recovered panic inside it.
func Attrs(err error) []any {
	attrs := []any{slog.Any("err", err)}
	var pe *Error
	if errors.As(err, &pe) {
		attrs = append(attrs, slog.String("stack", string(pe.stack)))
	}
	return attrs
}
