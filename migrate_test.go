package admin

import (
	"context"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

// TestMigrateAppliesGaps: a step missing below the newest recorded one (two
// branches that each added a version, merged in either order) still runs.
func TestMigrateAppliesGaps(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if err := migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"DROP TABLE game_operator_totp",
			"DELETE FROM game_admin_schema WHERE version = 3",
			"INSERT INTO game_admin_schema (version, name) VALUES (99, 'from another branch')",
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		if _, err := db.NewSelect().Model((*operatorTOTP)(nil)).Exists(ctx); err != nil {
			t.Fatalf("migration 3 not applied below a recorded 99: %v", err)
		}
	})
}
