package query

import (
	"testing"
	"time"
)

// TestLimitStatement: the limit goes into the statement in the server's
// unit, never as 0 (no limit) for a limit under its resolution, and
// MySQL's hint only after a leading SELECT.
func TestLimitStatement(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		server MySQLServer
		limit  time.Duration
		text   string
		want   string
	}{
		{MariaDB, 200 * time.Millisecond, "SELECT 1", "SET STATEMENT max_statement_time=0.200000 FOR SELECT 1"},
		{MariaDB, 1500 * time.Microsecond, "SELECT 1", "SET STATEMENT max_statement_time=0.001500 FOR SELECT 1"},
		{MariaDB, time.Nanosecond, "SELECT 1", "SET STATEMENT max_statement_time=0.001000 FOR SELECT 1"},
		{MariaDB, 0, "SELECT 1", "SELECT 1"},
		{MySQL8, 2 * time.Second, "  select `a` FROM t", "  select /*+ MAX_EXECUTION_TIME(2000) */ `a` FROM t"},
		{MySQL8, time.Microsecond, "SELECT 1", "SELECT /*+ MAX_EXECUTION_TIME(1) */ 1"},
		{MySQL8, -time.Second, "UPDATE t SET a = 1", "UPDATE t SET a = 1"},
	} {
		got, err := LimitStatement(tt.server, tt.limit, tt.text)
		if err != nil || got != tt.want {
			t.Errorf("LimitStatement(%d, %s, %q) = %q, %v; want %q", tt.server, tt.limit, tt.text, got, err, tt.want)
		}
	}
	for _, text := range []string{"UPDATE t SET a = 1", "SELECTED", "WITH x AS (SELECT 1) SELECT * FROM x"} {
		if got, err := LimitStatement(MySQL8, time.Second, text); err == nil {
			t.Errorf("LimitStatement(MySQL8, %q) = %q; want an error: the hint bounds a SELECT only", text, got)
		}
	}
	if _, err := LimitStatement(0, time.Second, "SELECT 1"); err == nil {
		t.Error("LimitStatement of an unknown server: want an error")
	}
}
