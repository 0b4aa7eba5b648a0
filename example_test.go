package admin_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/gameadmin/admin"
)

// A game that runs its own migrations takes the panel's tables as SQL and
// sets Migrations to MigrateOff; New then checks every step is recorded.
// The runnable examples that open a database (mounting the panel, bans,
// the audit, TOTP, invites) are in internal/dbtest/admintest, so that this
// module requires no SQL driver.
func ExampleMigrationSQL() {
	stmts, err := admin.MigrationSQL("pg", admin.Options{TablePrefix: "ops_"})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range stmts {
		if first, _, _ := strings.Cut(s, " ("); strings.HasPrefix(first, "CREATE TABLE") {
			fmt.Println(first)
		}
	}
	// Output:
	// CREATE TABLE IF NOT EXISTS "ops_admin_schema"
	// CREATE TABLE IF NOT EXISTS "ops_users"
	// CREATE TABLE IF NOT EXISTS "ops_configs"
	// CREATE TABLE IF NOT EXISTS "ops_leaderboards"
	// CREATE TABLE IF NOT EXISTS "ops_analytics_events"
	// CREATE TABLE IF NOT EXISTS "ops_cloud_saves"
	// CREATE TABLE IF NOT EXISTS "ops_leaderboard_entries"
	// CREATE TABLE IF NOT EXISTS "ops_roles"
	// CREATE TABLE IF NOT EXISTS "ops_user_notes"
	// CREATE TABLE IF NOT EXISTS "ops_admin_audit"
	// CREATE TABLE IF NOT EXISTS "ops_operator_totp"
	// CREATE TABLE IF NOT EXISTS "ops_operator_recovery_codes"
	// CREATE TABLE IF NOT EXISTS "ops_totp_challenges"
}
