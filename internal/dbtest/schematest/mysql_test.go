package schematest

import (
	"context"
	"encoding/json"
	"net"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/schema"
)

// mPlayer is a game's table on MariaDB as its own migration made it: the
// model says less than the table (no type: tags), so what the panel knows
// beyond the Go types comes from information_schema.
type mPlayer struct {
	bun.BaseModel `bun:"table:m_players,alias:p"`

	ID        uint64          `bun:"id,pk"`
	SteamID   uint64          `bun:"steam_id"`
	Banned    bool            `bun:"banned"`
	Level     int             `bun:"level"`
	Tier      int             `bun:"tier"`
	Class     string          `bun:"class"`
	Perks     string          `bun:"perks"`
	Name      string          `bun:"name"`
	Tag       string          `bun:"tag"`
	Note      string          `bun:"note"`
	SeenAt    time.Time       `bun:"seen_at"`
	BornOn    time.Time       `bun:"born_on"`
	CreatedAt time.Time       `bun:"created_at"`
	Doc       json.RawMessage `bun:"doc"`
	Gold      float64         `bun:"gold"`
	Power     int             `bun:"power"`
	Rank      int             `bun:"rank_stored"`
	Flags     int             `bun:"flags"`
}

const mPlayersDDL = "CREATE TABLE m_players (" +
	"id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY," +
	"steam_id BIGINT UNSIGNED NOT NULL," +
	"banned TINYINT(1) NOT NULL DEFAULT 0," +
	"level INT NOT NULL CHECK (level >= 0)," +
	"tier INT," +
	"class ENUM('warrior','mage','it''s') NOT NULL DEFAULT 'warrior'," +
	"perks SET('fast','strong')," +
	"name VARCHAR(32) NOT NULL," + // the database's utf8mb4_unicode_ci
	"tag VARCHAR(8) COLLATE utf8mb4_bin," +
	"note TEXT," +
	"seen_at DATETIME(3) NULL," +
	"born_on DATE," +
	"created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP," +
	"doc JSON," +
	"gold DECIMAL(12,2) NOT NULL DEFAULT 0," +
	"power INT AS (level * 2) VIRTUAL," +
	"rank_stored INT AS (level + 1) STORED," +
	"flags TINYINT(1)," + // a Go int over a TINYINT(1): numbers
	"CONSTRAINT gold_level CHECK (gold >= 0 AND `level` < 1000)," +
	"UNIQUE KEY m_players_steam (steam_id))"

