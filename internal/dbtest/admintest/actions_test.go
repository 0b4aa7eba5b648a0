package admintest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// actionEnv has guilds with Update denied and one action per rule of
// an action's permission (its Roles, else update's). calls counts handler
// runs.
func actionEnv(t *testing.T, db *bun.DB, opts Options, calls *atomic.Int64) *env {
	t.Helper()
	createTables(t, db, (*testGuild)(nil))
	run := func(fn func(row map[string]any, c ActionContext) (any, error)) func(context.Context, map[string]any, ActionContext) (any, error) {
		return func(_ context.Context, row map[string]any, c ActionContext) (any, error) {
			calls.Add(1)
			return fn(row, c)
		}
	}
	opts.Tables = tablesWith(map[string]any{"guilds": (*testGuild)(nil)})
	opts.Resources = map[string]*Resource{"guilds": DefineResource((*testGuild)(nil), ResourceConfig{
		Policies: Policies{Update: Deny(), Delete: Deny()},
		Actions: []Action{
			{Name: "rename", PerRow: true, Confirm: &Confirm{Title: "Rename?"}, Handler: run(func(row map[string]any, c ActionContext) (any, error) {
				return map[string]any{"was": row["name"], "by": c.UserID, "role": c.Role, "resource": c.Resource, "to": c.Args["to"]}, nil
			})},
			{Name: "report", Handler: run(func(row map[string]any, c ActionContext) (any, error) {
				return map[string]any{"rowIsNil": row == nil, "args": c.Args}, nil
			})},
			{Name: "modonly", Roles: []Role{RoleMod}, Handler: run(func(map[string]any, ActionContext) (any, error) { return "mod", nil })},
			{Name: "adminonly", Roles: []Role{RoleAdmin}, Handler: run(func(map[string]any, ActionContext) (any, error) { return nil, nil })},
			{Name: "disband", PerRow: true, Roles: []Role{RoleAdmin}, Handler: run(func(map[string]any, ActionContext) (any, error) {
				return nil, NewError(409, "has_members", "the guild still has members")
			})},
			{Name: "broken", Handler: run(func(map[string]any, ActionContext) (any, error) {
				return nil, errors.New("dial tcp 10.0.0.7: password s3cr3t refused")
			})},
			{Name: "panics", Handler: run(func(map[string]any, ActionContext) (any, error) { panic("boom s3cr3t") })},
			{Name: "unmarshalable", Handler: run(func(map[string]any, ActionContext) (any, error) { return make(chan int), nil })},
		},
	})}
	return newEnv(t, db, opts)
}

