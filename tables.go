package admin

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// The built-in tables. New creates those it needs with versioned
// migrations (migrate.go declares their schema once: columns, defaults,
// keys); a game reads and writes them through these Bun models. The
// models' table tags give the default names (TablePrefix "game_"); with
// another prefix, query them with ModelTableExpr(a.TableName(key)).

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

// newID returns a UUIDv7: unique across nodes and ordered by time, so new
// rows land at the end of the primary-key index.
func newID() string { return uuid.Must(uuid.NewV7()).String() }
