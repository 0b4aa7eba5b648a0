package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/dashboard"
	"github.com/gameadmin/admin/internal/migrate"
	"github.com/gameadmin/admin/internal/reports"
	"github.com/gameadmin/admin/internal/users"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The built-in tables. New creates those it needs with versioned
// migrations (migrate.go declares their schema once: columns, defaults,
// keys); a game reads and writes them through these Bun models. The
// models' table tags give the default names (TablePrefix "game_"); with
// another prefix, query them with ModelTableExpr(a.TableName(key)).

// User is a row of game_users: players and operators alike.
//
// Email is stored as typed (trimmed, its case kept) and matched without
// regard to case, an exact match first (docs/adopting.md, "Emails and
// case"); a game that inserts users itself may store any case.
type User struct {
	bun.BaseModel `bun:"table:game_users,alias:u"`

	ID           string    `bun:"id,pk" json:"id"`
	Email        string    `bun:"email,notnull,unique" json:"email"`
	DisplayName  string    `bun:"display_name,nullzero" json:"display_name"`
	PasswordHash string    `bun:"password_hash,nullzero" json:"-"`
	Ban          *BanInfo  `bun:"ban" json:"ban"`
	TokenVersion int64     `bun:"token_version,notnull" json:"token_version"`
	CreatedAt    time.Time `bun:"created_at,notnull" json:"created_at"`
}

var _ bun.BeforeAppendModelHook = (*User)(nil)

// BeforeAppendModel gives a new user a UUIDv7 id and a creation time when
// the caller left them empty.
func (u *User) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if _, ok := q.(*bun.InsertQuery); ok {
		if u.ID == "" {
			u.ID = users.NewID()
		}
		if u.CreatedAt.IsZero() {
			u.CreatedAt = time.Now().UTC()
		}
	}
	return nil
}

// BanInfo is the JSON held in game_users.ban while a user is banned.
type BanInfo = users.BanInfo

// Config is a row of game_configs: one JSON value per key.
type Config struct {
	bun.BaseModel `bun:"table:game_configs,alias:c"`

	Key       string          `bun:"key,pk" json:"key"`
	Value     json.RawMessage `bun:"value" json:"value"`
	UpdatedAt time.Time       `bun:"updated_at,notnull" json:"updated_at"`
}

// Leaderboard is a row of game_leaderboards.
type Leaderboard struct {
	bun.BaseModel `bun:"table:game_leaderboards,alias:lb"`

	ID        string    `bun:"id,pk" json:"id"`
	Name      string    `bun:"name,notnull" json:"name"`
	SortOrder string    `bun:"sort_order,notnull" json:"sort_order"`
	CreatedAt time.Time `bun:"created_at,notnull" json:"created_at"`
}

// AnalyticsEvent is a row of game_analytics_events.
type AnalyticsEvent struct {
	bun.BaseModel `bun:"table:game_analytics_events,alias:ae"`

	ID        int64          `bun:"id,pk,autoincrement" json:"id"`
	UserID    string         `bun:"user_id,nullzero" json:"user_id"`
	Name      string         `bun:"name,notnull" json:"name"`
	Payload   map[string]any `bun:"payload" json:"payload"`
	CreatedAt time.Time      `bun:"created_at,notnull" json:"created_at"`
}

// CloudSave is a row of game_cloud_saves, keyed by (user_id, slot).
type CloudSave struct {
	bun.BaseModel `bun:"table:game_cloud_saves,alias:cs"`

	UserID    string         `bun:"user_id,pk" json:"user_id"`
	Slot      string         `bun:"slot,pk" json:"slot"`
	Data      map[string]any `bun:"data" json:"data"`
	Version   int64          `bun:"version,notnull" json:"version"`
	UpdatedAt time.Time      `bun:"updated_at,notnull" json:"updated_at"`
}

// LeaderboardEntry is a row of game_leaderboard_entries, keyed by
// (leaderboard_id, user_id).
type LeaderboardEntry struct {
	bun.BaseModel `bun:"table:game_leaderboard_entries,alias:le"`

	LeaderboardID string         `bun:"leaderboard_id,pk" json:"leaderboard_id"`
	UserID        string         `bun:"user_id,pk" json:"user_id"`
	Score         int64          `bun:"score,notnull" json:"score"`
	Metadata      map[string]any `bun:"metadata" json:"metadata"`
	UpdatedAt     time.Time      `bun:"updated_at,notnull" json:"updated_at"`
}

