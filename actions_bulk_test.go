package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

// TestBulkActionSelection: a bulk action's {ids: [...]} arrives typed in
// ActionContext.IDs (and the rows with LoadRows), single and composite
// keys alike; malformed and unknown ids answer 400 before the handler
// runs; the audit entry records the selection; JSON numbers in Args are
// json.Number.
func TestBulkActionSelection(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testGuild)(nil))
		var calls atomic.Int64
		describe := func(_ context.Context, _ map[string]any, c ActionContext) (any, error) {
			calls.Add(1)
			var types, names []string
			for _, id := range c.IDs {
				for _, k := range slices.Sorted(maps.Keys(id)) {
					types = append(types, fmt.Sprintf("%s:%T", k, id[k]))
				}
			}
			for _, r := range c.Rows {
				names = append(names, fmt.Sprint(r["name"], r["slot"]))
			}
			n, _ := c.Args["n"].(json.Number)
			return map[string]any{"ids": len(c.IDs), "idsNil": c.IDs == nil, "types": types, "rows": names, "rowsNil": c.Rows == nil,
				"nType": fmt.Sprintf("%T", c.Args["n"]), "n": n.String()}, nil
		}
		e := newEnv(t, db, Options{Resources: map[string]*Resource{
			"guilds": DefineResource((*testGuild)(nil), ResourceConfig{Actions: []Action{
				{Name: "tag", LoadRows: true, Handler: describe},
				{Name: "count", Handler: describe},
				{Name: "rename", PerRow: true, Handler: describe},
			}}),
			"cloudSaves": DefineResource((*CloudSave)(nil), ResourceConfig{Actions: []Action{{Name: "wipe", LoadRows: true, Handler: describe}}}),
			"users":      DefineResource((*User)(nil), ResourceConfig{Actions: []Action{{Name: "flag", Roles: []Role{RoleAdmin, RoleMod}, Handler: describe}}}),
		}})
		cr := e.crew("users")
		gs := []testGuild{{Name: "Knights"}, {Name: "Lords"}, {Name: "Peasants"}}
		insert(t, db, &gs)
		path := func(res, name string) string { return "/admin-api/" + res + "/_action/" + name }
		result := func(r *resp) map[string]any {
			t.Helper()
			m, _ := r.body["result"].(map[string]any)
			return m
		}

		// Ids as numbers or strings, repeats counted once, in the order given.
		r := cr.admin.do("POST", path("guilds", "tag"), map[string]any{"ids": []any{gs[2].ID, fmt.Sprint(gs[0].ID), gs[2].ID}, "n": 9007199254740993}).want(t, 200)
		got := result(r)
		if got["ids"] != float64(2) || fmt.Sprint(got["types"]) != "[id:int64 id:int64]" || fmt.Sprint(got["rows"]) != "[Peasants<nil> Knights<nil>]" {
			t.Fatalf("tag = %s; want two int64 ids and the rows Peasants, Knights", r.raw)
		}
		if got["nType"] != "json.Number" || got["n"] != "9007199254740993" {
			t.Fatalf("Args[n] = %v %v; want the exact json.Number", got["nType"], got["n"])
		}
		entry := e.auditRows("custom")[0]
		if ids, _ := entry.Payload["ids"].([]any); fmt.Sprint(ids) != fmt.Sprintf("[%d %d]", gs[2].ID, gs[0].ID) || entry.Payload["name"] != "tag" {
			t.Fatalf("custom audit payload = %v; want ids [%d %d]", entry.Payload, gs[2].ID, gs[0].ID)
		}

		// Without LoadRows the handler gets the ids only; without ids, neither.
		if got := result(cr.admin.do("POST", path("guilds", "count"), map[string]any{"ids": []any{gs[1].ID}}).want(t, 200)); got["ids"] != float64(1) || got["rowsNil"] != true {
			t.Fatalf("count = %v; want one id and no rows", got)
		}
		if got := result(cr.admin.do("POST", path("guilds", "count"), nil).want(t, 200)); got["idsNil"] != true {
			t.Fatalf("count without ids = %v; want nil IDs", got)
		}

		// Composite ids, as the path's :id: base64url JSON arrays.
		uid := cr.userID
		insert(t, db, &[]CloudSave{{UserID: uid, Slot: "a"}, {UserID: uid, Slot: "b"}})
		composite := func(slot string) string {
			return strings.TrimRight(b64url(fmt.Sprintf(`[%q,%q]`, uid, slot)), "=")
		}
		r = cr.admin.do("POST", path("cloudSaves", "wipe"), map[string]any{"ids": []any{composite("b"), composite("a")}}).want(t, 200)
		if got := result(r); fmt.Sprint(got["types"]) != "[slot:string user_id:string slot:string user_id:string]" || fmt.Sprint(got["rows"]) != "[<nil>b <nil>a]" {
			t.Fatalf("wipe = %s; want the saves b then a", r.raw)
		}
		if last := e.auditRows("custom"); fmt.Sprint(last[len(last)-1].Payload["ids"]) != fmt.Sprintf("[%s %s]", composite("b"), composite("a")) {
			t.Fatalf("composite audit ids = %v", last[len(last)-1].Payload["ids"])
		}

		before, auditBefore := calls.Load(), len(e.auditRows("custom"))
		tooMany := make([]any, maxActionIDs+1)
		for i := range tooMany {
			tooMany[i] = i + 1
		}
		refused := []struct {
			name   string
			cl     *client
			path   string
			body   any
			status int
			code   string
		}{
			{"ids not an array", cr.admin, path("guilds", "tag"), map[string]any{"ids": "1,2"}, 400, "invalid_value"},
			{"ids empty", cr.admin, path("guilds", "tag"), map[string]any{"ids": []any{}}, 400, "invalid_value"},
			{"malformed id", cr.admin, path("guilds", "tag"), map[string]any{"ids": []any{gs[0].ID, "abc"}}, 400, "invalid_value"},
			{"id of the wrong JSON type", cr.admin, path("guilds", "tag"), map[string]any{"ids": []any{true}}, 400, "invalid_value"},
			{"unknown id", cr.admin, path("guilds", "count"), map[string]any{"ids": []any{gs[0].ID, 99999}}, 400, "unknown_id"},
			{"too many ids", cr.admin, path("guilds", "count"), map[string]any{"ids": tooMany}, 400, "invalid_value"},
			{"malformed composite id", cr.admin, path("cloudSaves", "wipe"), map[string]any{"ids": []any{"not-base64!"}}, 400, "invalid_value"},
			{"unknown composite id", cr.admin, path("cloudSaves", "wipe"), map[string]any{"ids": []any{composite("z")}}, 400, "unknown_id"},
			{"ids on a per-row action", cr.admin, path("guilds", "rename"), map[string]any{"id": gs[0].ID, "ids": []any{gs[0].ID}}, 400, "invalid_value"},
			{"a mod selecting an admin", cr.modScoped, path("users", "flag"), map[string]any{"ids": []any{cr.userID, cr.adminID}}, 403, "forbidden"},
		}
		for _, tt := range refused {
			t.Run(tt.name, func(t *testing.T) {
				tt.cl.do("POST", tt.path, tt.body).want(t, tt.status, tt.code)
			})
		}
		if calls.Load() != before || len(e.auditRows("custom")) != auditBefore {
			t.Fatalf("refused selections ran %d handlers and wrote %d audit rows; want none", calls.Load()-before, len(e.auditRows("custom"))-auditBefore)
		}
		cr.modScoped.do("POST", path("users", "flag"), map[string]any{"ids": []any{cr.userID}}).want(t, 200)
	})
}
