package query

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// The statement time limit on MySQL and MariaDB (Limited's variant; not
// yet used by the panel, which refuses the mysql dialect). The server
// ends the statement itself, as PostgreSQL's statement_timeout does: a
// context deadline would only make the Go driver drop the connection and
// leave the statement running in the server until it next writes to the
// socket.
//
// MariaDB bounds any statement with max_statement_time (seconds, to the
// microsecond) and ends it with error 1969 (SQLSTATE 70100, "Query
// execution was interrupted (max_statement_time exceeded)"). MySQL 8
// bounds only read-only SELECT statements, with max_execution_time
// (milliseconds) or the optimizer hint MAX_EXECUTION_TIME, and ends them
// with error 3024; MariaDB has neither (it ignores the hint as a
// comment). The MySQL 8 side is written from its reference manual and
// untested here.

// MySQLServer is which server answers on a mysql dialect's connection.
type MySQLServer int

// The servers.
const (
	MariaDB MySQLServer = iota + 1 // max_statement_time, error 1969
	MySQL8                         // max_execution_time, error 3024
)

// DetectMySQLServer asks the server which it is: MariaDB says so in its
// VERSION() ("10.11.6-MariaDB-…"), MySQL does not.
func DetectMySQLServer(ctx context.Context, db bun.IDB) (MySQLServer, error) {
	var v string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return 0, fmt.Errorf("query: server version: %w", err)
	}
	if strings.Contains(strings.ToLower(v), "mariadb") {
		return MariaDB, nil
	}
	return MySQL8, nil
}

// mysqlLimit is limit in the unit of server's variable: MariaDB's seconds
// (to the microsecond) or MySQL's milliseconds, at least a millisecond,
// since 0 would lift the limit.
func mysqlLimit(server MySQLServer, limit time.Duration) string {
	limit = max(limit, time.Millisecond)
	if server == MariaDB {
		return strconv.FormatFloat(limit.Seconds(), 'f', 6, 64)
	}
	return strconv.FormatInt(limit.Milliseconds(), 10)
}

// leadingSelect finds the SELECT a statement starts with (after spaces,
// and not a SELECT of a longer word).
var leadingSelect = regexp.MustCompile(`(?i)^\s*select\b`)

// errNotSelect: MySQL's hint bounds only a SELECT.
var errNotSelect = errors.New("query: MAX_EXECUTION_TIME bounds only a statement starting with SELECT")

// LimitStatement is text, one statement (a SELECT on MySQL 8), bounded
// by limit in the server without a session setting: on MariaDB `SET
// STATEMENT max_statement_time=<seconds> FOR <text>`, on MySQL 8 `SELECT
// /*+ MAX_EXECUTION_TIME(<ms>) */ …`. A limit of 0 or less answers text
// as it is. Its time-out error is read by IsQueryCanceled (and Limited's
// callers' ErrTimeout) as on the other databases. The text stays one
// statement, so it is prepared and given arguments as the plain one.
func LimitStatement(server MySQLServer, limit time.Duration, text string) (string, error) {
	if limit <= 0 {
		return text, nil
	}
	switch server {
	case MariaDB:
		return "SET STATEMENT max_statement_time=" + mysqlLimit(server, limit) + " FOR " + text, nil
	case MySQL8:
		loc := leadingSelect.FindStringIndex(text)
		if loc == nil {
			return "", errNotSelect
		}
		return text[:loc[1]] + " /*+ MAX_EXECUTION_TIME(" + mysqlLimit(server, limit) + ") */" + text[loc[1]:], nil
	}
	return "", fmt.Errorf("query: unknown MySQL server %d", server)
}

// LimitedMySQL is Limited on MySQL or MariaDB: fn's statements are ended
// by the server after limit (0 or less: no limit), and the error answered
// then wraps ErrTimeout. fn runs in a transaction (the tx it is given, so
// its statements read one snapshot, as on PostgreSQL) whose connection's
// session variable (MariaDB's max_statement_time; MySQL's
// max_execution_time, which bounds its SELECTs only) is set to limit and
// set back to what it was afterwards, even when fn failed or ctx ended: a
// session setting outlives a transaction (unlike PostgreSQL's SET LOCAL),
// and the connection goes back to the pool. When it cannot be set back,
// the connection is broken and the driver does not pool it again. fn
// reads its rows before it returns.
func LimitedMySQL(ctx context.Context, db bun.IDB, server MySQLServer, limit time.Duration, fn func(context.Context, bun.IDB) error) error {
	if limit <= 0 {
		return fn(ctx, db)
	}
	variable := "max_statement_time"
	if server == MySQL8 {
		variable = "max_execution_time"
	} else if server != MariaDB {
		return fmt.Errorf("query: unknown MySQL server %d", server)
	}
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// The user variable keeps the session's own value (the server's
		// default, or what the game's DSN set) to put back.
		set := fmt.Sprintf("SET @gameadmin_limit = @@SESSION.%s, SESSION %s = %s", variable, variable, mysqlLimit(server, limit))
		if _, err := tx.ExecContext(ctx, set); err != nil {
			return err
		}
		ferr := fn(ctx, tx)
		reset := fmt.Sprintf("SET SESSION %s = @gameadmin_limit", variable)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := tx.ExecContext(rctx, reset); err != nil && ferr == nil {
			return err
		}
		return ferr
	})
	if err != nil && IsQueryCanceled(err) && ctx.Err() == nil {
		return fmt.Errorf("%w (%s): %w", ErrTimeout, limit, err)
	}
	return err
}
