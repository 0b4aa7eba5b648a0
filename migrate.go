package admin

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
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

// The built-in schema is declared once, here: the DDL of every dialect,
// the columns the panel treats as filled by the database, and the test
// that checks the Go models against the live tables all read tableDefs.

// colType is a column's type, resolved per dialect by sqlType.
type colType int

const (
	tText   colType = iota
	tUserID         // the users table's id type: references to a user
	tJSON
	tTime
	tBigint
	tSerial // an auto-increment primary key
	tBool
)

// colDef is one column of a built-in table.
type colDef struct {
	name    string
	typ     colType
	notNull bool
	unique  bool
	def     string // SQL default: "now" for the current time, else a literal
	check   string // a CHECK expression on the column
	// hook marks a column the model's BeforeAppendModel fills on insert
	// (the users id): the database has no default, the panel may omit it.
	hook bool
}

// fkDef is a foreign key of a built-in table. Target is "users" (the
// users table, whatever its name) or the base name of a built-in table;
// the key is declared only when the library creates the target too, or
// when the target is the users table.
type fkDef struct {
	col      string
	target   string
	onDelete string
}

// tableDef is a built-in table.
type tableDef struct {
	key     string // its key in Options.Tables; "" for tables no resource shows
	base    string // its name without the prefix
	model   any    // its Bun model, a typed nil pointer
	version int    // the migration step that creates it
	panel   bool   // the panel's own table: created whatever Options.Tables says
	cols    []colDef
	pk      []string // for tables without a tSerial column
	fks     []fkDef
	indexes [][]string
	// sqlIndexes are CREATE INDEX statements with the placeholders of fill.
	sqlIndexes []string
}

// usersLowerEmail serves sign-in, which matches emails without regard to
// case: lower(email) = lower($1) is an index scan, not a sequential one.
// (emailIndexSuggestion says the same for a game's own users table.)
const usersLowerEmail = `CREATE INDEX IF NOT EXISTS "{prefix}users_lower_email_idx" ON {table:users} (lower("email"))`

// Steps 1 (every built-in table) and 3 (TOTP) of earlier development
// versions created what steps 10 to 18 and 19 to 20 create now.
var legacySteps = map[int][]int{1: {10, 11, 12, 13, 14, 15, 16, 17, 18}, 3: {19, 20}}

var now = "now"

