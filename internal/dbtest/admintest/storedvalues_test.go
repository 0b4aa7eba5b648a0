package admintest

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// FuzzStoredValues writes arbitrary text by SQL into each column of the
// typed table, as a game's own code might, and checks that the list, the
// read and the CSV export of the row never answer 5xx and that the export
// ends whole. On PostgreSQL a text the column's type refuses is skipped:
// the database never held it.
func FuzzStoredValues(f *testing.F) {
	for _, s := range []string{"infinity", "-infinity", "NaN", "Infinity", "{}", "{NULL,\"a\"}", `"bare"`, "\xff\xfe", "10.0.0.1/8", "12.300", "9007199254740993",
		"2024-05-06 07:08:09", "0001-01-01 00:00:00 BC", "294276-12-31", "[1,2]", "null", "", "{{1,2},{3,4}}", "angry", "08:00:2b:01:02:03"} {
		for i := range typedCols {
			f.Add(i, s)
		}
	}
	// One panel per database for the whole run: a fuzz function may not
	// use f, and a panel per input would be most of the time spent.
	envs := []*fuzzEnv{newFuzzEnv(f, "sqlite"), newFuzzEnv(f, "pg")}
	f.Fuzz(func(t *testing.T, col int, value string) {
		if col < 0 || col >= len(typedCols) {
			return
		}
		for _, fe := range envs {
			fe.check(t, typedCols[col].name, value)
		}
	})
}

type fuzzEnv struct {
	e  *env
	c  *client
	pg bool
}

func newFuzzEnv(f *testing.F, name string) *fuzzEnv {
	var db *bun.DB
	if name == "pg" {
		db = testdb.PG(f)
	} else {
		db = testdb.SQLite(f)
	}
	ctx := context.Background()
	pg := db.Dialect().Name() == dialect.PG
	if pg {
		if _, err := db.ExecContext(ctx, typedPGDDL); err != nil {
			f.Fatal(err)
		}
	} else if _, err := db.NewCreateTable().Model((*testTyped)(nil)).Exec(ctx); err != nil {
		f.Fatal(err)
	}
	a, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RateLimit: RateLimitOptions{Login: NoLimit{}, Bootstrap: NoLimit{}, RequestReset: NoLimit{}, LoginFailuresPerEmail: NoLimit{}, LoginFailuresPerNetwork: NoLimit{}, PerIP: NoLimit{}, Actions: NoLimit{}},
		Tables:    tablesWith(map[string]any{"typed": (*testTyped)(nil)}), SetupToken: testSetupToken})
	if err != nil {
		f.Fatal(err)
	}
	mux := http.NewServeMux()
	a.Mount(mux)
	srv := httptest.NewServer(mux)
	f.Cleanup(func() {
		srv.Close()
		a.Close()
	})
	e := &env{db: db, admin: a, srv: srv}
	c := &client{e: e}
	jar, _ := cookiejar.New(nil)
	c.hc = &http.Client{Jar: jar}
	res, err := c.hc.Post(srv.URL+"/admin-api/auth/bootstrap", "application/json", strings.NewReader(`{"email":"root@example.com","password":"correct horse","token":"`+testSetupToken+`"}`))
	if err != nil || res.StatusCode != 201 {
		f.Fatalf("bootstrap: %v %v", res, err)
	}
	res.Body.Close()
	return &fuzzEnv{e: e, c: c, pg: pg}
}

