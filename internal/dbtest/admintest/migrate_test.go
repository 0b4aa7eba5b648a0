package admintest

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/migrate"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// testPlan is the schema plan of the default options on db.
func testPlan(t *testing.T, db *bun.DB, opts Options) *migrate.Plan {
	t.Helper()
	opts.Secret, opts.PasswordHasher = testSecret, testHasher
	_, in := newInside(t, db, opts)
	return in.Plan
}

// TestMigrateAppliesGaps: a step missing below the newest recorded one (two
// branches that each added a version, merged in either order) still runs.
func TestMigrateAppliesGaps(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		p := testPlan(t, db, Options{})
		if err := p.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"DROP TABLE game_operator_recovery_codes",
			"DROP TABLE game_operator_totp",
			"DELETE FROM game_admin_schema WHERE version IN (19, 20)",
			"INSERT INTO game_admin_schema (version, name) VALUES (99, 'from another branch')",
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		if _, err := db.NewSelect().Model((*operatorTOTP)(nil)).Exists(ctx); err != nil {
			t.Fatalf("step 19 not applied below a recorded 99: %v", err)
		}
	})
}

// liveColumns reads the columns of a table from the database: name to
// whether it has a default.
func liveColumns(t *testing.T, db *bun.DB, table string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	out := map[string]bool{}
	var q string
	if db.Dialect().Name() == dialect.PG {
		q = "SELECT column_name, column_default IS NOT NULL OR is_identity = 'YES' FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?"
	} else {
		q = "SELECT name, dflt_value IS NOT NULL OR (pk = 1 AND type = 'INTEGER') FROM pragma_table_info(?)"
	}
	rows, err := db.QueryContext(ctx, q, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var def bool
		if err := rows.Scan(&name, &def); err != nil {
			t.Fatal(err)
		}
		out[name] = def
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBuiltinModelsMatchSchema: the Go models, the table descriptions and
// the live tables New created agree column by column, defaults included,
// on both databases: the description is the one source of truth.
func TestBuiltinModelsMatchSchema(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		for _, def := range e.in.Schema.Tables {
			live := liveColumns(t, db, e.in.Plan.Name(def.Base))
			bt := db.Table(reflect.TypeOf(def.Model).Elem())
			if len(live) != len(bt.Fields) || len(def.Cols) != len(bt.Fields) {
				t.Fatalf("%s: live %d columns, model %d, description %d", def.Base, len(live), len(bt.Fields), len(def.Cols))
			}
			for _, c := range def.Cols {
				hasDef, ok := live[c.Name]
				if !ok || !bt.HasField(c.Name) {
					t.Fatalf("%s.%s: live %v, in model %v", def.Base, c.Name, ok, bt.HasField(c.Name))
				}
				if want := c.Default != "" || c.Type == migrate.Serial; hasDef != want {
					t.Fatalf("%s.%s: live default %v; description says %v", def.Base, c.Name, hasDef, want)
				}
			}
			if def.Key == "" {
				continue
			}
			// The catalog's defaults are the description's.
			for _, c := range def.Cols {
				want := c.Default != "" || c.Type == migrate.Serial || c.Hook
				if got := e.in.HasDefault(def.Key, c.Name); got != want {
					t.Fatalf("%s.%s: catalog HasDefault %v; want %v", def.Key, c.Name, got, want)
				}
			}
		}
	})
}

// allTables lists the tables of the database.
func allTables(t *testing.T, db *bun.DB) []string {
	t.Helper()
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
	if db.Dialect().Name() == dialect.PG {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name"
	}
	var names []string
	if err := db.NewRaw(q).Scan(context.Background(), &names); err != nil {
		t.Fatal(err)
	}
	return names
}

// testPlayer is a game's own users table: bigint ids, its own column names.
type testPlayer struct {
	bun.BaseModel `bun:"table:players,alias:p"`

	ID       int64     `bun:"id,pk,autoincrement"`
	Email    string    `bun:"email,notnull,unique"`
	Nickname string    `bun:"nickname"`
	PwHash   string    `bun:"pw_hash"`
	Created  time.Time `bun:"created_at,notnull,default:current_timestamp"`
}

