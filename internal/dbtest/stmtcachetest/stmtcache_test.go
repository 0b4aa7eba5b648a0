// Package stmtcachetest tests internal/stmtcache on real SQLite and
// PostgreSQL.
package stmtcachetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/stmtcache"
)

// count runs text through c and returns its one integer, and whether the
// plain function ran it.
func count(t *testing.T, c *stmtcache.Cache, db *bun.DB, text string) (n int64, plain bool) {
	t.Helper()
	ctx := context.Background()
	rs, err := c.Query(ctx, text, func() (*sql.Rows, error) {
		plain = true
		return db.QueryContext(ctx, text)
	})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	defer rs.Close()
	if !rs.Next() {
		t.Fatalf("%s: no row (%v)", text, rs.Err())
	}
	if err := rs.Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n, plain
}

// TestRepeatedTextsArePrepared: a text runs plainly the first time and
// prepared from the second on, with the same answers; at most size
// statements are kept, the least recent closed first; Close ends the
// preparing.
func TestRepeatedTextsArePrepared(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		c := stmtcache.New(db.DB, 2)
		q := func(i int) string { return fmt.Sprintf("SELECT %d + 1", i) }
		if n, plain := count(t, c, db, q(1)); n != 2 || !plain || c.Prepared() != 0 {
			t.Fatalf("first run: %d, plain %v, %d prepared; want 2, plain, none", n, plain, c.Prepared())
		}
		for range 3 {
			if n, plain := count(t, c, db, q(1)); n != 2 || plain || c.Prepared() != 1 {
				t.Fatalf("again: %d, plain %v, %d prepared; want 2 through one prepared statement", n, plain, c.Prepared())
			}
		}
		for i := 2; i <= 6; i++ {
			for range 2 {
				if n, _ := count(t, c, db, q(i)); n != int64(i+1) {
					t.Fatalf("%s = %d", q(i), n)
				}
			}
			if c.Prepared() > 2 {
				t.Fatalf("%d statements prepared; the cache holds 2", c.Prepared())
			}
		}
		// The most recent two are kept; the first was closed.
		if _, plain := count(t, c, db, q(6)); plain {
			t.Fatal("the most recent text is not prepared")
		}
		if _, plain := count(t, c, db, q(1)); !plain {
			t.Fatal("the least recent text is still prepared")
		}
		c.Close()
		for range 2 {
			if n, plain := count(t, c, db, q(6)); n != 7 || !plain {
				t.Fatalf("after Close: %d, plain %v; want 7, plain", n, plain)
			}
		}
		if c.Prepared() != 0 {
			t.Fatalf("%d prepared after Close", c.Prepared())
		}
	})
}

// TestFailingStatementsFallBack: a prepared statement the server no
// longer has (as behind a pooler that does not keep them) is dropped and
// the text answered plainly, with the right answer; after MaxFailures
// such failures the cache says so once and stops preparing.
func TestFailingStatementsFallBack(t *testing.T) {
	db := testdb.PG(t)
	db.SetMaxOpenConns(1) // DEALLOCATE ALL reaches the statement's connection
	ctx := context.Background()
	var gaveUp []error
	c := stmtcache.New(db.DB, 4)
	c.OnGiveUp = func(err error) { gaveUp = append(gaveUp, err) }
	const text = "SELECT 40 + 2"
	for i := 1; i <= stmtcache.MaxFailures; i++ {
		count(t, c, db, text) // seen
		if _, plain := count(t, c, db, text); plain {
			t.Fatalf("round %d: not prepared", i)
		}
		if _, err := db.ExecContext(ctx, "DEALLOCATE ALL"); err != nil {
			t.Fatal(err)
		}
		n, plain := count(t, c, db, text)
		if n != 42 || !plain {
			t.Fatalf("round %d: %d, plain %v; want 42 answered plainly", i, n, plain)
		}
		if want := i / stmtcache.MaxFailures; len(gaveUp) != want {
			t.Fatalf("round %d: gave up %d times; want %d", i, len(gaveUp), want)
		}
	}
	for range 3 {
		if n, plain := count(t, c, db, text); n != 42 || !plain {
			t.Fatalf("after giving up: %d, plain %v; want 42, plain", n, plain)
		}
	}
	if c.Prepared() != 0 || len(gaveUp) != 1 {
		t.Fatalf("%d prepared, gave up %d times; want none, once", c.Prepared(), len(gaveUp))
	}
}