func (fe *fuzzEnv) check(t *testing.T, col, value string) {
	if strings.IndexByte(value, 0) >= 0 {
		return // Bun will not write a NUL byte into SQL text
	}
	ctx := context.Background()
	db := fe.e.db
	if _, err := db.ExecContext(ctx, "DELETE FROM typed_rows"); err != nil {
		t.Fatal(err)
	}
	var id int64
	err := db.NewRaw("INSERT INTO typed_rows (?) VALUES (?) RETURNING id", bun.Ident(col), value).Scan(ctx, &id)
	if err != nil {
		if fe.pg {
			return // the column's type refused the text
		}
		t.Fatalf("insert %q into %s: %v", value, col, err)
	}
	for _, path := range []string{"/admin-api/typed", fmt.Sprintf("/admin-api/typed/%d", id), fmt.Sprintf("/admin-api/typed/%d/_counts", id), "/admin-api/typed/_export.csv"} {
		req, _ := http.NewRequest("GET", fe.e.srv.URL+path, nil)
		res, err := fe.c.hc.Do(req)
		if err != nil {
			t.Fatalf("GET %s with %s = %q: %v", path, col, value, err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatalf("GET %s with %s = %q: the body was cut: %v", path, col, value, err)
		}
		if res.StatusCode >= 500 {
			t.Fatalf("GET %s with %s = %q: %d %s", path, col, value, res.StatusCode, body)
		}
	}
}

// testOdd has the columns a game writes special values into behind the
// panel's back.
type testOdd struct {
	bun.BaseModel `bun:"table:odd_values,alias:o"`

	ID     int64          `bun:"id,pk,autoincrement"`
	At     *time.Time     `bun:"at"`
	Local  *time.Time     `bun:"local,type:timestamp"`
	Day    *time.Time     `bun:"day,type:date"`
	Amount *float64       `bun:"amount,type:numeric"`
	Ratio  *float64       `bun:"ratio"`
	Qty    *int64         `bun:"qty"`
	Note   *string        `bun:"note"`
	Doc    map[string]any `bun:"doc"`
	Items  []*testOddItem `bun:"rel:has-many,join:id=odd_id"`
}

// testOddItem gives testOdd a tab, so _counts has something to count.
type testOddItem struct {
	bun.BaseModel `bun:"table:odd_items,alias:oi"`

	ID    int64 `bun:"id,pk,autoincrement"`
	OddID int64 `bun:"odd_id,notnull"`
}

// maxDecimal is the largest DECIMAL(65,2), the widest MariaDB declares.
const maxDecimal = "999999999999999999999999999999999999999999999999999999999999999.99"

// TestSpecialStoredValues writes by SQL the values a game's own code can
// store and the model's Go types cannot hold, and checks no page breaks:
// list, read, _counts and the CSV export answer 200 with the literal,
// update and delete still work on the row, and a cell that cannot be
// shown as stored says so and is logged with the row's key.
func TestSpecialStoredValues(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		if db.Dialect().Name() == dialect.MySQL {
			// The types a MariaDB game declares, where Bun's would be
			// DATETIME without fractions, DECIMAL(10,0) and VARCHAR.
			must(db.ExecContext(context.Background(), `CREATE TABLE odd_values (id BIGINT AUTO_INCREMENT PRIMARY KEY,
				at DATETIME(6) NULL, local TIMESTAMP(6) NULL, day DATE NULL, amount DECIMAL(65,2) NULL,
				ratio DOUBLE NULL, qty BIGINT NULL, note TEXT NULL, doc JSON NULL)`))
		}
		createTables(t, db, (*testOdd)(nil), (*testOddItem)(nil))
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"odd": (*testOdd)(nil), "oddItems": (*testOddItem)(nil)})})
		c, _ := e.bootstrap()
		ctx := context.Background()
		pg := db.Dialect().Name() == dialect.PG
		mysql := db.Dialect().Name() == dialect.MySQL
		sqlite := !pg && !mysql
		// Row 1 holds the special values; row 2 a plain one, so pages
		// with both are checked.
		stmts := []string{
			`INSERT INTO odd_values (id, at, local, day, amount, ratio, note, doc) VALUES
			 (1, 'infinity', '-infinity', 'infinity', 'NaN', 'NaN', 'plain', '"bare"')`,
			`INSERT INTO odd_values (id, at, local, day, amount, ratio, qty, note) VALUES
			 (2, '2024-05-06 07:08:09.5+00', '2024-05-06 07:08:09', '2024-05-06', 12.30, 1.5, 3, 'ok')`,
			`INSERT INTO odd_items (odd_id) VALUES (1), (1)`,
		}
		if mysql {
			stmts = []string{
				`SET STATEMENT sql_mode='' FOR INSERT INTO odd_values (id, at, local, day, amount, ratio, note, doc) VALUES
				 (1, '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00', ` + maxDecimal + `, 1.7976931348623157e308, 'plain', '"bare"')`,
				`INSERT INTO odd_values (id, at, local, day, amount, ratio, qty, note) VALUES
				 (2, '2024-05-06 07:08:09.5', '2024-05-06 07:08:09', '2024-05-06', 12.30, 1.5, 3, 'ok')`,
				stmts[2],
				`SET STATEMENT sql_mode='' FOR INSERT INTO odd_values (id, at, day, amount, ratio) VALUES
				 (3, '2024-05-00 00:00:00', '2024-00-00', -` + maxDecimal + `, 4.9e-324)`,
			}
		} else if pg {
			stmts = append(stmts, `INSERT INTO odd_values (id, at, ratio) VALUES (3, '-infinity', 'Infinity')`)
		} else {
			// SQLite keeps what it is given: invalid UTF-8 in text, text
			// in an integer column.
			stmts = append(stmts, `INSERT INTO odd_values (id, ratio, qty, note) VALUES (3, 'Infinity', 'many', CAST(X'6F6BFF21' AS TEXT))`)
		}
		for _, s := range stmts {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}

		list, _ := c.list(t, "/admin-api/odd", nil)
		if len(list) != 3 {
			t.Fatalf("list = %d rows; want 3", len(list))
		}
		byID := map[string]map[string]any{}
		for _, r := range list {
			byID[fmt.Sprint(r["id"])] = r
		}
		want := map[string]any{"at": "infinity", "local": "-infinity", "day": "infinity", "amount": "NaN", "ratio": "NaN", "doc": "bare"}
		want3 := map[string]any{"ratio": "Infinity"}
		csvWant := map[string]string{"at": "infinity", "local": "'-infinity", "day": "infinity", "amount": "NaN", "ratio": "NaN", "doc": `"bare"`}
		at2, order := "2024-05-06T07:08:09.5Z", "3,2,1"
		if mysql {
			// The zero dates as stored (the driver would make them year
			// 1), a zero day or month too; the widest decimal's digits as
			// stored (the model's float64 would round them to 1e63), the
			// extreme doubles as numbers. The game's DATETIME is a wall
			// clock.
			want = map[string]any{"at": "0000-00-00 00:00:00.000000", "local": "0000-00-00 00:00:00.000000", "day": "0000-00-00",
				"amount": maxDecimal, "ratio": math.MaxFloat64, "doc": "bare"}
			want3 = map[string]any{"at": "2024-05-00 00:00:00.000000", "day": "2024-00-00", "amount": "-" + maxDecimal, "ratio": 5e-324}
			csvWant = map[string]string{"at": "0000-00-00 00:00:00.000000", "local": "0000-00-00 00:00:00.000000", "day": "0000-00-00",
				"amount": maxDecimal, "ratio": "1.7976931348623157e+308", "doc": `"bare"`}
			at2, order = "2024-05-06T07:08:09.5", "1,3,2"
		}
		for col, w := range want {
			if got := byID["1"][col]; got != w {
				t.Errorf("list row 1 %s = %#v; want %#v", col, got, w)
			}
		}
		for col, w := range want3 {
			if got := byID["3"][col]; got != w {
				t.Errorf("list row 3 %s = %#v; want %#v", col, got, w)
			}
		}
		if got := byID["2"]["at"]; got != at2 {
			t.Errorf("list row 2 at = %#v; want %s", got, at2)
		}
		if _, ok := byID["1"]["_invalid"]; ok {
			t.Errorf("row 1 _invalid = %v; special values are values, not faults", byID["1"]["_invalid"])
		}
		// Sorted on a column holding them, the special values take the
		// database's order.
		if !sqlite {
			sorted, _ := c.list(t, "/admin-api/odd", map[string][]string{"_sort": {"at"}, "_order": {"asc"}})
			if got := strings.Join(column(sorted, "id"), ","); got != order {
				t.Errorf("sorted by at = %s; want %s (-infinity, 2024, infinity; or 0000-00-00, 2024-05-00, 2024-05-06)", got, order)
			}
		}

		read := c.do("GET", "/admin-api/odd/1", nil).want(t, 200)
		for col, w := range want {
			if got := read.body[col]; got != w {
				t.Errorf("read %s = %#v; want %#v", col, got, w)
			}
		}
		counts := c.do("GET", "/admin-api/odd/1/_counts", nil).want(t, 200)
		if counts.body["items"] != float64(2) {
			t.Errorf("_counts = %s; want items 2", counts.raw)
		}

		r := c.do("GET", "/admin-api/odd/_export.csv?_sort=id", nil).want(t, 200)
		recs, err := csv.NewReader(strings.NewReader(string(r.raw))).ReadAll()
		if err != nil {
			t.Fatalf("CSV: %v\n%s", err, r.raw)
		}
		if len(recs) != 4 {
			t.Fatalf("CSV has %d records; want header and 3 rows:\n%s", len(recs), r.raw)
		}
		head := map[string]int{}
		for i, h := range recs[0] {
			head[h] = i
		}
		for col, w := range csvWant {
			if got := recs[1][head[col]]; got != w {
				t.Errorf("CSV row 1 %s = %q; want %q", col, got, w)
			}
		}
		if got := recs[2][head["amount"]]; got != "12.3" && got != "12.30" {
			t.Errorf("CSV row 2 amount = %q; want 12.30", got)
		}

		// The row can still be edited and the edit is audited.
		up := c.do("PATCH", "/admin-api/odd/1", map[string]any{"note": "edited"}).want(t, 200)
		if up.body["at"] != want["at"] || up.body["note"] != "edited" {
			t.Errorf("PATCH answer = %s; want at %v, note edited", up.raw, want["at"])
		}
		// The row read back unchanged is accepted and changes nothing.
		put := map[string]any{}
		for k, v := range read.body {
			if k != "id" && !strings.HasPrefix(k, "_") {
				put[k] = v
			}
		}
		put["note"] = "edited"
		back := c.do("PUT", "/admin-api/odd/1", put).want(t, 200)
		// A bare string sent back unchanged is kept; a new one is refused,
		// as the game's own code reads the column into a map.
		if r := c.do("PATCH", "/admin-api/odd/1", map[string]any{"doc": "other"}); r.StatusCode != 400 || r.body["fields"] == nil {
			t.Errorf("PATCH doc with a new bare string = %d %s; want 400 naming doc", r.StatusCode, r.raw)
		}
		for col, w := range want {
			if got := back.body[col]; got != w {
				t.Errorf("after PUT %s = %#v; want %#v", col, got, w)
			}
		}

		if sqlite {
			bad := byID["3"]
			inv, _ := bad["_invalid"].(map[string]any)
			if bad["note"] != "ok\uFFFD!" || inv["note"] == nil {
				t.Errorf("row 3 note = %#v, _invalid = %#v; want ok\uFFFD! flagged", bad["note"], bad["_invalid"])
			}
			if bad["qty"] != "many" || inv["qty"] == nil {
				t.Errorf("row 3 qty = %#v, _invalid = %#v; want the stored text flagged", bad["qty"], bad["_invalid"])
			}
			if logs := e.logs.String(); !strings.Contains(logs, "cell cannot be shown as stored") || !strings.Contains(logs, "id=3") || !strings.Contains(logs, "column=qty") {
				t.Errorf("log lacks the cell's cause with its row key:\n%s", logs)
			}
		}
		c.do("DELETE", "/admin-api/odd/3", nil).want(t, 200)
		if len(e.auditRows("update")) == 0 || len(e.auditRows("delete")) != 1 {
			t.Errorf("audit: %d updates, %d deletes; want the edit and the delete", len(e.auditRows("update")), len(e.auditRows("delete")))
		}
	})
}

