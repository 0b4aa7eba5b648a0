package main

import (
	"context"
	"time"

	"github.com/gameadmin/admin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Match is a played match. The game deletes a match softly (Bun's
// soft_delete): a void match leaves the history but stays on disk, and
// the panel does the same — its Delete sets deleted_at, its Deleted view
// lists such rows, and Restore brings one back.
type Match struct {
	bun.BaseModel `bun:"table:matches,alias:m"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	Map       string    `bun:"map,notnull" json:"map"`
	StartedAt time.Time `bun:"started_at,notnull" json:"started_at"`
	// WinnerID is the player who won; a draw has none. The model's
	// relation (not a database foreign key: the table is made before the
	// panel's users table) labels it with the player's name.
	WinnerID  *string   `bun:"winner_id" json:"winner_id"`
	Winner    *Player   `bun:"rel:belongs-to,join:winner_id=id" json:"-"`
	DeletedAt time.Time `bun:"deleted_at,soft_delete,nullzero" json:"deleted_at"`
}

// MapStat is a row of the map_stats view: live matches per map. The
// panel finds the view in the database's catalog and shows it read-only.
type MapStat struct {
	bun.BaseModel `bun:"table:map_stats,alias:ms"`

	Map     string `bun:"map,pk" json:"map"`
	Matches int64  `bun:"matches" json:"matches"`
	Winners int64  `bun:"winners" json:"winners"`
}

// ChatLine is a line of the append-only chat log: no primary key, as a
// log the game only ever appends to. The panel lists, sorts and exports
// it, and writes nothing.
type ChatLine struct {
	bun.BaseModel `bun:"table:chat_log,alias:cl"`

	At     time.Time `bun:"at,notnull" json:"at"`
	UserID string    `bun:"user_id,notnull" json:"user_id"`
	User   *Player   `bun:"rel:belongs-to,join:user_id=id" json:"-"`
	Line   string    `bun:"line,notnull" json:"line"`
}

// migrateMatches creates matches, chat_log and the map_stats view. It runs
// before admin.New: the panel reads from the database's catalog, when New
// runs, that map_stats is a view (so read-only), and a view must exist to
// be found. Neither table references the panel's tables, so nothing needs
// New first.
func migrateMatches(ctx context.Context, db *bun.DB) error {
	if _, err := db.NewCreateTable().Model((*Match)(nil)).IfNotExists().Exec(ctx); err != nil {
		return err
	}
	if _, err := db.NewCreateTable().Model((*ChatLine)(nil)).IfNotExists().Exec(ctx); err != nil {
		return err
	}
	create := "CREATE OR REPLACE VIEW"
	if db.Dialect().Name() == dialect.SQLite {
		create = "CREATE VIEW IF NOT EXISTS"
	}
	_, err := db.ExecContext(ctx, create+` map_stats AS
SELECT map, COUNT(*) AS matches, COUNT(DISTINCT winner_id) AS winners
FROM matches WHERE deleted_at IS NULL GROUP BY map`)
	return err
}

// matchesResource lists the newest matches first.
func matchesResource() *admin.Resource {
	return admin.DefineResource((*Match)(nil), admin.ResourceConfig{
		Label: "Matches",
		Icon:  "flag",
		List: admin.ListConfig{
			Columns:     []string{"id", "map", "started_at", "winner_id"},
			DefaultSort: admin.Sort{Field: "started_at", Order: "desc"},
		},
		Form:    admin.FormConfig{Fields: []string{"map", "started_at", "winner_id"}},
		Columns: map[string]admin.ColumnConfig{"winner_id": {Label: "Winner"}, "started_at": {Label: "Started"}},
	})
}

func mapStatsResource() *admin.Resource {
	return admin.DefineResource((*MapStat)(nil), admin.ResourceConfig{
		Label: "Map stats",
		Icon:  "star",
		List:  admin.ListConfig{DefaultSort: admin.Sort{Field: "matches", Order: "desc"}},
	})
}

func chatLogResource() *admin.Resource {
	return admin.DefineResource((*ChatLine)(nil), admin.ResourceConfig{
		Label:   "Chat log",
		Icon:    "message",
		List:    admin.ListConfig{DefaultSort: admin.Sort{Field: "at", Order: "desc"}},
		Columns: map[string]admin.ColumnConfig{"user_id": {Label: "Player"}},
	})
}

// seedMatches plays eight matches on three maps (the last one voided:
// soft-deleted) and writes a dozen chat lines, once.
func seedMatches(ctx context.Context, db *bun.DB, users []admin.User, now time.Time) error {
	n, err := db.NewSelect().Model((*Match)(nil)).WhereAllWithDeleted().Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	maps := []string{"Dust Bowl", "Frozen Lake", "Sky Temple"}
	matches := make([]Match, 8)
	for i := range matches {
		matches[i] = Match{Map: maps[i%len(maps)], StartedAt: now.Add(-time.Duration(8-i) * 3 * time.Hour).Truncate(time.Second)}
		if i%4 != 2 { // every fourth a draw
			matches[i].WinnerID = &users[(i*7+2)%len(users)].ID
		}
	}
	matches[7].DeletedAt = now.Add(-time.Hour).Truncate(time.Second) // voided: a cheater won it
	if _, err := db.NewInsert().Model(&matches).Exec(ctx); err != nil {
		return err
	}
	says := []string{"gg", "anyone for Sky Temple?", "lag on EU-west again", "nice shot!", "rematch?", "how do I join a guild?",
		"Iron Wolves recruiting", "brb", "that was close", "who has the coin goal?", "gg wp", "see you tomorrow"}
	lines := make([]ChatLine, len(says))
	for i, s := range says {
		lines[i] = ChatLine{At: now.Add(-time.Duration(len(says)-i) * 7 * time.Minute).Truncate(time.Second), UserID: users[(i*3+1)%len(users)].ID, Line: s}
	}
	_, err = db.NewInsert().Model(&lines).Exec(ctx)
	return err
}