// RoleAssignment is a row of game_roles: a user's role and, for mods, the
// resource keys they may work on. A user without a row has RoleUser.
type RoleAssignment = users.RoleAssignment

// UserNote is a row of game_user_notes: an operator's note about a user.
type UserNote struct {
	bun.BaseModel `bun:"table:game_user_notes,alias:un"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	UserID    string    `bun:"user_id,notnull" json:"user_id"`
	AuthorID  string    `bun:"author_id,nullzero" json:"author_id"`
	Body      string    `bun:"body,notnull" json:"body"`
	CreatedAt time.Time `bun:"created_at,notnull" json:"created_at"`
}

// builtinKeys is the sidebar order of the built-in tables.
var builtinKeys = []string{
	"users", "configs", "leaderboards", "analyticsEvents", "cloudSaves",
	"leaderboardEntries", "roles", "userNotes", "adminAudit",
}

// BuiltinTables returns the canonical key of each built-in table mapped to
// its Bun model (a typed nil pointer). Start Options.Tables from it to add
// the game's own tables:
//
//	tables := admin.BuiltinTables()
//	tables["guilds"] = (*Guild)(nil)
func BuiltinTables() map[string]any {
	return map[string]any{
		"users":              (*User)(nil),
		"configs":            (*Config)(nil),
		"leaderboards":       (*Leaderboard)(nil),
		"analyticsEvents":    (*AnalyticsEvent)(nil),
		"cloudSaves":         (*CloudSave)(nil),
		"leaderboardEntries": (*LeaderboardEntry)(nil),
		"roles":              (*RoleAssignment)(nil),
		"userNotes":          (*UserNote)(nil),
		"adminAudit":         (*AuditEntry)(nil),
	}
}

// usersLowerEmail serves sign-in, which matches emails without regard to
// case: lower(email) = lower($1) is an index scan, not a sequential one.
// (emailIndexSuggestion says the same for a game's own users table.)
const usersLowerEmail = `CREATE INDEX IF NOT EXISTS "{prefix}users_lower_email_idx" ON {table:users} (lower("email"))`

// noLowerEmail: MariaDB cannot index lower(email) (no index on an
// expression; MySQL 8.0.13+ could, as ((lower(email)))). There the email
// column is Fold, a case-insensitive collation, so its unique key serves
// sign-in's lookup by an equality, and step 21 only records itself.
var noLowerEmail = map[dialect.Name][]string{dialect.MySQL: nil}

// auditTargetIndex serves a row's history (its entries, newest first).
// On a large audit log, build it beforehand without locking writes, with
// the same name (the step is then a no-op):
//
//	CREATE INDEX CONCURRENTLY game_admin_audit_resource_target_id_id_idx
//	    ON game_admin_audit (resource, target_id, id);
var auditTargetIndex = []string{"resource", "target_id", "id"}

const auditTargetIndexSQL = `CREATE INDEX IF NOT EXISTS "{prefix}admin_audit_resource_target_id_id_idx" ON {table:admin_audit} ("resource", "target_id", "id")`

// auditActionIndex serves the dashboard's moderation: the last day's
// count and the week's latest, which otherwise read every entry of the
// period (on a busy panel, hundreds of thousands a day of creates and
// updates) to find a few bans. On a large audit log, build it beforehand
// without locking writes, with the same name:
//
//	CREATE INDEX CONCURRENTLY game_admin_audit_action_created_at_idx
//	    ON game_admin_audit (action, created_at);
var auditActionIndex = []string{"action", "created_at"}

const auditActionIndexSQL = `CREATE INDEX IF NOT EXISTS "{prefix}admin_audit_action_created_at_idx" ON {table:admin_audit} ("action", "created_at")`

// builtinSchema holds the built-in tables in creation order (a table comes after
// those its foreign keys name). ON DELETE: a user's role, saves, entries,
// notes about them and second factor go with them (CASCADE); a note's
// author becomes unknown (SET NULL). Analytics events and the audit log
// are records that outlive the user, so their user columns declare no
// foreign key, and the audit's target_id may name a row of any table.
var builtinSchema = &migrate.Schema{Tables: []*migrate.Table{
	{Key: "users", Base: "users", Model: (*User)(nil), Version: 10, Cols: []migrate.Col{
		{Name: "id", Type: migrate.Text, Hook: true},
		{Name: "email", Type: migrate.Text, NotNull: true, Unique: true, Fold: true},
		{Name: "display_name", Type: migrate.Text},
		{Name: "password_hash", Type: migrate.Text},
		{Name: "ban", Type: migrate.JSON},
		{Name: "token_version", Type: migrate.Bigint, NotNull: true, Default: "0"},
		{Name: "created_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, PK: []string{"id"}, SQLIndexes: []string{usersLowerEmail}, SQLIndexesFor: noLowerEmail},
	{Key: "configs", Base: "configs", Model: (*Config)(nil), Version: 11, Cols: []migrate.Col{
		{Name: "key", Type: migrate.Text},
		{Name: "value", Type: migrate.JSON},
		{Name: "updated_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, PK: []string{"key"}},
	{Key: "leaderboards", Base: "leaderboards", Model: (*Leaderboard)(nil), Version: 12, Cols: []migrate.Col{
		{Name: "id", Type: migrate.Text},
		{Name: "name", Type: migrate.Text, NotNull: true},
		{Name: "sort_order", Type: migrate.Text, NotNull: true, Default: "'desc'"},
		{Name: "created_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, PK: []string{"id"}},
	{Key: "analyticsEvents", Base: "analytics_events", Model: (*AnalyticsEvent)(nil), Version: 13, Cols: []migrate.Col{
		{Name: "id", Type: migrate.Serial},
		{Name: "user_id", Type: migrate.UserID},
		{Name: "name", Type: migrate.Text, NotNull: true},
		{Name: "payload", Type: migrate.JSON},
		{Name: "created_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, Indexes: [][]string{{"created_at"}, {"user_id"}}},
	{Key: "cloudSaves", Base: "cloud_saves", Model: (*CloudSave)(nil), Version: 14, Cols: []migrate.Col{
		{Name: "user_id", Type: migrate.UserID, NotNull: true},
		{Name: "slot", Type: migrate.Text, NotNull: true},
		{Name: "data", Type: migrate.JSON},
		{Name: "version", Type: migrate.Bigint, NotNull: true, Default: "0"},
		{Name: "updated_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, PK: []string{"user_id", "slot"}, FKs: []migrate.FK{{Col: "user_id", Target: "users", OnDelete: "CASCADE"}}},
	{Key: "leaderboardEntries", Base: "leaderboard_entries", Model: (*LeaderboardEntry)(nil), Version: 15, Cols: []migrate.Col{
		{Name: "leaderboard_id", Type: migrate.Text, NotNull: true},
		{Name: "user_id", Type: migrate.UserID, NotNull: true},
		{Name: "score", Type: migrate.Bigint, NotNull: true, Default: "0"},
		{Name: "metadata", Type: migrate.JSON},
		{Name: "updated_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, PK: []string{"leaderboard_id", "user_id"},
		FKs:     []migrate.FK{{Col: "leaderboard_id", Target: "leaderboards", OnDelete: "CASCADE"}, {Col: "user_id", Target: "users", OnDelete: "CASCADE"}},
		Indexes: [][]string{{"user_id"}, {"leaderboard_id", "score"}}},
	{Key: "roles", Base: "roles", Model: (*RoleAssignment)(nil), Version: 16, Panel: true, Cols: []migrate.Col{
		{Name: "user_id", Type: migrate.UserID},
		{Name: "role", Type: migrate.Text, NotNull: true, Check: "role IN ('admin', 'mod', 'user')"},
		{Name: "scopes", Type: migrate.JSON, NotNull: true, Default: "'[]'"},
		{Name: "updated_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, PK: []string{"user_id"}, FKs: []migrate.FK{{Col: "user_id", Target: "users", OnDelete: "CASCADE"}}, Indexes: [][]string{{"role"}}},
	{Key: "userNotes", Base: "user_notes", Model: (*UserNote)(nil), Version: 17, Cols: []migrate.Col{
		{Name: "id", Type: migrate.Serial},
		{Name: "user_id", Type: migrate.UserID, NotNull: true},
		{Name: "author_id", Type: migrate.UserID},
		{Name: "body", Type: migrate.Text, NotNull: true},
		{Name: "created_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, FKs: []migrate.FK{{Col: "user_id", Target: "users", OnDelete: "CASCADE"}, {Col: "author_id", Target: "users", OnDelete: "SET NULL"}}, Indexes: [][]string{{"user_id"}}},
	{Key: "adminAudit", Base: "admin_audit", Model: (*AuditEntry)(nil), Version: 18, Panel: true, Cols: []migrate.Col{
		{Name: "id", Type: migrate.Serial},
		{Name: "created_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
		{Name: "operator_id", Type: migrate.UserID},
		{Name: "action", Type: migrate.Text, NotNull: true},
		{Name: "resource", Type: migrate.Text, NotNull: true},
		{Name: "target_id", Type: migrate.Text},
		{Name: "payload", Type: migrate.JSON},
	}, Indexes: [][]string{{"created_at"}, {"operator_id"}, auditTargetIndex, auditActionIndex}},
	{Base: "operator_totp", Model: (*account.OperatorTOTP)(nil), Version: 19, Panel: true, Cols: []migrate.Col{
		{Name: "user_id", Type: migrate.UserID},
		{Name: "secret", Type: migrate.Text, NotNull: true},
		{Name: "enabled", Type: migrate.Bool, NotNull: true, Default: "FALSE"},
		{Name: "last_step", Type: migrate.Bigint, NotNull: true, Default: "0"},
		{Name: "created_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
		{Name: "confirmed_at", Type: migrate.Time},
	}, PK: []string{"user_id"}, FKs: []migrate.FK{{Col: "user_id", Target: "users", OnDelete: "CASCADE"}}},
	{Base: "operator_recovery_codes", Model: (*account.RecoveryCode)(nil), Version: 20, Panel: true, Cols: []migrate.Col{
		{Name: "user_id", Type: migrate.UserID, NotNull: true},
		{Name: "code_hash", Type: migrate.Text, NotNull: true},
		{Name: "used_at", Type: migrate.Time},
	}, PK: []string{"user_id", "code_hash"}, FKs: []migrate.FK{{Col: "user_id", Target: "users", OnDelete: "CASCADE"}}},
	{Base: "totp_challenges", Model: (*account.TOTPChallenge)(nil), Version: 22, Panel: true, Cols: []migrate.Col{
		{Name: "jti", Type: migrate.Text},
		{Name: "user_id", Type: migrate.UserID, NotNull: true},
		{Name: "failures", Type: migrate.Bigint, NotNull: true, Default: "0"},
		{Name: "expires_at", Type: migrate.Time, NotNull: true},
	}, PK: []string{"jti"}, FKs: []migrate.FK{{Col: "user_id", Target: "users", OnDelete: "CASCADE"}}, Indexes: [][]string{{"user_id"}}},
	{Base: "online_samples", Model: (*dashboard.OnlineSample)(nil), Version: 24, Panel: true, Cols: []migrate.Col{
		{Name: "at", Type: migrate.Time, NotNull: true},
		{Name: "node", Type: migrate.Text, NotNull: true, Default: "''"},
		{Name: "clients", Type: migrate.Bigint, NotNull: true},
	}, PK: []string{"at", "node"}},
	// Players' reports and the moderators' claims on them: the panel's own
	// tables, created whether or not the game declares report categories,
	// so that turning reports on is no migration. A report goes with the
	// player it is about; a reporter's account going leaves their reports
	// (reporter unknown).
	{Base: "reports", Model: (*reports.Row)(nil), Version: 40, Panel: true, Cols: []migrate.Col{
		{Name: "id", Type: migrate.Serial},
		{Name: "reporter_id", Type: migrate.UserID},
		{Name: "player_id", Type: migrate.UserID, NotNull: true},
		{Name: "category", Type: migrate.Text, NotNull: true},
		{Name: "text", Type: migrate.Text, NotNull: true, Default: "''"},
		{Name: "room_id", Type: migrate.Text},
		{Name: "session_id", Type: migrate.Text},
		{Name: "evidence", Type: migrate.JSON},
		{Name: "filings", Type: migrate.Bigint, NotNull: true, Default: "1"},
		{Name: "status", Type: migrate.Text, NotNull: true, Default: "'open'", Check: "status IN ('open', 'resolved')"},
		{Name: "created_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
		{Name: "last_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
		{Name: "resolved_at", Type: migrate.Time},
		{Name: "resolved_by", Type: migrate.UserID},
		{Name: "outcome", Type: migrate.Text},
	}, FKs: []migrate.FK{{Col: "player_id", Target: "users", OnDelete: "CASCADE"}, {Col: "reporter_id", Target: "users", OnDelete: "SET NULL"}},
		// The queue (open reports by player), a player's page (received,
		// filed) and the folding of a reporter's duplicates.
		Indexes: [][]string{{"status", "player_id"}, {"player_id", "status"}, {"reporter_id", "player_id", "created_at"}, {"created_at"}}},
	{Base: "report_claims", Model: (*reports.Claim)(nil), Version: 41, Panel: true, Cols: []migrate.Col{
		{Name: "player_id", Type: migrate.UserID},
		{Name: "claimed_by", Type: migrate.UserID, NotNull: true},
		{Name: "claimed_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, PK: []string{"player_id"}, FKs: []migrate.FK{{Col: "player_id", Target: "users", OnDelete: "CASCADE"}, {Col: "claimed_by", Target: "users", OnDelete: "CASCADE"}}},
	// A mod's row scope: the values of the resources' ScopeColumn whose
	// rows the mod sees (a JSON array); no row leaves the mod unscoped.
	{Base: "row_scopes", Model: (*users.RowScope)(nil), Version: 42, Panel: true, Cols: []migrate.Col{
		{Name: "user_id", Type: migrate.UserID},
		{Name: "scope_values", Type: migrate.JSON, NotNull: true},
		{Name: "updated_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, PK: []string{"user_id"}, FKs: []migrate.FK{{Col: "user_id", Target: "users", OnDelete: "CASCADE"}}},
	// An operator's own display preferences (the language of the UI):
	// no row, no choice.
	{Base: "operator_prefs", Model: (*account.OperatorPrefs)(nil), Version: 43, Panel: true, Cols: []migrate.Col{
		{Name: "user_id", Type: migrate.UserID},
		{Name: "locale", Type: migrate.Text, NotNull: true},
		{Name: "updated_at", Type: migrate.Time, NotNull: true, Default: migrate.Now},
	}, PK: []string{"user_id"}, FKs: []migrate.FK{{Col: "user_id", Target: "users", OnDelete: "CASCADE"}}},
},
	Alters: []migrate.Alter{
		{Version: 21, Name: "index lower(email) of users", Base: "users", SQL: usersLowerEmail, SQLFor: map[dialect.Name]string{dialect.MySQL: ""}},
		{Version: 23, Name: "index the audit log by target", Base: "admin_audit", SQL: auditTargetIndexSQL},
		{Version: 25, Name: "index the audit log by action", Base: "admin_audit", SQL: auditActionIndexSQL},
	},
	// Steps 1 (every built-in table) and 3 (TOTP) of earlier development
	// versions created what steps 10 to 18 and 19 to 20 create now.
	Legacy: map[int][]int{1: {10, 11, 12, 13, 14, 15, 16, 17, 18}, 3: {19, 20}},
}

// panelTable is the built-in table of that key that is the panel's own
// (the roles, the audit log): every panel has it, and a game cannot
// replace its model. nil for another key.
func panelTable(key string) *migrate.Table {
	for _, d := range builtinSchema.Tables {
		if d.Panel && d.Key != "" && d.Key == key {
			return d
		}
	}
	return nil
}

// panelKeys are the keys of the panel's own tables (panelTable).
func panelKeys() []string {
	var keys []string
	for _, d := range builtinSchema.Tables {
		if d.Panel && d.Key != "" {
			keys = append(keys, d.Key)
		}
	}
	return keys
}
