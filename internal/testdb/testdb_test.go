package testdb

import (
	"context"
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