func mExec(t *testing.T, db *bun.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func mRead(t *testing.T, db *bun.DB, key string, model any) (*schema.Table, bool) {
	t.Helper()
	tbl, err := schema.Inspect(db, key, model)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := schema.ReadCatalog(context.Background(), db, tbl)
	if err != nil {
		t.Fatal(err)
	}
	return tbl, ok
}

// TestMySQLCatalogColumns: each MariaDB column shape reads as the kind,
// type, flags and limits the panel needs: UNSIGNED, TINYINT(1) as the
// boolean, enum and set, varchar lengths, the _ci collation that makes
// Bob equal bob, DATETIME as wall time and TIMESTAMP as an instant, JSON
// (MariaDB's LONGTEXT with json_valid), decimal scale, auto_increment,
// virtual and stored generated columns, defaults and NOT NULL.
func TestMySQLCatalogColumns(t *testing.T) {
	db := testdb.MySQL(t)
	mExec(t, db, mPlayersDDL)
	tbl, ok := mRead(t, db, "players", (*mPlayer)(nil))
	if !ok {
		t.Fatal("ReadCatalog found no table m_players")
	}
	type want struct {
		kind                       schema.ValueKind
		dbType                     string
		notNull, hasDef, gen, auto bool
		unsigned, foldsCase        bool
		maxLen                     int
		scale                      int // -1: none
	}
	wants := map[string]want{
		"id":          {schema.KindNumber, "bigint(20) unsigned", true, true, false, true, true, false, 0, -1},
		"steam_id":    {schema.KindNumber, "bigint(20) unsigned", true, false, false, false, true, false, 0, -1},
		"banned":      {schema.KindBool, "tinyint(1)", true, true, false, false, false, false, 0, -1},
		"level":       {schema.KindNumber, "int(11)", true, false, false, false, false, false, 0, -1},
		"tier":        {schema.KindNumber, "int(11)", false, false, false, false, false, false, 0, -1},
		"class":       {schema.KindEnum, "enum('warrior','mage','it''s')", true, true, false, false, false, true, 0, -1},
		"perks":       {schema.KindText, "set('fast','strong')", false, false, false, false, false, true, 0, -1},
		"name":        {schema.KindText, "varchar(32)", true, false, false, false, false, true, 32, -1},
		"tag":         {schema.KindText, "varchar(8)", false, false, false, false, false, false, 8, -1},
		"note":        {schema.KindText, "text", false, false, false, false, false, true, 0, -1},
		"seen_at":     {schema.KindTimestampLocal, "datetime(3)", false, false, false, false, false, false, 0, -1},
		"born_on":     {schema.KindDate, "date", false, false, false, false, false, false, 0, -1},
		"created_at":  {schema.KindTime, "timestamp", true, true, false, false, false, false, 0, -1},
		"doc":         {schema.KindJSON, "longtext", false, false, false, false, false, false, 0, -1},
		"gold":        {schema.KindDecimal, "decimal(12,2)", true, true, false, false, false, false, 0, 2},
		"power":       {schema.KindNumber, "int(11)", false, true, true, false, false, false, 0, -1},
		"rank_stored": {schema.KindNumber, "int(11)", false, true, true, false, false, false, 0, -1},
		"flags":       {schema.KindNumber, "tinyint(1)", false, false, false, false, false, false, 0, -1},
	}
	for name, w := range wants {
		c := tbl.ByName[name]
		if c == nil {
			t.Fatalf("no column %s", name)
		}
		scale := -1
		if c.HasScale {
			scale = c.Scale
		}
		got := want{c.Kind, c.DBType, c.NotNull, c.HasDefault, c.Generated, c.AutoIncrement, c.Unsigned, c.FoldsCase, c.MaxLength, scale}
		if got != w {
			t.Errorf("%s: got %+v, want %+v", name, got, w)
		}
	}
	// The wall clock and the instant keep their types for the reads.
	if got := tbl.ByName["seen_at"].SQLType; got != "datetime(3)" {
		t.Errorf("seen_at SQLType %q", got)
	}
	if got := tbl.ByName["created_at"].SQLType; got != "timestamp" {
		t.Errorf("created_at SQLType %q", got)
	}
	if tbl.NotWritable != "" {
		t.Errorf("a table reads as not writable: %s", tbl.NotWritable)
	}
	if !tbl.KeyOrdered {
		t.Error("InnoDB's primary key orders the table, KeyOrdered is false")
	}

	// What the catalog says of collations is what the server does: the
	// _ci column's unique key refuses bob beside Bob, the _bin one does
	// not.
	mExec(t, db, "CREATE TABLE m_names (name VARCHAR(16) PRIMARY KEY, tag VARCHAR(16) COLLATE utf8mb4_bin UNIQUE)")
	mExec(t, db, "INSERT INTO m_names VALUES ('Bob', 'Bob'), ('x', 'bob')")
	if _, err := db.ExecContext(context.Background(), "INSERT INTO m_names VALUES ('bob', 'y')"); err == nil {
		t.Error("the _ci key took bob beside Bob")
	}

	// TIMESTAMP is an instant, DATETIME a wall clock: written in a
	// session at +02:00 and read at +00:00 (the pool's), the one moves
	// and the other does not.
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"SET time_zone = '+02:00'",
		"INSERT INTO m_players (steam_id, level, name, seen_at, created_at) VALUES (1, 1, 'a', '2026-01-01 10:00:00', '2026-01-01 10:00:00')",
		"SET time_zone = '+00:00'"} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	var seen, created time.Time
	if err := conn.QueryRowContext(ctx, "SELECT seen_at, created_at FROM m_players").Scan(&seen, &created); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if seen.Hour() != 10 || created.Hour() != 8 {
		t.Errorf("datetime read %v (want 10:00, its wall clock), timestamp %v (want 08:00 UTC)", seen, created)
	}

	types, err := schema.ColumnTypes(ctx, db, "m_players")
	if err != nil {
		t.Fatal(err)
	}
	for col, typ := range map[string]string{"id": "bigint", "created_at": "timestamp", "seen_at": "datetime", "doc": "longtext", "class": "enum"} {
		if types[col] != typ {
			t.Errorf("ColumnTypes[%s] = %q, want %q", col, types[col], typ)
		}
	}
	if len(types) != len(wants) {
		t.Errorf("ColumnTypes has %d columns, want %d", len(types), len(wants))
	}
}