// tableDefs are the built-in tables in creation order (a table comes after
// those its foreign keys name). ON DELETE: a user's role, saves, entries,
// notes about them and second factor go with them (CASCADE); a note's
// author becomes unknown (SET NULL). Analytics events and the audit log
// are records that outlive the user, so their user columns declare no
// foreign key, and the audit's target_id may name a row of any table.
var tableDefs = []*tableDef{
	{key: "users", base: "users", model: (*User)(nil), version: 10, cols: []colDef{
		{name: "id", typ: tText, hook: true},
		{name: "email", typ: tText, notNull: true, unique: true},
		{name: "display_name", typ: tText},
		{name: "password_hash", typ: tText},
		{name: "ban", typ: tJSON},
		{name: "token_version", typ: tBigint, notNull: true, def: "0"},
		{name: "created_at", typ: tTime, notNull: true, def: now},
	}, pk: []string{"id"}, sqlIndexes: []string{usersLowerEmail}},
	{key: "configs", base: "configs", model: (*Config)(nil), version: 11, cols: []colDef{
		{name: "key", typ: tText},
		{name: "value", typ: tJSON},
		{name: "updated_at", typ: tTime, notNull: true, def: now},
	}, pk: []string{"key"}},
	{key: "leaderboards", base: "leaderboards", model: (*Leaderboard)(nil), version: 12, cols: []colDef{
		{name: "id", typ: tText},
		{name: "name", typ: tText, notNull: true},
		{name: "sort_order", typ: tText, notNull: true, def: "'desc'"},
		{name: "created_at", typ: tTime, notNull: true, def: now},
	}, pk: []string{"id"}},
	{key: "analyticsEvents", base: "analytics_events", model: (*AnalyticsEvent)(nil), version: 13, cols: []colDef{
		{name: "id", typ: tSerial},
		{name: "user_id", typ: tUserID},
		{name: "name", typ: tText, notNull: true},
		{name: "payload", typ: tJSON},
		{name: "created_at", typ: tTime, notNull: true, def: now},
	}, indexes: [][]string{{"created_at"}, {"user_id"}}},
	{key: "cloudSaves", base: "cloud_saves", model: (*CloudSave)(nil), version: 14, cols: []colDef{
		{name: "user_id", typ: tUserID, notNull: true},
		{name: "slot", typ: tText, notNull: true},
		{name: "data", typ: tJSON},
		{name: "version", typ: tBigint, notNull: true, def: "0"},
		{name: "updated_at", typ: tTime, notNull: true, def: now},
	}, pk: []string{"user_id", "slot"}, fks: []fkDef{{"user_id", "users", "CASCADE"}}},
	{key: "leaderboardEntries", base: "leaderboard_entries", model: (*LeaderboardEntry)(nil), version: 15, cols: []colDef{
		{name: "leaderboard_id", typ: tText, notNull: true},
		{name: "user_id", typ: tUserID, notNull: true},
		{name: "score", typ: tBigint, notNull: true, def: "0"},
		{name: "metadata", typ: tJSON},
		{name: "updated_at", typ: tTime, notNull: true, def: now},
	}, pk: []string{"leaderboard_id", "user_id"},
		fks:     []fkDef{{"leaderboard_id", "leaderboards", "CASCADE"}, {"user_id", "users", "CASCADE"}},
		indexes: [][]string{{"user_id"}, {"leaderboard_id", "score"}}},
	{key: "roles", base: "roles", model: (*RoleAssignment)(nil), version: 16, panel: true, cols: []colDef{
		{name: "user_id", typ: tUserID},
		{name: "role", typ: tText, notNull: true, check: "role IN ('admin', 'mod', 'user')"},
		{name: "scopes", typ: tJSON, notNull: true, def: "'[]'"},
		{name: "updated_at", typ: tTime, notNull: true, def: now},
	}, pk: []string{"user_id"}, fks: []fkDef{{"user_id", "users", "CASCADE"}}, indexes: [][]string{{"role"}}},
	{key: "userNotes", base: "user_notes", model: (*UserNote)(nil), version: 17, cols: []colDef{
		{name: "id", typ: tSerial},
		{name: "user_id", typ: tUserID, notNull: true},
		{name: "author_id", typ: tUserID},
		{name: "body", typ: tText, notNull: true},
		{name: "created_at", typ: tTime, notNull: true, def: now},
	}, fks: []fkDef{{"user_id", "users", "CASCADE"}, {"author_id", "users", "SET NULL"}}, indexes: [][]string{{"user_id"}}},
	{key: "adminAudit", base: "admin_audit", model: (*AuditEntry)(nil), version: 18, panel: true, cols: []colDef{
		{name: "id", typ: tSerial},
		{name: "created_at", typ: tTime, notNull: true, def: now},
		{name: "operator_id", typ: tUserID},
		{name: "action", typ: tText, notNull: true},
		{name: "resource", typ: tText, notNull: true},
		{name: "target_id", typ: tText},
		{name: "payload", typ: tJSON},
	}, indexes: [][]string{{"created_at"}, {"operator_id"}}},
	{base: "operator_totp", model: (*operatorTOTP)(nil), version: 19, panel: true, cols: []colDef{
		{name: "user_id", typ: tUserID},
		{name: "secret", typ: tText, notNull: true},
		{name: "enabled", typ: tBool, notNull: true, def: "FALSE"},
		{name: "last_step", typ: tBigint, notNull: true, def: "0"},
		{name: "created_at", typ: tTime, notNull: true, def: now},
		{name: "confirmed_at", typ: tTime},
	}, pk: []string{"user_id"}, fks: []fkDef{{"user_id", "users", "CASCADE"}}},
	{base: "operator_recovery_codes", model: (*recoveryCode)(nil), version: 20, panel: true, cols: []colDef{
		{name: "user_id", typ: tUserID, notNull: true},
		{name: "code_hash", typ: tText, notNull: true},
		{name: "used_at", typ: tTime},
	}, pk: []string{"user_id", "code_hash"}, fks: []fkDef{{"user_id", "users", "CASCADE"}}},
	{base: "totp_challenges", model: (*totpChallenge)(nil), version: 22, panel: true, cols: []colDef{
		{name: "jti", typ: tText},
		{name: "user_id", typ: tUserID, notNull: true},
		{name: "failures", typ: tBigint, notNull: true, def: "0"},
		{name: "expires_at", typ: tTime, notNull: true},
	}, pk: []string{"jti"}, fks: []fkDef{{"user_id", "users", "CASCADE"}}, indexes: [][]string{{"user_id"}}},
}

