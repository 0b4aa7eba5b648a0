package panicerr

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestAttrs(t *testing.T) {
	t.Parallel()
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("widget w: %w", New(p))
			}
		}()
		panic("s3cr3t")
	}()
	if err.Error() != "widget w: panic: s3cr3t" {
		t.Fatalf("Error() = %q", err.Error())
	}
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Error("failed", Attrs(err)...)
	if logs := buf.String(); !strings.Contains(logs, "stack=") || !strings.Contains(logs, "panicerr_test.go") {
		t.Fatalf("the panic is logged without its stack: %s", logs)
	}
	buf.Reset()
	slog.New(slog.NewTextHandler(&buf, nil)).Error("failed", Attrs(errors.New("plain"))...)
	if logs := buf.String(); strings.Contains(logs, "stack=") || !strings.Contains(logs, "err=plain") {
		t.Fatalf("a plain error's attributes: %s", logs)
	}
}
