package mysqltest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/dberr"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
)

// TestMySQLLimited: under a 200 ms limit, MariaDB ends a two-second
// statement itself, well before it would have finished, and the error
// wraps query.ErrTimeout; a fast statement answers as without a limit;
// the connection goes back to the pool usable and with the session's own
// limit set back.
func TestMySQLLimited(t *testing.T) {
	db := testdb.MySQL(t)
	ctx := context.Background()
	// One connection, so each statement below runs on the one the limit
	// was set on.
	db.SetMaxOpenConns(1)
	server, err := query.DetectMySQLServer(ctx, db)
	if err != nil || server != query.MariaDB {
		t.Fatalf("DetectMySQLServer = %d, %v; want MariaDB", server, err)
	}
	// The game's session has a limit of its own: it must survive.
	if _, err := db.ExecContext(ctx, "SET SESSION max_statement_time = 30"); err != nil {
		t.Fatal(err)
	}
	sessionLimit := func() float64 {
		t.Helper()
		var v float64
		if err := db.QueryRowContext(ctx, "SELECT @@SESSION.max_statement_time").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}

	start := time.Now()
	var slept int
	err = query.LimitedMySQL(ctx, db, server, 200*time.Millisecond, func(ctx context.Context, db bun.IDB) error {
		return db.QueryRowContext(ctx, "SELECT SLEEP(2)").Scan(&slept)
	})
	took := time.Since(start)
	if !errors.Is(err, query.ErrTimeout) || !query.IsQueryCanceled(err) {
		t.Fatalf("SLEEP(2) under 200ms: %v (slept %d); want ErrTimeout", err, slept)
	}
	if n, _ := dberr.MySQLNumber(err); n != 1969 {
		t.Errorf("error number %d; want 1969 (max_statement_time exceeded): %v", n, err)
	}
	if took > 1500*time.Millisecond {
		t.Errorf("the limited statement took %s; the server should have ended it at 200ms", took)
	}
	if got := sessionLimit(); got != 30 {
		t.Errorf("after a timeout, max_statement_time is %v; want the session's 30 back", got)
	}

	// A heavy statement, not a sleep, is ended too.
	err = query.LimitedMySQL(ctx, db, server, 200*time.Millisecond, func(ctx context.Context, db bun.IDB) error {
		var n int64
		return db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.COLUMNS a, information_schema.COLUMNS b, information_schema.COLUMNS c`).Scan(&n)
	})
	if !errors.Is(err, query.ErrTimeout) {
		t.Errorf("cross join under 200ms: %v; want ErrTimeout", err)
	}

	// A fast read answers normally, its rows read inside fn, each of its
	// statements under the limit.
	var sum, limit float64
	err = query.LimitedMySQL(ctx, db, server, 200*time.Millisecond, func(ctx context.Context, db bun.IDB) error {
		if err := db.QueryRowContext(ctx, "SELECT @@SESSION.max_statement_time").Scan(&limit); err != nil {
			return err
		}
		return db.QueryRowContext(ctx, "SELECT ? + 1", 41).Scan(&sum)
	})
	if err != nil || sum != 42 || limit != 0.2 {
		t.Fatalf("fast read: %v, %v (limit in fn %v); want 42 under 0.2s", sum, err, limit)
	}
	if got := sessionLimit(); got != 30 {
		t.Errorf("after a read, max_statement_time is %v; want 30", got)
	}

	// fn's own error is answered as it is, not as a timeout.
	mine := errors.New("mine")
	if err := query.LimitedMySQL(ctx, db, server, time.Second, func(context.Context, bun.IDB) error { return mine }); !errors.Is(err, mine) || errors.Is(err, query.ErrTimeout) {
		t.Errorf("fn's error: %v", err)
	}
	// No limit: fn runs on db as it is.
	if err := query.LimitedMySQL(ctx, db, server, 0, func(ctx context.Context, idb bun.IDB) error {
		if idb != bun.IDB(db) {
			t.Error("no limit: fn got another handle than db")
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
	// The caller's own cancel is not a timeout.
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	err = query.LimitedMySQL(cctx, db, server, 5*time.Second, func(ctx context.Context, db bun.IDB) error {
		var n int
		return db.QueryRowContext(ctx, "SELECT SLEEP(1)").Scan(&n)
	})
	if err == nil || errors.Is(err, query.ErrTimeout) {
		t.Errorf("caller's cancel: %v; want its error, not ErrTimeout", err)
	}
	// The pool still answers (the canceled connection was dropped, not
	// pooled with the limit on).
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after the limits: %d, %v", one, err)
	}
	var limitNow float64
	if err := db.QueryRowContext(ctx, "SELECT @@SESSION.max_statement_time").Scan(&limitNow); err != nil || (limitNow != 0 && limitNow != 30) {
		t.Errorf("a pooled connection has max_statement_time %v (%v); want a fresh 0 or the session's 30", limitNow, err)
	}
}

// TestMySQLLimitStatement: the one-statement form, prepared with its
// arguments (the driver prepares it in the server), ends a slow SELECT
// with the same error and lets a fast one answer, without a session
// setting.
func TestMySQLLimitStatement(t *testing.T) {
	db := testdb.MySQL(t)
	ctx := context.Background()
	slow, err := query.LimitStatement(query.MariaDB, 200*time.Millisecond, "SELECT SLEEP(?)")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var n int
	err = db.QueryRowContext(ctx, slow, 2).Scan(&n)
	if !query.IsQueryCanceled(err) || time.Since(start) > 1500*time.Millisecond {
		t.Fatalf("%s: %v (%d) after %s; want the server's time-out at 200ms", slow, err, n, time.Since(start))
	}
	fast, err := query.LimitStatement(query.MariaDB, 200*time.Millisecond, "SELECT ? + 1 AS n")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, fast, 41).Scan(&n); err != nil || n != 42 {
		t.Fatalf("%s: %d, %v; want 42", fast, n, err)
	}
	// Prepared in the server (as the statement cache prepares a text
	// that repeats), its argument sent apart.
	stmt, err := db.DB.PrepareContext(ctx, slow)
	if err != nil {
		t.Fatalf("prepare %s: %v", slow, err)
	}
	defer stmt.Close()
	start = time.Now()
	if err := stmt.QueryRowContext(ctx, 2).Scan(&n); !query.IsQueryCanceled(err) || time.Since(start) > 1500*time.Millisecond {
		t.Fatalf("prepared %s: %v (%d) after %s; want the server's time-out", slow, err, n, time.Since(start))
	}
	if err := stmt.QueryRowContext(ctx, 0).Scan(&n); err != nil || n != 0 {
		t.Fatalf("prepared %s, SLEEP(0): %d, %v", slow, n, err)
	}
	// And through Bun's own query with its arguments.
	var rows []struct{ N int }
	if err := db.NewRaw(fast, 1).Scan(ctx, &rows); err != nil || len(rows) != 1 || rows[0].N != 2 {
		t.Fatalf("bun: %v, %v", rows, err)
	}
}
