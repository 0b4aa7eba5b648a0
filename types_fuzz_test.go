package admin

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
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
		Tables:    tablesWith(map[string]any{"typed": (*testTyped)(nil)})})
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
	res, err := c.hc.Post(srv.URL+"/admin-api/auth/bootstrap", "application/json", strings.NewReader(`{"email":"root@example.com","password":"correct horse"}`))
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