func TestActions(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		var calls atomic.Int64
		// PlayersCanRead: an action with empty Roles is a plain user's too.
		e := actionEnv(t, db, Options{PlayersCanRead: true}, &calls)
		cr := e.crew("guilds")
		g := &testGuild{Name: "Knights"}
		insert(t, db, g)
		gid := fmt.Sprint(g.ID)
		path := func(name string) string { return "/admin-api/guilds/_action/" + name }

		// Per-row: the handler gets the row; the answer is {ok, result}.
		// Empty Roles lets a plain user run it despite Update: Deny().
		cr.user.do("PATCH", "/admin-api/guilds/"+gid, map[string]any{"name": "x"}).want(t, 403, "forbidden")
		for i, id := range []any{g.ID, gid} {
			r := cr.user.do("POST", path("rename"), map[string]any{"id": id, "to": "Lords"}).want(t, 200)
			res, _ := r.body["result"].(map[string]any)
			if r.body["ok"] != true || res["was"] != "Knights" || res["by"] != cr.userID || res["role"] != "user" || res["resource"] != "guilds" || res["to"] != "Lords" {
				t.Fatalf("rename #%d = %s", i, r.raw)
			}
		}
		custom := e.auditRows("custom")
		if len(custom) != 2 || custom[0].TargetID != gid || custom[0].OperatorID != cr.userID || custom[0].Resource != "guilds" {
			t.Fatalf("custom audit = %+v; want two entries on guild %s by the user", custom, gid)
		}
		p := custom[0].Payload
		args, _ := p["args"].(map[string]any)
		result, _ := p["result"].(map[string]any)
		if p["name"] != "rename" || args["to"] != "Lords" || args["id"] == nil || result["was"] != "Knights" {
			t.Fatalf("custom audit payload = %v; want {name, args (the full body), result}", p)
		}

		// Bulk: nil row, {} or no body.
		for _, body := range []any{map[string]any{}, nil, map[string]any{"x": 1}} {
			r := cr.modBare.do("POST", path("report"), body).want(t, 200)
			if res, _ := r.body["result"].(map[string]any); res["rowIsNil"] != true {
				t.Fatalf("bulk result = %s; want the handler to get a nil row", r.raw)
			}
		}
		if last := e.auditRows("custom"); last[len(last)-1].TargetID != "" {
			t.Fatalf("bulk audit target = %q; want none", last[len(last)-1].TargetID)
		}

		before := calls.Load()
		auditBefore := len(e.auditRows("custom"))
		refused := []struct {
			name   string
			cl     *client
			action string
			body   any
			status int
			code   string
		}{
			{"roles are literal: admin is not a mod", cr.admin, "modonly", nil, 403, "forbidden"},
			{"user on a mod action", cr.user, "modonly", nil, 403, "forbidden"},
			{"mod on an admin action", cr.modBare, "adminonly", nil, 403, "forbidden"},
			{"anonymous", cr.anon, "report", nil, 401, "unauthenticated"},
			{"unknown action", cr.admin, "nope", nil, 404, "unknown_action"},
			{"per-row without id", cr.admin, "rename", map[string]any{}, 400, "missing_field"},
			{"per-row without body", cr.admin, "rename", nil, 400, "missing_field"},
			{"per-row missing row", cr.admin, "rename", map[string]any{"id": 99999}, 404, "not_found"},
			{"per-row bad id", cr.admin, "rename", map[string]any{"id": "abc"}, 400, "invalid_value"},
			{"per-row id of the wrong type", cr.admin, "rename", map[string]any{"id": map[string]any{}}, 400, "invalid_value"},
			{"malformed body", cr.admin, "report", `{"x":`, 400, "invalid_json"},
			{"array body", cr.admin, "report", `[1]`, 400, "invalid_body"},
		}
		for _, tt := range refused {
			t.Run(tt.name, func(t *testing.T) {
				tt.cl.do("POST", path(tt.action), tt.body).want(t, tt.status, tt.code)
			})
		}
		if calls.Load() != before || len(e.auditRows("custom")) != auditBefore {
			t.Fatalf("refused actions ran %d handlers and wrote %d audit rows; want none", calls.Load()-before, len(e.auditRows("custom"))-auditBefore)
		}
		cr.modBare.do("POST", path("modonly"), nil).want(t, 200)   // any mod: scopes do not apply
		cr.admin.do("POST", path("adminonly"), nil).want(t, 200)   // admin listed explicitly
		cr.modScoped.do("POST", path("modonly"), nil).want(t, 200) // scoped or not

		// Handler errors.
		cr.admin.do("POST", path("disband"), map[string]any{"id": g.ID}).want(t, 409, "has_members")
		for _, name := range []string{"broken", "panics", "unmarshalable"} {
			r := cr.admin.do("POST", path(name), nil).want(t, 500, "internal")
			if strings.Contains(string(r.raw), "s3cr3t") || strings.Contains(string(r.raw), "10.0.0.7") {
				t.Fatalf("%s leaked its error: %s", name, r.raw)
			}
		}
		if !strings.Contains(e.logs.String(), "boom") || !strings.Contains(e.logs.String(), "10.0.0.7") {
			t.Fatal("handler errors and panics are not logged")
		}
		// The panic's line names where it was raised.
		if !strings.Contains(e.logs.String(), "stack=") || !strings.Contains(e.logs.String(), "actions_test.go") {
			t.Fatalf("the panic is logged without its stack: %s", e.logs.String())
		}
		// The server lives on after the panic.
		cr.admin.do("POST", path("report"), nil).want(t, 200)
		if n := count(t, db, (*testGuild)(nil)); n != 1 {
			t.Fatalf("guilds = %d; want 1", n)
		}

		// The catalog lists the actions for the list page, those the
		// admin may run: not modonly.
		for _, en := range rows(t, cr.admin.do("GET", "/admin-api", nil).want(t, 200)) {
			if en["name"] != "guilds" {
				continue
			}
			acts := en["actions"].([]any)
			first := acts[0].(map[string]any)
			if len(acts) != 7 || first["name"] != "rename" || first["label"] != "Rename" || first["perRow"] != true || first["confirm"].(map[string]any)["title"] != "Rename?" {
				t.Fatalf("catalog actions = %v", acts)
			}
		}
	})
}

// TestActionsNotForPlayers: by default (without PlayersCanRead) a plain
// user runs no action, not even one whose Roles are empty.
func TestActionsNotForPlayers(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	e := actionEnv(t, testdb.SQLite(t), Options{}, &calls)
	cr := e.crew()
	cr.user.do("POST", "/admin-api/guilds/_action/report", nil).want(t, 403, "forbidden")
	cr.modBare.do("POST", "/admin-api/guilds/_action/report", nil).want(t, 200)
	if calls.Load() != 1 {
		t.Fatalf("handler ran %d times; want 1", calls.Load())
	}
}

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
