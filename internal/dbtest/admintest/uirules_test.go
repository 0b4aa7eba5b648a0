package admintest

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestUIRules: the rules the UI reads instead of copying them. GET
// /auth/me says whose accounts the operator may change (an admin's
// every role's, a mod's only players') and the ban lengths; the catalog
// marks the users resource and says how an erased account reads.
func TestUIRules(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		cr := e.crew("users")
		for _, tt := range []struct {
			name string
			c    *client
			want []any
		}{
			{"admin", cr.admin, []any{"admin", "mod", "user"}},
			{"mod", cr.modScoped, []any{"user"}},
		} {
			me := tt.c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
			if got := me.body["changesAccountsOf"]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s: changesAccountsOf = %v; want %v", tt.name, got, tt.want)
			}
			var presets []struct {
				Key     string `json:"key"`
				Label   string `json:"label"`
				Seconds int64  `json:"seconds"`
			}
			b, _ := json.Marshal(me.body["banPresets"])
			if err := json.Unmarshal(b, &presets); err != nil || len(presets) != 5 || presets[0].Key != "1h" || presets[0].Seconds != 3600 || presets[4].Key != "permanent" || presets[4].Seconds != 0 {
				t.Errorf("%s: banPresets = %s (%v); want 1h … permanent", tt.name, b, err)
			}
		}
		var cat []map[string]any
		if err := json.Unmarshal(cr.admin.do("GET", "/admin-api", nil).want(t, 200).raw, &cat); err != nil {
			t.Fatal(err)
		}
		for _, res := range cat {
			users := res["name"] == "users"
			if (res["users"] == true) != users {
				t.Errorf("%s: users = %v", res["name"], res["users"])
			}
			if !users {
				continue
			}
			p, _ := res["erasedPattern"].(string)
			re, err := regexp.Compile(p)
			if err != nil {
				t.Fatalf("erasedPattern %q: %v", p, err)
			}
			for s, want := range map[string]bool{"erased-42@erased.invalid": true, "erased-42": true, "player@example.com": false} {
				if re.MatchString(s) != want {
					t.Errorf("erasedPattern %q matches %q: %v; want %v", p, s, !want, want)
				}
			}
		}
	})
}
