package admintest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// history is GET _history of a gadget: its entries' actions, newest first.
func history(t *testing.T, c *client, id string, q url.Values) ([]map[string]any, []string) {
	t.Helper()
	rows, _ := c.list(t, "/admin-api/gadgets/"+id+"/_history", q)
	actions := make([]string, len(rows))
	for i, r := range rows {
		actions[i] = fmt.Sprint(r["action"])
	}
	return rows, actions
}

// gadgetRow is a gadget as the API reads it.
func gadgetRow(t *testing.T, c *client, id string) map[string]any {
	t.Helper()
	return c.do("GET", "/admin-api/gadgets/"+id, nil).want(t, 200).body
}

// TestHistoryAndRevert: a row's history is its audit entries, newest
// first, paged like a list; a revert puts the row back as it was before an
// entry (an update's columns, a deleted row, a created one gone), audited
// as "revert" with the entry's id; a row changed since is refused with 409
// naming the columns, unless an admin forces it; nothing is written by a
// refused revert.
func TestHistoryAndRevert(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, true)
		root, _ := e.bootstrap()

		root.do("PATCH", "/admin-api/gadgets/1", map[string]any{"name": "Alpha Two", "qty": 11}).want(t, 200)
		root.do("PATCH", "/admin-api/gadgets/1", map[string]any{"note": "second"}).want(t, 200)
		root.do("PATCH", "/admin-api/gadgets/2", map[string]any{"qty": 21}).want(t, 200) // another row's
		rows, actions := history(t, root, "1", nil)
		if strings.Join(actions, ",") != "update,update" {
			t.Fatalf("history of 1 = %v; want its two updates", actions)
		}
		first, second := rows[1], rows[0]
		if ch := first["payload"].(map[string]any)["changes"].(map[string]any); len(ch) != 2 || ch["qty"].(map[string]any)["before"] != float64(10) {
			t.Fatalf("first update's changes = %v", ch)
		}
		// Paged by cursor, as a list.
		page, r := root.list(t, "/admin-api/gadgets/1/_history", url.Values{"_limit": {"1"}})
		if len(page) != 1 || page[0]["id"] != second["id"] || r.Header.Get("X-Next-Cursor") == "" {
			t.Fatalf("history _limit=1 = %v, cursor %q; want the newest and a cursor", page, r.Header.Get("X-Next-Cursor"))
		}
		page, _ = root.list(t, "/admin-api/gadgets/1/_history", url.Values{"_limit": {"1"}, "_cursor": {r.Header.Get("X-Next-Cursor")}})
		if len(page) != 1 || page[0]["id"] != first["id"] {
			t.Fatalf("history's second page = %v; want the first update", page)
		}

		// The first update is refused: the row changed since in... no
		// column it touched? "note" only: name and qty are as it left them.
		revert := func(c *client, id string, auditID any, force bool) *resp {
			body := map[string]any{"auditId": auditID}
			if force {
				body["force"] = true
			}
			return c.do("POST", "/admin-api/gadgets/"+id+"/_revert", body)
		}
		got := revert(root, "1", first["id"], false).want(t, 200).body
		if got["name"] != "Alpha" || got["qty"] != float64(10) || got["note"] != "second" {
			t.Fatalf("after reverting the first update: %v; want name and qty back, note kept", got)
		}
		_, actions = history(t, root, "1", nil)
		if actions[0] != "revert" {
			t.Fatalf("history after a revert = %v; want a revert entry first", actions)
		}
		reverts := e.auditRows("revert")
		if len(reverts) != 1 || fmt.Sprint(reverts[0].Payload["auditId"]) != fmt.Sprint(first["id"]) || reverts[0].TargetID != "1" {
			t.Fatalf("revert audit = %+v; want one naming entry %v", reverts, first["id"])
		}
		// Again: the row no longer holds what the entry left (it is back
		// to before), so it is a conflict naming the columns; nothing written.
		r = revert(root, "1", first["id"], false).want(t, 409, "conflict")
		if f := r.fields(); f["name"] == "" || f["qty"] == "" {
			t.Fatalf("conflict fields = %v; want name and qty", f)
		}
		if len(e.auditRows("revert")) != 1 {
			t.Fatal("a refused revert was audited")
		}
		// The revert of a revert puts the edit back.
		got = revert(root, "1", fmt.Sprint(e.auditRows("revert")[0].ID), false).want(t, 200).body
		if got["name"] != "Alpha Two" || got["qty"] != float64(11) {
			t.Fatalf("reverting the revert = %v; want the edit back", got)
		}

		// A deleted row comes back, with its values; once back, again is 409.
		root.do("DELETE", "/admin-api/gadgets/3", nil).want(t, 200)
		rows, _ = history(t, root, "3", nil)
		if len(rows) != 1 || rows[0]["action"] != "delete" {
			t.Fatalf("history of a deleted row = %v; want its delete", rows)
		}
		got = revert(root, "3", rows[0]["id"], false).want(t, 200).body
		if got["name"] != "Gamma ray" || got["qty"] != float64(30) || got["price"] != 0.25 || got["note"] != "alpha mention" {
			t.Fatalf("undeleted row = %v", got)
		}
		revert(root, "3", rows[0]["id"], false).want(t, 409, "conflict")
		// A hidden column is never in the log, so never put back.
		root.do("DELETE", "/admin-api/gadgets/5", nil).want(t, 200)
		del := e.auditRows("delete")
		if fmt.Sprint(del[len(del)-1].Payload) == "" || strings.Contains(fmt.Sprint(del[len(del)-1].Payload), "alphasecret") {
			t.Fatalf("the delete entry holds the hidden secret: %v", del[len(del)-1].Payload)
		}
		rows, _ = history(t, root, "5", nil)
		revert(root, "5", rows[0]["id"], false).want(t, 200)
		if s, err := hiddenSecret(db, 5); err != nil || s.Valid {
			t.Fatalf("row 5's hidden secret after the undelete = %v, %v; want NULL", s, err)
		}
		// A created row goes, unless it changed since (then 409, or force).
		created := root.do("POST", "/admin-api/gadgets", map[string]any{"name": "Made"}).want(t, 201).body
		cid := fmt.Sprint(created["id"])
		rows, _ = history(t, root, cid, nil)
		root.do("PATCH", "/admin-api/gadgets/"+cid, map[string]any{"qty": 99}).want(t, 200)
		createEntry := rows[0]["id"]
		if f := revert(root, cid, createEntry, false).want(t, 409, "conflict").fields(); f["qty"] == "" {
			t.Fatalf("conflict fields = %v; want qty", f)
		}
		revert(root, cid, createEntry, true).want(t, 200)
		root.do("GET", "/admin-api/gadgets/"+cid, nil).want(t, 404, "not_found")

		// A re-creation the database refuses (another row took the unique
		// name since) is a 409 with the reason, nothing written.
		root.do("DELETE", "/admin-api/gadgets/2", nil).want(t, 200)
		root.do("POST", "/admin-api/gadgets", map[string]any{"name": "beta"}).want(t, 201)
		rows, _ = history(t, root, "2", nil)
		n := len(e.auditRows("revert"))
		revert(root, "2", rows[0]["id"], false).want(t, 409, "conflict")
		if len(e.auditRows("revert")) != n {
			t.Fatal("a refused re-creation was audited")
		}
		root.do("GET", "/admin-api/gadgets/2", nil).want(t, 404, "not_found")

		// A game's action that records its change (Audit.RecordUpdate) is
		// reverted as an edit.
		ctx := context.Background()
		if _, err := db.NewUpdate().Table("gadgets").Set("qty = 61").Where("id = 6").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		must(0, e.admin.Audit().RecordUpdate(ctx, UpdateRecord{Resource: "gadgets", TargetID: "6", Before: map[string]any{"qty": 60}, After: map[string]any{"qty": 61}}))
		rows, _ = history(t, root, "6", nil)
		if got := revert(root, "6", rows[0]["id"], false).want(t, 200).body; got["qty"] != float64(60) {
			t.Fatalf("after reverting the action's change: %v; want qty 60", got)
		}

		// Wrong entry, wrong row, nonsense: 4xx, nothing written.
		n = len(e.auditRows("revert"))
		revert(root, "2", first["id"], false).want(t, 404, "not_found") // another row's entry
		revert(root, "1", 999999, false).want(t, 404, "not_found")
		revert(root, "1", "abc", false).want(t, 400, "invalid_value")
		root.do("POST", "/admin-api/gadgets/1/_revert", map[string]any{"auditId": first["id"], "extra": 1}).want(t, 400)
		root.do("POST", "/admin-api/gadgets/1/_revert", "not json").want(t, 400)
		login := e.auditRows("auth.bootstrap")[0]
		root.do("POST", "/admin-api/users/"+login.TargetID+"/_revert", map[string]any{"auditId": login.ID}).want(t, 404, "not_found") // an auth entry is no users row's history
		if len(e.auditRows("revert")) != n {
			t.Fatal("a refused revert wrote an audit row")
		}
	})
}

