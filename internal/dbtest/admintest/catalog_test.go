package admintest

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

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

// TestCatalogMarksBuiltins: the catalog marks the built-in tables kept in
// their built-in models (their labels are the panel's words, which the UI
// translates), and no game table, nor a built-in key the game gave its
// own model.
func TestCatalogMarksBuiltins(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		var calls atomic.Int64
		e := actionEnv(t, db, Options{}, &calls)
		var cat []struct {
			Name    string `json:"name"`
			Label   string `json:"label"`
			Builtin bool   `json:"builtin"`
		}
		if err := json.Unmarshal(e.crew().admin.do("GET", "/admin-api", nil).want(t, 200).raw, &cat); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, r := range cat {
			got[r.Name] = r.Builtin
		}
		for key, want := range map[string]bool{"adminAudit": true, "roles": true, "configs": true, "userNotes": true, "guilds": false} {
			if b, ok := got[key]; !ok || b != want {
				t.Errorf("%s: builtin = %v (listed %v), want %v", key, b, ok, want)
			}
		}
	})
}
