// Package testdb opens real databases for tests: a fresh SQLite file and a
// fresh PostgreSQL schema per test, so tests never see each other's rows and
// can run in parallel.
//
// PostgreSQL is found through ADMIN_PG_DSN (default
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable). When it cannot be
// reached the PostgreSQL subtests are skipped with a note, unless
// ADMIN_REQUIRE_PG=1, which makes them fail: CI sets it.
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	_ "modernc.org/sqlite"
)

// DefaultPGDSN is used when ADMIN_PG_DSN is unset.
const DefaultPGDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// PGDSN returns the PostgreSQL DSN tests use.
func PGDSN() string {
	if dsn := os.Getenv("ADMIN_PG_DSN"); dsn != "" {
		return dsn
	}
	return DefaultPGDSN
}

var (
	pgOnce sync.Once
	pgErr  error
)

func pgReachable() error {
	pgOnce.Do(func() {
		db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(PGDSN()), pgdriver.WithTimeout(3*time.Second)))
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		pgErr = db.PingContext(ctx)
	})
	return pgErr
}

// Each runs fn as a subtest per database: "sqlite", "pg" and "mysql".
func Each(t *testing.T, fn func(t *testing.T, db *bun.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("pg", func(t *testing.T) { fn(t, PG(t)) })
	t.Run("mysql", func(t *testing.T) { fn(t, MySQL(t)) })
}

// EachParallel is Each with the subtests run in parallel, for a test
// that spends its time waiting (a clock, a rate limit) rather than working.
func EachParallel(t *testing.T, fn func(t *testing.T, db *bun.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); fn(t, SQLite(t)) })
	t.Run("pg", func(t *testing.T) { t.Parallel(); fn(t, PG(t)) })
	t.Run("mysql", func(t *testing.T) { t.Parallel(); fn(t, MySQL(t)) })
}

// SQLite opens a new database file in t.TempDir, closed when t ends.
func SQLite(t testing.TB) *bun.DB {
	t.Helper()
	// t.TempDir keeps '#' of a repeated subtest's name ("x#01"): escaped,
	// else it would end the file name and two subtests share a database.
	path := strings.NewReplacer("%", "%25", "#", "%23", "?", "%3F").Replace(filepath.Join(t.TempDir(), "test.db"))
	dsn := "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)&_pragma=foreign_keys(1)"
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	// One connection: SQLite has one writer, and a second connection would
	// only wait on the first's lock.
	sqldb.SetMaxOpenConns(1)
	db := bun.NewDB(sqldb, sqlitedialect.New())
	t.Cleanup(func() { db.Close() })
	return db
}

// PG opens a connection pool whose search_path is a new schema, dropped when
// t ends. It skips t when PostgreSQL is unreachable, or fails it when
// ADMIN_REQUIRE_PG=1. The pool's driver is Bun's pgdriver, or pgx's
// database/sql driver when ADMIN_PG_DRIVER=pgx (see Driver).
func PG(t testing.TB) *bun.DB {
	t.Helper()
	return pgIn(t, nil, "")
}

// PGNamed is PG with the pool's connections named appName in
// pg_stat_activity (application_name), so a fault test can find and
// terminate its own backends without touching other tests'.
func PGNamed(t testing.TB, appName string) *bun.DB {
	t.Helper()
	return pgIn(t, nil, appName)
}

// PGSearching is PG with more schemas on the search_path after the new
// one, e.g. "public" where an extension such as citext is installed.
func PGSearching(t testing.TB, schemas ...string) *bun.DB {
	t.Helper()
	return pgIn(t, schemas, "")
}

// Driver is the PostgreSQL driver PG opens: "pgdriver" (Bun's), or "pgx"
// when ADMIN_PG_DRIVER=pgx, which a game on pgx/v5's stdlib runs the
// panel through.
func Driver() string {
	if os.Getenv("ADMIN_PG_DRIVER") == "pgx" {
		return "pgx"
	}
	return "pgdriver"
}

func pgIn(t testing.TB, more []string, appName string) *bun.DB {
	t.Helper()
	if err := pgReachable(); err != nil {
		if os.Getenv("ADMIN_REQUIRE_PG") == "1" {
			t.Fatalf("PostgreSQL unreachable at %s and ADMIN_REQUIRE_PG=1: %v", PGDSN(), err)
		}
		t.Skipf("PostgreSQL unreachable at %s (set ADMIN_REQUIRE_PG=1 to fail instead): %v", PGDSN(), err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	ctx := context.Background()

	root := bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(PGDSN()))), pgdialect.New())
	if _, err := root.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		root.Close()
		t.Fatal(err)
	}
	// A test's data need not survive a crash: not waiting for the WAL
	// flush at each commit spares the machine most of the tests' I/O.
	params := map[string]string{"search_path": strings.Join(append([]string{schema}, more...), ", "), "synchronous_commit": "off"}
	if appName != "" {
		params["application_name"] = appName
	}
	sqldb, err := openPG(params)
	if err != nil {
		root.Close()
		t.Fatal(err)
	}
	sqldb.SetMaxOpenConns(8)
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() {
		db.Close()
		if _, err := root.ExecContext(ctx, fmt.Sprintf("DROP SCHEMA %s CASCADE", schema)); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		root.Close()
	})
	return db
}

// openPG opens a pool through Driver whose sessions start with params.
func openPG(params map[string]string) (*sql.DB, error) {
	if Driver() == "pgx" {
		cfg, err := pgx.ParseConfig(PGDSN())
		if err != nil {
			return nil, err
		}
		maps.Copy(cfg.RuntimeParams, params)
		return stdlib.OpenDB(*cfg), nil
	}
	opts := []pgdriver.Option{pgdriver.WithDSN(PGDSN())}
	if name := params["application_name"]; name != "" {
		opts = append(opts, pgdriver.WithApplicationName(name))
	}
	var connector driver.Connector
	if path := params["search_path"]; strings.Contains(path, ",") {
		// pgdriver sets a parameter as one quoted value: a list needs SET.
		connector = setConnector{pgdriver.NewConnector(append(opts, pgdriver.WithConnParams(map[string]any{"synchronous_commit": "off"}))...), "SET search_path TO " + path}
	} else {
		connector = pgdriver.NewConnector(append(opts, pgdriver.WithConnParams(map[string]any{"search_path": path, "synchronous_commit": "off"}))...)
	}
	return sql.OpenDB(connector), nil
}

// setConnector runs a statement on each new connection.
type setConnector struct {
	driver.Connector
	stmt string
}

func (c setConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := cn.(driver.ExecerContext).ExecContext(ctx, c.stmt, nil); err != nil {
		cn.Close()
		return nil, err
	}
	return cn, nil
}
