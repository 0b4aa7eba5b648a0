package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gameadmin/admin/internal/account"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/users"
	bunschema "github.com/uptrace/bun/schema"
)

// The users table as the panel reads it is package users'; here are its
// public name, the built-in model it defaults to, and what the users
// resource adds to the users the panel creates.

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

// newUserDefaults are the values the users resource's Create.Defaults
// (and its model's insert hook) give a new user, for users the panel
// creates outside the users resource (bootstrap): a users table with NOT
// NULL columns of the game's own takes them from there, as POST /users
// does.
func (a usersAPI) newUserDefaults(ctx context.Context) (map[string]any, error) {
	res := a.resources["users"]
	if res == nil {
		return nil, nil
	}
	// CreateUser's own values win.
	vals := map[string]any{}
	if err := rowsAPI(a).applyDefaults(ctx, Operator{}, res, vals); err != nil {
		return nil, err
	}
	return vals, nil
}

// bootstrapDefaults are the columns the first admin's users row needs
// beyond email and password, for a game's users table with NOT NULL
// columns of its own: the users resource's Create.Defaults, and a display
// name from the email's local part when that column is required and the
// body gives none. A column still missing answers 400 naming it.
func (a usersAPI) bootstrapDefaults(ctx context.Context, c account.Credentials) (map[string]any, error) {
	vals, err := a.newUserDefaults(ctx)
	if err != nil || vals == nil {
		return vals, err
	}
	if dn := a.users.Cols.DisplayName; dn != "" && c.DisplayName == "" && vals[dn] == nil {
		if col, ok := a.resources["users"].Table.ByName[dn]; ok && col.NotNull && !col.HasDefault {
			vals[dn], _, _ = strings.Cut(strings.TrimSpace(c.Email), "@")
		}
	}
	return vals, nil
}

// banField is the field a users row carries, with UserColumns.BanUntil,
// holding its ban as the JSON ban column would (reason and until of a
// BanInfo, until absent for good; null when not banned): the
// catalog's banColumn names it, so the UI's ban state, badge and
// buttons read an until-column as they read the JSON one.
const banField = "_ban"

// addBans sets banField on users rows read from a table whose ban is an
// until-column (and reason column): what users.Table.Ban reads from
// them, null when not banned, absent when op's role cannot read the
// until-column. A value that is no time is logged and left out.
func (a usersAPI) addBans(ctx context.Context, res *resource, rows []map[string]any) {
	u := a.users
	if res.Key != "users" || u.Cols.BanUntil == "" || !u.HasTokenVersion {
		return
	}
	for _, row := range rows {
		raw, ok := row[u.Cols.BanUntil]
		if !ok {
			continue
		}
		st := users.BanState{Raw: users.RawValue{V: raw}}
		if r, ok := row[u.Cols.BanReason].(string); ok {
			st.Reason.String, st.Reason.Valid = r, true
		}
		ban, err := u.Ban(fmt.Sprint(row[u.Cols.ID]), st)
		if err != nil {
			a.log.WarnContext(ctx, "admin: users row's ban column", "err", err)
			continue
		}
		if ban == nil || !ban.Active(a.now()) {
			row[banField] = nil
			continue
		}
		// Who banned and when are the audit log's: left out, not zero.
		b := map[string]any{}
		if ban.Reason != "" {
			b["reason"] = ban.Reason
		}
		if ban.Until != nil {
			b["until"] = ban.Until
		}
		row[banField] = b
	}
}

// banColumn is the catalog's banColumn of the users resource seen
// through view: the JSON ban column, or banField for an until-column;
// "" when bans are off or op's role does not see the column.
func (a usersAPI) banColumn(view map[string]*schema.Column) string {
	u := a.users
	switch {
	case !u.HasBan || !u.HasTokenVersion:
		return ""
	case u.Cols.BanUntil != "" && view[u.Cols.BanUntil] != nil:
		return banField
	case u.Cols.Ban != "" && view[u.Cols.Ban] != nil:
		return u.Cols.Ban
	}
	return ""
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
