package admin

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

// TestEmptyPrimaryKeyRefused: a row keyed "" could be neither opened nor
// deleted (its URL has no id), so create and update refuse it, on both
// databases.
func TestEmptyPrimaryKeyRefused(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		c, _ := e.bootstrap()
		c.do("POST", "/admin-api/configs", map[string]any{"key": "", "value": 1}).want(t, 400, "invalid_value")
		if n := count(t, e.db, (*Config)(nil)); n != 0 {
			t.Fatalf("configs after a create with key \"\" = %d rows; want 0", n)
		}
		c.do("POST", "/admin-api/configs", map[string]any{"key": "motd", "value": 1}).want(t, 201)
		c.do("PATCH", "/admin-api/configs/motd", map[string]any{"key": ""}).want(t, 400, "invalid_value")
		c.do("POST", "/admin-api/leaderboards", map[string]any{"id": "", "name": "x"}).want(t, 400, "invalid_value")
		c.do("GET", "/admin-api/configs/motd", nil).want(t, 200)
	})
}

// TestNotNullMessageNamesColumn: SQLite's "NOT NULL constraint failed:
// t.c (1299)" must name c, not "c (1299".
func TestNotNullMessageNamesColumn(t *testing.T) {
	t.Parallel()
	tests := []struct{ msg, want string }{
		{"NOT NULL constraint failed: game_roles.scopes (1299)", "scopes"},
		{"NOT NULL constraint failed: game_roles.scopes", "scopes"},
		{"constraint failed: NOT NULL constraint failed: t.name (1299)", "name"},
		{"NOT NULL constraint failed: name", "name"},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			if got := sqliteNotNullColumn(tt.msg); got != tt.want {
				t.Errorf("sqliteNotNullColumn(%q) = %q; want %q", tt.msg, got, tt.want)
			}
			err := dbError(errors.New(tt.msg))
			if !strings.Contains(err.Error(), `"`+tt.want+`"`) {
				t.Errorf("dbError(%q) = %v; want it to name %q", tt.msg, err, tt.want)
			}
		})
	}
}

// TestRolesCreateFromPanel: a roles row made in the panel without scopes
// gets none (the table has no default), one with scopes keeps them, and
// the role must be one of the catalog's choices.
func TestRolesCreateFromPanel(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		c, _ := e.bootstrap()
		a := e.user("a@example.com", "password a")
		b := e.user("b@example.com", "password b")
		r := c.do("POST", "/admin-api/roles", map[string]any{"user_id": a, "role": "mod"}).want(t, 201)
		if s, ok := r.body["scopes"].([]any); !ok || len(s) != 0 {
			t.Fatalf("created role scopes = %#v; want []", r.body["scopes"])
		}
		r = c.do("POST", "/admin-api/roles", map[string]any{"user_id": b, "role": "mod", "scopes": []string{"users", "userNotes"}}).want(t, 201)
		if s, _ := r.body["scopes"].([]any); len(s) != 2 || s[0] != "users" {
			t.Fatalf("created role scopes = %#v; want [users userNotes]", r.body["scopes"])
		}
		c.do("PATCH", "/admin-api/roles/"+b, map[string]any{"role": "owner"}).want(t, 400, "invalid_value")
		c.do("PATCH", "/admin-api/roles/"+b, map[string]any{"role": "user"}).want(t, 200)

		var roleCol map[string]any
		var cat []map[string]any
		if err := json.Unmarshal(c.do("GET", "/admin-api", nil).want(t, 200).raw, &cat); err != nil {
			t.Fatal(err)
		}
		for _, res := range cat {
			if res["name"] != "roles" {
				continue
			}
			for _, col := range res["columns"].([]any) {
				if m := col.(map[string]any); m["name"] == "role" {
					roleCol = m
				}
			}
		}
		if ch, _ := roleCol["choices"].([]any); len(ch) != 3 || ch[0] != "admin" || ch[2] != "user" {
			t.Fatalf("catalog roles.role choices = %#v; want [admin mod user]", roleCol["choices"])
		}
	})
}

// TestBannedFilter: ban_null=false lists the banned users only (the UI's
// "Banned" filter).
func TestBannedFilter(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		c, _ := e.bootstrap()
		bad := e.user("bad@example.com", "password bad")
		e.user("good@example.com", "password good")
		c.do("POST", "/admin-api/users/"+bad+"/ban", map[string]any{"reason": "spam"}).want(t, 200)
		got, _ := c.list(t, "/admin-api/users", url.Values{"ban_null": {"false"}})
		if ids := column(got, "id"); len(ids) != 1 || ids[0] != bad {
			t.Fatalf("ban_null=false = %v; want only %s", ids, bad)
		}
	})
}

// TestCatalogHidesActionsByRole: the catalog lists only the actions the
// operator's role may run, so the UI shows no button that would be a 403.
func TestCatalogHidesActionsByRole(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		var calls atomic.Int64
		e := actionEnv(t, db, Options{}, &calls)
		cr := e.crew("guilds")
		actions := func(c *client) []string {
			var cat []map[string]any
			if err := json.Unmarshal(c.do("GET", "/admin-api", nil).want(t, 200).raw, &cat); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, res := range cat {
				if res["name"] == "guilds" {
					for _, a := range res["actions"].([]any) {
						names = append(names, a.(map[string]any)["name"].(string))
					}
				}
			}
			return names
		}
		admin, mod := strings.Join(actions(cr.admin), ","), strings.Join(actions(cr.modScoped), ",")
		if !strings.Contains(admin, "adminonly") || !strings.Contains(admin, "disband") || strings.Contains(admin, "modonly") {
			t.Errorf("admin's guilds actions = %s; want adminonly and disband, not modonly", admin)
		}
		if strings.Contains(mod, "adminonly") || strings.Contains(mod, "disband") || !strings.Contains(mod, "modonly") || !strings.Contains(mod, "rename") {
			t.Errorf("mod's guilds actions = %s; want modonly and rename, not the admin's", mod)
		}
	})
}
