package mysqltest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/dberr"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
)

// TestMySQLRefusals provokes each refusal on the real MariaDB server and
// reads it as the same Refusal as PostgreSQL's and SQLite's: its kind,
// the columns or the constraint the message names, the side of a foreign
// key, and never the refused value.
func TestMySQLRefusals(t *testing.T) {
	db := testdb.MySQL(t)
	ctx := context.Background()
	for _, stmt := range []string{
		`CREATE TABLE players (
			id BIGINT PRIMARY KEY,
			username VARCHAR(8) NOT NULL UNIQUE,
			level TINYINT,
			born DATETIME,
			note VARCHAR(10) NOT NULL,
			qty INT CHECK (qty > 0),
			doubled BIGINT AS (id * 2) VIRTUAL,
			a INT, b INT,
			mood ENUM('calm', 'angry'),
			CONSTRAINT level_ok CHECK (level < 100),
			UNIQUE KEY players_ab (a, b)
		)`,
		`CREATE TABLE items (id BIGINT PRIMARY KEY, player_id BIGINT,
			CONSTRAINT items_player FOREIGN KEY (player_id) REFERENCES players (id))`,
		`CREATE VIEW player_count AS SELECT COUNT(*) AS n FROM players`,
		`INSERT INTO players (id, username, note, a, b) VALUES (1, 'bob', 'n', 1, 1)`,
		`INSERT INTO items VALUES (1, 1)`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for _, tt := range []struct {
		name       string
		stmt       string
		args       []any
		kind       dberr.Kind
		cols       []string
		constraint string
	}{
		{"duplicate unique column", `INSERT INTO players (id, username, note) VALUES (2, ?, 'n')`, []any{"bob"}, dberr.Unique, nil, "username"},
		{"duplicate primary key", `INSERT INTO players (id, username, note) VALUES (?, 'al', 'n')`, []any{1}, dberr.Unique, nil, "PRIMARY"},
		{"duplicate composite key", `INSERT INTO players (id, username, note, a, b) VALUES (3, 'cy', 'n', ?, ?)`, []any{1, 1}, dberr.Unique, nil, "players_ab"},
		{"missing referenced row", `INSERT INTO items VALUES (2, ?)`, []any{99}, dberr.ForeignKey, []string{"player_id"}, "items_player"},
		{"referenced row deleted", `DELETE FROM players WHERE id = ?`, []any{1}, dberr.ForeignKey, nil, "items_player"},
		{"null", `INSERT INTO players (id, username, note) VALUES (4, ?, 'n')`, []any{nil}, dberr.NotNull, []string{"username"}, ""},
		{"no default", `INSERT INTO players (id, username) VALUES (4, ?)`, []any{"dee"}, dberr.NotNull, []string{"note"}, ""},
		{"out of range", `INSERT INTO players (id, username, note, level) VALUES (4, 'dee', 'n', ?)`, []any{1000}, dberr.BadValue, []string{"level"}, ""},
		{"named check", `INSERT INTO players (id, username, note, level) VALUES (4, 'dee', 'n', ?)`, []any{100}, dberr.Check, nil, "level_ok"},
		{"column check", `INSERT INTO players (id, username, note, qty) VALUES (4, 'dee', 'n', ?)`, []any{0}, dberr.Check, []string{"qty"}, "qty"},
		{"too long", `INSERT INTO players (id, username, note) VALUES (4, ?, 'n')`, []any{"much-too-long-a-name"}, dberr.BadValue, []string{"username"}, ""},
		{"incorrect integer", `INSERT INTO players (id, username, note, level) VALUES (4, 'dee', 'n', ?)`, []any{"many"}, dberr.BadValue, []string{"level"}, ""},
		{"incorrect datetime", `INSERT INTO players (id, username, note, born) VALUES (4, 'dee', 'n', ?)`, []any{"yesterday"}, dberr.BadValue, []string{"born"}, ""},
		{"enum value", `INSERT INTO players (id, username, note, mood) VALUES (4, 'dee', 'n', ?)`, []any{"sleepy"}, dberr.BadValue, []string{"mood"}, ""},
		{"generated column", `INSERT INTO players (id, username, note, doubled) VALUES (4, 'dee', 'n', ?)`, []any{3}, dberr.Generated, []string{"doubled"}, ""},
		{"view update", `UPDATE player_count SET n = ?`, []any{1}, dberr.NotWritable, nil, ""},
		{"view insert", `INSERT INTO player_count VALUES (?)`, []any{1}, dberr.NotWritable, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.NewRaw(tt.stmt, tt.args...).Exec(ctx)
			if err == nil {
				t.Fatalf("%s: no error", tt.stmt)
			}
			r, ok := dberr.Classify(err)
			if !ok || r.Kind != tt.kind || !slices.Equal(r.Columns, tt.cols) || r.Constraint != tt.constraint {
				t.Fatalf("Classify(%v) = %+v, %v; want kind %d, columns %v, constraint %q", err, r, ok, tt.kind, tt.cols, tt.constraint)
			}
			for _, v := range tt.args {
				if s, ok := v.(string); ok && (slices.Contains(r.Columns, s) || strings.Contains(r.Constraint, s) || strings.Contains(r.Table, s)) {
					t.Errorf("the refusal %+v carries the value %q", r, s)
				}
			}
			if dberr.SQLState(err) == "" {
				t.Errorf("SQLState(%v) is empty", err)
			}
		})
	}
	// The sides of the foreign key, as PostgreSQL says them.
	_, err := db.ExecContext(ctx, `INSERT INTO items VALUES (3, 42)`)
	if r, _ := dberr.Classify(err); !r.Sided || !r.Missing || r.ForeignKeyMessage() != `column "player_id": the referenced row does not exist` {
		t.Errorf("missing referenced row: %+v (%v)", r, err)
	}
	_, err = db.ExecContext(ctx, `DELETE FROM players WHERE id = 1`)
	if r, _ := dberr.Classify(err); !r.Sided || r.Missing || r.ForeignKeyMessage() != `rows of "items" still refer to this row` {
		t.Errorf("referenced row deleted: %+v (%v)", r, err)
	}
	// A duplicate's key, through the catalog's indexes, names its
	// columns: MariaDB names an unnamed UNIQUE (a, b) after "a".
	if _, err := db.ExecContext(ctx, `CREATE TABLE pairs (id INT PRIMARY KEY, a INT, b INT, UNIQUE (a, b))`); err != nil {
		t.Fatal(err)
	}
	keyColumns := func(key string) (cols []string) {
		rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME FROM information_schema.STATISTICS
			WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'pairs' AND INDEX_NAME = ? ORDER BY SEQ_IN_INDEX`, key)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		return cols
	}
	_, err = db.ExecContext(ctx, `INSERT INTO pairs VALUES (1, 1, 1), (2, 1, 1)`)
	if r, _ := dberr.Classify(err); !slices.Equal(r.KeyColumns(keyColumns).Columns, []string{"a", "b"}) {
		t.Errorf("unnamed composite key %+v (%v): want its columns a, b through the catalog", r, err)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO pairs VALUES (3, 1, 2), (3, 2, 2)`)
	if r, _ := dberr.Classify(err); !slices.Equal(r.KeyColumns(keyColumns).Columns, []string{"id"}) {
		t.Errorf("primary key %+v (%v): want id through the catalog", r, err)
	}

	// Nothing was written by the refused statements.
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM players`).Scan(&n); err != nil || n != 1 {
		t.Errorf("players: %d rows, %v; want the one written before", n, err)
	}
	// A fault of the server is no refusal.
	_, err = db.ExecContext(ctx, `INSERT INTO no_such_table VALUES (1)`)
	if r, ok := dberr.Classify(err); ok || err == nil {
		t.Errorf("Classify(%v) = %+v; want no refusal", err, r)
	}
}
