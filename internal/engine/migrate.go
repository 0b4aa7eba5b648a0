package engine

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/gameadmin/admin/internal/migrate"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/gameadmin/admin/internal/users"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	bunschema "github.com/uptrace/bun/schema"
)

// MigrationMode says whether New creates the built-in tables.
type MigrationMode int

const (
	// MigrateAuto (the default) makes New create the built-in tables it
	// needs and record each step in <TablePrefix>admin_schema.
	MigrateAuto MigrationMode = iota
	// MigrateOff makes New only verify that every step it needs is
	// recorded and every table exists, failing with a message naming what
	// is missing. The game applies MigrationSQL's statements with its own
	// migration tool.
	MigrateOff
)

// DefaultTablePrefix names the built-in tables unless Options.TablePrefix
// says otherwise.
const DefaultTablePrefix = "game_"

// builtinDef returns the built-in table of that key whose model is model,
// or nil: a key the game gave its own model is the game's table.
func builtinDef(key string, model any) *migrate.Table {
	for _, d := range builtinSchema.Tables {
		if d.Key == key && d.Key != "" && reflect.TypeOf(d.Model) == reflect.TypeOf(model) {
			return d
		}
	}
	return nil
}

// newSchemaPlan plans the built-in tables New needs with tables (an
// Options.Tables with defaults applied) and the users model's id type.
func newSchemaPlan(d bunschema.Dialect, prefix string, tables map[string]any, ut *users.Table) (*migrate.Plan, error) {
	u := migrate.Users{Name: ut.Name, ID: ut.Cols.ID}
	if !ut.Builtin {
		u.IDField = ut.IDField
	}
	return migrate.NewPlan(builtinSchema, d.Name(), prefix, u, func(t *migrate.Table) bool {
		return builtinDef(t.Key, tables[t.Key]) != nil
	})
}

// BuiltinPlan plans every built-in table, with the built-in users table,
// named with prefix on dialect d, MySQL included: what New makes with the
// default Tables.
func BuiltinPlan(d dialect.Name, prefix string) (*migrate.Plan, error) {
	return migrate.NewPlan(builtinSchema, d, prefix, migrate.Users{Name: prefix + "users", ID: "id"},
		func(*migrate.Table) bool { return true })
}

// MigrationSQL returns the statements that create the built-in tables New
// needs with opts, in order, for review or for the game's own migration
// tool (then set opts.Migrations to MigrateOff). d is a bun
// schema.Dialect, a dialect.Name, or a name: "pg" (or "postgres"),
// "sqlite", or "mysql" (or "mariadb"). Every statement is idempotent. The statements name the
// tables with opts.TablePrefix, give user columns the type of the users
// table's id column, and end by recording each step in
// <TablePrefix>admin_schema, which New with MigrateOff checks.
func MigrationSQL(d any, opts Options) ([]string, error) {
	var dia bunschema.Dialect
	switch v := d.(type) {
	case bunschema.Dialect:
		dia = v
	case dialect.Name:
		return MigrationSQL(v.String(), opts)
	case string:
		switch strings.ToLower(v) {
		case "pg", "postgres", "postgresql":
			dia = pgdialect.New()
		case "sqlite", "sqlite3":
			dia = sqlitedialect.New()
		case "mysql", "mariadb":
			dia = mysqldialect.New()
		default:
			return nil, fmt.Errorf("admin: MigrationSQL: unknown dialect %q (pg, sqlite or mysql)", v)
		}
	default:
		return nil, fmt.Errorf("admin: MigrationSQL: dialect must be a schema.Dialect, dialect.Name or name, got %T", d)
	}
	prefix, err := tablePrefix(opts.TablePrefix)
	if err != nil {
		return nil, err
	}
	tables := opts.Tables
	if tables == nil {
		tables = BuiltinTables()
	}
	if tables, err = resourceTables(tables, opts.Resources); err != nil {
		return nil, err
	}
	if err := checkUsersTable(tables); err != nil {
		return nil, err
	}
	ut, err := newUserTable(dia.Tables(), tables["users"], prefix, opts.UserColumns)
	if err != nil {
		return nil, err
	}
	p, err := newSchemaPlan(dia, prefix, tables, ut)
	if err != nil {
		return nil, err
	}
	out := p.SQL()
	if !ut.Builtin && ut.HasEmail {
		out[0] = emailIndexSuggestion(dia.Name(), ut) + "\n" + out[0]
	}
	return out, nil
}

// emailIndexSuggestion heads MigrationSQL's first statement for a game's
// own users table: a comment, never run by the panel, proposing
// the index that keeps sign-in (which matches emails without regard to
// case) off a sequential scan. Building it on a large table is the
// game's call: on PostgreSQL, CONCURRENTLY avoids blocking writes. On
// MySQL, where an index cannot be of lower(email) on MariaDB, it is of
// the column, which a case-insensitive (_ci) collation makes serve.
func emailIndexSuggestion(d dialect.Name, u *users.Table) string {
	if d == dialect.MySQL {
		q := func(n string) string { return sqldialect.Quote(d, n) }
		return fmt.Sprintf("-- Suggested for your users table (sign-in matches emails without regard to case; "+
			"with a _ci collation on the column, this index serves it):\n-- CREATE INDEX IF NOT EXISTS %s ON %s (%s)",
			q(u.Name+"_"+u.Cols.Email+"_idx"), q(u.Name), q(u.Cols.Email))
	}
	return fmt.Sprintf("-- Suggested for your users table (sign-in matches emails without regard to case; "+
		"on PostgreSQL add CONCURRENTLY on a live table):\n-- CREATE INDEX IF NOT EXISTS %s ON %s (lower(%s))",
		migrate.Quote(u.Name+"_lower_"+u.Cols.Email+"_idx"), migrate.Quote(u.Name), migrate.Quote(u.Cols.Email))
}

// tablePrefix checks Options.TablePrefix: letters, digits and underscores.
func tablePrefix(s string) (string, error) {
	if s == "" {
		return DefaultTablePrefix, nil
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "", fmt.Errorf("admin: TablePrefix %q: only letters, digits and underscores", s)
		}
	}
	return s, nil
}

// TableName returns the SQL name of a built-in table under
// Options.TablePrefix, by its key in BuiltinTables ("roles",
// "adminAudit", ...; "users" gives the users table, whatever model it
// is), or "" for another key. A game that reads a built-in model under a
// prefix other than "game_" names the table with it:
//
//	db.NewSelect().Model(&notes).ModelTableExpr("? AS un", bun.Ident(a.TableName("userNotes")))
func (a *Admin) TableName(key string) string {
	if key == users.Key {
		return a.users.Name
	}
	for _, d := range builtinSchema.Tables {
		if d.Key == key && d.Key != "" {
			return string(a.tableNames) + d.Base
		}
	}
	return ""
}

// tableNames names the built-in tables: it is Options.TablePrefix,
// defaulted. The panel holds it; the packages that query a built-in
// table (users, account, audit) are handed the names it makes.
type tableNames string

// tbl is the quoted name of the built-in table of that base name.
func (p tableNames) tbl(base string) bun.Ident { return bun.Ident(string(p) + base) }
