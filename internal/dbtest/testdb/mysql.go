package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
)

// MySQLDSN is the MariaDB (or MySQL) server the tests use, in the Go
// driver's form: ADMIN_MYSQL_DSN, else root without a password at
// 127.0.0.1:3306. Its database part is ignored: each test gets its own.
func MySQLDSN() string {
	if dsn := os.Getenv("ADMIN_MYSQL_DSN"); dsn != "" {
		return dsn
	}
	return "root@tcp(127.0.0.1:3306)/"
}

var (
	mysqlOnce sync.Once
	mysqlErr  error
)

// mysqlReachable pings the server once per process.
func mysqlReachable() error {
	mysqlOnce.Do(func() {
		cfg, err := mysql.ParseDSN(MySQLDSN())
		if err != nil {
			mysqlErr = err
			return
		}
		cfg.DBName = ""
		cfg.Timeout = 2 * time.Second
		db := sql.OpenDB(must(mysql.NewConnector(cfg)))
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		mysqlErr = db.PingContext(ctx)
	})
	return mysqlErr
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// MySQL opens a connection pool on a new database of the MariaDB (or
// MySQL) server at MySQLDSN, dropped when t ends, as a game's pool would
// be opened (parseTime, UTC, utf8mb4). It skips t when the server is
// unreachable, or fails it when ADMIN_REQUIRE_MYSQL=1.
func MySQL(t testing.TB) *bun.DB {
	t.Helper()
	if err := mysqlReachable(); err != nil {
		if os.Getenv("ADMIN_REQUIRE_MYSQL") == "1" {
			t.Fatalf("MariaDB unreachable at %s and ADMIN_REQUIRE_MYSQL=1: %v", MySQLDSN(), err)
		}
		t.Skipf("MariaDB unreachable at %s (set ADMIN_REQUIRE_MYSQL=1 to fail instead): %v", MySQLDSN(), err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	ctx := context.Background()

	cfg := must(mysql.ParseDSN(MySQLDSN()))
	cfg.DBName = ""
	root := sql.OpenDB(must(mysql.NewConnector(cfg)))
	if _, err := root.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		root.Close()
		t.Fatal(err)
	}
	cfg = must(mysql.ParseDSN(MySQLDSN()))
	cfg.DBName = name
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Collation = "utf8mb4_unicode_ci"
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	// The session's zone is UTC, as the game's loc=UTC says, so a
	// TIMESTAMP column reads back the instant written.
	cfg.Params["time_zone"] = "'+00:00'"
	sqldb := sql.OpenDB(must(mysql.NewConnector(cfg)))
	sqldb.SetMaxOpenConns(8)
	db := bun.NewDB(sqldb, mysqldialect.New())
	if os.Getenv("ADMIN_SQL_DEBUG") == "1" {
		db = db.WithQueryHook(failedQueries{t})
	}
	t.Cleanup(func() {
		db.Close()
		if _, err := root.ExecContext(ctx, fmt.Sprintf("DROP DATABASE %s", name)); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		root.Close()
	})
	return db
}

// failedQueries logs each statement the database refused, when
// ADMIN_SQL_DEBUG=1: a test's error names the refusal, this the statement.
type failedQueries struct{ t testing.TB }

func (failedQueries) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h failedQueries) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if e.Err != nil && e.Err != sql.ErrNoRows {
		h.t.Logf("refused: %v\n\t%s", e.Err, e.Query)
	}
}