// alterStep is a later change to a built-in table. Its sql uses the
// placeholders of schemaPlan.fill. A table created after the step was
// written already has the change (tableDefs hold the current shape), so
// creating the table records its alter steps without running them.
type alterStep struct {
	version int
	name    string
	base    string
	sql     string
}

var alterSteps = []alterStep{
	{version: 21, name: "index lower(email) of users", base: "users", sql: usersLowerEmail},
}

// builtinDef returns the built-in table of that key whose model is model,
// or nil: a key the game gave its own model is the game's table.
func builtinDef(key string, model any) *tableDef {
	for _, d := range tableDefs {
		if d.key == key && d.key != "" && reflect.TypeOf(d.model) == reflect.TypeOf(model) {
			return d
		}
	}
	return nil
}

// schemaPlan is what the built-in schema looks like for one Options on one
// dialect: the tables New needs, their names and the users id type.
type schemaPlan struct {
	dialect  dialect.Name
	prefix   string
	users    string // the users table's name
	usersID  string // its id column
	userType string // the SQL type of its id column
	// userKind is that type as PostgreSQL names it on either dialect
	// (SQLite holds a UUID as TEXT): what a value for a user column is
	// checked against before it reaches the database.
	userKind string
	tables   []*tableDef
}

// newSchemaPlan decides the built-in tables New needs with tables (an
// Options.Tables with defaults applied) and the users model's id type.
func newSchemaPlan(d bunschema.Dialect, prefix string, tables map[string]any, users *userTable) (*schemaPlan, error) {
	p := &schemaPlan{dialect: d.Name(), prefix: prefix, users: users.name, usersID: users.cols.ID}
	switch p.dialect {
	case dialect.PG, dialect.SQLite:
	default:
		return nil, fmt.Errorf("admin: unsupported dialect %s (PostgreSQL and SQLite are supported)", p.dialect)
	}
	p.userType, p.userKind = "TEXT", "TEXT"
	if !users.builtin {
		p.userType, p.userKind = idSQLType(p.dialect, users.idField), idSQLType(dialect.PG, users.idField)
	}
	for _, def := range tableDefs {
		if def.panel || (def.key != "" && builtinDef(def.key, tables[def.key]) != nil) {
			p.tables = append(p.tables, def)
		}
	}
	return p, nil
}

// idSQLType is the SQL type the built-in tables give their user columns
// when the users table is the game's: that of its id column.
func idSQLType(d dialect.Name, f *bunschema.Field) string {
	st := strings.ToLower(strings.TrimSpace(cmp.Or(f.UserSQLType, f.CreateTableSQLType, f.DiscoveredSQLType)))
	switch {
	case st == "bigserial" || st == "serial8" || st == "bigint" || st == "int8":
		return "BIGINT"
	case st == "serial" || st == "serial4" || st == "integer" || st == "int" || st == "int4":
		return "INTEGER"
	case st == "uuid":
		if d == dialect.PG {
			return "UUID"
		}
		return "TEXT"
	}
	switch f.IndirectType.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "BIGINT"
	case reflect.Array:
		if d == dialect.PG {
			return "UUID"
		}
	}
	return "TEXT"
}

