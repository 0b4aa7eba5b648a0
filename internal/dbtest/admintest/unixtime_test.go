package admintest

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// unixPlayer is a game's users table whose created_at is an INTEGER of
// unix seconds, declared by the struct tag.
type unixPlayer struct {
	bun.BaseModel `bun:"table:unix_players,alias:up"`

	ID        int64  `bun:"id,pk,autoincrement"`
	Email     string `bun:"email,notnull,unique"`
	PwHash    string `bun:"pw_hash"`
	CreatedAt int64  `bun:"created_at,nullzero" admin:"unixtime"`
}

// plainPlayer is unixPlayer without the declaration: its created_at is
// only an integer to the panel.
type plainPlayer struct {
	bun.BaseModel `bun:"table:unix_players,alias:up"`

	ID        int64  `bun:"id,pk,autoincrement"`
	Email     string `bun:"email,notnull,unique"`
	PwHash    string `bun:"pw_hash"`
	CreatedAt int64  `bun:"created_at,nullzero"`
}

// unixEvent has an INTEGER of unix milliseconds, declared by
// ColumnConfig.UnixTime.
type unixEvent struct {
	bun.BaseModel `bun:"table:unix_events,alias:ue"`

	ID   int64  `bun:"id,pk,autoincrement"`
	Name string `bun:"name,notnull"`
	At   int64  `bun:"at,notnull"`
}

func unixOptions() Options {
	return Options{
		Tables:      tablesWith(map[string]any{"users": (*unixPlayer)(nil), "events": (*unixEvent)(nil)}),
		UserColumns: UserColumns{PasswordHash: "pw_hash"},
		Resources: map[string]*Resource{"events": DefineResource((*unixEvent)(nil), ResourceConfig{
			Columns: map[string]ColumnConfig{"at": {UnixTime: UnixMillis}},
		})},
	}
}

// catalogColumn is column name of resource key in the catalog c reads.
func catalogColumn(t *testing.T, c *client, key, name string) map[string]any {
	t.Helper()
	r := c.do("GET", "/admin-api", nil).want(t, 200)
	var cat []struct {
		Name    string           `json:"name"`
		Columns []map[string]any `json:"columns"`
	}
	if err := json.Unmarshal(r.raw, &cat); err != nil {
		t.Fatalf("catalog: %v", err)
	}
	for _, res := range cat {
		for _, col := range res.Columns {
			if res.Name == key && col["name"] == name {
				return col
			}
		}
	}
	t.Fatalf("catalog has no column %s.%s: %s", key, name, r.raw)
	return nil
}