func hiddenSecret(db *bun.DB, id int64) (sql.NullString, error) {
	var s sql.NullString
	err := db.NewSelect().Table("gadgets").Column("secret").Where("id = ?", id).Scan(context.Background(), &s)
	return s, err
}

// TestRevertPermissions: a revert needs what the change it undoes needs
// (update; create to re-create, delete to remove), passes the resource's
// policies, and forcing is an admin's. History is readable by whoever may
// read the row, without the request metadata unless they may read the
// audit log.
func TestRevertPermissions(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, true)
		cr := e.crew("gadgets")
		cr.admin.do("PATCH", "/admin-api/gadgets/1", map[string]any{"qty": 12}).want(t, 200)
		cr.admin.do("PATCH", "/admin-api/gadgets/1", map[string]any{"name": "Renamed"}).want(t, 200)
		rows, _ := history(t, cr.modScoped, "1", nil)
		if len(rows) != 2 {
			t.Fatalf("mod's history = %v", rows)
		}
		if p := rows[0]["payload"].(map[string]any); p["ip"] != nil || p["changes"] == nil {
			t.Fatalf("mod's history payload = %v; want the changes without the address", p)
		}
		if adm, _ := history(t, cr.admin, "1", nil); adm[0]["payload"].(map[string]any)["ip"] == nil {
			t.Fatalf("admin's history payload = %v; want the address", adm[0]["payload"])
		}
		cr.user.do("GET", "/admin-api/gadgets/1/_history", nil).want(t, 403, "forbidden")
		cr.modBare.do("GET", "/admin-api/gadgets/1/_history", nil).want(t, 403, "forbidden")
		cr.modBare.do("POST", "/admin-api/gadgets/1/_revert", map[string]any{"auditId": rows[1]["id"]}).want(t, 403, "forbidden")
		// A mod may revert within its scope, not force.
		cr.modScoped.do("POST", "/admin-api/gadgets/1/_revert", map[string]any{"auditId": rows[1]["id"], "force": true}).want(t, 403, "forbidden")
		cr.modScoped.do("POST", "/admin-api/gadgets/1/_revert", map[string]any{"auditId": rows[0]["id"]}).want(t, 200)
	})
	// Under a deny policy for updates, no revert of an update.
	db := testdb.SQLite(t)
	createTables(t, db, (*testGadget)(nil))
	seed := gadgetRows()
	insert(t, db, &seed)
	res := DefineResource((*testGadget)(nil), ResourceConfig{Policies: Policies{Update: Deny()}})
	e2 := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"gadgets": (*testGadget)(nil)}), Resources: map[string]*Resource{"gadgets": res}})
	root, _ := e2.bootstrap()
	ctx := context.Background()
	must(0, e2.admin.Audit().RecordUpdate(ctx, UpdateRecord{Resource: "gadgets", TargetID: "1", Before: map[string]any{"qty": 1}, After: map[string]any{"qty": 10}}))
	entry := e2.auditRows("update")[0]
	root.do("POST", "/admin-api/gadgets/1/_revert", map[string]any{"auditId": entry.ID}).want(t, 403, "forbidden")
}

// TestConcurrentReverts: of reverts of the same entry at once, exactly
// one wins; the others are conflicts.
func TestConcurrentReverts(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := gadgetEnv(t, db, Options{}, true)
		root, _ := e.bootstrap()
		root.do("PATCH", "/admin-api/gadgets/4", map[string]any{"qty": 41}).want(t, 200)
		entry := e.auditRows("update")[0].ID
		const n = 6
		codes := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				codes[i] = root.do("POST", "/admin-api/gadgets/4/_revert", map[string]any{"auditId": entry}).StatusCode
			})
		}
		wg.Wait()
		ok, conflict := 0, 0
		for _, c := range codes {
			switch c {
			case 200:
				ok++
			case 409:
				conflict++
			}
		}
		if ok != 1 || conflict != n-1 {
			t.Fatalf("concurrent reverts = %v; want one 200 and %d 409", codes, n-1)
		}
		if got := gadgetRow(t, root, "4"); got["qty"] != float64(40) {
			t.Fatalf("row 4 = %v; want qty 40", got)
		}
		if len(e.auditRows("revert")) != 1 {
			t.Fatal("want one revert entry")
		}
	})
}
