package admintest

import (
	"context"
	"encoding/csv"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// tzEvent has an instant (timestamptz), a unix time and a wall clock
// without zone (timestamp).
type tzEvent struct {
	bun.BaseModel `bun:"table:tz_events,alias:tz"`

	ID    int64     `bun:"id,pk,autoincrement"`
	Name  string    `bun:"name,notnull"`
	At    time.Time `bun:"at,notnull"`
	Unix  int64     `bun:"unix,notnull" admin:"unixtime"`
	Local time.Time `bun:"local,type:timestamp,notnull"`
}

// TestTimeZoneParam: _tz reads a filter's bare date or wall time in the
// operator's zone, in the list, its count and the CSV export: a row at
// 23:30 UTC on 14 March is on the 15th in Tokyo. A bare date is that
// whole day. Without _tz the day is
// UTC's; a value with an offset is absolute; a timestamp-local column is
// a wall clock _tz does not move; an unknown zone is 400 naming _tz.
func TestTimeZoneParam(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		if db.Dialect().Name() == dialect.MySQL {
			// On MariaDB an instant is a TIMESTAMP and a wall clock a
			// DATETIME (what the model's type:timestamp and Bun's pick
			// for a time.Time would make is the other way round).
			must(db.ExecContext(context.Background(), "CREATE TABLE tz_events (id BIGINT AUTO_INCREMENT PRIMARY KEY, "+
				"name VARCHAR(255) NOT NULL, at TIMESTAMP(6) NOT NULL, unix BIGINT NOT NULL, local DATETIME(6) NOT NULL)"))
		} else {
			createTables(t, db, (*tzEvent)(nil))
		}
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"tzEvents": (*tzEvent)(nil)})})
		root, _ := e.bootstrap()
		late := time.Date(2025, 3, 14, 23, 30, 0, 0, time.UTC) // the 15th in Tokyo
		next := time.Date(2025, 3, 15, 16, 0, 0, 0, time.UTC)  // the 16th in Tokyo
		wall := time.Date(2025, 3, 14, 23, 30, 0, 0, time.UTC) // as the wall clock reads
		early := time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC) // the 14th everywhere
		insert(t, db, &[]tzEvent{
			{Name: "late", At: late, Unix: late.Unix(), Local: wall},
			{Name: "next", At: next, Unix: next.Unix(), Local: next},
			{Name: "early", At: early, Unix: early.Unix(), Local: early},
		})
		for q, want := range map[string]string{
			"at_gte=2025-03-15&_tz=Asia/Tokyo":                        "late,next",
			"at_gte=2025-03-15":                                       "next",
			"at_gte=2025-03-15&at_lt=2025-03-16&_tz=Asia/Tokyo":       "late",
			"unix_gte=2025-03-15&unix_lt=2025-03-16&_tz=Asia/Tokyo":   "late",
			"unix_gte=2025-03-15":                                     "next",
			"at_gte=2025-03-15T08:00&_tz=Asia/Tokyo":                  "late,next",  // 23:00 UTC
			"at_gte=2025-03-15T09:00&_tz=Asia/Tokyo":                  "next",       // 00:00 UTC
			"at_gte=2025-03-15T00:00:00Z&_tz=Asia/Tokyo":              "next",       // absolute
			"at_gte=2025-03-15T00:00:00%2B09:00&_tz=America/New_York": "late,next",  // absolute
			"at_lt=2025-03-15&_tz=America/Los_Angeles":                "late,early", // 07:00 UTC on the 15th
			"at_lte=2025-03-14T03:00&_tz=America/Los_Angeles":         "early",      // PDT: 10:00 UTC
			"at_lte=2025-03-14T03:00":                                 "",
			"local_gte=2025-03-15&_tz=Asia/Tokyo":                     "next", // a wall clock: not moved
			// A bare date is the whole day as a day picker means it:
			// _eq within it, _ne outside it (NULL aside), _lte through
			// its end, _gt after it.
			"at_eq=2025-03-15&_tz=Asia/Tokyo":   "late",
			"at=2025-03-14":                     "late,early",
			"at_ne=2025-03-15&_tz=Asia/Tokyo":   "next,early",
			"at_lte=2025-03-15&_tz=Asia/Tokyo":  "late,early",
			"at_lte=2025-03-14":                 "late,early",
			"at_gt=2025-03-14":                  "next",
			"at_gt=2025-03-14&_tz=Asia/Tokyo":   "late,next",
			"unix_eq=2025-03-15&_tz=Asia/Tokyo": "late",
			"unix_lte=2025-03-14":               "late,early",
			"local_gte=2025-03-15":              "next",
		} {
			v, err := url.ParseQuery(q + "&_sort=id")
			if err != nil {
				t.Fatal(err)
			}
			got, r := root.list(t, "/admin-api/tzEvents", v)
			if names := strings.Join(column(got, "name"), ","); names != want || r.Header.Get("X-Total-Count") != strconv.Itoa(len(got)) {
				t.Errorf("list ?%s = %s (total %s); want %s", q, names, r.Header.Get("X-Total-Count"), want)
			}
			csvr := root.do("GET", "/admin-api/tzEvents/_export.csv?"+v.Encode(), nil).want(t, 200)
			recs, err := csv.NewReader(strings.NewReader(string(csvr.raw))).ReadAll()
			if err != nil || len(recs) == 0 {
				t.Fatalf("CSV ?%s: %v %s", q, err, csvr.raw)
			}
			var names []string
			for _, rec := range recs[1:] {
				names = append(names, rec[1])
			}
			if strings.Join(names, ",") != want {
				t.Errorf("CSV ?%s = %v; want %s", q, names, want)
			}
		}
		for _, bad := range []string{"Mars/Olympus", "Local", "", "../../etc/passwd"} {
			r := root.do("GET", "/admin-api/tzEvents?_tz="+url.QueryEscape(bad), nil).want(t, 400, "invalid_value")
			if f, _ := r.body["fields"].(map[string]any); f["_tz"] == nil || !strings.Contains(r.body["error"].(string), "_tz") {
				t.Errorf("_tz=%q = %s; want the error naming _tz", bad, r.raw)
			}
			root.do("GET", "/admin-api/tzEvents/_export.csv?_tz="+url.QueryEscape(bad), nil).want(t, 400, "invalid_value")
		}
		// The audit log's list reads its times the same way.
		ctx := context.Background()
		must(0, e.admin.Audit().Record(ctx, AuditEntry{Action: "game.grant", Resource: "tzEvents", CreatedAt: late}))
		got, _ := root.list(t, "/admin-api/adminAudit", url.Values{"action": {"game.grant"}, "created_at_gte": {"2025-03-15"}, "_tz": {"Asia/Tokyo"}})
		if len(got) != 1 {
			t.Errorf("audit log in Tokyo's 15 March = %d entries; want 1", len(got))
		}
		got, _ = root.list(t, "/admin-api/adminAudit", url.Values{"action": {"game.grant"}, "created_at_gte": {"2025-03-15"}})
		if len(got) != 0 {
			t.Errorf("audit log in UTC's 15 March = %d entries; want 0", len(got))
		}
	})
}