// TestUnixTimeColumns: an INTEGER of unix seconds (the admin:"unixtime"
// tag) or milliseconds (ColumnConfig.UnixTime) is a time everywhere:
// the catalog's kind, the rows' ISO 8601 cells, filters and date ranges,
// sort and keyset pages, writes of an RFC 3339 time (or the integer),
// the CSV export, and the dashboard's sign-ups, whose link lists them.
func TestUnixTimeColumns(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*unixPlayer)(nil), (*unixEvent)(nil))
		e := newEnv(t, db, unixOptions())
		root, _ := e.bootstrap()
		ctx := context.Background()

		for key, want := range map[string]string{"users.created_at": "s", "events.at": "ms"} {
			res, col, _ := strings.Cut(key, ".")
			c := catalogColumn(t, root, res, col)
			if c["kind"] != "time" || c["unix"] != want || c["dataType"] != "datetime" {
				t.Errorf("catalog %s = %v; want kind time, unix %s, dataType datetime", key, c, want)
			}
		}

		// Events: milliseconds.
		const ms = int64(1690003600123)
		for i, at := range []int64{ms, ms + 1000, ms - 86_400_000} {
			if _, err := db.ExecContext(ctx, "INSERT INTO unix_events (name, at) VALUES (?, ?)", fmt.Sprint("e", i), at); err != nil {
				t.Fatal(err)
			}
		}
		list, _ := root.list(t, "/admin-api/events", url.Values{"_sort": {"at"}, "_order": {"desc"}})
		if got := strings.Join(column(list, "at"), ","); got != "2023-07-22T05:26:41.123Z,2023-07-22T05:26:40.123Z,2023-07-21T05:26:40.123Z" {
			t.Fatalf("events at, newest first = %s", got)
		}
		for q, want := range map[string]string{
			"at_gte=2023-07-22":                  "e0,e1",
			"at_lt=2023-07-22T05:26:40.124Z":     "e0,e2",
			"at_lt=2023-07-22T05:26:40.123Z":     "e2",
			"at=2023-07-22T05:26:40.123Z":        "e0",
			"at_gte=2023-07-22T07:26:41%2B02:00": "e1", // an offset is absolute
			"at_in=" + strconv.FormatInt(ms, 10): "e0", // the integer, as before
		} {
			v, _ := url.ParseQuery(q + "&_sort=id")
			got, r := root.list(t, "/admin-api/events", v)
			if strings.Join(column(got, "name"), ",") != want || r.Header.Get("X-Total-Count") != strconv.Itoa(len(got)) {
				t.Errorf("events?%s = %v (total %s); want %s", q, column(got, "name"), r.Header.Get("X-Total-Count"), want)
			}
		}
		root.do("GET", "/admin-api/events?at_gte=yesterday", nil).want(t, 400, "invalid_value")
		root.do("GET", "/admin-api/events?at_like=2023", nil).want(t, 400, "invalid_query")

		// Keyset pages sorted by it walk every row.
		var walked []string
		q := url.Values{"_limit": {"1"}, "_sort": {"at"}}
		for range 5 {
			got, r := root.list(t, "/admin-api/events", q)
			walked = append(walked, column(got, "name")...)
			next := r.Header.Get("X-Next-Cursor")
			if next == "" {
				break
			}
			q.Set("_cursor", next)
		}
		if strings.Join(walked, ",") != "e2,e0,e1" {
			t.Fatalf("keyset walk by at = %v; want e2,e0,e1", walked)
		}

		// Writes: an RFC 3339 time is stored as the integer; the integer
		// still goes in as it is; anything else is refused.
		made := root.do("POST", "/admin-api/events", map[string]any{"name": "new", "at": "2024-01-02T03:04:05.678Z"}).want(t, 201)
		if made.body["at"] != "2024-01-02T03:04:05.678Z" {
			t.Errorf("created at = %v; want 2024-01-02T03:04:05.678Z", made.body["at"])
		}
		id := fmt.Sprint(made.body["id"])
		var stored int64
		if err := db.NewSelect().Table("unix_events").Column("at").Where("id = ?", made.body["id"]).Scan(ctx, &stored); err != nil || stored != 1704164645678 {
			t.Fatalf("stored at = %d, %v; want 1704164645678", stored, err)
		}
		up := root.do("PATCH", "/admin-api/events/"+id, map[string]any{"at": 1704164645000}).want(t, 200)
		if up.body["at"] != "2024-01-02T03:04:05Z" {
			t.Errorf("after PATCH with the integer, at = %v", up.body["at"])
		}
		root.do("PATCH", "/admin-api/events/"+id, map[string]any{"at": "next tuesday"}).want(t, 400, "invalid_value")
		root.do("PATCH", "/admin-api/events/"+id, map[string]any{"at": true}).want(t, 400, "invalid_value")
		// The history records what the rows read: the time, on create
		// and on update alike.
		hist := rows(t, root.do("GET", "/admin-api/events/"+id+"/_history", nil).want(t, 200))
		if len(hist) != 2 {
			t.Fatalf("history = %v; want the create and the update", hist)
		}
		upd, _ := hist[0]["payload"].(map[string]any)
		change, _ := upd["changes"].(map[string]any)["at"].(map[string]any)
		if change["before"] != "2024-01-02T03:04:05.678Z" || change["after"] != "2024-01-02T03:04:05Z" {
			t.Errorf("update's audit payload = %v; want at from .678Z to 05Z", upd)
		}
		cre, _ := hist[1]["payload"].(map[string]any)
		if row, _ := cre["row"].(map[string]any); row["at"] != "2024-01-02T03:04:05.678Z" {
			t.Errorf("create's audit payload = %v; want at as the time", cre)
		}
		// A PUT of the row as read changes nothing.
		read := root.do("GET", "/admin-api/events/"+id, nil).want(t, 200)
		root.do("PUT", "/admin-api/events/"+id, read.body).want(t, 200)
		if n := len(rows(t, root.do("GET", "/admin-api/events/"+id+"/_history", nil).want(t, 200))); n != 2 {
			t.Errorf("history after a PUT of the row as read = %d entries; want 2", n)
		}

		// The CSV shows ISO 8601.
		r := root.do("GET", "/admin-api/events/_export.csv?_sort=id", nil).want(t, 200)
		recs, err := csv.NewReader(strings.NewReader(string(r.raw))).ReadAll()
		if err != nil || len(recs) != 5 {
			t.Fatalf("CSV = %v, %s", err, r.raw)
		}
		at := -1
		for i, h := range recs[0] {
			if h == "at" {
				at = i
			}
		}
		if at < 0 || recs[1][at] != "2023-07-22T05:26:40.123Z" {
			t.Fatalf("CSV at = %v; want 2023-07-22T05:26:40.123Z", recs[1])
		}

		// Users: seconds, and the dashboard's sign-ups.
		now := time.Now().UTC()
		for i, ago := range []time.Duration{time.Hour, 2 * time.Hour, 30 * time.Hour} {
			if _, err := db.ExecContext(ctx, "INSERT INTO unix_players (email, created_at) VALUES (?, ?)", fmt.Sprintf("p%d@example.com", i), now.Add(-ago).Unix()); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := root.list(t, "/admin-api/users", url.Values{"email": {"p0@example.com"}})
		if len(got) != 1 || got[0]["created_at"] != now.Add(-time.Hour).Truncate(time.Second).Format(time.RFC3339) {
			t.Fatalf("p0 = %v; want created_at %s", got, now.Add(-time.Hour).Truncate(time.Second).Format(time.RFC3339))
		}
		dayStart := now.Add(-3 * time.Hour)
		ws := widgets(t, root.do("GET", "/admin-api/_dashboard?range=7d&today="+url.QueryEscape(dayStart.Format(time.RFC3339)), nil).want(t, 200))
		today := stats(t, ws["today"])
		if today["Sign-ups today"] == nil || today["Sign-ups today"]["value"] != float64(2) {
			t.Fatalf("today = %v; want 2 sign-ups", today)
		}
		link, _ := today["Sign-ups today"]["link"].(string)
		path, query, _ := strings.Cut(link, "?")
		lq, _ := url.ParseQuery(query)
		linked, lr := root.list(t, "/admin-api"+path, lq)
		if strings.Join(column(linked, "email"), ",") != "p0@example.com,p1@example.com" || lr.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("the sign-ups link %s lists %v; want p0 and p1", link, column(linked, "email"))
		}
		_, signUps := series(t, ws["signUps"])
		var total float64
		for _, p := range signUps["Sign-ups"] {
			total += p["v"].(float64)
		}
		if total != 3 { // the root the panel made has no created_at
			t.Fatalf("sign-ups over 7 days = %v; want 3 (%v)", total, signUps)
		}
	})
}

