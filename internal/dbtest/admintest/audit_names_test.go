package admintest

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// TestAuditNamesPeopleAndRows: the audit log names the people and rows
// its entries name by id: a filed report's player and reporter by their
// accounts' labels and its category by the game's label, the operator
// whose claim an admin took over, a deleted row by its label as it was.
// A mod outside the users' scope, who may read the log, reads none of
// those names (nor the deleted row's, outside their scope either): the
// ids only.
func TestAuditNamesPeopleAndRows(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db, func(o *Options) {
			o.Resources = map[string]*Resource{"adminAudit": DefineResource((*AuditEntry)(nil), ResourceConfig{Policies: Policies{List: Roles(RoleAdmin, RoleMod), Read: Roles(RoleAdmin, RoleMod)}})}
		})
		admin := w.cr.admin
		path := "/admin-api/_reports/" + w.player + "/claim"
		w.mod2.do("POST", path, nil).want(t, 200)
		admin.do("POST", path, map[string]any{"takeover": true}).want(t, 200)
		admin.do("DELETE", "/admin-api/leaderboards/"+url.PathEscape(w.leaderboard), nil).want(t, 200)

		labels := func(c *client, action string) []map[string]any {
			t.Helper()
			rows, r := c.list(t, "/admin-api/adminAudit", url.Values{"action": {action}, "_sort": {"id"}})
			var out []map[string]any
			for _, row := range rows {
				l, _ := row["_labels"].(map[string]any)
				out = append(out, l)
				read := c.do("GET", "/admin-api/adminAudit/"+fmt.Sprint(row["id"]), nil).want(t, 200)
				if fmt.Sprint(read.body["_labels"]) != fmt.Sprint(l) {
					t.Errorf("%s entry %v read by id has labels %v; the list %v", action, row["id"], read.body["_labels"], l)
				}
			}
			if len(out) == 0 {
				t.Fatalf("no %s entries: %s", action, r.raw)
			}
			return out
		}
		filed := labels(admin, "report.file")
		if len(filed) != 2 {
			t.Fatalf("report.file entries = %v; want 2", filed)
		}
		for i, want := range []map[string]string{
			{"playerId": "cheater@example.com", "reporterId": "r1@example.com", "category": "Abuse"},
			{"playerId": "cheater@example.com", "reporterId": "r2@example.com", "category": "Cheating"},
		} {
			for k, v := range want {
				if filed[i][k] != v {
					t.Errorf("report.file entry %d: _labels %v; want %s %q", i, filed[i], k, v)
				}
			}
		}
		claims := labels(admin, "report.claim")
		if len(claims) != 2 || claims[1]["takenFrom"] != "mod2@example.com" || claims[0]["takenFrom"] != nil {
			t.Errorf("report.claim labels = %v; want the takeover naming mod2@example.com", claims)
		}
		if d := labels(admin, "delete"); d[0]["target_id"] != "Arena 7 season" {
			t.Errorf("the deleted leaderboard's labels = %v; want its name as it was", d[0])
		}

		// A mod with no scope reads the entries, not the names.
		bare := w.cr.modBare
		for _, action := range []string{"report.file", "report.claim", "delete"} {
			rows, r := bare.list(t, "/admin-api/adminAudit", url.Values{"action": {action}})
			if len(rows) == 0 {
				t.Fatalf("the bare mod reads no %s entries", action)
			}
			for _, leak := range []string{"@example.com", "Abuse", "Cheating", "Arena 7 season"} {
				if strings.Contains(string(r.raw), leak) {
					t.Errorf("the bare mod's %s entries name %q: %s", action, leak, r.raw)
				}
			}
		}
	})
}