// testTyped has the column types a game schema uses, with the Go types a
// developer picks for them (a string stands in for decimal.Decimal, which
// the module does not depend on).
type testTyped struct {
	bun.BaseModel `bun:"table:typed_rows,alias:tr"`

	ID      int64          `bun:"id,pk,autoincrement"`
	Tags    []string       `bun:"tags,array"`
	Scores  []int64        `bun:"scores,array"`
	IP      net.IP         `bun:"ip"`
	Net     *string        `bun:"net"`
	Mac     *string        `bun:"mac"`
	Price   *string        `bun:"price"`
	Ratio   *float64       `bun:"ratio"`
	LocalAt *time.Time     `bun:"local_at"`
	Day     *time.Time     `bun:"day"`
	At      *time.Time     `bun:"at"`
	Mood    *string        `bun:"mood"`
	Doc     map[string]any `bun:"doc"`
	UID     *uuid.UUID     `bun:"uid,type:uuid"`
	Name    *string        `bun:"name"`
	Blob    []byte         `bun:"blob"`
	NameLen *int64         `bun:"name_len"`
	Dur     *string        `bun:"dur"`
	Cash    *string        `bun:"cash"`
	IDs     []string       `bun:"ids,array"`
	Docs    []any          `bun:"docs,array"`
}

