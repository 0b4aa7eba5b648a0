package admin

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The built-in tables. New creates them with versioned migrations (see
// migrate below); a game reads and writes them through these Bun models.

// User is a row of game_users: players and operators alike.
//
// Email is stored and matched as given after trimming and lower-casing by
// the panel's endpoints; a game that inserts users itself should store it
// lower-cased too.
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
			u.ID = newID()
		}
		if u.CreatedAt.IsZero() {
			u.CreatedAt = time.Now().UTC()
		}
	}
	return nil
}

// BanInfo is the JSON held in game_users.ban while a user is banned.
type BanInfo struct {
	Reason   string     `json:"reason,omitempty"`
	Until    *time.Time `json:"until,omitempty"`
	BannedAt time.Time  `json:"bannedAt"`
	BannedBy string     `json:"bannedBy,omitempty"`
}

// Active reports whether the ban is in force at now: it has no end, or its
// end is still ahead.
func (b *BanInfo) Active(now time.Time) bool {
	return b != nil && (b.Until == nil || now.Before(*b.Until))
}

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
type RoleAssignment struct {
	bun.BaseModel `bun:"table:game_roles,alias:r"`

	UserID    string    `bun:"user_id,pk" json:"user_id"`
	Role      Role      `bun:"role,notnull" json:"role"`
	Scopes    []string  `bun:"scopes,notnull" json:"scopes"`
	UpdatedAt time.Time `bun:"updated_at,notnull" json:"updated_at"`
}

