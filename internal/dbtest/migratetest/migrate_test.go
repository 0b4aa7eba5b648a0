package migratetest

import (
	"context"
	"slices"
	"strings"
	"testing"

	. "github.com/gameadmin/admin/internal/migrate"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
)

type player struct{}
type note struct{}
type item struct{}

// testSchema: players (created by an old release's step 1, with a later
// alter), notes referring to players, items only when asked for.
func testSchema() *Schema {
	return &Schema{
		Tables: []*Table{
			{Key: "users", Base: "users", Model: (*player)(nil), Version: 10, Cols: []Col{
				{Name: "id", Type: Text},
				{Name: "email", Type: Text, NotNull: true},
				{Name: "created_at", Type: Time, NotNull: true, Default: Now},
			}, PK: []string{"id"}, SQLIndexes: []string{`CREATE INDEX IF NOT EXISTS "{prefix}users_lower_email_idx" ON {table:users} (lower("email"))`},
				SQLIndexesFor: map[dialect.Name][]string{dialect.MySQL: nil}}, // MariaDB indexes no lower(), as the built-in users table
			{Key: "notes", Base: "notes", Model: (*note)(nil), Version: 11, Cols: []Col{
				{Name: "id", Type: Serial},
				{Name: "user_id", Type: UserID, NotNull: true},
				{Name: "body", Type: JSON},
			}, FKs: []FK{{Col: "user_id", Target: "users", OnDelete: "CASCADE"}}, Indexes: [][]string{{"user_id"}}},
			{Key: "items", Base: "items", Model: (*item)(nil), Version: 12, Cols: []Col{
				{Name: "id", Type: Serial},
				{Name: "done", Type: Bool, NotNull: true, Default: "FALSE"},
			}},
		},
		Alters: []Alter{{Version: 13, Name: "index lower(email)", Base: "users",
			SQL: `CREATE INDEX IF NOT EXISTS "{prefix}users_lower_email_idx" ON {table:users} (lower("email"))`, SQLFor: map[dialect.Name]string{dialect.MySQL: ""}}},
		Legacy: map[int][]int{1: {10, 11}},
	}
}

func plan(t *testing.T, db *bun.DB, want ...string) *Plan {
	t.Helper()
	p, err := NewPlan(testSchema(), db.Dialect().Name(), "t_", Users{Name: "t_users", ID: "id"},
		func(tb *Table) bool { return tb.Key == "users" || slices.Contains(want, tb.Key) })
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func recorded(t *testing.T, db *bun.DB) []int {
	t.Helper()
	var v []int
	if err := db.NewSelect().TableExpr("t_admin_schema").Column("version").Order("version").Scan(context.Background(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMigrateCreatesRecordsAndIsIdempotent(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		p := plan(t, db, "notes")
		if err := p.Verify(ctx, db); err == nil || !strings.Contains(err.Error(), "cannot be read") {
			t.Fatalf("Verify before Migrate = %v", err)
		}
		for range 2 {
			if err := p.Migrate(ctx, db); err != nil {
				t.Fatal(err)
			}
		}
		// Creating users covers the alter: recorded, not run twice.
		if got := recorded(t, db); !slices.Equal(got, []int{10, 11, 13}) {
			t.Fatalf("recorded %v; want [10 11 13]", got)
		}
		if err := p.Verify(ctx, db); err != nil {
			t.Fatal(err)
		}
		// The foreign key and the defaults are real.
		if _, err := db.ExecContext(ctx, `INSERT INTO t_users (id, email) VALUES ('u1', 'a@x')`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO t_notes (user_id) VALUES ('u1')`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO t_notes (user_id) VALUES ('nobody')`); err == nil && db.Dialect().Name() == dialect.PG {
			t.Fatal("a note for a missing user was stored")
		}
		// items was not asked for.
		if _, err := db.ExecContext(ctx, `SELECT 1 FROM t_items`); err == nil {
			t.Fatal("t_items exists although not needed")
		}
	})
}

func TestLegacyStepsAndGaps(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		p := plan(t, db, "notes", "items")
		if err := p.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		// An earlier release recorded step 1 for users and notes; items is
		// missing below a newer recorded step.
		for _, q := range []string{"DROP TABLE t_items", "DELETE FROM t_admin_schema", "INSERT INTO t_admin_schema (version, name) VALUES (1, 'old'), (13, 'alter')"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		err := p.Verify(ctx, db)
		if err == nil || !strings.Contains(err.Error(), "step 12 (create t_items)") || !strings.Contains(err.Error(), "table t_items") || strings.Contains(err.Error(), "step 10") {
			t.Fatalf("Verify = %v; want step 12 and table t_items missing, step 10 covered by legacy step 1", err)
		}
		if err := p.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `SELECT 1 FROM t_items`); err != nil {
			t.Fatalf("step 12 not applied below a recorded 13: %v", err)
		}
	})
}