// typedPGDDL is the game's own migration on PostgreSQL.
const typedPGDDL = `
CREATE TYPE mood AS ENUM ('calm', 'angry', 'sleepy');
CREATE TABLE typed_rows (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tags text[] NOT NULL DEFAULT '{}',
  scores bigint[],
  ip inet,
  net cidr,
  mac macaddr,
  price numeric(12,2),
  ratio double precision,
  local_at timestamp,
  day date,
  at timestamptz,
  mood mood,
  doc jsonb,
  uid uuid,
  name varchar(10),
  blob bytea,
  name_len int GENERATED ALWAYS AS (length(name)) STORED,
  dur interval,
  cash money,
  ids uuid[],
  docs jsonb[]
)`

// typedMySQLDDL is the game's own migration on MariaDB: an array is a
// JSON column (a LONGTEXT that holds valid JSON), an address the text
// Bun writes for a net.IP (MariaDB 10.11's INET6 takes 10.0.0.3 only as
// ::ffff:10.0.0.3), an interval a TIME.
const typedMySQLDDL = `
CREATE TABLE typed_rows (
  id BIGINT AUTO_INCREMENT PRIMARY KEY,
  tags JSON NOT NULL DEFAULT '[]',
  scores JSON,
  ip VARCHAR(45),
  net VARCHAR(43),
  mac VARCHAR(17),
  price DECIMAL(12,2),
  ratio DOUBLE,
  local_at DATETIME(6),
  day DATE,
  at TIMESTAMP(6) NULL DEFAULT NULL,
  mood ENUM('calm', 'angry', 'sleepy'),
  doc JSON,
  uid UUID,
  name VARCHAR(10),
  ` + "`blob`" + ` BLOB,
  name_len INT GENERATED ALWAYS AS (CHAR_LENGTH(name)) STORED,
  dur TIME,
  cash DECIMAL(19,2),
  ids JSON,
  docs JSON
)`

// typedCol is one column of the matrix: the value a client writes, what
// the panel shows on each database (as JSON), a second value for the
// update, an eq-style filter, and the CSV cell.
type typedCol struct {
	name          string
	write, update any
	pg, sqlite    string // the shown value as JSON; "" means the written value
	filter        string // query parameter selecting the row by this column
	// writeLite and filterLite replace write and filter on SQLite, where
	// a time.Time column without a type: tag is an instant.
	writeLite, filterLite, updateLite string
	// writeMy and filterMy replace write and filter on MariaDB, where an
	// interval is a TIME; kindMy is its kind where it is not kindPG's.
	writeMy, filterMy string
	csvPG             string
	kindPG, kindMy    string
}

// on is tc as the database d takes and shows it: write, update and
// filter are d's variants, and shown is the value the panel answers, as
// JSON.
func (tc typedCol) on(d dialect.Name) (col typedCol, shown string) {
	switch d {
	case dialect.PG:
		shown = tc.pg
	case dialect.SQLite:
		shown = tc.sqlite
		if tc.writeLite != "" {
			tc.write = tc.writeLite
		}
		if tc.updateLite != "" {
			tc.update = tc.updateLite
		}
		tc.filter = cmp.Or(tc.filterLite, tc.filter)
	case dialect.MySQL:
		if tc.writeMy != "" {
			tc.write = tc.writeMy
		}
		tc.filter = cmp.Or(tc.filterMy, tc.filter)
		tc.kindPG = cmp.Or(tc.kindMy, tc.kindPG)
	}
	if shown == "" {
		shown = string(must(json.Marshal(tc.write)))
	}
	return tc, shown
}