// UserNote is a row of game_user_notes: an operator's note about a user.
type UserNote struct {
	bun.BaseModel `bun:"table:game_user_notes,alias:un"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	UserID    string    `bun:"user_id,notnull" json:"user_id"`
	AuthorID  string    `bun:"author_id,nullzero" json:"author_id"`
	Body      string    `bun:"body,notnull" json:"body"`
	CreatedAt time.Time `bun:"created_at,notnull" json:"created_at"`
}

// AuditEntry is a row of the append-only game_admin_audit table.
type AuditEntry struct {
	bun.BaseModel `bun:"table:game_admin_audit,alias:aa"`

	ID         int64          `bun:"id,pk,autoincrement" json:"id"`
	CreatedAt  time.Time      `bun:"created_at,notnull" json:"created_at"`
	OperatorID string         `bun:"operator_id,nullzero" json:"operator_id"`
	Action     string         `bun:"action,notnull" json:"action"`
	Resource   string         `bun:"resource,notnull" json:"resource"`
	TargetID   string         `bun:"target_id,nullzero" json:"target_id"`
	Payload    map[string]any `bun:"payload" json:"payload"`
}

// builtinKeys is the sidebar order of SEED.md 2.3.
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

// newID returns a UUIDv7: unique across nodes and ordered by time, so new
// rows land at the end of the primary-key index.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

// migration is one versioned step of the built-in schema. Steps are never
// edited once released; a change is a new step.
type migration struct {
	version int
	name    string
	sql     string // statements separated by ";\n", written with the placeholders of ddl
}

var migrations = []migration{
	{1, "builtin tables", `
CREATE TABLE IF NOT EXISTS game_users (
	id {text} PRIMARY KEY,
	email {text} NOT NULL UNIQUE,
	display_name {text},
	password_hash {text},
	ban {json},
	token_version BIGINT NOT NULL DEFAULT 0,
	created_at {ts} NOT NULL DEFAULT {now}
);
CREATE TABLE IF NOT EXISTS game_configs (
	key {text} PRIMARY KEY,
	value {json},
	updated_at {ts} NOT NULL DEFAULT {now}
);
CREATE TABLE IF NOT EXISTS game_leaderboards (
	id {text} PRIMARY KEY,
	name {text} NOT NULL,
	sort_order {text} NOT NULL DEFAULT 'desc',
	created_at {ts} NOT NULL DEFAULT {now}
);
CREATE TABLE IF NOT EXISTS game_analytics_events (
	id {serial},
	user_id {text},
	name {text} NOT NULL,
	payload {json},
	created_at {ts} NOT NULL DEFAULT {now}
);
CREATE INDEX IF NOT EXISTS game_analytics_events_created_at_idx ON game_analytics_events (created_at);
CREATE INDEX IF NOT EXISTS game_analytics_events_user_id_idx ON game_analytics_events (user_id);
CREATE TABLE IF NOT EXISTS game_cloud_saves (
	user_id {text} NOT NULL,
	slot {text} NOT NULL,
	data {json},
	version BIGINT NOT NULL DEFAULT 0,
	updated_at {ts} NOT NULL DEFAULT {now},
	PRIMARY KEY (user_id, slot)
);
CREATE TABLE IF NOT EXISTS game_leaderboard_entries (
	leaderboard_id {text} NOT NULL,
	user_id {text} NOT NULL,
	score BIGINT NOT NULL DEFAULT 0,
	metadata {json},
	updated_at {ts} NOT NULL DEFAULT {now},
	PRIMARY KEY (leaderboard_id, user_id)
);
CREATE INDEX IF NOT EXISTS game_leaderboard_entries_user_id_idx ON game_leaderboard_entries (user_id);
CREATE INDEX IF NOT EXISTS game_leaderboard_entries_score_idx ON game_leaderboard_entries (leaderboard_id, score);
CREATE TABLE IF NOT EXISTS game_roles (
	user_id {text} PRIMARY KEY,
	role {text} NOT NULL CHECK (role IN ('admin', 'mod', 'user')),
	scopes {json} NOT NULL,
	updated_at {ts} NOT NULL DEFAULT {now}
);
CREATE INDEX IF NOT EXISTS game_roles_role_idx ON game_roles (role);
CREATE TABLE IF NOT EXISTS game_user_notes (
	id {serial},
	user_id {text} NOT NULL,
	author_id {text},
	body {text} NOT NULL,
	created_at {ts} NOT NULL DEFAULT {now}
);
CREATE INDEX IF NOT EXISTS game_user_notes_user_id_idx ON game_user_notes (user_id);
CREATE TABLE IF NOT EXISTS game_admin_audit (
	id {serial},
	created_at {ts} NOT NULL DEFAULT {now},
	operator_id {text},
	action {text} NOT NULL,
	resource {text} NOT NULL,
	target_id {text},
	payload {json}
);
CREATE INDEX IF NOT EXISTS game_admin_audit_created_at_idx ON game_admin_audit (created_at);
CREATE INDEX IF NOT EXISTS game_admin_audit_operator_id_idx ON game_admin_audit (operator_id)`},
	// Version 2 is reserved for a change developed alongside this one.
	{3, "operator totp", `
CREATE TABLE IF NOT EXISTS game_operator_totp (
	user_id {text} PRIMARY KEY,
	secret {text} NOT NULL,
	enabled BOOLEAN NOT NULL DEFAULT FALSE,
	last_step BIGINT NOT NULL DEFAULT 0,
	created_at {ts} NOT NULL DEFAULT {now},
	confirmed_at {ts}
);
CREATE TABLE IF NOT EXISTS game_operator_recovery_codes (
	user_id {text} NOT NULL,
	code_hash {text} NOT NULL,
	used_at {ts},
	PRIMARY KEY (user_id, code_hash)
)`},
}

// ddl fills the dialect-specific placeholders of a migration.
func ddl(d dialect.Name, s string) (string, error) {
	var r *strings.Replacer
	switch d {
	case dialect.PG:
		r = strings.NewReplacer("{text}", "TEXT", "{json}", "JSONB", "{ts}", "TIMESTAMPTZ",
			"{now}", "now()", "{serial}", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
	case dialect.SQLite:
		// JSON is held as TEXT: a declared type of JSON would get NUMERIC
		// affinity and turn a stored "123" into an integer.
		r = strings.NewReplacer("{text}", "TEXT", "{json}", "TEXT", "{ts}", "TIMESTAMP",
			"{now}", "CURRENT_TIMESTAMP", "{serial}", "INTEGER PRIMARY KEY AUTOINCREMENT")
	default:
		return "", fmt.Errorf("admin: unsupported dialect %s (PostgreSQL and SQLite are supported)", d)
	}
	return r.Replace(s), nil
}

// migrateLockID is the PostgreSQL advisory lock that serializes migrations
// when several game-server nodes start at once.
const migrateLockID = 0x67616d6561646d

// migrate brings the built-in tables up to the latest version. It runs in one
// transaction, under an advisory lock on PostgreSQL, so nodes starting
// together apply each step once; a version already recorded is skipped, so
// calling it again is a no-op.
func migrate(ctx context.Context, db *bun.DB) error {
	name := db.Dialect().Name()
	schemaTable, err := ddl(name, `CREATE TABLE IF NOT EXISTS game_admin_schema (
	version INTEGER PRIMARY KEY,
	name {text} NOT NULL,
	applied_at {ts} NOT NULL DEFAULT {now}
)`)
	if err != nil {
		return err
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if name == dialect.PG {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", migrateLockID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, schemaTable); err != nil {
			return err
		}
		// Every step not recorded runs, not only those above the newest:
		// versions added on parallel branches may land in either order.
		var applied []int
		if err := tx.NewSelect().Table("game_admin_schema").Column("version").Scan(ctx, &applied); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		for _, m := range migrations {
			if slices.Contains(applied, m.version) {
				continue
			}
			script, err := ddl(name, m.sql)
			if err != nil {
				return err
			}
			for _, stmt := range strings.Split(script, ";\n") {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("admin: migration %d (%s): %w", m.version, m.name, err)
				}
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO game_admin_schema (version, name) VALUES (?, ?)", m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
}