// name is the table's name under the prefix.
func (p *schemaPlan) name(base string) string {
	if base == "users" {
		return p.users
	}
	return p.prefix + base
}

func (p *schemaPlan) has(base string) bool {
	return base == "users" || slices.ContainsFunc(p.tables, func(d *tableDef) bool { return d.base == base })
}

func (p *schemaPlan) sqlType(t colType) string {
	pg := p.dialect == dialect.PG
	switch t {
	case tUserID:
		return p.userType
	case tJSON:
		if pg {
			return "JSONB"
		}
		// JSON is held as TEXT: a declared type of JSON would get NUMERIC
		// affinity and turn a stored "123" into an integer.
		return "TEXT"
	case tTime:
		if pg {
			return "TIMESTAMPTZ"
		}
		return "TIMESTAMP"
	case tBigint:
		return "BIGINT"
	case tSerial:
		if pg {
			return "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
		}
		return "INTEGER PRIMARY KEY AUTOINCREMENT"
	case tBool:
		return "BOOLEAN"
	}
	return "TEXT"
}

func (p *schemaPlan) defaultSQL(def string) string {
	if def != now {
		return def
	}
	if p.dialect == dialect.PG {
		return "now()"
	}
	return "CURRENT_TIMESTAMP"
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// create returns the statements that create def.
func (p *schemaPlan) create(def *tableDef) []string {
	name := p.name(def.base)
	var lines []string
	for _, c := range def.cols {
		l := "\t" + quote(c.name) + " " + p.sqlType(c.typ)
		if c.notNull || slices.Contains(def.pk, c.name) {
			l += " NOT NULL" // SQLite lets a primary key that is not INTEGER hold NULL otherwise
		}
		if c.unique {
			l += " UNIQUE"
		}
		if c.def != "" {
			l += " DEFAULT " + p.defaultSQL(c.def)
		}
		if c.check != "" {
			l += " CHECK (" + c.check + ")"
		}
		lines = append(lines, l)
	}
	if len(def.pk) > 0 {
		lines = append(lines, "\tPRIMARY KEY ("+quoteList(def.pk)+")")
	}
	for _, fk := range def.fks {
		if !p.has(fk.target) {
			continue // the game replaced the target table: its keys are its own
		}
		ref := "id"
		if fk.target == "users" {
			ref = p.usersID
		}
		lines = append(lines, fmt.Sprintf("\tFOREIGN KEY (%s) REFERENCES %s (%s) ON DELETE %s",
			quote(fk.col), quote(p.name(fk.target)), quote(ref), fk.onDelete))
	}
	out := []string{"CREATE TABLE IF NOT EXISTS " + quote(name) + " (\n" + strings.Join(lines, ",\n") + "\n)"}
	for _, idx := range def.sqlIndexes {
		out = append(out, p.fill(idx))
	}
	for _, idx := range def.indexes {
		out = append(out, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)",
			quote(name+"_"+strings.Join(idx, "_")+"_idx"), quote(name), quoteList(idx)))
	}
	return out
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, ", ")
}

// fill replaces the placeholders of an alter step: {prefix}, {table:<base>}, {user_id}
// (the users id type), {json}, {ts}, {now}.
func (p *schemaPlan) fill(s string) string {
	r := []string{"{prefix}", p.prefix, "{user_id}", p.userType, "{json}", p.sqlType(tJSON), "{ts}", p.sqlType(tTime), "{now}", p.defaultSQL(now)}
	for _, d := range tableDefs {
		r = append(r, "{table:"+d.base+"}", quote(p.name(d.base)))
	}
	return strings.NewReplacer(r...).Replace(s)
}