// TestConcurrentQueries: goroutines sharing a cache smaller than their
// texts each get their own text's answer (run with -race); a statement
// the cache closed under a goroutine about to run it is not a failure of
// the database's, and the cache keeps preparing.
func TestConcurrentQueries(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		c := stmtcache.New(db.DB, 2)
		defer c.Close()
		var gaveUp atomic.Bool
		c.OnGiveUp = func(error) { gaveUp.Store(true) }
		ctx := context.Background()
		errs := make(chan error, 8)
		for g := range 8 {
			go func() {
				for i := range 100 {
					k := (g + i) % 5
					text := fmt.Sprintf("SELECT %d * 10", k)
					rs, err := c.Query(ctx, text, func() (*sql.Rows, error) { return db.QueryContext(ctx, text) })
					if err != nil {
						errs <- err
						return
					}
					var n int
					rs.Next()
					err = rs.Scan(&n)
					rs.Close()
					if err != nil || n != k*10 {
						errs <- fmt.Errorf("%s = %d (%v)", text, n, err)
						return
					}
				}
				errs <- nil
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if gaveUp.Load() || c.Prepared() == 0 {
			t.Fatalf("gave up %v, %d prepared; want still preparing", gaveUp.Load(), c.Prepared())
		}
	})
}

// TestQueryTx: inside a transaction a repeated text, warmed before it
// began, runs prepared on the transaction's connection (the pool has one
// connection: a text prepared inside would wait for it forever); a prepared statement the server lost fails
// with ErrRetry (the transaction cannot run the plain text after it) and
// the next transaction answers plainly; a failure Final calls the
// statement's own (a statement_timeout) is returned as it is, and the
// text stays prepared.
func TestQueryTx(t *testing.T) {
	db := testdb.PG(t)
	db.SetMaxOpenConns(1) // DEALLOCATE ALL reaches the statement's connection
	ctx := context.Background()
	c := stmtcache.New(db.DB, 4)
	defer c.Close()
	c.Final = func(err error) bool { return strings.Contains(err.Error(), "57014") }
	inTx := func(text, setup string) (n int64, plain bool, err error) {
		c.Warm(ctx, text)
		err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if setup != "" {
				if _, err := tx.ExecContext(ctx, setup); err != nil {
					return err
				}
			}
			rs, err := c.QueryTx(ctx, tx.Tx, text, func() (*sql.Rows, error) {
				plain = true
				return tx.QueryContext(ctx, text)
			})
			if err != nil {
				return err
			}
			defer rs.Close()
			if !rs.Next() {
				return fmt.Errorf("no row: %v", rs.Err())
			}
			return rs.Scan(&n)
		})
		return n, plain, err
	}
	const text = "SELECT 40 + 2"
	for i, wantPlain := range []bool{true, false, false} {
		if n, plain, err := inTx(text, ""); err != nil || n != 42 || plain != wantPlain {
			t.Fatalf("run %d: %d, plain %v, %v; want 42, plain %v", i, n, plain, err, wantPlain)
		}
	}
	if _, err := db.ExecContext(ctx, "DEALLOCATE ALL"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := inTx(text, ""); !errors.Is(err, stmtcache.ErrRetry) {
		t.Fatalf("a lost statement in a transaction: %v; want ErrRetry", err)
	}
	if n, plain, err := inTx(text, ""); err != nil || n != 42 || !plain {
		t.Fatalf("the run after ErrRetry: %d, plain %v, %v; want 42, plain", n, plain, err)
	}

	const slow = "SELECT count(*) FROM pg_sleep(0.5)"
	for range 2 {
		if _, _, err := inTx(slow, ""); err != nil {
			t.Fatal(err)
		}
	}
	before := c.Prepared()
	_, plain, err := inTx(slow, "SET LOCAL statement_timeout = 50")
	if err == nil || errors.Is(err, stmtcache.ErrRetry) || plain || !strings.Contains(err.Error(), "57014") {
		t.Fatalf("a prepared statement past its statement_timeout: plain %v, %v; want its 57014 as it is", plain, err)
	}
	if c.Prepared() != before {
		t.Fatalf("%d prepared after the timeout; want %d: a time limit is not the statement's fault", c.Prepared(), before)
	}
}

// TestSerializeWrites: with SerializeWrites, a RunInTx waits until the
// one running has ended, and one whose context ends while it waits gives
// up without running. (On PostgreSQL the transactions would otherwise run
// side by side; the SQLite test pool has one connection either way.)
func TestSerializeWrites(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		c := stmtcache.New(db.DB, 4)
		c.SerializeWrites()
		ctx := context.Background()
		entered, release := make(chan struct{}), make(chan struct{})
		first, second := make(chan error, 1), make(chan error, 1)
		go func() {
			first <- c.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
				close(entered)
				<-release
				return nil
			})
		}()
		<-entered
		var ran atomic.Bool
		go func() {
			second <- c.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
				ran.Store(true)
				return nil
			})
		}()
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		err := c.RunInTx(short, db, func(ctx context.Context, tx bun.Tx) error {
			t.Error("a transaction ran while another held its turn")
			return nil
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a wait past its context = %v, want context.DeadlineExceeded", err)
		}
		if ran.Load() {
			t.Fatal("the second transaction ran while the first held its turn")
		}
		close(release)
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		if err := <-second; err != nil || !ran.Load() {
			t.Fatalf("the second transaction after the first: ran %v, %v", ran.Load(), err)
		}
	})
}
