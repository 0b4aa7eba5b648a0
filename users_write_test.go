package admin

import (
	"context"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

// TestModCannotTakeOverAdmin is the hardening issue's high finding: a mod
// with the users scope set an admin's email to their own, requested a reset
// and signed in as the admin. Every write to a users row follows the
// hierarchy, whatever the resource's policies allow.
func TestModCannotTakeOverAdmin(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ran := 0
		e := newEnv(t, db, Options{Resources: map[string]*Resource{
			"users": DefineResource((*User)(nil), ResourceConfig{
				// Generous policies, as a game might set: the hierarchy
				// still holds.
				Policies: Policies{Delete: Roles(RoleAdmin, RoleMod)},
				Actions: []Action{{Name: "poke", PerRow: true, Handler: func(context.Context, map[string]any, ActionContext) (any, error) {
					ran++
					return nil, nil
				}}},
			}),
		}})
		c := e.crew("users")

		for _, tt := range []struct {
			name   string
			target string
		}{{"admin", c.adminID}, {"other mod", c.modBareID}, {"own operator account", c.modScopedID}} {
			c.modScoped.do("PATCH", "/admin-api/users/"+tt.target, map[string]any{"email": "attacker@example.com"}).want(t, 403, "forbidden")
			c.modScoped.do("PATCH", "/admin-api/users/"+tt.target, map[string]any{"display_name": "pwned"}).want(t, 403, "forbidden")
			c.modScoped.do("DELETE", "/admin-api/users/"+tt.target, nil).want(t, 403, "forbidden")
			c.modScoped.do("POST", "/admin-api/users/_action/poke", map[string]any{"id": tt.target}).want(t, 403, "forbidden")
			c.user.do("POST", "/admin-api/users/_action/poke", map[string]any{"id": tt.target}).want(t, 403, "forbidden")
		}
		if ran != 0 {
			t.Errorf("action ran %d times on operator accounts for a mod or user; want 0", ran)
		}
		// Nothing changed: the admin still signs in with its own address,
		// and the attacker's address resets nobody.
		acc, err := e.admin.users.accountByID(context.Background(), db, c.adminID)
		if err != nil || acc.Email != "root@example.com" {
			t.Fatalf("admin email = %v, %v; want root@example.com", acc, err)
		}
		if n := len(e.auditRows("update")) + len(e.auditRows("delete")); n != 0 {
			t.Errorf("%d update/delete audit rows after refused writes; want 0", n)
		}

		// Down the hierarchy the mod still works.
		r := c.modScoped.do("PATCH", "/admin-api/users/"+c.userID, map[string]any{"display_name": "Renamed", "email": "  New.Name@Example.COM "}).want(t, 200)
		if r.body["email"] != "New.Name@Example.COM" {
			t.Errorf("email after PATCH = %v; want it trimmed", r.body["email"])
		}
		c.modScoped.do("POST", "/admin-api/users/_action/poke", map[string]any{"id": c.userID}).want(t, 200)
		if ran != 1 {
			t.Errorf("action ran %d times on a plain user; want 1", ran)
		}
	})
}

// TestOperatorEmailChangeEndsSessions: an admin may change a mod's email,
// and the sessions signed in under the old address end.
func TestOperatorEmailChangeEndsSessions(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c := e.crew("users")
		c.modScoped.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		c.admin.do("PATCH", "/admin-api/users/"+c.modScopedID, map[string]any{"email": "mod2@example.com"}).want(t, 200)
		c.modScoped.do("GET", "/admin-api/auth/me", nil).want(t, 401)
		e.login("mod2@example.com", "mod password")

		// A plain user's email change does not sign them out (players keep
		// playing), and the admin's own change keeps its session.
		c.user.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		c.admin.do("PATCH", "/admin-api/users/"+c.userID, map[string]any{"email": "user2@example.com"}).want(t, 200)
		c.user.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		c.admin.do("PATCH", "/admin-api/users/"+c.adminID, map[string]any{"email": "root2@example.com"}).want(t, 200)
		c.admin.do("GET", "/admin-api/auth/me", nil).want(t, 200)
	})
}

// TestUserEmailsValidated: every write path refuses what is not one bare
// address, so sign-in and reset never match on garbage.
func TestUserEmailsValidated(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c := e.crew()
		for _, bad := range []any{"", "   ", "no-at-sign", "two@@example.com", "Name <x@example.com>", "a@b@c", 42, nil} {
			c.admin.do("PATCH", "/admin-api/users/"+c.userID, map[string]any{"email": bad}).want(t, 400)
			c.admin.do("POST", "/admin-api/users", map[string]any{"email": bad}).want(t, 400)
		}
		anon := e.client()
		anon.do("POST", "/admin-api/auth/login", map[string]any{"email": "Name <root@example.com>", "password": "correct horse"}).want(t, 400, "invalid_value")
		r := c.admin.do("POST", "/admin-api/users", map[string]any{"email": " Fresh@Example.com"}).want(t, 201)
		if r.body["email"] != "Fresh@Example.com" {
			t.Errorf("created email = %v; want Fresh@Example.com (trimmed, case kept)", r.body["email"])
		}
	})
}

// regionPlayer is a game's users table with a NOT NULL column of its own
// that has no database default.
type regionPlayer struct {
	bun.BaseModel `bun:"table:players,alias:p"`

	ID       int64  `bun:"id,pk,autoincrement"`
	Email    string `bun:"email,notnull,unique"`
	Nickname string `bun:"nickname,notnull"`
	PwHash   string `bun:"pw_hash"`
	Region   string `bun:"region,notnull"`
}

// TestInvite: an admin's invite hands OnResetRequest a reset link marked
// Invite, which sets the password; mods may not invite, and the answer
// never carries the link.
func TestInvite(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		got := make(chan ResetRequest, 2)
		e := newEnv(t, db, Options{OnResetRequest: func(_ context.Context, r ResetRequest) error { got <- r; return nil }})
		cr := e.crew("users")
		newOp := e.user("new-op@example.com", "temporary pw")

		cr.modScoped.do("POST", "/admin-api/users/"+newOp+"/invite", nil).want(t, 403, "forbidden")
		cr.admin.do("POST", "/admin-api/users/no-such-user/invite", nil).want(t, 404, "not_found")
		r := cr.admin.do("POST", "/admin-api/users/"+newOp+"/invite", nil).want(t, 200)
		if strings.Contains(string(r.raw), "token") {
			t.Fatalf("invite answered %s; the link must not be in the answer", r.raw)
		}
		var req ResetRequest
		select {
		case req = <-got:
		default:
			t.Fatal("OnResetRequest was not called")
		}
		if !req.Invite || req.UserID != newOp || req.Email != "new-op@example.com" || !strings.HasPrefix(req.URL, "/admin/reset?token=") {
			t.Fatalf("ResetRequest = %+v; want an invite for %s", req, newOp)
		}
		cr.anon.do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "chosen password"}).want(t, 200)
		e.login("new-op@example.com", "chosen password")
		if a := e.auditRows("user.invite"); len(a) != 1 || a[0].TargetID != newOp || a[0].OperatorID != cr.adminID {
			t.Fatalf("user.invite audit = %+v", a)
		}
	})
}