var typedCols = []typedCol{
	{name: "tags", write: []any{"vip", "a b", `q"uote`}, update: []any{}, filter: "tags_contains=vip", csvPG: `["vip","a b","q\"uote"]`, kindPG: "array"},
	{name: "scores", write: []any{json.Number("1"), json.Number("9007199254740993")}, update: []any{json.Number("2")}, pg: `[1,9007199254740993]`, filter: "scores_contains=9007199254740993", csvPG: "[1,9007199254740993]", kindPG: "array"},
	{name: "ip", write: "10.0.0.3", update: "::1", filter: "ip=10.0.0.3", csvPG: "10.0.0.3", kindPG: "inet"},
	{name: "net", write: "10.0.0.0/8", update: "192.168.0.0/16", filter: "net=10.0.0.0/8", csvPG: "10.0.0.0/8", kindPG: "inet", kindMy: "text"},
	{name: "mac", write: "08:00:2b:01:02:03", update: "08:00:2b:01:02:04", filter: "mac=08:00:2b:01:02:03", csvPG: "08:00:2b:01:02:03", kindPG: "inet", kindMy: "text"},
	{name: "price", write: "12.30", update: "13370.00", filter: "price=12.30", csvPG: "12.30", kindPG: "decimal"},
	{name: "ratio", write: json.Number("1.5"), update: json.Number("-2.25"), filter: "ratio=1.5", csvPG: "1.5", kindPG: "number"},
	{name: "local_at", write: "2024-05-06T07:08:09", update: "2025-01-02T03:04:05.5", sqlite: `"2024-05-06T07:08:09Z"`, filter: "local_at=2024-05-06T07:08:09",
		writeLite: "2024-05-06T07:08:09Z", updateLite: "2025-01-02T03:04:05.5Z", filterLite: "local_at=2024-05-06T07:08:09Z", csvPG: "2024-05-06T07:08:09", kindPG: "timestamp-local"},
	{name: "day", write: "2024-05-06", update: "2025-12-31", sqlite: `"2024-05-06T00:00:00Z"`, filter: "day=2024-05-06", csvPG: "2024-05-06", kindPG: "date"},
	{name: "at", write: "2024-05-06T07:08:09.123456Z", update: "2025-01-02T03:04:05Z", filter: "at=2024-05-06T07:08:09.123456Z", csvPG: "2024-05-06T07:08:09.123456Z", kindPG: "time"},
	{name: "mood", write: "angry", update: "sleepy", filter: "mood=angry", csvPG: "angry", kindPG: "enum"},
	{name: "doc", write: map[string]any{"big": json.Number("9007199254740993"), "s": "x"}, update: map[string]any{"big": json.Number("-9007199254740993")}, pg: `{"big":9007199254740993,"s":"x"}`, filter: "doc_null=false", csvPG: `{"s": "x", "big": 9007199254740993}`, kindPG: "json"},
	{name: "uid", write: "0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3d", update: "0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3e", filter: "uid=0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3d", csvPG: "0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3d", kindPG: "uuid"},
	{name: "name", write: "Player", update: "Other", filter: "name=Player", csvPG: "Player", kindPG: "text"},
	{name: "dur", write: "1 day 02:03:04", update: "00:00:05", filter: "dur=1 day 02:03:04", csvPG: "1 day 02:03:04", kindPG: "text",
		writeMy: "26:03:04", filterMy: "dur=26:03:04"},
	{name: "cash", write: "12.30", update: "5", pg: `"$12.30"`, filter: "cash=12.30", csvPG: "$12.30", kindPG: "text", kindMy: "decimal"},
	{name: "ids", write: []any{"0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3d", nil}, update: []any{}, filter: "ids_contains=0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3d",
		csvPG: `["0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3d",null]`, kindPG: "array"},
	{name: "docs", write: []any{map[string]any{"a": json.Number("1")}, "x"}, update: []any{json.Number("2")}, pg: `[{"a":1},"x"]`, filter: "docs_null=false", csvPG: `[{"a":1},"x"]`, kindPG: "array"},
	{name: "blob", write: "AAEC/w==", update: "AQ==", filter: "blob_null=false", csvPG: "AAEC/w==", kindPG: "bytes"},
}