func (p *schemaPlan) schemaTable() string { return p.prefix + "admin_schema" }

func (p *schemaPlan) schemaTableDDL() string {
	return "CREATE TABLE IF NOT EXISTS " + quote(p.schemaTable()) + " (\n\tversion INTEGER PRIMARY KEY,\n\tname " +
		p.sqlType(tText) + " NOT NULL,\n\tapplied_at " + p.sqlType(tTime) + " NOT NULL DEFAULT " + p.defaultSQL(now) + "\n)"
}

// step is one versioned change the plan needs.
type step struct {
	version int
	name    string
	stmts   []string
	covers  []int // alter steps a fresh creation makes unnecessary
}

// steps are the plan's migration steps in order.
func (p *schemaPlan) steps() []step {
	var out []step
	for _, def := range p.tables {
		s := step{version: def.version, name: "create " + p.name(def.base), stmts: p.create(def)}
		for _, a := range alterSteps {
			if a.base == def.base {
				s.covers = append(s.covers, a.version)
			}
		}
		out = append(out, s)
	}
	for _, a := range alterSteps {
		// has("users") is true for a game's users table too (foreign keys
		// name it); the panel alters only the tables it creates.
		if p.has(a.base) && slices.ContainsFunc(p.tables, func(d *tableDef) bool { return d.base == a.base }) {
			out = append(out, step{version: a.version, name: a.name, stmts: []string{p.fill(a.sql)}})
		}
	}
	return out
}

// migrateLockID is the PostgreSQL advisory lock that serializes migrations
// when several game-server nodes start at once.
const migrateLockID = 0x67616d6561646d

// appliedSteps reads the recorded versions, legacy ones expanded.
func (p *schemaPlan) appliedSteps(ctx context.Context, db bun.IDB) ([]int, error) {
	var applied []int
	if err := db.NewSelect().TableExpr("?", bun.Ident(p.schemaTable())).Column("version").Scan(ctx, &applied); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	for _, v := range slices.Clone(applied) {
		applied = append(applied, legacySteps[v]...)
	}
	return applied, nil
}

// migrate brings the tables of the plan up to date. It runs in one
// transaction, under an advisory lock on PostgreSQL, so nodes starting
// together apply each step once; every step not recorded runs (versions
// added on parallel branches land in either order), so calling it again is
// a no-op.
func (p *schemaPlan) migrate(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if p.dialect == dialect.PG {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", migrateLockID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, p.schemaTableDDL()); err != nil {
			return err
		}
		applied, err := p.appliedSteps(ctx, tx)
		if err != nil {
			return err
		}
		for _, s := range p.steps() {
			if slices.Contains(applied, s.version) {
				continue
			}
			for _, stmt := range s.stmts {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("admin: migration %d (%s): %w", s.version, s.name, err)
				}
			}
			for _, v := range append([]int{s.version}, s.covers...) {
				if _, err := tx.NewRaw("INSERT INTO ? (version, name) VALUES (?, ?) ON CONFLICT DO NOTHING",
					bun.Ident(p.schemaTable()), v, s.name).Exec(ctx); err != nil {
					return err
				}
				applied = append(applied, v)
			}
		}
		return nil
	})
}

