package engine

import (
	"context"
	"errors"

	"github.com/gameadmin/admin/internal/users"
	bunschema "github.com/uptrace/bun/schema"
)

// The users table as the panel reads it is package users'; here are its
// public name and the built-in model it defaults to. The users resource's
// behaviour of its own is users_resource.go's.

// UserColumns maps the panel's user fields onto the columns of the users
// table (Options.Tables["users"]), by SQL name. An empty field keeps its
// default, today's built-in name. ID, Email and PasswordHash must exist;
// ID must be the table's single primary key. DisplayName, TokenVersion
// and Ban are optional: without TokenVersion, "sign out everywhere",
// revoke-sessions and single-use reset links are off; without Ban (or
// TokenVersion), ban and unban are off; those endpoints answer 501 and New
// logs which features are off. CreatedAt is optional too. Naming a column
// the model does not have is an error at New.
type UserColumns = users.Columns

// BanTable is the game's own table of bans (UserColumns.BanTable): the
// root's BanTable documents it.
type BanTable = users.BanTable

// newUserTable reads the users table of model (Options.Tables["users"]),
// the built-in User when nil.
func newUserTable(tables *bunschema.Tables, model any, prefix string, uc UserColumns) (*users.Table, error) {
	return users.New(tables, model, (*User)(nil), prefix, uc)
}

// warnPlayersCanRead logs, once at start, that the users table holds
// accounts without a panel role (players, most likely) while
// PlayersCanRead is on: each of them can sign in to the panel and list
// and read every resource, which an integrator who opted in for a table
// of operators alone may not have meant. The query stops at the first
// such row.
func (a *compiler) warnPlayersCanRead(ctx context.Context) {
	exists, err := a.roles.HasPlayers(ctx, a.db)
	if err != nil || !exists {
		return
	}
	a.log.Warn("admin: PlayersCanRead is on and the users table " + a.users.Name + " holds accounts without a panel role (players?): each can sign in to the panel and list and read every resource, other players' emails included; leave Options.PlayersCanRead off unless that is meant (docs/security.md)")
}

// checkUsersTable fails New (and MigrationSQL) when tables, the
// Options.Tables a game gave, with its Resources' models, have no
// "users" entry: the panel would read a built-in users table that no
// migration creates, and answer its first sign-in with a 500.
func checkUsersTable(tables map[string]any) error {
	if _, ok := tables["users"]; ok {
		return nil
	}
	return errors.New(`admin: Options.Tables has no "users" entry, the table operators sign in from: ` +
		`map "users" to your players model (Tables: {"users": (*Player)(nil), ...}, with UserColumns naming its columns), ` +
		`or keep the built-in users table and add yours to it: Tables: admin.BuiltinTables() plus your entries, ` +
		`or leave Tables nil and declare your tables as Resources (DefineResource)`)
}