// TestTypeMatrix writes, reads, lists, filters, edits, exports and audits
// every column type of testTyped on each database, and checks that a
// read row PUT back unchanged changes nothing.
func TestTypeMatrix(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		d := db.Dialect().Name()
		pg := d == dialect.PG
		createTyped(t, db)
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"typed": (*testTyped)(nil)})})
		c, _ := e.bootstrap()

		cols, shown := make([]typedCol, len(typedCols)), map[string]string{}
		for i, tc := range typedCols {
			cols[i], shown[tc.name] = tc.on(d)
		}
		body := map[string]any{}
		for _, tc := range cols {
			body[tc.name] = tc.write
		}
		created := c.do("POST", "/admin-api/typed", body).want(t, 201)
		id := fmt.Sprint(created.body["id"])
		// A second row, so that each filter has one to leave out.
		c.do("POST", "/admin-api/typed", map[string]any{"tags": []any{"other"}, "name": "Someone"}).want(t, 201)

		check := func(what string, row map[string]any) {
			t.Helper()
			for _, tc := range cols {
				if got := string(must(json.Marshal(row[tc.name]))); got != shown[tc.name] {
					t.Errorf("%s %s = %s; want %s", what, tc.name, got, shown[tc.name])
				}
			}
		}
		check("create answer", exact(t, created.raw))
		read := c.do("GET", "/admin-api/typed/"+id, nil).want(t, 200)
		readRow := exact(t, read.raw)
		check("read", readRow)
		lr := c.do("GET", "/admin-api/typed?id="+id, nil).want(t, 200)
		var list []map[string]any
		dec := json.NewDecoder(strings.NewReader(string(lr.raw)))
		dec.UseNumber()
		if err := dec.Decode(&list); err != nil || len(list) != 1 {
			t.Fatalf("list = %s, %v", lr.raw, err)
		}
		check("list", list[0])

		for _, tc := range cols {
			q, _ := url.ParseQuery(tc.filter)
			got, _ := c.list(t, "/admin-api/typed", q)
			if len(got) != 1 || fmt.Sprint(got[0]["id"]) != id {
				t.Errorf("filter %s = %v; want row %s only", tc.filter, column(got, "id"), id)
			}
		}

		for _, f := range []string{"doc_key=s:x", `doc_key=s:"x"`, "doc_key=big:9007199254740993"} {
			q, _ := url.ParseQuery(f)
			got, _ := c.list(t, "/admin-api/typed", q)
			if len(got) != 1 || fmt.Sprint(got[0]["id"]) != id {
				t.Errorf("filter %s = %v; want row %s only", f, column(got, "id"), id)
			}
		}
		// An array's elements compare exactly: a number past 2^53, a
		// string's case; a NULL array is not empty.
		for _, f := range []string{"doc_key=s:y", "doc_key=big:9007199254740992", "doc_key=s:null",
			"scores_contains=9007199254740992", "scores_overlaps=9007199254740992,3", "tags_contains=VIP", "tags_overlaps=nope,a", "scores_empty=true"} {
			q, _ := url.ParseQuery(f)
			if got, _ := c.list(t, "/admin-api/typed", q); len(got) != 0 {
				t.Errorf("filter %s = %v; want no row", f, column(got, "id"))
			}
		}
		if d != dialect.SQLite {
			// The filters of the typed columns, with exact values;
			// _within on PostgreSQL's network types only.
			filters := []string{"tags_overlaps=nope,vip", "tags_contains=vip,a b", "ids_contains=0190a6f1-7a3c-7cc1-9e37-5e0f6a1b2c3d",
				"price_gt=12.29", "price_lte=12.3", "mood_in=angry,sleepy", "scores_overlaps=5,1", "scores_empty=false", "day_gte=2024-05-06", "local_at_lt=2024-05-06T07:08:10"}
			if pg {
				filters = append(filters, "ip_within=10.0.0.0/8", "net_within=10.0.0.0/7")
			}
			for _, f := range filters {
				q, _ := url.ParseQuery(f)
				got, _ := c.list(t, "/admin-api/typed", q)
				if len(got) != 1 || fmt.Sprint(got[0]["id"]) != id {
					t.Errorf("filter %s = %v; want row %s only", f, column(got, "id"), id)
				}
			}
		}
		if !pg {
			c.do("GET", "/admin-api/typed?ip_within=10.0.0.0/8", nil).want(t, 400, "invalid_query")
		}

		// The read row sent back unchanged succeeds and changes nothing.
		put := map[string]any{}
		for _, tc := range typedCols {
			put[tc.name] = readRow[tc.name]
		}
		updatesBefore := len(e.auditRows("update"))
		back := c.do("PUT", "/admin-api/typed/"+id, put).want(t, 200)
		check("PUT back", exact(t, back.raw))
		if n := len(e.auditRows("update")); n != updatesBefore {
			t.Errorf("unchanged PUT wrote %d audit entries; want none", n-updatesBefore)
		}

		// Each column edited alone: the answer and the audit diff carry
		// the exact values.
		for _, tc := range cols {
			up := c.do("PATCH", "/admin-api/typed/"+id, map[string]any{tc.name: tc.update}).want(t, 200)
			payload := lastAuditPayload(t, e, "update")
			ch, _ := payload["changes"].(map[string]any)[tc.name].(map[string]any)
			if ch == nil {
				t.Errorf("PATCH %s: audit diff = %v; want the column", tc.name, payload)
				continue
			}
			if ch["paths"] != nil {
				// A document, object before and after: its leaf changes,
				// their numbers exact.
				want := `[{"after":-9007199254740993,"before":9007199254740993,"path":["big"]},{"before":"x","path":["s"]}]`
				if got := string(must(json.Marshal(ch["paths"]))); tc.name != "doc" || got != want {
					t.Errorf("PATCH %s: audit paths = %s; want %s", tc.name, got, want)
				}
				c.do("PATCH", "/admin-api/typed/"+id, map[string]any{tc.name: tc.write}).want(t, 200)
				continue
			}
			if got, want := string(must(json.Marshal(ch["after"]))), string(must(json.Marshal(exact(t, up.raw)[tc.name]))); got != want {
				t.Errorf("PATCH %s: audit after = %s; want %s as answered", tc.name, got, want)
			}
			if got, want := string(must(json.Marshal(ch["before"]))), shown[tc.name]; got != want {
				t.Errorf("PATCH %s: audit before = %s; want %s", tc.name, got, want)
			}
			c.do("PATCH", "/admin-api/typed/"+id, map[string]any{tc.name: tc.write}).want(t, 200)
		}

		r := c.do("GET", "/admin-api/typed/_export.csv?id="+id, nil).want(t, 200)
		recs, err := csv.NewReader(strings.NewReader(string(r.raw))).ReadAll()
		if err != nil || len(recs) != 2 {
			t.Fatalf("CSV = %v, %v", recs, err)
		}
		// The cell is PostgreSQL's text (csvPG), or elsewhere the value
		// shown: a string's text, else its JSON.
		for i, h := range recs[0] {
			for _, tc := range typedCols {
				if tc.name != h {
					continue
				}
				want := tc.csvPG
				if !pg && json.Unmarshal([]byte(shown[h]), &want) != nil {
					want = shown[h]
				}
				if recs[1][i] != want {
					t.Errorf("CSV %s = %q; want %q", h, recs[1][i], want)
				}
			}
		}

		if d != dialect.SQLite {
			checkTypedCatalog(t, c, cols, pg)
		}
		if pg {
			checkTypedSpecials(t, e, c, id)
		}
		if d != dialect.SQLite {
			checkTypedRefusals(t, e, c, id, pg)
		}
	})
}

