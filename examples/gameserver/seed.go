package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gameadmin/admin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// seedDemo fills a small world: 50 players (player01@example.com is a mod,
// every password is "player-password"), guilds, Steam accounts with
// 64-bit ids, matches (one voided) and a chat log, notes, leaderboards and entries, cloud saves and 12,000 analytics events. Running it
// again adds nothing twice.
func seedDemo(ctx context.Context, db *bun.DB, a *admin.Admin) error {
	hash, err := a.Auth().HashPassword(ctx, "player-password")
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2)) // the same world every time
	now := time.Now().UTC()
	users := make([]admin.User, 0, 50)
	for i := range 50 {
		users = append(users, admin.User{
			Email:        fmt.Sprintf("player%02d@example.com", i+1),
			DisplayName:  fmt.Sprintf("Player %02d", i+1),
			PasswordHash: hash,
			CreatedAt:    now.Add(-time.Duration(50-i) * time.Hour),
		})
	}
	if _, err := onConflictNothing(db.NewInsert().Model(&users)).Exec(ctx); err != nil {
		return err
	}
	// Read the ids back: rows seeded earlier kept theirs.
	users = users[:0]
	if err := db.NewSelect().Model(&users).Where("email LIKE 'player%@example.com'").Order("email").Scan(ctx); err != nil {
		return err
	}
	if err := seedUsernames(ctx, db, users); err != nil {
		return err
	}
	mod := users[0]
	for _, key := range []string{"users", "userNotes", "rooms", "guilds"} {
		if err := a.Moderation().AssignMod(ctx, mod.ID, key); err != nil {
			return err
		}
	}
	pick := func() admin.User { return users[rng.IntN(len(users))] }
	if err := seedSteam(ctx, db, users); err != nil {
		return err
	}
	if err := seedMatches(ctx, db, users, now); err != nil {
		return err
	}

	guilds := make([]Guild, 0, 10)
	for i, name := range []string{"Iron Wolves", "Night Owls", "Crimson Tide", "Void Walkers", "Sky Pirates", "Frost Giants", "Sun Chasers", "Shadow Foxes", "Stone Golems", "Storm Riders"} {
		guilds = append(guilds, Guild{Name: name, OwnerID: users[(i*5+3)%len(users)].ID, CreatedAt: now.Add(-time.Duration(i) * 24 * time.Hour)})
	}
	guilds[0].Emblem = emblemPNG
	if _, err := onConflictNothing(db.NewInsert().Model(&guilds)).Exec(ctx); err != nil {
		return err
	}

	boards := []admin.Leaderboard{
		{ID: "weekly", Name: "Weekly arena", SortOrder: "desc", CreatedAt: now},
		{ID: "speedrun", Name: "Speedrun", SortOrder: "asc", CreatedAt: now},
	}
	if _, err := onConflictNothing(db.NewInsert().Model(&boards)).Exec(ctx); err != nil {
		return err
	}
	var entries []admin.LeaderboardEntry
	var saves []admin.CloudSave
	for i, u := range users {
		entries = append(entries, admin.LeaderboardEntry{LeaderboardID: "weekly", UserID: u.ID, Score: int64(rng.IntN(5000)), UpdatedAt: now,
			Metadata: map[string]any{"matches": rng.IntN(40)}})
		if i%2 == 0 {
			entries = append(entries, admin.LeaderboardEntry{LeaderboardID: "speedrun", UserID: u.ID, Score: int64(60_000 + rng.IntN(120_000)), UpdatedAt: now})
		}
		saves = append(saves, admin.CloudSave{UserID: u.ID, Slot: "main", Version: int64(1 + rng.IntN(9)), UpdatedAt: now,
			Data: map[string]any{"level": 1 + rng.IntN(60), "coins": rng.IntN(10_000), "skin": []string{"red", "blue", "gold"}[rng.IntN(3)]}})
	}
	if _, err := onConflictNothing(db.NewInsert().Model(&entries)).Exec(ctx); err != nil {
		return err
	}
	if _, err := onConflictNothing(db.NewInsert().Model(&saves)).Exec(ctx); err != nil {
		return err
	}

	configs := []admin.Config{
		{Key: "motd", Value: []byte(`"Welcome to the arena!"`), UpdatedAt: now},
		{Key: "matchmaking", Value: []byte(`{"maxPing":120,"teamSize":3}`), UpdatedAt: now},
	}
	if _, err := onConflictNothing(db.NewInsert().Model(&configs)).Exec(ctx); err != nil {
		return err
	}

	// Notes and events have generated keys: add them only once.
	if n, err := db.NewSelect().Model((*admin.UserNote)(nil)).Count(ctx); err != nil || n > 0 {
		return err
	}
	notes := make([]admin.UserNote, 0, 20)
	for i := range 20 {
		notes = append(notes, admin.UserNote{UserID: pick().ID, AuthorID: mod.ID, CreatedAt: now.Add(-time.Duration(i) * time.Hour),
			Body: []string{"Reported for chat spam.", "Asked for a refund; granted.", "Suspicious win streak; watching.", "Helpful in the newcomer channel."}[i%4]})
	}
	if _, err := db.NewInsert().Model(&notes).Exec(ctx); err != nil {
		return err
	}
	if err := seedReports(ctx, db, a, users); err != nil {
		return err
	}
	names := []string{"login", "match_start", "match_end", "purchase", "logout"}
	events := make([]admin.AnalyticsEvent, 0, 500)
	// More than the deepest offset page reaches: the list pages on by
	// cursor past it.
	const nEvents = 12_000
	for i := range nEvents {
		events = append(events, admin.AnalyticsEvent{UserID: pick().ID, Name: names[rng.IntN(len(names))],
			Payload:   map[string]any{"platform": []string{"ios", "android", "pc"}[rng.IntN(3)], "session": rng.IntN(1_000_000)},
			CreatedAt: now.Add(-time.Duration(nEvents-i) * time.Minute / 4)})
		if len(events) == cap(events) {
			if _, err := db.NewInsert().Model(&events).Exec(ctx); err != nil {
				return err
			}
			events = events[:0]
		}
	}
	return nil
}

