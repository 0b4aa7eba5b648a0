package migratetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/engine"
	. "github.com/gameadmin/admin/internal/migrate"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/mysqldialect"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
)

// builtinMySQL is the plan of every built-in table on MariaDB.
func builtinMySQL(t *testing.T) *Plan {
	t.Helper()
	p, err := engine.BuiltinPlan(dialect.MySQL, "game_")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func versions(t *testing.T, db bun.IDB) []int {
	t.Helper()
	var v []int
	if err := db.NewSelect().TableExpr("game_admin_schema").Column("version").Order("version").Scan(context.Background(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// checkBuiltinSchema: every table of the plan is there (InnoDB, its text
// columns binary utf8mb4 but the email), every declared index, the
// foreign keys with their ON DELETE, and every step recorded.
func checkBuiltinSchema(t *testing.T, db *bun.DB, p *Plan) {
	t.Helper()
	ctx := context.Background()
	if err := p.Verify(ctx, db); err != nil {
		t.Fatal(err)
	}
	want := []int{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 40, 41, 42, 43}
	if got := versions(t, db); !slices.Equal(got, want) {
		t.Errorf("recorded %v; want %v", got, want)
	}
	var tables []string
	if err := db.NewRaw("SELECT CONCAT(table_name, ' ', engine) FROM information_schema.tables WHERE table_schema = DATABASE()").Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	for _, tb := range append(p.Tables(), &Table{Base: "admin_schema"}) {
		if !slices.Contains(tables, p.Name(tb.Base)+" InnoDB") {
			t.Errorf("table %s missing or not InnoDB: %v", p.Name(tb.Base), tables)
		}
	}
	var colls []string
	if err := db.NewRaw("SELECT CONCAT(table_name, '.', column_name, ' ', collation_name) FROM information_schema.columns WHERE table_schema = DATABASE() AND collation_name IS NOT NULL").Scan(ctx, &colls); err != nil {
		t.Fatal(err)
	}
	for _, c := range colls {
		if c != "game_users.email utf8mb4_unicode_ci" && !strings.HasSuffix(c, " utf8mb4_bin") {
			t.Errorf("column %s; want utf8mb4_bin (the database's default is utf8mb4_unicode_ci)", c)
		}
	}
	if !slices.Contains(colls, "game_users.email utf8mb4_unicode_ci") || !slices.Contains(colls, "game_roles.user_id utf8mb4_bin") {
		t.Errorf("collations %v", colls)
	}
	var idx []string
	if err := db.NewRaw("SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE()").Scan(ctx, &idx); err != nil {
		t.Fatal(err)
	}
	for _, tb := range p.Tables() {
		for _, cols := range tb.Indexes {
			name := p.Name(tb.Base) + "_" + strings.Join(cols, "_") + "_idx"
			if !slices.Contains(idx, name) {
				t.Errorf("index %s missing (have %v)", name, idx)
			}
		}
	}
	var rules []string
	if err := db.NewRaw("SELECT CONCAT(table_name, ' ', referenced_table_name, ' ', delete_rule) FROM information_schema.referential_constraints WHERE constraint_schema = DATABASE() ORDER BY 1").Scan(ctx, &rules); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"game_roles game_users CASCADE", "game_user_notes game_users SET NULL", "game_leaderboard_entries game_leaderboards CASCADE", "game_reports game_users SET NULL"} {
		if !slices.Contains(rules, r) {
			t.Errorf("foreign key %q missing: %v", r, rules)
		}
	}
}

// TestMySQLMigrationSQL: the engine writes MySQL's statements
// (MigrationSQL takes its dialect), and they create every built-in
// table on MariaDB, twice without harm.
func TestMySQLMigrationSQL(t *testing.T) {
	t.Parallel()
	stmts, err := engine.MigrationSQL(mysqldialect.New(), engine.Options{})
	if err != nil {
		t.Fatalf("MigrationSQL(mysqldialect) = %v", err)
	}
	db := testdb.MySQL(t)
	ctx := context.Background()
	for range 2 {
		for _, s := range stmts {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatalf("%v\n%s", err, s)
			}
		}
	}
	var n int
	if err := db.NewRaw("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('game_users', 'game_admin_audit', 'game_admin_schema')").Scan(ctx, &n); err != nil || n != 3 {
		t.Fatalf("tables after MigrationSQL = %d, %v; want game_users, game_admin_audit, game_admin_schema", n, err)
	}
}

func TestMySQLMigrateBuiltinTwice(t *testing.T) {
	t.Parallel()
	db := testdb.MySQL(t)
	ctx := context.Background()
	p := builtinMySQL(t)
	if err := p.Verify(ctx, db); err == nil {
		t.Fatal("Verify before Migrate = nil")
	}
	if err := p.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	checkBuiltinSchema(t, db, p)
	var before []time.Time
	if err := db.NewRaw("SELECT applied_at FROM game_admin_schema ORDER BY version").Scan(ctx, &before); err != nil {
		t.Fatal(err)
	}
	if err := p.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	var after []time.Time
	if err := db.NewRaw("SELECT applied_at FROM game_admin_schema ORDER BY version").Scan(ctx, &after); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(before, after, time.Time.Equal) {
		t.Errorf("the second Migrate rewrote the records: %v then %v", before, after)
	}
	// The records' default is the UTC wall time.
	if d := time.Since(before[0]); d < -time.Minute || d > time.Minute {
		t.Errorf("applied_at %v is not UTC now (%v)", before[0], time.Now().UTC())
	}
	// The lock is released: another session takes it at once.
	var free int
	if err := db.NewRaw("SELECT IS_FREE_LOCK(CONCAT('gameadmin.', SHA1(DATABASE())))").Scan(ctx, &free); err != nil || free != 1 {
		t.Errorf("the migration lock is still held after Migrate (IS_FREE_LOCK = %d, %v)", free, err)
	}
}

func TestMySQLPlanSQLIsIdempotent(t *testing.T) {
	t.Parallel()
	db := testdb.MySQL(t)
	ctx := context.Background()
	p := builtinMySQL(t)
	for round := range 2 {
		for _, stmt := range p.SQL() {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("round %d: %v\n%s", round+1, err, stmt)
			}
		}
	}
	checkBuiltinSchema(t, db, p)
	// A game that applied the script then starts with MigrateAuto: nothing
	// left to do.
	if err := p.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	checkBuiltinSchema(t, db, p)
}

// TestMySQLMigrateLock: nodes starting together apply a step once. The
// step here is not idempotent (an insert), so two applications would
// show as two rows.
func TestMySQLMigrateLock(t *testing.T) {
	t.Parallel()
	db := testdb.MySQL(t)
	ctx := context.Background()
	s := &Schema{
		Tables: []*Table{{Key: "users", Base: "users", Version: 10, Cols: []Col{{Name: "id", Type: Text}}, PK: []string{"id"}},
			{Key: "counts", Base: "counts", Version: 11, Cols: []Col{{Name: "id", Type: Serial}, {Name: "n", Type: Bigint}}}},
		Alters: []Alter{{Version: 12, Name: "count", Base: "counts", SQL: `INSERT INTO {table:counts} ("n") VALUES (1)`}},
	}
	p, err := NewPlan(s, dialect.MySQL, "game_", Users{Name: "game_users", ID: "id"}, func(*Table) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	// Create the tables first, the counting step left to the race.
	if err := p.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM game_admin_schema WHERE version = 12"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM game_counts"); err != nil {
		t.Fatal(err)
	}

	// Held elsewhere, the lock keeps Migrate waiting.
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got int
	if err := holder.QueryRowContext(ctx, "SELECT GET_LOCK(CONCAT('gameadmin.', SHA1(DATABASE())), 5)").Scan(&got); err != nil || got != 1 {
		t.Fatalf("GET_LOCK = %d, %v", got, err)
	}
	const nodes = 4
	var wg sync.WaitGroup
	errs := make(chan error, nodes)
	for range nodes {
		wg.Go(func() { errs <- p.Migrate(ctx, db) })
	}
	time.Sleep(300 * time.Millisecond)
	var n int
	if err := db.NewRaw("SELECT COUNT(*) FROM game_counts").Scan(ctx, &n); err != nil || n != 0 {
		t.Fatalf("a step ran while another session held the lock: %d rows, %v", n, err)
	}
	if _, err := holder.ExecContext(ctx, "DO RELEASE_LOCK(CONCAT('gameadmin.', SHA1(DATABASE())))"); err != nil {
		t.Fatal(err)
	}
	holder.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if err := db.NewRaw("SELECT COUNT(*) FROM game_counts").Scan(ctx, &n); err != nil || n != 1 {
		t.Errorf("the step ran %d times (%v); want once", n, err)
	}
}

// TestMySQLBuiltinRows: the built-in tables hold and refuse what they do
// on PostgreSQL: JSON and times round-trip, defaults fill, keys hold.
func TestMySQLBuiltinRows(t *testing.T) {
	t.Parallel()
	db := testdb.MySQL(t)
	ctx := context.Background()
	if err := builtinMySQL(t).Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) error {
		_, err := db.ExecContext(ctx, q, args...)
		return err
	}
	if err := exec("INSERT INTO game_users (id, email) VALUES ('u1', 'bob@example.com')"); err != nil {
		t.Fatal(err)
	}
	// The email compares without regard to case; ids compare exactly.
	if err := exec("INSERT INTO game_users (id, email) VALUES ('u2', 'Bob@Example.com')"); err == nil {
		t.Error("a second account for Bob@Example.com was stored beside bob@example.com")
	}
	if err := exec("INSERT INTO game_users (id, email) VALUES ('U1', 'other@example.com')"); err != nil {
		t.Errorf("id U1 beside u1: %v", err)
	}
	var tv int64
	var created time.Time
	if err := db.QueryRowContext(ctx, "SELECT token_version, created_at FROM game_users WHERE email = 'BOB@example.com'").Scan(&tv, &created); err != nil {
		t.Fatalf("email lookup by equality without regard to case: %v", err)
	}
	if d := time.Since(created); tv != 0 || d < -time.Minute || d > time.Minute {
		t.Errorf("defaults: token_version %d, created_at %v; want 0 and UTC now", tv, created)
	}

	// JSON and a time column, through the Bun model.
	at := time.Date(2031, 5, 6, 7, 8, 9, 123456000, time.UTC)
	ev := &engine.AnalyticsEvent{UserID: "u1", Name: "login", Payload: map[string]any{"level": 3.0, "tags": []any{"a"}}, CreatedAt: at}
	if _, err := db.NewInsert().Model(ev).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if ev.ID == 0 {
		t.Error("the auto-increment id was not read back")
	}
	var back engine.AnalyticsEvent
	if err := db.NewSelect().Model(&back).Where("id = ?", ev.ID).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if !back.CreatedAt.Equal(at) || back.Payload["level"] != 3.0 {
		t.Errorf("read back %v %v; want %v %v", back.CreatedAt, back.Payload, at, ev.Payload)
	}
	// MariaDB's JSON checks its text.
	if err := exec("INSERT INTO game_analytics_events (name, payload) VALUES ('x', '{not json')"); err == nil {
		t.Error("invalid JSON stored")
	}

	// A role's scopes default to [], its role is checked, and it goes
	// with its user.
	if err := exec("INSERT INTO game_roles (user_id, role) VALUES ('u1', 'mod')"); err != nil {
		t.Fatal(err)
	}
	var scopes json.RawMessage
	if err := db.QueryRowContext(ctx, "SELECT scopes FROM game_roles WHERE user_id = 'u1'").Scan(&scopes); err != nil || string(scopes) != "[]" {
		t.Errorf("scopes = %s, %v; want []", scopes, err)
	}
	if err := exec("INSERT INTO game_roles (user_id, role) VALUES ('U1', 'king')"); err == nil {
		t.Error("role king passed the check")
	}
	if err := exec("INSERT INTO game_roles (user_id, role) VALUES ('nobody', 'mod')"); err == nil {
		t.Error("a role for a missing user was stored")
	}
	if err := exec("INSERT INTO game_user_notes (user_id, author_id, body) VALUES ('U1', 'u1', 'hi')"); err != nil {
		t.Fatal(err)
	}
	if err := exec("DELETE FROM game_users WHERE id = 'u1'"); err != nil {
		t.Fatal(err)
	}
	var author sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT author_id FROM game_user_notes WHERE user_id = 'U1'").Scan(&author); err != nil || author.Valid {
		t.Errorf("the note's author after the author went: %v, %v; want NULL", author, err)
	}
	var roles int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM game_roles").Scan(&roles); err != nil || roles != 0 {
		t.Errorf("roles left after their user went: %d, %v", roles, err)
	}
	// A TOTP row: a boolean with its default.
	if err := exec("INSERT INTO game_operator_totp (user_id, secret) VALUES ('U1', 's')"); err != nil {
		t.Fatal(err)
	}
	var enabled bool
	if err := db.QueryRowContext(ctx, "SELECT enabled FROM game_operator_totp WHERE user_id = 'U1'").Scan(&enabled); err != nil || enabled {
		t.Errorf("enabled = %v, %v; want false", enabled, err)
	}
}

