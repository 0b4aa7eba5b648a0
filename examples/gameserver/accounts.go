package main

import (
	"context"
	"fmt"
	"maps"

	"github.com/gameadmin/admin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Player is the demo's users table: the built-in one (admin.User's
// columns, which the panel's migrations create) with a username the demo
// adds itself (migrateUsernames), so that players and staff sign in by
// name or by email (UserColumns.Username). The game's other tables name
// it in their relations, so the panel links them to the users resource.
type Player struct {
	admin.User `bun:",extend"`
	// Username is the login name: unique, NULL for an account without one.
	Username *string `bun:"username,unique" json:"username"`
}

// userColumns are the panel's names for the demo's users table: the
// built-in ones, and the username.
var userColumns = admin.UserColumns{Username: "username"}

// usersResource keeps the built-in users table's look, which a game's
// own users model does not get by itself: the newest accounts first, and
// the form's fields (the username beside the email).
func usersResource() *admin.Resource {
	return admin.DefineResource((*Player)(nil), admin.ResourceConfig{
		List: admin.ListConfig{DefaultSort: admin.Sort{Field: "created_at", Order: "desc"}},
		Form: admin.FormConfig{Fields: []string{"id", "email", "username", "display_name", "ban", "created_at"}},
	})
}

// builtinUsers is opts with the built-in users model in place of
// Player: the panel's migrations create the built-in table, which
// migrateUsernames then extends.
func builtinUsers(opts admin.Options) admin.Options {
	opts.Tables = maps.Clone(opts.Tables)
	opts.Tables["users"] = (*admin.User)(nil)
	opts.UserColumns = admin.UserColumns{}
	opts.Resources = maps.Clone(opts.Resources)
	delete(opts.Resources, "users")
	return opts
}

// migrateUsernames adds the username column and its unique index to the
// users table, once.
func migrateUsernames(ctx context.Context, db *bun.DB) error {
	var n int
	q := "SELECT count(*) FROM pragma_table_info('game_users') WHERE name = 'username'"
	typ := "TEXT"
	switch db.Dialect().Name() {
	case dialect.PG:
		q = "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'game_users' AND column_name = 'username'"
	case dialect.MySQL:
		q = "SELECT count(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'game_users' AND column_name = 'username'"
		typ = "VARCHAR(64)" // a unique index on MySQL needs a bounded type
	}
	if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		if _, err := db.NewRaw("ALTER TABLE ? ADD COLUMN ? "+typ, bun.Ident("game_users"), bun.Ident("username")).Exec(ctx); err != nil {
			return err
		}
	}
	_, err := db.NewRaw("CREATE UNIQUE INDEX IF NOT EXISTS ? ON ? (?)",
		bun.Ident("game_users_username_idx"), bun.Ident("game_users"), bun.Ident("username")).Exec(ctx)
	return err
}

// seedUsernames gives the seeded players their usernames: player01 for
// player01@example.com, and so on.
func seedUsernames(ctx context.Context, db *bun.DB, users []admin.User) error {
	for i, u := range users {
		if _, err := db.NewUpdate().Model((*Player)(nil)).Set("username = ?", fmt.Sprintf("player%02d", i+1)).
			Where("id = ?", u.ID).Where("username IS NULL").Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
