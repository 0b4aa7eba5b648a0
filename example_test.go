package admin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/gameadmin/admin"
	"golang.org/x/crypto/bcrypt"
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
	// CREATE TABLE IF NOT EXISTS "ops_online_samples"
	// CREATE TABLE IF NOT EXISTS "ops_reports"
	// CREATE TABLE IF NOT EXISTS "ops_report_claims"
	// CREATE TABLE IF NOT EXISTS "ops_row_scopes"
	// CREATE TABLE IF NOT EXISTS "ops_operator_prefs"
}

// A game whose own login checks bcrypt: with Bcrypt as Options.
// PasswordHasher, every hash the panel writes is one the game's code
// accepts, and the panel still verifies argon2id hashes it finds.
func ExampleBcrypt() {
	h := admin.Bcrypt{Cost: bcrypt.MinCost} // the game's cost: 10 to 12 in production
	hash, err := h.Hash("player password")
	if err != nil {
		log.Fatal(err)
	}
	ok, _ := h.Verify("player password", hash)
	fmt.Println("bcrypt:", strings.HasPrefix(hash, "$2a$"), "verified:", ok)
	fmt.Println("the game's own check:", bcrypt.CompareHashAndPassword([]byte(hash), []byte("player password")) == nil)
	// Output:
	// bcrypt: true verified: true
	// the game's own check: true
}

// A limiter a game can use on its own routes too: two requests at once,
// then one a minute, per key.
func ExampleNewTokenBucket() {
	l := admin.NewTokenBucket(2, 1.0/60)
	for range 3 {
		ok, retry, _ := l.Allow(context.Background(), "203.0.113.7")
		fmt.Println(ok, retry.Round(time.Second))
	}
	ok, _, _ := l.Allow(context.Background(), "198.51.100.2") // another key, its own bucket
	fmt.Println(ok)
	// Output:
	// true 0s
	// true 0s
	// false 1m0s
	// true
}

// Bans, erasures and players past five open reports go to a Discord
// channel, one line each with a link to the panel. In a game, URL is the
// channel's webhook (discord.com/api/webhooks/...), kept out of the code,
// and the sink is set as Options.OnAudit.
func ExampleWebhookSink() {
	discord := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct{ Content string }
		_ = json.NewDecoder(r.Body).Decode(&msg)
		fmt.Println(msg.Content)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer discord.Close()

	onAudit := admin.WebhookSink(admin.WebhookOptions{
		URL:      discord.URL + "/api/webhooks/1/secret",
		Kind:     admin.Discord,
		PanelURL: "https://game.example.com/admin",
	})
	_ = admin.Options{OnAudit: onAudit} // as the panel would call it:
	onAudit(context.Background(), admin.AuditEvent{
		Action: "user.ban", Operator: "Ana", Resource: "users", TargetID: "7", Target: "Player 07",
		Payload: map[string]any{"reason": "speed hack", "until": "2026-12-04T00:00:00Z"},
	})
	onAudit(context.Background(), admin.AuditEvent{Action: "update", Resource: "users", TargetID: "7"}) // not chosen
	// Output:
	// Ana banned Player 07 until 4 Dec 2026 — speed hack · https://game.example.com/admin/users/7
}
