package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gameadmin/admin"
	"github.com/uptrace/bun"
)

// seedDemo fills the built-in tables with a small world: players, a mod,
// leaderboards and configs. It is idempotent: existing rows are kept.
func seedDemo(ctx context.Context, db *bun.DB, a *admin.Admin) error {
	hash, err := a.Auth().HashPassword(ctx, "player-password")
	if err != nil {
		return err
	}
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
	if _, err := db.NewInsert().Model(&users).On("CONFLICT (email) DO NOTHING").Exec(ctx); err != nil {
		return err
	}
	var mod admin.User
	if err := db.NewSelect().Model(&mod).Where("email = ?", "player01@example.com").Scan(ctx); err != nil {
		return err
	}
	for _, key := range []string{"users", "userNotes", "rooms"} {
		if err := a.Moderation().AssignMod(ctx, mod.ID, key); err != nil {
			return err
		}
	}
	boards := []admin.Leaderboard{
		{ID: "weekly", Name: "Weekly arena", SortOrder: "desc", CreatedAt: now},
		{ID: "speedrun", Name: "Speedrun", SortOrder: "asc", CreatedAt: now},
	}
	if _, err := db.NewInsert().Model(&boards).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
		return err
	}
	configs := []admin.Config{
		{Key: "motd", Value: []byte(`"Welcome to the arena!"`), UpdatedAt: now},
		{Key: "matchmaking", Value: []byte(`{"maxPing":120,"teamSize":3}`), UpdatedAt: now},
	}
	_, err = db.NewInsert().Model(&configs).On("CONFLICT (key) DO NOTHING").Exec(ctx)
	return err
}
