package admintest

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// roScore is the table under the view.
type roScore struct {
	bun.BaseModel `bun:"table:ro_scores"`
	ID            int64  `bun:"id,pk"`
	Player        string `bun:"player,notnull"`
	Points        int64  `bun:"points,notnull"`
}

// roRanked is a view over ro_scores with a window function.
type roRanked struct {
	bun.BaseModel `bun:"table:ro_ranked"`
	ID            int64  `bun:"id,pk"`
	Player        string `bun:"player"`
	Points        int64  `bun:"points"`
	Place         int64  `bun:"place"`
}

// catalogEntry is the catalog's entry named name, as c sees it.
func catalogEntry(t *testing.T, c *client, name string) map[string]any {
	t.Helper()
	for _, en := range rows(t, c.do("GET", "/admin-api", nil).want(t, 200)) {
		if en["name"] == name {
			return en
		}
	}
	t.Fatalf("no %s in the catalog", name)
	return nil
}

// TestViewIsReadOnly: a view registered as a resource is listed and read,
// and the catalog, the API and New say it is read-only: every write is a
// 403 read_only in words, and nothing is written.
func TestViewIsReadOnly(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		createTables(t, db, (*roScore)(nil))
		must(db.ExecContext(ctx, `CREATE VIEW ro_ranked AS SELECT id, player, points, rank() OVER (ORDER BY points DESC) AS place FROM ro_scores`))
		insert(t, db, &[]roScore{{ID: 1, Player: "ann", Points: 10}, {ID: 2, Player: "bo", Points: 30}})
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"scores": (*roScore)(nil), "ranked": (*roRanked)(nil)})})
		c, _ := e.bootstrap()
		en := catalogEntry(t, c, "ranked")
		perms := en["permissions"].(map[string]any)
		if perms["create"] != false || perms["update"] != false || perms["delete"] != false || perms["list"] != true || perms["read"] != true {
			t.Fatalf("view permissions = %v; want list and read only", perms)
		}
		if en["readOnly"] != "it is a view" {
			t.Fatalf("view readOnly = %v", en["readOnly"])
		}
		if p := catalogEntry(t, c, "scores")["permissions"].(map[string]any); p["create"] != true {
			t.Fatalf("the table's permissions = %v; want writes", p)
		}
		list, _ := c.list(t, "/admin-api/ranked", url.Values{"_sort": {"place"}})
		if len(list) != 2 || list[0]["player"] != "bo" {
			t.Fatalf("GET /ranked = %v", list)
		}
		c.do("GET", "/admin-api/ranked/1", nil).want(t, 200)
		for _, w := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/admin-api/ranked", map[string]any{"id": 3, "player": "cy", "points": 1, "place": 1}},
			{"PATCH", "/admin-api/ranked/1", map[string]any{"points": 99}},
			{"PUT", "/admin-api/ranked/1", map[string]any{"points": 99}},
			{"DELETE", "/admin-api/ranked/1", nil},
		} {
			r := c.do(w.method, w.path, w.body).want(t, 403, "read_only")
			if msg := fmt.Sprint(r.body["error"]); !strings.Contains(msg, "view") {
				t.Errorf("%s %s: %q; want it to say it is a view", w.method, w.path, msg)
			}
		}
		var pts []int64
		must(0, db.NewSelect().Model((*roScore)(nil)).Column("points").Order("id").Scan(ctx, &pts))
		if fmt.Sprint(pts) != "[10 30]" || count(t, db, (*roScore)(nil)) != 2 {
			t.Fatalf("points after refused writes = %v", pts)
		}
		if len(e.auditRows("delete"))+len(e.auditRows("update"))+len(e.auditRows("create")) != 0 {
			t.Fatal("a refused write was audited")
		}
		if !strings.Contains(e.logs.String(), "read-only") || !strings.Contains(e.logs.String(), "ranked") {
			t.Errorf("New did not say the view is read-only:\n%s", e.logs.String())
		}
	})
}

// roChat is an append-only chat log: no primary key.
type roChat struct {
	bun.BaseModel `bun:"table:ro_chat"`
	At            time.Time `bun:"at,notnull"`
	Room          string    `bun:"room,notnull"`
	Body          string    `bun:"body,notnull"`
}

// TestTableWithoutPrimaryKey: a table without a primary key does not stop
// New: it is listed, filtered, sorted, paged by offset and exported
// (across the export's batches), with no row page and no write.
func TestTableWithoutPrimaryKey(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*roChat)(nil))
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var msgs []roChat
		for i := range 1203 {
			room := "lobby"
			if i%3 == 0 {
				room = "arena"
			}
			// Two messages share each second: only the body tells them apart.
			msgs = append(msgs, roChat{At: base.Add(time.Duration(i/2) * time.Second), Room: room, Body: fmt.Sprintf("msg %04d", i)})
		}
		insert(t, db, &msgs)
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"chat": (*roChat)(nil)})})
		c, _ := e.bootstrap()
		en := catalogEntry(t, c, "chat")
		perms := en["permissions"].(map[string]any)
		if fmt.Sprint(en["primaryKey"]) != "[]" || perms["list"] != true || perms["read"] != false || perms["create"] != false || perms["update"] != false || perms["delete"] != false {
			t.Fatalf("chat entry: primaryKey %v, permissions %v; want none, list only", en["primaryKey"], perms)
		}
		list, r := c.list(t, "/admin-api/chat", url.Values{"room": {"arena"}, "_sort": {"at"}, "_order": {"desc"}, "_start": {"0"}, "_end": {"5"}})
		if len(list) != 5 || list[0]["body"] != "msg 1200" || r.Header.Get("X-Total-Count") != "401" {
			t.Fatalf("GET /chat?room=arena sorted = %v (total %s)", list, r.Header.Get("X-Total-Count"))
		}
		// Offset pages over ties in the sort are stable: every row once.
		seen := map[string]bool{}
		for start := 0; start < 1203; start += 100 {
			page, _ := c.list(t, "/admin-api/chat", url.Values{"_sort": {"at"}, "_start": {fmt.Sprint(start)}, "_end": {fmt.Sprint(start + 100)}})
			for _, m := range page {
				seen[m["body"].(string)] = true
			}
		}
		if len(seen) != 1203 {
			t.Fatalf("offset pages saw %d distinct rows; want 1203", len(seen))
		}
		c.do("GET", "/admin-api/chat?_limit=10", nil).want(t, 400, "invalid_query")
		rec := c.do("GET", "/admin-api/chat/_export.csv?_sort=at", nil).want(t, 200)
		recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(rec.raw), "\ufeff"))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		bodies := map[string]bool{}
		for _, rr := range recs[1:] {
			bodies[rr[2]] = true
		}
		if len(recs) != 1204 || len(bodies) != 1203 {
			t.Fatalf("export: %d records, %d distinct; want the header and 1203", len(recs), len(bodies))
		}
		c.do("GET", "/admin-api/chat/1", nil).want(t, 404, "not_found")
		c.do("POST", "/admin-api/chat", map[string]any{"at": base, "room": "x", "body": "y"}).want(t, 403, "read_only")
		c.do("DELETE", "/admin-api/chat/1", nil).want(t, 403, "read_only")
		if n := count(t, db, (*roChat)(nil)); n != 1203 {
			t.Fatalf("rows = %d after refused writes", n)
		}
		if !strings.Contains(e.logs.String(), "no primary key") {
			t.Errorf("New did not say why chat is read-only:\n%s", e.logs.String())
		}
	})
}