// checkTypedCatalog checks the catalog's kinds of cols (as on its
// database) on PostgreSQL and MariaDB: read from the database, not the Go
// types, save where the model says more than a text or JSON column.
func checkTypedCatalog(t *testing.T, c *client, cols []typedCol, pg bool) {
	t.Helper()
	r := c.do("GET", "/admin-api", nil).want(t, 200)
	var cat []struct {
		Name    string `json:"name"`
		Columns []struct {
			Name     string   `json:"name"`
			Kind     string   `json:"kind"`
			Elem     string   `json:"elem"`
			ReadOnly bool     `json:"readOnly"`
			Choices  []string `json:"choices"`
			Max      int      `json:"maxLength"`
		} `json:"columns"`
	}
	if err := json.Unmarshal(r.raw, &cat); err != nil {
		t.Fatal(err)
	}
	for _, res := range cat {
		if res.Name != "typed" {
			continue
		}
		for _, col := range res.Columns {
			for _, tc := range cols {
				if tc.name == col.Name && col.Kind != tc.kindPG {
					t.Errorf("catalog %s kind = %q; want %q", col.Name, col.Kind, tc.kindPG)
				}
			}
			switch col.Name {
			case "tags":
				if col.Elem != "text" {
					t.Errorf("catalog tags elem = %q; want text", col.Elem)
				}
			case "id", "name_len":
				// MariaDB's AUTO_INCREMENT takes a given id, PostgreSQL's
				// GENERATED ALWAYS none.
				if !col.ReadOnly && (pg || col.Name == "name_len") {
					t.Errorf("catalog %s readOnly = false; want true (generated by the database)", col.Name)
				}
			case "mood":
				if strings.Join(col.Choices, ",") != "calm,angry,sleepy" {
					t.Errorf("catalog mood choices = %v; want the enum's labels", col.Choices)
				}
			case "name":
				if col.Max != 10 {
					t.Errorf("catalog name maxLength = %d; want 10", col.Max)
				}
			}
		}
		return
	}
	t.Fatalf("catalog lacks typed: %s", r.raw)
}

// checkTypedRefusals sends values that do not fit: each is a 400 naming
// the column in fields, never a 500; on PostgreSQL those the database
// refuses are logged at Info with their SQLSTATE. MariaDB takes what
// only PostgreSQL's types refuse: a price past any decimal (compared as
// its largest), a host's address as a network (text there), an id into
// AUTO_INCREMENT.
func checkTypedRefusals(t *testing.T, e *env, c *client, id string, pg bool) {
	t.Helper()
	type get struct{ path, col string }
	gets := []get{
		{"/admin-api/typed?mood=furious", "mood"},
		{"/admin-api/typed?mood_in=calm,furious", "mood"},
		{"/admin-api/typed?ip=10.0.0.300", "ip"},
		{"/admin-api/typed?price_gt=twelve", "price"},
		{"/admin-api/typed?scores_contains=x", "scores"},
		{"/admin-api/typed?local_at=2024-05-06T07:08:09Z", "local_at"},
		{"/admin-api/typed?tags=vip", "tags"},
	}
	type patch struct {
		body map[string]any
		col  string
	}
	patches := []patch{
		{map[string]any{"mood": "furious"}, "mood"},
		{map[string]any{"ip": "nope"}, "ip"},
		{map[string]any{"price": "1.2.3"}, "price"},
		{map[string]any{"price": "12345678901234.5"}, "price"}, // numeric(12,2) overflow
		{map[string]any{"price": "12.345"}, "price"},           // PostgreSQL would round it to 12.35
		{map[string]any{"price": json.Number("0.001")}, "price"},
		{map[string]any{"price": "1.5e-3"}, "price"},
		{map[string]any{"name": "elevenchars"}, "name"},
		{map[string]any{"tags": "vip"}, "tags"},
		{map[string]any{"scores": []any{"x"}}, "scores"},
		{map[string]any{"local_at": "2024-05-06T07:08:09+02:00"}, "local_at"},
		{map[string]any{"name_len": json.Number("3")}, "name_len"},
	}
	if pg {
		gets = append(gets, get{"/admin-api/typed?price_gt=1e400000", "price"}) // numeric overflow: the database says so, without the column
		patches = append(patches, patch{map[string]any{"net": "10.0.0.1/8"}, "net"})
	}
	for _, tt := range gets {
		r := c.do("GET", tt.path, nil)
		if r.StatusCode != 400 {
			t.Errorf("GET %s = %d %s; want 400", tt.path, r.StatusCode, r.raw)
			continue
		}
		if f, _ := r.body["fields"].(map[string]any); f[tt.col] == nil {
			t.Errorf("GET %s body = %s; want fields naming %s", tt.path, r.raw, tt.col)
		}
	}
	for _, tt := range patches {
		r := c.do("PATCH", "/admin-api/typed/"+id, tt.body)
		if r.StatusCode != 400 {
			t.Errorf("PATCH %v = %d %s; want 400", tt.body, r.StatusCode, r.raw)
			continue
		}
		if f, _ := r.body["fields"].(map[string]any); f[tt.col] == nil {
			t.Errorf("PATCH %v body = %s; want fields naming %s", tt.body, r.raw, tt.col)
		}
	}
	// Said in plain words, by the column's label, code and field as before.
	for body, msg := range map[string]string{"12.345": "Price: at most 2 decimal places", "12345678901234.5": "Price: too large: at most 10 digits before the decimal point"} {
		r := c.do("PATCH", "/admin-api/typed/"+id, map[string]any{"price": body})
		if f, _ := r.body["fields"].(map[string]any); r.body["code"] != "invalid_value" || r.body["error"] != msg || f["price"] != msg {
			t.Errorf("PATCH price %s = %s; want invalid_value, %q at the field", body, r.raw, msg)
		}
	}
	if !pg {
		return
	}
	if logs := e.logs.String(); !strings.Contains(logs, "sqlstate=22003") {
		t.Errorf("log lacks the numeric overflow's SQLSTATE:\n%s", logs)
	}
	// An explicit id into GENERATED ALWAYS AS IDENTITY.
	r := c.do("POST", "/admin-api/typed", map[string]any{"id": 99, "name": "x"})
	if f, _ := r.body["fields"].(map[string]any); r.StatusCode != 400 || f["id"] == nil {
		t.Errorf("POST with id = %d %s; want 400 naming id", r.StatusCode, r.raw)
	}
}

