// Package migrate turns a declared set of tables into the DDL of each
// dialect and applies it as versioned steps: the machinery behind the
// panel's built-in tables. The admin package declares the tables (their
// Bun models live there) and decides which of them a panel needs.
package migrate

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/uptrace/bun/dialect"
	bunschema "github.com/uptrace/bun/schema"
)

// ColType is a column's type, resolved per dialect by Plan.SQLType.
type ColType int

// The column types of the built-in tables.
const (
	Text   ColType = iota
	UserID         // the users table's id type: references to a user
	JSON
	Time
	Bigint
	Serial // an auto-increment primary key
	Bool
)

// Now as a Col's Default is the current time, in each dialect's words.
const Now = "now"

// Col is one column of a table.
type Col struct {
	Name    string
	Type    ColType
	NotNull bool
	Unique  bool
	Default string // SQL default: Now for the current time, else a literal
	Check   string // a CHECK expression on the column
	// Hook marks a column the model's BeforeAppendModel fills on insert
	// (the users id): the database has no default, the panel may omit it.
	Hook bool
	// Fold marks a column compared without regard to case (the users'
	// email). On MySQL and MariaDB it takes a case-insensitive collation
	// (utf8mb4_unicode_ci), so its keys refuse Bob@x beside bob@x and
	// serve an equality lookup (MariaDB has no index on lower()).
	// PostgreSQL and SQLite ignore it: an index on lower() serves them.
	Fold bool
}

// FK is a foreign key. Target is "users" (the users table, whatever its
// name) or the base name of another table of the plan; the key is
// declared only when the plan creates the target too, or when the target
// is the users table.
type FK struct {
	Col      string
	Target   string
	OnDelete string
}

// Table is a table the plan may create.
type Table struct {
	Key     string // its key in Options.Tables; "" for tables no resource shows
	Base    string // its name without the prefix
	Model   any    // its Bun model, a typed nil pointer
	Version int    // the migration step that creates it
	Panel   bool   // the panel's own table: created whatever Options.Tables says
	Cols    []Col
	PK      []string // for tables without a Serial column
	FKs     []FK
	Indexes [][]string
	// SQLIndexes are CREATE INDEX statements with the placeholders of Fill.
	SQLIndexes []string
	// SQLIndexesFor replaces SQLIndexes on the dialects it names (an
	// empty list: none there), for an index a dialect writes otherwise or
	// cannot build (MariaDB has no index on an expression).
	SQLIndexesFor map[dialect.Name][]string
}

// Alter is a later change to a table. Its SQL uses the placeholders of
// Plan.Fill. A table created after the step was written already has the
// change (its Table holds the current shape), so creating the table
// records its alter steps without running them.
type Alter struct {
	Version int
	Name    string
	Base    string
	SQL     string
	// SQLFor replaces SQL on the dialects it names; "" there makes the
	// step a record without a statement (a change the dialect's tables
	// have from their creation, or cannot have).
	SQLFor map[dialect.Name]string
}

// Schema is every table a plan can draw on, in creation order (a table
// comes after those its foreign keys name), with the later changes and the
// step versions of earlier releases that newer steps replace.
type Schema struct {
	Tables []*Table
	Alters []Alter
	// Legacy maps a step recorded by an earlier release to the steps that
	// now create what it created.
	Legacy map[int][]int
}

// Users describes the users table the other tables refer to.
type Users struct {
	Name    string           // its SQL name
	ID      string           // its id column
	IDField *bunschema.Field // the model's id field; nil for the built-in table (TEXT ids)
}

// Plan is what a schema looks like for one set of options on one
// dialect: the tables needed, their names and the users id type.
type Plan struct {
	schema   *Schema
	dialect  dialect.Name
	prefix   string
	users    string
	usersID  string
	userType string
	// UserKind is the users id type as PostgreSQL names it on either
	// dialect (SQLite holds a UUID as TEXT): what a value for a user
	// column is checked against before it reaches the database.
	UserKind string
	tables   []*Table
}