// TestMySQLCatalogModelKinds: where a MariaDB column holds the text Bun
// writes for the Go type (a slice's JSON array in a JSON or VARCHAR
// column, an address in a VARCHAR or in the BLOB Bun creates for a
// net.IP), the model's array and address kinds stand; where it does not
// (a map over JSON, bytes over a BLOB, an address over MariaDB's own
// INET6), the database's kind does.
func TestMySQLCatalogModelKinds(t *testing.T) {
	db := testdb.MySQL(t)
	mExec(t, db, "CREATE TABLE m_kinds (id INT PRIMARY KEY, tags VARCHAR(255), scores JSON, ip BLOB, addr VARCHAR(45), "+
		"host INET6, doc JSON, raw BLOB, note JSON)")
	tbl, ok := mRead(t, db, "kinds", (*struct {
		bun.BaseModel `bun:"table:m_kinds"`
		ID            int            `bun:"id,pk"`
		Tags          []string       `bun:"tags,array"`
		Scores        []int64        `bun:"scores,array"`
		IP            net.IP         `bun:"ip"`
		Addr          netip.Addr     `bun:"addr"`
		Host          string         `bun:"host"`
		Doc           map[string]any `bun:"doc"`
		Raw           []byte         `bun:"raw"`
		Note          string         `bun:"note"`
	})(nil))
	if !ok {
		t.Fatal("ReadCatalog found no table m_kinds")
	}
	for _, tt := range []struct {
		col        string
		kind, elem schema.ValueKind
	}{
		{"tags", schema.KindArray, schema.KindText},
		{"scores", schema.KindArray, schema.KindNumber},
		{"ip", schema.KindInet, ""},
		{"addr", schema.KindInet, ""},
		{"host", schema.KindInet, ""},
		{"doc", schema.KindJSON, ""},
		{"raw", schema.KindBytes, ""},
		{"note", schema.KindJSON, ""},
	} {
		if c := tbl.ByName[tt.col]; c.Kind != tt.kind || c.Elem != tt.elem {
			t.Errorf("%s: kind %q, elem %q; want %q, %q", tt.col, c.Kind, c.Elem, tt.kind, tt.elem)
		}
	}
}

// TestMySQLCatalogLive: the enum labels in their order (a quote kept),
// the checks with the columns they read (a column's, the table's, and
// the json_valid MariaDB adds to a JSON column) and the trigger that
// rewrites rows, read again after a migration changes them.
func TestMySQLCatalogLive(t *testing.T) {
	db := testdb.MySQL(t)
	ctx := context.Background()
	mExec(t, db, mPlayersDDL)
	tbl, _ := mRead(t, db, "players", (*mPlayer)(nil))
	l := tbl.Live()
	if got, w := l.Labels["class"], []string{"warrior", "mage", "it's"}; !slices.Equal(got, w) {
		t.Errorf("class labels %q, want %q", got, w)
	}
	if got := tbl.ByName["class"].Labels(); len(got) != 3 {
		t.Errorf("Column.Labels %q", got)
	}
	mExec(t, db, `CREATE TABLE m_odd (id INT PRIMARY KEY, x ENUM('back\\slash','a,b','') NOT NULL)`)
	odd, _ := mRead(t, db, "odd", (*struct {
		bun.BaseModel `bun:"table:m_odd"`
		ID            int    `bun:"id,pk"`
		X             string `bun:"x"`
	})(nil))
	if got, w := odd.Live().Labels["x"], []string{`back\slash`, "a,b", ""}; !slices.Equal(got, w) {
		t.Errorf("m_odd labels %q, want %q", got, w)
	}
	if _, ok := l.Labels["perks"]; ok {
		t.Error("a set column has enum labels")
	}
	checks := map[string][]string{}
	for _, c := range l.Checks {
		checks[c.Name] = c.Columns
	}
	wantChecks := map[string][]string{"level": {"level"}, "gold_level": {"level", "gold"}, "doc": {"doc"}}
	if !reflect.DeepEqual(checks, wantChecks) {
		t.Errorf("checks %v, want %v", checks, wantChecks)
	}
	// MariaDB's refusal names the check (4025 CONSTRAINT `gold_level`
	// failed): Check finds it, by name without regard to case.
	if c, ok := l.Check("GOLD_LEVEL"); !ok || !slices.Equal(c.Columns, []string{"level", "gold"}) {
		t.Errorf("Check(GOLD_LEVEL) = %+v, %v", c, ok)
	}
	if l.RewritesRows {
		t.Error("RewritesRows without a trigger")
	}

	mExec(t, db,
		"ALTER TABLE m_players MODIFY class ENUM('warrior','mage','it''s','rogue') NOT NULL DEFAULT 'warrior'",
		"ALTER TABLE m_players ADD CONSTRAINT tier_small CHECK (tier < 10)",
		"CREATE TRIGGER m_players_up BEFORE UPDATE ON m_players FOR EACH ROW SET NEW.name = UPPER(NEW.name)")
	l, err := schema.ReadLive(ctx, db, tbl)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Labels["class"]; len(got) != 4 || got[3] != "rogue" {
		t.Errorf("class labels after the migration %q", got)
	}
	if c, ok := l.Check("tier_small"); !ok || !slices.Equal(c.Columns, []string{"tier"}) {
		t.Errorf("Check(tier_small) = %+v, %v", c, ok)
	}
	if !l.RewritesRows {
		t.Error("a BEFORE UPDATE trigger that sets NEW.name: RewritesRows is false")
	}

	// A table of the same check names elsewhere does not lend them.
	mExec(t, db, "CREATE TABLE m_other (id INT PRIMARY KEY, level INT CHECK (level > 5))")
	other, _ := mRead(t, db, "other", (*struct {
		bun.BaseModel `bun:"table:m_other"`
		ID            int `bun:"id,pk"`
		Level         int `bun:"level"`
	})(nil))
	if got := other.Live().Checks; len(got) != 1 || got[0].Expr != "`level` > 5" {
		t.Errorf("m_other's checks %+v", got)
	}
}