var playerColumns = UserColumns{PasswordHash: "pw_hash", DisplayName: "nickname"}

// TestTablePrefixAndSubset: with TablePrefix ops_ and a game users table,
// New creates the panel's own tables and those Tables uses with built-in
// models, all named ops_*, and nothing named game_*; the panel works on them.
func TestTablePrefixAndSubset(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testPlayer)(nil))
		opts := Options{TablePrefix: "ops_", UserColumns: playerColumns, Tables: map[string]any{
			"users": (*testPlayer)(nil), "userNotes": (*UserNote)(nil), "roles": (*RoleAssignment)(nil), "adminAudit": (*AuditEntry)(nil),
		}}
		e := newEnv(t, db, opts)
		want := []string{"ops_admin_audit", "ops_admin_schema", "ops_online_samples", "ops_operator_recovery_codes", "ops_operator_totp", "ops_roles", "ops_totp_challenges", "ops_user_notes", "players"}
		if got := allTables(t, db); !slices.Equal(got, want) {
			t.Fatalf("tables = %v; want %v", got, want)
		}
		c, adminID := e.bootstrap()
		c.do("POST", "/admin-api/userNotes", map[string]any{"user_id": adminID, "body": "hello"}).want(t, 201)
		notes, _ := c.list(t, "/admin-api/users/"+adminID+"/relations/userNotes", nil)
		if len(notes) != 1 || notes[0]["author_id"] != adminID {
			t.Fatalf("notes = %v", notes)
		}
		counts := c.do("GET", "/admin-api/users/"+adminID+"/_counts", nil).want(t, 200).body
		if counts["userNotes"] != float64(1) {
			t.Fatalf("_counts = %v", counts)
		}
		audit, _ := c.list(t, "/admin-api/adminAudit", url.Values{"operator_id": {adminID}})
		if len(audit) == 0 {
			t.Fatal("no audit rows for the admin")
		}
		if e.admin.TableName("userNotes") != "ops_user_notes" || e.admin.TableName("users") != "players" {
			t.Fatalf("TableName = %q, %q", e.admin.TableName("userNotes"), e.admin.TableName("users"))
		}
	})
}