// NewPlan plans the tables of s that need reports true for (and every
// Panel table), named with prefix, on dialect d.
func NewPlan(s *Schema, d dialect.Name, prefix string, users Users, need func(*Table) bool) (*Plan, error) {
	p := &Plan{schema: s, dialect: d, prefix: prefix, users: users.Name, usersID: users.ID}
	switch d {
	case dialect.PG, dialect.SQLite, dialect.MySQL:
	default:
		return nil, fmt.Errorf("admin: unsupported dialect %s (PostgreSQL, SQLite and MySQL are supported)", d)
	}
	p.userType, p.UserKind = "TEXT", "TEXT"
	if d == dialect.MySQL {
		// The built-in users table's id, and the columns referring to it,
		// compare exactly: utf8mb4_bin also wins a comparison with a game
		// column of any utf8mb4 collation (a general_ci table joined to
		// the users), where two different _ci collations are refused
		// (1267). A game's own column with a foreign key to it must be
		// utf8mb4_bin too (errno 150 otherwise).
		p.userType = mysqlKey + mysqlBin
	}
	if users.IDField != nil {
		p.userType, p.UserKind = IDSQLType(d, users.IDField), IDSQLType(dialect.PG, users.IDField)
	}
	for _, t := range s.Tables {
		if t.Panel || (t.Key != "" && need(t)) {
			p.tables = append(p.tables, t)
		}
	}
	if d == dialect.MySQL {
		if err := p.mysqlCheckNames(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// IDSQLType is the SQL type the built-in tables give their user columns
// when the users table is the game's: that of its id column.
func IDSQLType(d dialect.Name, f *bunschema.Field) string {
	st := strings.ToLower(strings.TrimSpace(cmp.Or(f.UserSQLType, f.CreateTableSQLType, f.DiscoveredSQLType)))
	if d == dialect.MySQL {
		return mysqlIDType(st, f.IndirectType.Kind())
	}
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

// Tables are the tables the plan creates, in order.
func (p *Plan) Tables() []*Table { return p.tables }

// Name is the table's name under the prefix.
func (p *Plan) Name(base string) string {
	if base == "users" {
		return p.users
	}
	return p.prefix + base
}

func (p *Plan) has(base string) bool {
	return base == "users" || slices.ContainsFunc(p.tables, func(t *Table) bool { return t.Base == base })
}

// SQLType is t in the plan's dialect.
func (p *Plan) SQLType(t ColType) string {
	if p.dialect == dialect.MySQL {
		return p.mysqlType(t)
	}
	pg := p.dialect == dialect.PG
	switch t {
	case UserID:
		return p.userType
	case JSON:
		if pg {
			return "JSONB"
		}
		// JSON is held as TEXT: a declared type of JSON would get NUMERIC
		// affinity and turn a stored "123" into an integer.
		return "TEXT"
	case Time:
		if pg {
			return "TIMESTAMPTZ"
		}
		return "TIMESTAMP"
	case Bigint:
		return "BIGINT"
	case Serial:
		if pg {
			return "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
		}
		return "INTEGER PRIMARY KEY AUTOINCREMENT"
	case Bool:
		return "BOOLEAN"
	}
	return "TEXT"
}

func (p *Plan) defaultSQL(def string) string {
	if def != Now {
		return def
	}
	switch p.dialect {
	case dialect.PG:
		return "now()"
	case dialect.MySQL:
		return mysqlNow
	}
	return "CURRENT_TIMESTAMP"
}

// Quote quotes an identifier for PostgreSQL and SQLite (Plan.Quote
// quotes for the plan's dialect, MySQL's backticks included).
func Quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// Quote quotes an identifier in the plan's dialect.
func (p *Plan) Quote(name string) string {
	if p.dialect == dialect.MySQL {
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return Quote(name)
}

func (p *Plan) quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = p.Quote(n)
	}
	return strings.Join(q, ", ")
}

// create returns the statements that create t.
func (p *Plan) create(t *Table) []string {
	name := p.Name(t.Base)
	mysql := p.dialect == dialect.MySQL
	var lines []string
	for _, c := range t.Cols {
		typ := p.SQLType(c.Type)
		if mysql {
			typ = p.mysqlColType(t, c)
		}
		l := "\t" + p.Quote(c.Name) + " " + typ
		if c.NotNull || slices.Contains(t.PK, c.Name) {
			l += " NOT NULL" // SQLite lets a primary key that is not INTEGER hold NULL otherwise
		}
		if c.Unique {
			l += " UNIQUE"
		}
		if c.Default != "" {
			def := p.defaultSQL(c.Default)
			if mysql && c.Default != Now && !strings.HasPrefix(typ, "VARCHAR") && (c.Type == Text || c.Type == JSON) {
				def = "(" + def + ")" // a TEXT or JSON column's literal default is an expression on MySQL
			}
			l += " DEFAULT " + def
		}
		if c.Check != "" {
			l += " CHECK (" + c.Check + ")"
		}
		lines = append(lines, l)
	}
	if len(t.PK) > 0 {
		lines = append(lines, "\tPRIMARY KEY ("+p.quoteList(t.PK)+")")
	}
	for _, fk := range t.FKs {
		if !p.has(fk.Target) {
			continue // the game replaced the target table: its keys are its own
		}
		ref := "id"
		if fk.Target == "users" {
			ref = p.usersID
		}
		lines = append(lines, fmt.Sprintf("\tFOREIGN KEY (%s) REFERENCES %s (%s) ON DELETE %s",
			p.Quote(fk.Col), p.Quote(p.Name(fk.Target)), p.Quote(ref), fk.OnDelete))
	}
	create := "CREATE TABLE IF NOT EXISTS " + p.Quote(name) + " (\n" + strings.Join(lines, ",\n") + "\n)"
	if mysql {
		create += mysqlTableOptions
	}
	out := []string{create}
	idxs := t.SQLIndexes
	if f, ok := t.SQLIndexesFor[p.dialect]; ok {
		idxs = f
	}
	for _, idx := range idxs {
		out = append(out, p.Fill(idx))
	}
	for _, idx := range t.Indexes {
		out = append(out, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)",
			p.Quote(name+"_"+strings.Join(idx, "_")+"_idx"), p.Quote(name), p.quoteList(idx)))
	}
	return out
}

// Fill replaces the placeholders of an alter step or an index:
// {prefix}, {table:<base>}, {user_id} (the users id type), {json}, {ts},
// {now}. On MySQL the double-quoted identifiers of s become backticked
// ones first (the declared SQL quotes as PostgreSQL does).
func (p *Plan) Fill(s string) string {
	if p.dialect == dialect.MySQL {
		s = backtick(s)
	}
	r := []string{"{prefix}", p.prefix, "{user_id}", p.userType, "{json}", p.SQLType(JSON), "{ts}", p.SQLType(Time), "{now}", p.defaultSQL(Now)}
	for _, t := range p.schema.Tables {
		r = append(r, "{table:"+t.Base+"}", p.Quote(p.Name(t.Base)))
	}
	return strings.NewReplacer(r...).Replace(s)
}
