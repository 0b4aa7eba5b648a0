package engine

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
)

func TestAPIErrorCause(t *testing.T) {
	t.Parallel()
	cause := sql.ErrConnDone
	e := ErrBootstrapClosed.Because(cause)
	if !errors.Is(e, ErrBootstrapClosed) || !errors.Is(e, sql.ErrConnDone) {
		t.Fatalf("errors.Is through %v: sentinel %v, cause %v", e, errors.Is(e, ErrBootstrapClosed), errors.Is(e, sql.ErrConnDone))
	}
	if ErrBootstrapClosed.Cause != nil || ErrBootstrapClosed.Because(nil) != ErrBootstrapClosed {
		t.Fatal("because changed the shared sentinel or copied it for a nil cause")
	}
	if !strings.Contains(e.Error(), cause.Error()) {
		t.Fatalf("Error() = %q; want the cause in it", e.Error())
	}
	if errors.Is(errorf(403, "forbidden", "other"), errOperatorOnly) {
		t.Fatal("an answer with another message matches errOperatorOnly")
	}
}