// emblemPNG is a 1×1 grey PNG, the seeded Iron Wolves' emblem: a binary
// column for the panel to show as a size and a download.
var emblemPNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x7e, 0x9b,
	0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x68, 0x00, 0x00, 0x00,
	0x82, 0x00, 0x81, 0x4c, 0x17, 0xd7, 0xdf, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
	0x42, 0x60, 0x82,
}

// seedReports files a few players' reports, so that the reports queue
// is not empty: three players report Player 07 for cheating in a match,
// two report Player 12's chat, one Player 31's name, one Player 44's.
func seedReports(ctx context.Context, db *bun.DB, a *admin.Admin, users []admin.User) error {
	var match []int64
	if err := db.NewSelect().Model((*Match)(nil)).Column("id").Order("id").Limit(1).Scan(ctx, &match); err != nil {
		return err
	}
	matchID, _ := json.Marshal(fmt.Sprint(match[0]))
	line, _ := json.Marshal("uninstall the game, you are trash")
	for _, r := range []admin.Report{
		{ReporterID: users[1].ID, PlayerID: users[6].ID, Category: "cheating", Text: "aimbot, every shot a headshot", RoomID: "arena-7", Evidence: matchID},
		{ReporterID: users[2].ID, PlayerID: users[6].ID, Category: "cheating", Text: "walks through walls", Evidence: matchID},
		{ReporterID: users[3].ID, PlayerID: users[6].ID, Category: "cheating", Text: "speed hack"},
		{ReporterID: users[4].ID, PlayerID: users[11].ID, Category: "abuse", Text: "insults in chat", Evidence: line},
		{ReporterID: users[5].ID, PlayerID: users[11].ID, Category: "abuse", Evidence: line},
		{ReporterID: users[7].ID, PlayerID: users[30].ID, Category: "name", Text: "offensive display name"},
		{ReporterID: users[8].ID, PlayerID: users[43].ID, Category: "name", Text: "impersonates a moderator"},
	} {
		if _, err := a.FileReport(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// onConflictNothing leaves the rows already there: ON CONFLICT DO NOTHING,
// or INSERT IGNORE on MariaDB and MySQL, so the seed runs again over its
// own rows.
func onConflictNothing(q *bun.InsertQuery) *bun.InsertQuery {
	if q.Dialect().Name() == dialect.MySQL {
		return q.Ignore()
	}
	return q.On("CONFLICT DO NOTHING")
}
