package main

import (
	"context"
	"time"

	"github.com/gameadmin/admin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// SteamAccount is a player's linked Steam account, keyed by its Steam id
// (76561198…, past 2^53): the table the panel must show, link and write
// without rounding an id to its neighbour's.
type SteamAccount struct {
	bun.BaseModel `bun:"table:steam_accounts,alias:sa"`

	// ID is the SteamID64 Steam gave, not one the database makes.
	ID          int64  `bun:"id,pk" json:"id"`
	PersonaName string `bun:"persona_name,notnull" json:"persona_name"`
	// FriendID is the account's best friend, another Steam id.
	FriendID *int64        `bun:"friend_id" json:"friend_id"`
	Friend   *SteamAccount `bun:"rel:belongs-to,join:friend_id=id" json:"-"`
	// UserID is the player the account is linked to.
	UserID   *string   `bun:"user_id" json:"user_id"`
	User     *Player   `bun:"rel:belongs-to,join:user_id=id" json:"-"`
	LinkedAt time.Time `bun:"linked_at,notnull,default:current_timestamp" json:"linked_at"`
}

// steamBase is the first seeded Steam id: 76561198000000000, beyond the
// integers a float64 holds exactly, so neighbours differ only past it.
const steamBase int64 = 76561198000000000

// migrateSteam is the game's migration of steam_accounts: friend_id
// references another account, user_id the player.
func migrateSteam(ctx context.Context, db *bun.DB) error {
	q := db.NewCreateTable().Model((*SteamAccount)(nil)).IfNotExists().
		ForeignKey("(?) REFERENCES ? (?) ON DELETE SET NULL", bun.Ident("friend_id"), bun.Ident("steam_accounts"), bun.Ident("id"))
	if db.Dialect().Name() != dialect.MySQL {
		q = q.ForeignKey("(?) REFERENCES ? (?) ON DELETE SET NULL", bun.Ident("user_id"), bun.Ident("game_users"), bun.Ident("id"))
	}
	if _, err := q.Exec(ctx); err != nil {
		return err
	}
	return mysqlUserRef(ctx, db, "steam_accounts", "user_id", "NULL", "SET NULL")
}

// steamResource shows the accounts by persona name.
func steamResource() *admin.Resource {
	return admin.DefineResource((*SteamAccount)(nil), admin.ResourceConfig{
		Label: "Steam accounts",
		Icon:  "user",
		List: admin.ListConfig{
			Columns:     []string{"id", "persona_name", "friend_id", "user_id", "linked_at"},
			DefaultSort: admin.Sort{Field: "id"},
		},
		Form: admin.FormConfig{Fields: []string{"id", "persona_name", "friend_id", "user_id"}},
		Columns: map[string]admin.ColumnConfig{
			"id":           {Label: "Steam id"},
			"persona_name": {Label: "Persona name"},
			"friend_id":    {Label: "Best friend"},
			"user_id":      {Label: "Player"},
		},
	})
}

// seedSteam links four players to Steam accounts 76561198000000000…003,
// each the friend of the next: ids and foreign keys a float64 would
// round to one number.
func seedSteam(ctx context.Context, db *bun.DB, users []admin.User) error {
	names := []string{"zero", "first", "second", "third"}
	accounts := make([]SteamAccount, len(names))
	// "second" and "third" were linked late on 14 March 2025 in UTC:
	// 23:00 of the 14th and 08:30 of the 15th in Tokyo, so a day filter
	// read in the operator's zone (_tz) tells them apart.
	linked := map[int]time.Time{2: time.Date(2025, 3, 14, 14, 0, 0, 0, time.UTC), 3: time.Date(2025, 3, 14, 23, 30, 0, 0, time.UTC)}
	for i, name := range names {
		accounts[i] = SteamAccount{ID: steamBase + int64(i), PersonaName: name, UserID: &users[i].ID, LinkedAt: linked[i]}
		if accounts[i].LinkedAt.IsZero() {
			accounts[i].LinkedAt = time.Now().UTC()
		}
	}
	// Friends point forward and the last at the first: insert without
	// them, then set them, so no row references one not there yet.
	if _, err := onConflictNothing(db.NewInsert().Model(&accounts)).Exec(ctx); err != nil {
		return err
	}
	for i := range accounts {
		friend := steamBase + int64((i+1)%len(accounts))
		if _, err := db.NewUpdate().Model((*SteamAccount)(nil)).Set("friend_id = ?", friend).
			Where("id = ?", accounts[i].ID).Where("friend_id IS NULL").Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