// TestMigrateOff: New with MigrateOff refuses a database without the
// tables, naming what is missing; MigrationSQL's statements applied by hand
// (twice: they are idempotent) make it succeed, and the panel works.
func TestMigrateOff(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		createTables(t, db, (*testPlayer)(nil))
		opts := Options{TablePrefix: "ops_", UserColumns: playerColumns, Migrations: MigrateOff, Secret: testSecret, PasswordHasher: testHasher,
			Tables: map[string]any{"users": (*testPlayer)(nil), "cloudSaves": (*CloudSave)(nil)}}
		_, err := New(db, opts)
		if err == nil || !strings.Contains(err.Error(), "ops_admin_schema") {
			t.Fatalf("New on an empty schema = %v; want an error naming ops_admin_schema", err)
		}
		stmts, err := MigrationSQL(db.Dialect(), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts { // all but step 22's record
			if strings.Contains(s, "VALUES (22,") {
				continue
			}
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		_, err = New(db, opts)
		if err == nil || !strings.Contains(err.Error(), "step 22") || !strings.Contains(err.Error(), "ops_totp_challenges") {
			t.Fatalf("New with a step unrecorded = %v; want an error naming step 22 and its table", err)
		}
		if got := allTables(t, db); slices.Contains(got, "ops_users") || slices.Contains(got, "ops_configs") {
			t.Fatalf("MigrationSQL created tables the options do not use: %v", got)
		}
		for range 2 {
			for _, s := range stmts {
				if _, err := db.ExecContext(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
		}
		e := newEnv(t, db, opts)
		c, adminID := e.bootstrap()
		c.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": adminID, "slot": "a"}).want(t, 201)
		c.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": "12345", "slot": "a"}).want(t, 400, "invalid_reference")
	})
}

func TestMigrationSQLText(t *testing.T) {
	t.Parallel()
	for _, d := range []string{"pg", "sqlite"} {
		stmts, err := MigrationSQL(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Join(stmts, ";\n")
		for _, want := range []string{`CREATE TABLE IF NOT EXISTS "game_users"`, `REFERENCES "game_users" ("id") ON DELETE CASCADE`, `"game_admin_schema"`} {
			if !strings.Contains(all, want) {
				t.Fatalf("%s: MigrationSQL lacks %s:\n%s", d, want, all)
			}
		}
	}
	stmts, err := MigrationSQL("pg", Options{Tables: map[string]any{"users": (*testPlayer)(nil)}, UserColumns: playerColumns})
	if err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(stmts, "\n"); !strings.Contains(all, `"user_id" BIGINT`) || !strings.Contains(all, `REFERENCES "players" ("id")`) || strings.Contains(all, `"game_users"`) {
		t.Fatalf("MigrationSQL for a bigint players table:\n%s", all)
	}
	// A game's users table is never altered, but the index sign-in wants
	// is proposed (commented out), and the built-in one is created.
	if all := strings.Join(stmts, "\n"); !strings.Contains(all, "\n-- CREATE INDEX IF NOT EXISTS \"players_lower_email_idx\" ON \"players\" (lower(\"email\"))") || strings.Contains(all, "\nCREATE INDEX IF NOT EXISTS \"players_lower") {
		t.Fatalf("MigrationSQL for a players table does not suggest the lower(email) index as a comment:\n%s", all)
	}
	if all := strings.Join(must(MigrationSQL("pg", Options{})), "\n"); !strings.Contains(all, `CREATE INDEX IF NOT EXISTS "game_users_lower_email_idx" ON "game_users" (lower("email"))`) {
		t.Fatalf("MigrationSQL for the built-in users table lacks the lower(email) index:\n%s", all)
	}
	if _, err := MigrationSQL("mysql", Options{}); err == nil {
		t.Fatal("MigrationSQL(mysql) = nil error")
	}
}

// TestSQLiteForeignKeysOffWarns: New says when SQLite will not enforce the
// foreign keys.
func TestSQLiteForeignKeysOffWarns(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	if _, err := db.ExecContext(context.Background(), "PRAGMA foreign_keys = OFF"); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, db, Options{})
	if !strings.Contains(e.logs.String(), "foreign_keys is off") {
		t.Fatalf("no warning with foreign_keys off; logs:\n%s", e.logs)
	}
	on := newEnv(t, testdb.SQLite(t), Options{})
	if strings.Contains(on.logs.String(), "foreign_keys") {
		t.Fatalf("warning with foreign_keys on:\n%s", on.logs)
	}
}

// NewContext gives up when its ctx ends, here while another node holds the
// migration lock on PostgreSQL, instead of waiting for the lock.
func TestNewContextBoundsMigrations(t *testing.T) {
	t.Parallel()
	db := testdb.PG(t)
	ctx := context.Background()
	a, err := NewContext(ctx, db, Options{Secret: testSecret, PasswordHasher: testHasher})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NewContext(cancelled, testdb.SQLite(t), Options{Secret: testSecret, PasswordHasher: testHasher}); !errors.Is(err, context.Canceled) {
		t.Fatalf("NewContext with a cancelled ctx = %v; want context.Canceled", err)
	}

	other := bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(testdb.PGDSN()))), pgdialect.New())
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", migrate.LockID); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_unlock(?)", migrate.LockID); err != nil {
			t.Error(err)
		}
	}()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := NewContext(short, db, Options{Secret: testSecret, PasswordHasher: testHasher})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "migrate") {
			t.Fatalf("NewContext under a held migration lock = %v; want a migrate error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("NewContext waited on the migration lock past its ctx")
	}
}
