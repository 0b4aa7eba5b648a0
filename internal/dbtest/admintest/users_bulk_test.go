package admintest

import (
	"context"
	"fmt"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestBulkModeration: a mod bans a selection of users at once. Each is
// moderated as on its own page (one audit row per user banned); the
// answer says what became of each (the mod itself, an admin it may not
// touch, one already banned, an unknown id), and counts them.
func TestBulkModeration(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := newEnv(t, db, Options{})
		c := e.crew("users")
		var players []any
		for i := range 3 {
			players = append(players, e.user(fmt.Sprintf("p%d@example.com", i), "player password"))
		}
		already := e.user("already@example.com", "player password")
		if err := e.admin.Auth().Ban(ctx, already, BanInfo{Reason: "earlier"}); err != nil {
			t.Fatal(err)
		}
		before := len(e.auditRows("user.ban"))
		ids := append(append([]any{}, players...), c.modScopedID, c.adminID, already, "01a00000-0000-7000-8000-000000000000", players[0])
		r := c.modScoped.do("POST", "/admin-api/users/_bulk/ban", map[string]any{"ids": ids, "reason": "bot ring"}).want(t, 200)
		results, _ := r.body["results"].(map[string]any)
		for id, want := range map[any]string{players[0]: "banned", players[1]: "banned", players[2]: "banned", c.modScopedID: "self",
			c.adminID: "forbidden", already: "already_banned", "01a00000-0000-7000-8000-000000000000": "not_found"} {
			if results[fmt.Sprint(id)] != want {
				t.Errorf("result of %v = %v; want %s (%s)", id, results[fmt.Sprint(id)], want, r.raw)
			}
		}
		counts, _ := r.body["counts"].(map[string]any)
		if counts["banned"] != float64(3) || counts["already_banned"] != float64(1) || counts["forbidden"] != float64(1) {
			t.Errorf("counts = %v", counts)
		}
		rows := e.auditRows("user.ban")[before:]
		if len(rows) != 3 {
			t.Fatalf("%d user.ban audit rows; want one per banned player", len(rows))
		}
		for _, row := range rows {
			if row.OperatorID != c.modScopedID || row.Payload["reason"] != "bot ring" {
				t.Errorf("audit row %+v", row)
			}
		}
		for _, p := range players {
			if b, err := e.admin.Auth().Banned(ctx, p.(string)); err != nil || b == nil || b.Reason != "bot ring" {
				t.Errorf("player %v: ban %+v, %v", p, b, err)
			}
		}
		// The player signs in no more; the admin it could not touch does.
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "p0@example.com", "password": "player password"}).want(t, 403, "banned")

		// Revoke and unban the same way.
		_, _, tv := e.account(players[1].(string))
		r = c.modScoped.do("POST", "/admin-api/users/_bulk/revoke-sessions", map[string]any{"ids": players}).want(t, 200)
		if r.body["counts"].(map[string]any)["revoked"] != float64(3) {
			t.Errorf("revoke: %s", r.raw)
		}
		if _, _, after := e.account(players[1].(string)); after <= tv {
			t.Errorf("token version %d → %d; want it bumped", tv, after)
		}
		r = c.modScoped.do("POST", "/admin-api/users/_bulk/unban", map[string]any{"ids": append(players, c.userID)}).want(t, 200)
		if got := r.body["results"].(map[string]any); got[c.userID] != "not_banned" || got[fmt.Sprint(players[2])] != "unbanned" {
			t.Errorf("unban: %s", r.raw)
		}
		if n := len(e.auditRows("user.unban")); n != 3 {
			t.Errorf("%d user.unban rows; want 3", n)
		}

		// Bad bodies, and who may not.
		c.modScoped.do("POST", "/admin-api/users/_bulk/ban", map[string]any{"ids": []any{}}).want(t, 400, "missing_field")
		c.modScoped.do("POST", "/admin-api/users/_bulk/ban", map[string]any{"ids": []any{true}}).want(t, 400, "invalid_value")
		c.modScoped.do("POST", "/admin-api/users/_bulk/ban", map[string]any{"ids": make([]any, 1001)}).want(t, 400, "invalid_value")
		c.modScoped.do("POST", "/admin-api/users/_bulk/unban", map[string]any{"ids": players, "reason": "x"}).want(t, 400, "unknown_field")
		c.modScoped.do("POST", "/admin-api/users/_bulk/ban", map[string]any{"ids": players, "until": time.Now().Add(-time.Hour)}).want(t, 400, "invalid_value")
		c.modScoped.do("POST", "/admin-api/users/_bulk/delete", map[string]any{"ids": players}).want(t, 404)
		c.modBare.do("POST", "/admin-api/users/_bulk/ban", map[string]any{"ids": players}).want(t, 403, "forbidden")
		c.user.do("POST", "/admin-api/users/_bulk/ban", map[string]any{"ids": players}).want(t, 403)
	})
}

// versionedPlayer has a token version and no ban column: sessions can be
// revoked, bans cannot.
type versionedPlayer struct {
	bun.BaseModel `bun:"table:vplayers"`

	ID           int64  `bun:"id,pk,autoincrement"`
	Email        string `bun:"email,notnull,unique"`
	PasswordHash string `bun:"password_hash"`
	TokenVersion int64  `bun:"token_version,notnull,default:0"`
}

// TestRevokeWithoutBanColumn: the catalog says revoke works on a users
// table with a token version and no ban; so it does, one user or many.
func TestRevokeWithoutBanColumn(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*versionedPlayer)(nil))
		e := newEnv(t, db, Options{Tables: map[string]any{"users": (*versionedPlayer)(nil)}})
		c, _ := e.bootstrap()
		id := e.user("p@example.com", "player password")
		me := c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if f, _ := me.body["features"].(map[string]any); f["revokeSessions"] != true || f["ban"] != false {
			t.Fatalf("features = %v", me.body["features"])
		}
		c.do("POST", "/admin-api/users/"+id+"/revoke-sessions", nil).want(t, 200)
		c.do("POST", "/admin-api/users/_bulk/revoke-sessions", map[string]any{"ids": []any{id}}).want(t, 200)
		if _, _, tv := e.account(id); tv != 2 {
			t.Fatalf("token version %d; want 2", tv)
		}
		// An id the users key cannot hold is the client's mistake, as on
		// the single endpoint, not a database error.
		c.do("POST", "/admin-api/users/abc/revoke-sessions", nil).want(t, 400, "invalid_value")
		c.do("POST", "/admin-api/users/_bulk/revoke-sessions", map[string]any{"ids": []any{id, "abc"}}).want(t, 400, "invalid_value")
		if _, _, tv := e.account(id); tv != 2 {
			t.Fatalf("a refused bulk request changed the token version to %d", tv)
		}
		c.do("POST", "/admin-api/users/"+id+"/ban", nil).want(t, 501, "unsupported")
		c.do("POST", "/admin-api/users/_bulk/ban", map[string]any{"ids": []any{id}}).want(t, 501, "unsupported")
	})
}
