package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gameadmin/admin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Guild is a table of the game's own, shown in the panel as "guilds".
type Guild struct {
	bun.BaseModel `bun:"table:guilds,alias:g"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	Name      string    `bun:"name,notnull,unique" json:"name"`
	OwnerID   string    `bun:"owner_id,notnull" json:"owner_id"`
	Owner     *Player   `bun:"rel:belongs-to,join:owner_id=id" json:"-"`
	CreatedAt time.Time `bun:"created_at,notnull,default:current_timestamp" json:"created_at"`
	// Recruiting says whether the guild takes new members (a switch in
	// the panel's form).
	Recruiting bool `bun:"recruiting,notnull,default:true" json:"recruiting"`
	// Emblem is the guild's picture as the game stores it (bytea / BLOB):
	// the panel shows its size and offers it as a download.
	Emblem []byte `bun:"emblem" json:"emblem,omitempty"`
	// Treasury is the guild's gold, exact to the cent: a decimal the
	// panel shows and writes with its digits as stored ("1234.50").
	Treasury string `bun:"treasury,type:numeric(12,2),notnull,default:0" json:"treasury"`
}

// migrateGuilds is the game's own migration: the panel never creates a
// game's tables. owner_id references the users table (MigrationSQL created it),
// so a guild of no user is refused (400 invalid_reference in the panel),
// and a guild goes with its owner.
//
// Its later steps add recruiting, emblem and treasury to a guilds table
// made before them.
func migrateGuilds(ctx context.Context, db *bun.DB) error {
	q := db.NewCreateTable().Model((*Guild)(nil)).IfNotExists()
	if db.Dialect().Name() != dialect.MySQL {
		q = q.ForeignKey("(?) REFERENCES ? (?) ON DELETE CASCADE", bun.Ident("owner_id"), bun.Ident("game_users"), bun.Ident("id"))
	}
	if _, err := q.Exec(ctx); err != nil {
		return err
	}
	if err := mysqlUserRef(ctx, db, "guilds", "owner_id", "NOT NULL", "CASCADE"); err != nil {
		return err
	}
	blob := "BYTEA"
	switch db.Dialect().Name() {
	case dialect.SQLite:
		blob = "BLOB"
	case dialect.MySQL:
		blob = "MEDIUMBLOB"
	}
	for _, step := range []struct{ probe, add string }{
		{"recruiting", `ALTER TABLE guilds ADD COLUMN recruiting BOOLEAN NOT NULL DEFAULT TRUE`},
		{"emblem IS NULL", `ALTER TABLE guilds ADD COLUMN emblem ` + blob},
		{"treasury >= 0", `ALTER TABLE guilds ADD COLUMN treasury NUMERIC(12,2) NOT NULL DEFAULT 0`},
	} {
		var n int
		if db.NewSelect().TableExpr("guilds").ColumnExpr("count(*)").Where(step.probe).Limit(1).Scan(ctx, &n) == nil {
			continue // the column is there
		}
		if _, err := db.ExecContext(ctx, step.add); err != nil {
			return err
		}
	}
	return nil
}

// guildsResource is how guilds look in the panel: a per-row action for
// admins and a bulk action anyone signed in may run.
func guildsResource(db *bun.DB) *admin.Resource {
	return admin.DefineResource((*Guild)(nil), admin.ResourceConfig{
		Label: "Guilds",
		Icon:  "team",
		List: admin.ListConfig{
			Columns:     []string{"name", "owner_id", "created_at"},
			DefaultSort: admin.Sort{Field: "name"},
		},
		Form:    admin.FormConfig{Fields: []string{"name", "owner_id", "recruiting", "treasury"}},
		Columns: map[string]admin.ColumnConfig{"owner_id": {Label: "Owner"}},
		Actions: []admin.Action{
			{
				Name: "disband", Label: "Disband", PerRow: true,
				Roles:   []admin.Role{admin.RoleAdmin},
				Confirm: &admin.Confirm{Title: "Disband guild?", Description: "The guild is deleted; its members become guildless."},
				Handler: func(ctx context.Context, row map[string]any, _ admin.ActionContext) (any, error) {
					res, err := db.NewDelete().Model((*Guild)(nil)).Where("id = ?", row["id"]).Exec(ctx)
					if err != nil {
						return nil, err
					}
					if n, _ := res.RowsAffected(); n == 0 {
						return nil, admin.NewError(http.StatusConflict, "already_disbanded", "the guild is gone already")
					}
					return map[string]any{"disbanded": row["name"]}, nil
				},
			},
			{
				// Recount counts the ticked guilds, or all of them when
				// none are: c.IDs holds the selection, typed (int64 ids).
				Name: "recount", Label: "Recount",
				Handler: func(ctx context.Context, _ map[string]any, c admin.ActionContext) (any, error) {
					var stats struct {
						Guilds int `bun:"guilds"`
						Owners int `bun:"owners"`
					}
					q := db.NewSelect().Model((*Guild)(nil)).
						ColumnExpr("COUNT(*) AS guilds").ColumnExpr("COUNT(DISTINCT owner_id) AS owners")
					if c.IDs != nil {
						ids := make([]int64, len(c.IDs))
						for i, id := range c.IDs {
							ids[i] = id["id"].(int64)
						}
						q = q.Where("id IN (?)", bun.List(ids))
					}
					err := q.Scan(ctx, &stats)
					if err != nil {
						return nil, fmt.Errorf("recount: %w", err)
					}
					return stats, nil
				},
			},
		},
	})
}
