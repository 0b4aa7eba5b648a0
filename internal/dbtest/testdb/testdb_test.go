package testdb

import (
	"context"
	"strings"
	"testing"

	"github.com/uptrace/bun"
)

func TestEachIsolates(t *testing.T) {
	Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, "CREATE TABLE iso (n INTEGER)"); err != nil {
			t.Fatalf("create: %v (a fresh database must not have the table)", err)
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO iso VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM iso").Scan(&n); err != nil || n != 1 {
			t.Fatalf("count = %d, %v; want 1", n, err)
		}
	})
}

// TestSQLiteRepeatedSubtestNames: subtests of one name (the second and
// third are "same#01" and "same#02") get databases of their own.
func TestSQLiteRepeatedSubtestNames(t *testing.T) {
	var dbs []*bun.DB
	for range 3 {
		t.Run("same", func(t *testing.T) {
			db := SQLite(t)
			if _, err := db.Exec("CREATE TABLE only_once (id INTEGER)"); err != nil {
				t.Fatalf("second subtest shares the first one's database: %v", err)
			}
			dbs = append(dbs, db)
		})
	}
	if len(dbs) != 3 {
		t.Fatal("subtests did not run")
	}
}

// TestMySQL: MySQL opens a database of its own on the MariaDB server,
// whose session reads and writes times in UTC and text as utf8mb4.
func TestMySQL(t *testing.T) {
	db := MySQL(t)
	ctx := context.Background()
	var name, zone string
	if err := db.QueryRowContext(ctx, "SELECT DATABASE(), @@session.time_zone").Scan(&name, &zone); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "t_") || zone != "+00:00" {
		t.Fatalf("database %q, zone %q; want a t_ database of its own in UTC", name, zone)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE pets (id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50) NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO pets (name) VALUES (?)", "🐱 Bob"); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := db.QueryRowContext(ctx, "SELECT name FROM pets WHERE name = ?", "🐱 bob").Scan(&got); err != nil || got != "🐱 Bob" {
		t.Fatalf("read back %q, %v; want 🐱 Bob, found without regard to case", got, err)
	}
}