// TestMySQLCatalogViewsAndKeys: a view is read-only; a table missing is
// not read; a model whose key the table does not index is not key
// ordered, and one with a secondary index on its key is; the row
// estimate comes from information_schema.TABLES.
func TestMySQLCatalogViewsAndKeys(t *testing.T) {
	db := testdb.MySQL(t)
	ctx := context.Background()
	mExec(t, db, mPlayersDDL, "CREATE VIEW m_players_v AS SELECT id, name FROM m_players")
	type view struct {
		bun.BaseModel `bun:"table:m_players_v"`
		ID            uint64 `bun:"id,pk"`
		Name          string `bun:"name"`
	}
	v, ok := mRead(t, db, "view", (*view)(nil))
	if !ok || v.NotWritable != "it is a view" {
		t.Errorf("view: ok %v, NotWritable %q", ok, v.NotWritable)
	}
	if c := v.ByName["name"]; c.MaxLength != 32 || !c.FoldsCase {
		t.Errorf("the view's column: %+v", c)
	}

	type missing struct {
		bun.BaseModel `bun:"table:m_nowhere"`
		ID            int `bun:"id,pk"`
	}
	if _, ok := mRead(t, db, "missing", (*missing)(nil)); ok {
		t.Error("ReadCatalog read a table that does not exist")
	}

	// The model says name is the key; the table does not index it.
	type byName struct {
		bun.BaseModel `bun:"table:m_players"`
		Name          string `bun:"name,pk"`
		SteamID       uint64 `bun:"steam_id"`
	}
	bn, _ := mRead(t, db, "byName", (*byName)(nil))
	if bn.KeyOrdered {
		t.Error("KeyOrdered on a key the table has no index on")
	}
	type bySteam struct {
		bun.BaseModel `bun:"table:m_players"`
		SteamID       uint64 `bun:"steam_id,pk"`
	}
	if bs, _ := mRead(t, db, "bySteam", (*bySteam)(nil)); !bs.KeyOrdered {
		t.Error("KeyOrdered false on a key with a unique index")
	}
	// A prefix index keeps no whole column's order.
	mExec(t, db, "CREATE INDEX m_players_name4 ON m_players (name(4))")
	if bn, _ := mRead(t, db, "byName", (*byName)(nil)); bn.KeyOrdered {
		t.Error("KeyOrdered on a prefix index")
	}
	mExec(t, db, "CREATE INDEX m_players_name ON m_players (name)")
	if bn, _ := mRead(t, db, "byName", (*byName)(nil)); !bn.KeyOrdered {
		t.Error("KeyOrdered false on a whole-column index")
	}

	mExec(t, db, "INSERT INTO m_players (steam_id, level, name) SELECT seq, 1, CONCAT('p', seq) FROM seq_1_to_500", "ANALYZE TABLE m_players")
	n, err := schema.MySQLRowEstimate(ctx, db, "m_players")
	if err != nil {
		t.Fatal(err)
	}
	if n < 250 || n > 1000 {
		t.Errorf("estimate %d for 500 rows", n)
	}
	for _, name := range []string{"m_players_v", "m_nowhere"} {
		if n, err := schema.MySQLRowEstimate(ctx, db, name); err != nil || n != -1 {
			t.Errorf("estimate of %s: %d, %v", name, n, err)
		}
	}
	// A name qualified by its database, quoted as Bun quotes it.
	var dbName string
	if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&dbName); err != nil {
		t.Fatal(err)
	}
	if n, err := schema.MySQLRowEstimate(ctx, db, "`"+dbName+"`.`m_players`"); err != nil || n < 250 {
		t.Errorf("estimate of the qualified name: %d, %v", n, err)
	}
}
