package audit

import (
	"fmt"
	"testing"
	"time"
)

// TestFailureLogCollapses: anonymous failures from one address cost one
// row when the window opens and one collapsed row when it ends.
func TestFailureLogCollapses(t *testing.T) {
	t.Parallel()
	f := NewFailures()
	now := time.Unix(1e9, 0)
	f.now = func() time.Time { return now }
	if !f.First("auth.login_failed", "198.51.100.1", "a@example.com") {
		t.Fatal("first failure not audited on its own")
	}
	for i := range 500 {
		if f.First("auth.login_failed", "198.51.100.1", fmt.Sprintf("x%d@example.com", i)) {
			t.Fatalf("failure %d audited on its own; want collapsed", i+2)
		}
	}
	if !f.First("auth.password_reset_requested", "198.51.100.1", "a@example.com") || !f.First("auth.login_failed", "198.51.100.2", "") {
		t.Fatal("another action or address shares the window")
	}
	if got := f.take(false); len(got) != 0 {
		t.Fatalf("take before the window ended = %v", got)
	}
	now = now.Add(failureWindow)
	got := f.take(false)
	c := got[failureKey{action: "auth.login_failed", ip: "198.51.100.1"}]
	if len(got) != 3 || c == nil || c.n != 500 || len(c.emails) != failureEmailSamples {
		t.Fatalf("take = %v; want 3 windows, 500 collapsed with %d samples", got, failureEmailSamples)
	}
	if !f.First("auth.login_failed", "198.51.100.1", "") {
		t.Fatal("a new window does not open with a row")
	}
	// Past maxFailureKeys, new addresses share one key.
	for i := range maxFailureKeys + 10 {
		f.First("auth.login_failed", fmt.Sprintf("10.%d.%d.%d", i>>16, (i>>8)&255, i&255), "")
	}
	if n := len(f.take(true)); n > maxFailureKeys+1 {
		t.Fatalf("%d keys held; want at most %d", n, maxFailureKeys+1)
	}
}
