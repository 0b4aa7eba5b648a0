package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// LockID is the PostgreSQL advisory lock that serializes migrations when
// several game-server nodes start at once.
const LockID = 0x67616d6561646d

// SchemaTable is the table recording the applied steps.
func (p *Plan) SchemaTable() string { return p.prefix + "admin_schema" }

func (p *Plan) schemaTableDDL() string {
	ddl := "CREATE TABLE IF NOT EXISTS " + p.Quote(p.SchemaTable()) + " (\n\tversion INTEGER PRIMARY KEY,\n\tname " +
		p.SQLType(Text) + " NOT NULL,\n\tapplied_at " + p.SQLType(Time) + " NOT NULL DEFAULT " + p.defaultSQL(Now) + "\n)"
	if p.dialect == dialect.MySQL {
		ddl += mysqlTableOptions
	}
	return ddl
}

// step is one versioned change the plan needs.
type step struct {
	version int
	name    string
	stmts   []string
	covers  []int // alter steps a fresh creation makes unnecessary
}

// steps are the plan's migration steps in order.
func (p *Plan) steps() []step {
	var out []step
	for _, t := range p.tables {
		s := step{version: t.Version, name: "create " + p.Name(t.Base), stmts: p.create(t)}
		for _, a := range p.schema.Alters {
			if a.Base == t.Base {
				s.covers = append(s.covers, a.Version)
			}
		}
		out = append(out, s)
	}
	for _, a := range p.schema.Alters {
		// has("users") is true for a game's users table too (foreign keys
		// name it); the panel alters only the tables it creates.
		if p.has(a.Base) && slices.ContainsFunc(p.tables, func(t *Table) bool { return t.Base == a.Base }) {
			sql, ok := a.SQLFor[p.dialect]
			if !ok {
				sql = a.SQL
			}
			var stmts []string
			if sql != "" {
				stmts = []string{p.Fill(sql)}
			}
			out = append(out, step{version: a.Version, name: a.Name, stmts: stmts})
		}
	}
	return out
}

// applied reads the recorded versions, legacy ones expanded.
func (p *Plan) applied(ctx context.Context, db bun.IDB) ([]int, error) {
	var applied []int
	if err := db.NewSelect().TableExpr("?", bun.Ident(p.SchemaTable())).Column("version").Scan(ctx, &applied); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	for _, v := range slices.Clone(applied) {
		applied = append(applied, p.schema.Legacy[v]...)
	}
	return applied, nil
}

// Migrate brings the tables of the plan up to date. It runs in one
// transaction, under an advisory lock on PostgreSQL, so nodes starting
// together apply each step once; every step not recorded runs (versions
// added on parallel branches land in either order), so calling it again is
// a no-op. On MySQL and MariaDB, whose DDL commits implicitly, the steps
// run under a named lock instead (migrateMySQL).
func (p *Plan) Migrate(ctx context.Context, db *bun.DB) error {
	if p.dialect == dialect.MySQL {
		return p.migrateMySQL(ctx, db)
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if p.dialect == dialect.PG {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", LockID); err != nil {
				return err
			}
		}
		return p.migrateOn(ctx, tx)
	})
}

// migrateOn creates the schema table and applies the steps not recorded,
// recording each, on db (a transaction or a connection holding the lock).
func (p *Plan) migrateOn(ctx context.Context, db bun.IDB) error {
	if _, err := db.ExecContext(ctx, p.schemaTableDDL()); err != nil {
		return err
	}
	applied, err := p.applied(ctx, db)
	if err != nil {
		return err
	}
	for _, s := range p.steps() {
		if slices.Contains(applied, s.version) {
			continue
		}
		for _, stmt := range s.stmts {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("admin: migration %d (%s): %w", s.version, s.name, err)
			}
		}
		for _, v := range append([]int{s.version}, s.covers...) {
			if _, err := db.NewRaw(p.recordSQL("?", "?", "?"), bun.Ident(p.SchemaTable()), v, s.name).Exec(ctx); err != nil {
				return err
			}
			applied = append(applied, v)
		}
	}
	return nil
}

// recordSQL is the statement recording a step, a no-op when it is
// recorded already.
func (p *Plan) recordSQL(table, version, name string) string {
	if p.dialect == dialect.MySQL {
		return "INSERT IGNORE INTO " + table + " (version, name) VALUES (" + version + ", " + name + ")"
	}
	return "INSERT INTO " + table + " (version, name) VALUES (" + version + ", " + name + ") ON CONFLICT DO NOTHING"
}

// Verify is MigrateOff's check: every step recorded, every table there.
func (p *Plan) Verify(ctx context.Context, db *bun.DB) error {
	applied, err := p.applied(ctx, db)
	if err != nil {
		return fmt.Errorf("admin: Migrations is MigrateOff but the schema table %s cannot be read (apply admin.MigrationSQL's statements first): %w", p.SchemaTable(), err)
	}
	var missing []string
	for _, s := range p.steps() {
		if !slices.Contains(applied, s.version) {
			missing = append(missing, fmt.Sprintf("step %d (%s)", s.version, s.name))
		}
	}
	for _, t := range p.tables {
		if _, err := db.NewSelect().TableExpr("?", bun.Ident(p.Name(t.Base))).ColumnExpr("1").Where("1 = 0").Exec(ctx); err != nil {
			missing = append(missing, "table "+p.Name(t.Base))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("admin: Migrations is MigrateOff and the schema is not up to date; missing: %s (apply admin.MigrationSQL's statements, or use MigrateAuto)", strings.Join(missing, ", "))
	}
	return nil
}

// SQL is every statement of the plan, idempotent: the schema table, each
// step and its record. On MySQL, user columns referring to a game's users
// table with text ids get the database's default collation (the script
// reads no catalog; Migrate takes the id column's own), which a foreign
// key needs equal to the id's.
func (p *Plan) SQL() []string {
	out := []string{p.schemaTableDDL()}
	for _, s := range p.steps() {
		out = append(out, s.stmts...)
		for _, v := range append([]int{s.version}, s.covers...) {
			out = append(out, p.recordSQL(p.Quote(p.SchemaTable()), strconv.Itoa(v), "'"+strings.ReplaceAll(s.name, "'", "''")+"'"))
		}
	}
	return out
}
