package schema

import (
	"reflect"
	"strings"
	"testing"
)

func TestSQLiteChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, sql string
		want      []Check
	}{
		{"column and table checks", `CREATE TABLE p (id INTEGER PRIMARY KEY, qty INT CHECK (qty  >  0), lo INT, hi INT,
			mood TEXT CHECK (mood IN ('a', 'b')), CONSTRAINT range_ok CHECK (lo <= hi), CHECK( qty <> 7 ))`, []Check{
			{Expr: "qty  >  0", Columns: []string{"qty"}},
			{Expr: "mood IN ('a', 'b')", Columns: []string{"mood"}},
			{Name: "range_ok", Expr: "lo <= hi", Columns: []string{"lo", "hi"}},
			{Expr: "qty <> 7", Columns: []string{"qty"}},
		}},
		{"a column's named check reading another column", `CREATE TABLE "t" ("a" int, "b" int CONSTRAINT "b over a" CHECK ("b" > a))`, []Check{
			{Name: "b over a", Expr: `"b" > a`, Columns: []string{"a", "b"}},
		}},
		{"a name holds for the definition's later checks, as in SQLite", `CREATE TABLE t (q int CHECK (q <> 13) CONSTRAINT pos CHECK (q > 0) CHECK (q < 99),
			r int CHECK (r > 0), CONSTRAINT both CHECK (q < r) CHECK (r < 50), CHECK (r <> 7))`, []Check{
			{Expr: "q <> 13", Columns: []string{"q"}},
			{Name: "pos", Expr: "q > 0", Columns: []string{"q"}},
			{Name: "pos", Expr: "q < 99", Columns: []string{"q"}},
			{Expr: "r > 0", Columns: []string{"r"}},
			{Name: "both", Expr: "q < r", Columns: []string{"q", "r"}},
			{Name: "both", Expr: "r < 50", Columns: []string{"r"}},
			{Expr: "r <> 7", Columns: []string{"r"}},
		}},
		{"a column's check naming no column reads that column", `CREATE TABLE t (flag int CHECK (1), x text)`, []Check{
			{Expr: "1", Columns: []string{"flag"}},
		}},
		{"functions, strings and case", `CREATE TABLE t (length int, Name text CHECK (length(NAME) < 10 AND name <> 'length'))`, []Check{
			{Expr: "length(NAME) < 10 AND name <> 'length'", Columns: []string{"Name"}},
		}},
		{"comments and quotes hide nothing", `CREATE TABLE t ( -- CHECK (x > 1), y
			x int /* CHECK (y) */, [y z] int CHECK ([y z] >= 0), "q""x" text CHECK ("q""x" <> ''''))`, []Check{
			{Expr: "[y z] >= 0", Columns: []string{"y z"}},
			{Expr: `"q""x" <> ''''`, Columns: []string{`q"x`}},
		}},
		{"nested parentheses", `CREATE TABLE t (a int, b int, CHECK ((a + (b * 2)) BETWEEN 0 AND 10))`, []Check{
			{Expr: "(a + (b * 2)) BETWEEN 0 AND 10", Columns: []string{"a", "b"}},
		}},
		{"no checks", `CREATE TABLE t (id integer primary key, name text not null default 'x')`, nil},
		{"as select", `CREATE TABLE t AS SELECT 1 AS x`, nil},
		{"unterminated", `CREATE TABLE t (a int CHECK (a > 0`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sqliteChecks(tt.sql); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("sqliteChecks(%q) =\n%+v; want\n%+v", tt.sql, got, tt.want)
			}
		})
	}
}

func TestSQLiteTriggerRewrites(t *testing.T) {
	t.Parallel()
	for sql, want := range map[string]bool{
		`CREATE TRIGGER bump AFTER UPDATE ON p BEGIN UPDATE p SET rev = rev + 1 WHERE id = NEW.id; END`:          true,
		`CREATE TRIGGER IF NOT EXISTS "stamp" AFTER INSERT ON p BEGIN UPDATE p SET n = 1; END`:                   true,
		`CREATE TEMP TRIGGER t1 BEFORE UPDATE OF qty ON p BEGIN SELECT 1; END`:                                   true,
		`create trigger t2 insert on p begin select 1; end`:                                                      true,
		`CREATE TRIGGER gone AFTER DELETE ON p BEGIN INSERT INTO log VALUES (OLD.id); END`:                       false,
		`CREATE TRIGGER "update" BEFORE DELETE ON p BEGIN UPDATE other SET x = 1; END`:                           false,
		`CREATE TRIGGER insert_log INSTEAD OF DELETE ON v BEGIN INSERT INTO log VALUES (1); UPDATE x SET y; END`: false,
		`not a trigger`: false,
	} {
		if got := sqliteTriggerRewrites(sql); got != want {
			t.Errorf("sqliteTriggerRewrites(%q) = %v; want %v", sql, got, want)
		}
	}
}

// FuzzSQLiteChecks: whatever the statement, reading its checks does not
// panic, each check's expression is a part of the statement, and it
// names each column it reads once.
func FuzzSQLiteChecks(f *testing.F) {
	f.Add(`CREATE TABLE p (id INTEGER PRIMARY KEY, qty INT CHECK (qty > 0), CONSTRAINT c CHECK (qty < 9))`)
	f.Add(`CREATE TABLE "t" ("a" int, [b] int CHECK ("a" > [b]), CHECK ((a)))`)
	f.Add(`CREATE TABLE t (a int CHECK (a > 0 -- x`)
	f.Add(`CREATE TABLE t (a CHECK(), CHECK (`)
	f.Add(`CREATE TRIGGER x AFTER UPDATE ON t BEGIN END`)
	f.Fuzz(func(t *testing.T, sql string) {
		_ = sqliteTriggerRewrites(sql)
		for _, c := range sqliteChecks(sql) {
			if !strings.Contains(sql, c.Expr) {
				t.Fatalf("sqliteChecks(%q): expression %q is not in the statement", sql, c.Expr)
			}
			seen := map[string]bool{}
			for _, col := range c.Columns {
				if seen[col] {
					t.Fatalf("sqliteChecks(%q): column %q twice in %v", sql, col, c.Columns)
				}
				seen[col] = true
			}
		}
	})
}

func TestLiveCheck(t *testing.T) {
	t.Parallel()
	l := &Live{Checks: sqliteChecks(`CREATE TABLE t (q int CHECK (q <> 13) CONSTRAINT pos CHECK (q > 0),
		r int, CONSTRAINT Both CHECK (q < r) CHECK (r < 50), s int CONSTRAINT both CHECK (s > 0))`)}
	for _, tt := range []struct {
		ref  string
		cols []string
	}{
		{"q <> 13", []string{"q"}},
		{"pos", []string{"q"}},
		{"POS", []string{"q"}},
		{"Both", []string{"q", "r"}},
		{"both", []string{"s"}},
		{"BOTH", []string{"q", "r", "s"}},
		{"q > 0", nil},
		{"", nil},
	} {
		got, ok := l.Check(tt.ref)
		if ok != (tt.cols != nil) || !reflect.DeepEqual(got.Columns, tt.cols) {
			t.Errorf("Check(%q) = %+v, %v; want columns %v", tt.ref, got, ok, tt.cols)
		}
	}
	var none *Live
	if _, ok := none.Check("pos"); ok {
		t.Error("a nil Live found a check")
	}
}