// verify is MigrateOff's check: every step recorded, every table there.
func (p *schemaPlan) verify(ctx context.Context, db *bun.DB) error {
	applied, err := p.appliedSteps(ctx, db)
	if err != nil {
		return fmt.Errorf("admin: Migrations is MigrateOff but the schema table %s cannot be read (apply admin.MigrationSQL's statements first): %w", p.schemaTable(), err)
	}
	var missing []string
	for _, s := range p.steps() {
		if !slices.Contains(applied, s.version) {
			missing = append(missing, fmt.Sprintf("step %d (%s)", s.version, s.name))
		}
	}
	for _, def := range p.tables {
		if _, err := db.NewSelect().TableExpr("?", bun.Ident(p.name(def.base))).ColumnExpr("1").Where("1 = 0").Exec(ctx); err != nil {
			missing = append(missing, "table "+p.name(def.base))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("admin: Migrations is MigrateOff and the schema is not up to date; missing: %s (apply admin.MigrationSQL's statements, or use MigrateAuto)", strings.Join(missing, ", "))
	}
	return nil
}

// sql is every statement of the plan, idempotent: the schema table, each
// step and its record.
func (p *schemaPlan) sql() []string {
	out := []string{p.schemaTableDDL()}
	for _, s := range p.steps() {
		out = append(out, s.stmts...)
		for _, v := range append([]int{s.version}, s.covers...) {
			out = append(out, fmt.Sprintf("INSERT INTO %s (version, name) VALUES (%d, '%s') ON CONFLICT DO NOTHING",
				quote(p.schemaTable()), v, strings.ReplaceAll(s.name, "'", "''")))
		}
	}
	return out
}

// MigrationSQL returns the statements that create the built-in tables New
// needs with opts, in order, for review or for the game's own migration
// tool (then set opts.Migrations to MigrateOff). d is a bun
// schema.Dialect, a dialect.Name, or a name: "pg" (or "postgres") or
// "sqlite". Every statement is idempotent. The statements name the
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
		default:
			return nil, fmt.Errorf("admin: MigrationSQL: unknown dialect %q (pg or sqlite)", v)
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
	users, err := newUserTable(dia.Tables(), tables["users"], prefix, opts.UserColumns)
	if err != nil {
		return nil, err
	}
	p, err := newSchemaPlan(dia, prefix, tables, users)
	if err != nil {
		return nil, err
	}
	out := p.sql()
	if !users.builtin {
		out[0] = emailIndexSuggestion(users) + "\n" + out[0]
	}
	return out, nil
}

// emailIndexSuggestion heads MigrationSQL's first statement for a game's
// own users table: a comment, never run by the panel, proposing
// the index that keeps sign-in (which matches emails without regard to
// case) off a sequential scan. Building it on a large table is the
// game's call: on PostgreSQL, CONCURRENTLY avoids blocking writes.
func emailIndexSuggestion(u *userTable) string {
	return fmt.Sprintf("-- Suggested for your users table (sign-in matches emails without regard to case; "+
		"on PostgreSQL add CONCURRENTLY on a live table):\n-- CREATE INDEX IF NOT EXISTS %s ON %s (lower(%s))",
		quote(u.name+"_lower_"+u.cols.Email+"_idx"), quote(u.name), quote(u.cols.Email))
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
	if key == "users" {
		return a.users.name
	}
	for _, d := range tableDefs {
		if d.key == key && d.key != "" {
			return string(a.tableNames) + d.base
		}
	}
	return ""
}

// tableNames names the built-in tables: it is Options.TablePrefix,
// defaulted. The panel and each service that queries a built-in table
// hold it.
type tableNames string

// tbl is the quoted name of the built-in table of that base name.
func (p tableNames) tbl(base string) bun.Ident { return bun.Ident(string(p) + base) }

// aliased is `"<prefix><base>" AS "<alias>"`, the ModelTableExpr of a
// built-in model's select, update and delete queries.
func (p tableNames) aliased(base, alias string) bun.Safe {
	return bun.Safe(quote(string(p)+base) + " AS " + quote(alias))
}

// checkForeignKeys warns when SQLite does not enforce the foreign keys the
// built-in tables declare (PRAGMA foreign_keys is per connection and off
// by default: add _pragma=foreign_keys(1) to the DSN).
func (a *Admin) checkForeignKeys(ctx context.Context) {
	if a.db.Dialect().Name() != dialect.SQLite {
		return
	}
	var on int
	if err := a.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&on); err != nil || on != 1 {
		a.log.Warn("admin: SQLite foreign_keys is off, so references to missing rows are not refused; add _pragma=foreign_keys(1) to the DSN")
	}
}