// createTyped makes typed_rows as the game's migration does on
// PostgreSQL and MariaDB, and as Bun creates it on SQLite.
func createTyped(t *testing.T, db *bun.DB) {
	t.Helper()
	ddl, ok := map[dialect.Name]string{dialect.PG: typedPGDDL, dialect.MySQL: typedMySQLDDL}[db.Dialect().Name()]
	if !ok {
		createTables(t, db, (*testTyped)(nil))
		return
	}
	if _, err := db.ExecContext(context.Background(), ddl); err != nil {
		t.Fatal(err)
	}
}

// exact decodes a JSON object keeping numbers exact.
func exact(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return m
}

// lastAuditPayload is the payload of the newest audit entry of action,
// decoded from its stored text with numbers exact.
func lastAuditPayload(t *testing.T, e *env, action string) map[string]any {
	t.Helper()
	var raw string
	if err := e.db.NewSelect().TableExpr("game_admin_audit").ColumnExpr("?", sqldialect.AsText(bun.Ident("payload"))).Where("action = ?", action).OrderExpr("id DESC").Limit(1).Scan(context.Background(), &raw); err != nil {
		t.Fatal(err)
	}
	return exact(t, []byte(raw))
}

// checkTypedSpecials writes PostgreSQL's special values into the typed
// row by SQL: read, list and CSV show them as their literals, and the row
// read and PUT back is accepted unchanged.
func checkTypedSpecials(t *testing.T, e *env, c *client, id string) {
	t.Helper()
	if _, err := e.db.ExecContext(context.Background(), "UPDATE typed_rows SET price = 'NaN', local_at = 'infinity', day = '-infinity', at = 'infinity', ratio = '-Infinity' WHERE id = ?", must(json.Number(id).Int64())); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"price": "NaN", "local_at": "infinity", "day": "-infinity", "at": "infinity", "ratio": "-Infinity"}
	read := exact(t, c.do("GET", "/admin-api/typed/"+id, nil).want(t, 200).raw)
	list, _ := c.list(t, "/admin-api/typed", url.Values{"id": {id}})
	for col, w := range want {
		if read[col] != w || list[0][col] != w {
			t.Errorf("%s: read %v, list %v; want %q", col, read[col], list[0][col], w)
		}
	}
	r := c.do("GET", "/admin-api/typed/_export.csv?id="+id, nil).want(t, 200)
	if !strings.Contains(string(r.raw), ",NaN,") || !strings.Contains(string(r.raw), "infinity") {
		t.Errorf("CSV lacks the literals:\n%s", r.raw)
	}
	put := map[string]any{}
	for _, tc := range typedCols {
		put[tc.name] = read[tc.name]
	}
	n := len(e.auditRows("update"))
	back := exact(t, c.do("PUT", "/admin-api/typed/"+id, put).want(t, 200).raw)
	for col, w := range want {
		if back[col] != w {
			t.Errorf("after PUT %s = %v; want %q", col, back[col], w)
		}
	}
	if len(e.auditRows("update")) != n {
		t.Errorf("unchanged PUT of special values was audited as a change")
	}
}

// TestDateStyleWarning: the panel reads PostgreSQL's timestamps as ISO
// text, so New says so when the connection's DateStyle writes another
// form, and stays quiet under the default.
func TestDateStyleWarning(t *testing.T) {
	for _, style := range []string{"", "SQL, DMY"} {
		db := testdb.PG(t)
		db.SetMaxOpenConns(1) // the SET below holds for every statement New runs
		if style != "" {
			if _, err := db.ExecContext(context.Background(), "SET DateStyle = '"+style+"'"); err != nil {
				t.Fatal(err)
			}
		}
		var logs strings.Builder
		if _, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher, Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(logs.String(), "DateStyle is not ISO")
		if warned != (style != "") {
			t.Errorf("DateStyle %q: warned = %v; logs:\n%s", style, warned, logs.String())
		}
		if style != "" && !strings.Contains(logs.String(), `DateStyle="SQL, DMY"`) {
			t.Errorf("the warning does not name the DateStyle: %s", logs.String())
		}
	}
}