// TestCreatedAtMustHoldTimes: UserColumns.CreatedAt naming an integer not
// declared a unix time is an error at New; the default naming one is a
// warning naming the column, and the dashboard shows no sign-ups rather
// than 0.
func TestCreatedAtMustHoldTimes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*plainPlayer)(nil))
		opts := Options{Tables: tablesWith(map[string]any{"users": (*plainPlayer)(nil)}), UserColumns: UserColumns{PasswordHash: "pw_hash", CreatedAt: "created_at"}}
		opts.Secret, opts.PasswordHasher = testSecret, testHasher
		if _, err := New(db, opts); err == nil || !strings.Contains(err.Error(), "CreatedAt") || !strings.Contains(err.Error(), `"created_at"`) {
			t.Fatalf("New with CreatedAt on an integer = %v; want an error naming it", err)
		}
		opts.UserColumns.CreatedAt = ""
		e := newEnv(t, db, opts)
		if logs := e.logs.String(); !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "column=created_at") {
			t.Fatalf("log = %s; want a warning naming created_at", logs)
		}
		root, _ := e.bootstrap()
		ws := widgets(t, root.do("GET", "/admin-api/_dashboard", nil).want(t, 200))
		if today := stats(t, ws["today"]); today["Sign-ups today"] != nil {
			t.Fatalf("today = %v; want no sign-ups figure", today)
		}
		if ws["signUps"] != nil {
			t.Fatalf("signUps chart = %v; want none", ws["signUps"])
		}
	})
}