// TestAuditNamesDeletedRowsLinks: a deleted row's entry names the row as
// it was and the rows its foreign keys named (a squad's player), for
// whoever may read them: a mod scoped to the squads but not the users
// reads the squad's name and not its player's; a mod with no scope
// neither.
func TestAuditNamesDeletedRowsLinks(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		if db.Dialect().Name() == dialect.MySQL {
			must(db.ExecContext(context.Background(), "CREATE TABLE squads (id BIGINT AUTO_INCREMENT PRIMARY KEY, player_id VARCHAR(36) NOT NULL, "+
				"name VARCHAR(255) NOT NULL, tag VARCHAR(4) NOT NULL DEFAULT 'none', note TEXT) DEFAULT CHARSET=utf8mb4"))
		} else {
			createTables(t, db, (*squad)(nil))
		}
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"squads": (*squad)(nil)}), Resources: map[string]*Resource{
			"adminAudit": DefineResource((*AuditEntry)(nil), ResourceConfig{Policies: Policies{List: Roles(RoleAdmin, RoleMod), Read: Roles(RoleAdmin, RoleMod)}}),
		}})
		cr := e.crew("squads")
		player := e.user("captain@example.com", "player password")
		id := fmt.Sprint(cr.admin.do("POST", "/admin-api/squads", map[string]any{"player_id": player, "name": "Night Owls"}).want(t, 201).body["id"])
		cr.admin.do("DELETE", "/admin-api/squads/"+id, nil).want(t, 200)

		labels := func(c *client) (map[string]any, []byte) {
			t.Helper()
			rows, r := c.list(t, "/admin-api/adminAudit", url.Values{"action": {"delete"}, "resource": {"squads"}})
			if len(rows) != 1 {
				t.Fatalf("delete entries = %s; want 1", r.raw)
			}
			l, _ := rows[0]["_labels"].(map[string]any)
			return l, r.raw
		}
		if l, _ := labels(cr.admin); l["target_id"] != "Night Owls" || l["row.player_id"] != "captain@example.com" {
			t.Errorf("the admin's labels of the deleted squad = %v; want its name and its player's", l)
		}
		if l, raw := labels(cr.modScoped); l["target_id"] != "Night Owls" || l["row.player_id"] != nil || strings.Contains(string(raw), "captain@") {
			t.Errorf("the squads mod's labels of the deleted squad = %v; want its name, not its player's", l)
		}
		if l, raw := labels(cr.modBare); len(l) != 0 && (l["target_id"] != nil || l["row.player_id"] != nil) || strings.Contains(string(raw), "Night Owls") || strings.Contains(string(raw), "captain@") {
			t.Errorf("the bare mod's entry of the deleted squad = %s; want neither name", raw)
		}
	})
}

// TestAuditNamesCompositeTargets: an entry about a row whose key has
// several columns (a player's save slot) names its target by the key's
// parts, a foreign key part by its row's label ("user@example.com ·
// a"), for who may read both; a mod who may not reads the id.
func TestAuditNamesCompositeTargets(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{Resources: map[string]*Resource{
			"adminAudit": DefineResource((*AuditEntry)(nil), ResourceConfig{Policies: Policies{List: Roles(RoleAdmin, RoleMod), Read: Roles(RoleAdmin, RoleMod)}}),
		}})
		cr := e.crew("cloudSaves")
		insert(t, db, &[]CloudSave{{UserID: cr.userID, Slot: "a", Version: 1}})
		id := strings.TrimRight(b64url(fmt.Sprintf(`[%q,"a"]`, cr.userID)), "=")
		cr.admin.do("PATCH", "/admin-api/cloudSaves/"+id, map[string]any{"version": 2}).want(t, 200)
		target := func(c *client) any {
			t.Helper()
			rows, r := c.list(t, "/admin-api/adminAudit", url.Values{"resource": {"cloudSaves"}})
			if len(rows) != 1 {
				t.Fatalf("cloudSaves entries = %s; want 1", r.raw)
			}
			l, _ := rows[0]["_labels"].(map[string]any)
			return l["target_id"]
		}
		if got := target(cr.admin); got != "user@example.com · a" {
			t.Errorf("the admin's cloud save target = %v; want the player's label and the slot", got)
		}
		// The cloud saves mod may not read the users: the slot's id only.
		if got := target(cr.modScoped); got != nil {
			t.Errorf("the cloud saves mod's target label = %v; want none (the users are outside their scope)", got)
		}
		if got := target(cr.modBare); got != nil {
			t.Errorf("the bare mod's target label = %v; want none", got)
		}
	})
}