// TestMySQLGameUsersTable: the user columns refer to a game's users
// table, whose id's type and collation a foreign key must match:
// BIGINT UNSIGNED (Laravel's ids), or text under the database's
// collation.
func TestMySQLGameUsersTable(t *testing.T) {
	t.Parallel()
	type intPlayer struct {
		bun.BaseModel `bun:"table:players"`
		ID            uint64 `bun:"id,pk,autoincrement"`
	}
	type textPlayer struct {
		bun.BaseModel `bun:"table:players"`
		ID            string `bun:"id,pk"`
	}
	for _, c := range []struct {
		name, ddl string
		model     any
		id        string
	}{
		{"unsigned", "CREATE TABLE players (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY)", (*intPlayer)(nil), "7"},
		{"text", "CREATE TABLE players (id VARCHAR(64) PRIMARY KEY) COLLATE utf8mb4_general_ci", (*textPlayer)(nil), "'p7'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := &Schema{Tables: []*Table{
				{Key: "notes", Base: "notes", Version: 11, Cols: []Col{
					{Name: "id", Type: Serial},
					{Name: "user_id", Type: UserID, NotNull: true},
				}, FKs: []FK{{Col: "user_id", Target: "users", OnDelete: "CASCADE"}}, Indexes: [][]string{{"user_id"}}},
			}}
			for _, script := range []bool{false, true} {
				db := testdb.MySQL(t)
				if _, err := db.ExecContext(ctx, c.ddl); err != nil {
					t.Fatal(err)
				}
				pk := db.Dialect().Tables().Get(reflect.TypeOf(c.model).Elem()).PKs[0]
				p, err := NewPlan(s, dialect.MySQL, "game_", Users{Name: "players", ID: "id", IDField: pk}, func(*Table) bool { return true })
				if err != nil {
					t.Fatal(err)
				}
				if script {
					// The script cannot read the game's collation: it
					// works when the table has the database's
					// (utf8mb4_unicode_ci here).
					if _, err := db.ExecContext(ctx, "ALTER TABLE players CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
						t.Fatal(err)
					}
					for _, stmt := range p.SQL() {
						if _, err := db.ExecContext(ctx, stmt); err != nil {
							t.Fatalf("%v\n%s", err, stmt)
						}
					}
				} else if err := p.Migrate(ctx, db); err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, "INSERT INTO players (id) VALUES ("+c.id+")"); err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, "INSERT INTO game_notes (user_id) VALUES ("+c.id+")"); err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, "INSERT INTO game_notes (user_id) VALUES (8)"); err == nil {
					t.Error("a note for a missing player was stored")
				}
				if _, err := db.ExecContext(ctx, "DELETE FROM players"); err != nil {
					t.Fatal(err)
				}
				var n int
				if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM game_notes").Scan(&n); err != nil || n != 0 {
					t.Errorf("notes left after their player went: %d, %v", n, err)
				}
			}
		})
	}
}

// TestMySQLBuiltinModelsMatchTables: every public built-in model has
// exactly the columns its MariaDB table has, and reads through Bun.
func TestMySQLBuiltinModelsMatchTables(t *testing.T) {
	t.Parallel()
	db := testdb.MySQL(t)
	ctx := context.Background()
	if err := builtinMySQL(t).Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	for key, m := range engine.BuiltinTables() {
		bt := db.Table(reflect.TypeOf(m).Elem())
		var live []string
		if err := db.NewRaw("SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ? ORDER BY column_name", bt.Name).Scan(ctx, &live); err != nil {
			t.Fatal(err)
		}
		var fields []string
		for _, f := range bt.Fields {
			fields = append(fields, f.Name)
		}
		slices.Sort(fields)
		if !slices.Equal(live, fields) {
			t.Errorf("%s (%s): table columns %v, model %v", key, bt.Name, live, fields)
		}
		rows := reflect.New(reflect.SliceOf(reflect.TypeOf(m).Elem())).Interface()
		if err := db.NewSelect().Model(rows).Limit(1).Scan(ctx); err != nil && !errors.Is(err, sql.ErrNoRows) {
			t.Errorf("%s: %v", key, err)
		}
	}
}
