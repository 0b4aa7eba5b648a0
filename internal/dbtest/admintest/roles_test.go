package admintest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestLastAdminStays: no path through the panel leaves it without an
// admin (bootstrap would open again to anyone): the only admin deleting
// their user row or their roles row, or demoting themselves, answers 409
// last_admin and changes nothing; with a second admin each works; two
// admins removing each other at once leave one.
func TestLastAdminStays(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := newEnv(t, db, Options{})
		root, rootID := e.bootstrap()
		root.do("DELETE", "/admin-api/users/"+rootID, nil).want(t, 409, "last_admin")
		root.do("DELETE", "/admin-api/roles/"+rootID, nil).want(t, 409, "last_admin")
		root.do("PATCH", "/admin-api/roles/"+rootID, map[string]any{"role": "mod"}).want(t, 409, "last_admin")
		err := e.admin.Moderation().SetRole(ctx, rootID, RoleUser)
		var ae *APIError
		if !errors.Is(err, ErrLastAdmin) || !errors.As(err, &ae) || ae.Status != 409 || ae.Code != "last_admin" {
			t.Fatalf("Moderation.SetRole(the last admin, user) = %v; want ErrLastAdmin, a 409 last_admin *APIError", err)
		}
		st := e.client().do("GET", "/admin-api/auth/status", nil).want(t, 200)
		if st.body["needsBootstrap"] != false {
			t.Fatalf("status = %s; the admin is gone", st.raw)
		}
		root.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		if n := len(e.auditRows("delete")) + len(e.auditRows("update")) + len(e.auditRows("role.set")); n != 0 {
			t.Fatalf("%d audit rows for refused changes", n)
		}

		// With a second admin, demoting one works.
		second := e.user("second@example.com", "second password")
		if err := e.admin.Moderation().SetRole(ctx, second, RoleAdmin); err != nil {
			t.Fatal(err)
		}
		other := e.login("second@example.com", "second password")
		root.do("PATCH", "/admin-api/roles/"+second, map[string]any{"role": "mod"}).want(t, 200)
		if err := e.admin.Moderation().SetRole(ctx, second, RoleAdmin); err != nil {
			t.Fatal(err)
		}

		// Two admins deleting each other at once: one wins, one admin stays.
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for i, c := range []struct {
			cl *client
			id string
		}{{root, second}, {other, rootID}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = c.cl.do("DELETE", "/admin-api/users/"+c.id, nil).StatusCode
			}()
		}
		wg.Wait()
		if !e.adminExists() {
			t.Fatalf("after two admins deleted each other (%v): no admin left", codes)
		}
		ok := 0
		for _, c := range codes {
			if c == 200 {
				ok++
			}
		}
		if ok > 1 {
			t.Fatalf("both deletes answered 200: %v", codes)
		}
	})
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
		if email, _, _ := e.account(c.adminID); email != "root@example.com" {
			t.Fatalf("admin email = %v; want root@example.com", email)
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

// TestOperatorRolesOnUserRows: a mod's users list and read carry "_role"
// on operators' rows (what the hierarchy keeps them from changing), none
// on players'; an admin, who may change every account, gets none.
func TestOperatorRolesOnUserRows(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		cr := e.crew("users")
		want := map[string]any{cr.adminID: "admin", cr.modScopedID: "mod", cr.modBareID: "mod", cr.userID: nil}
		list, _ := cr.modScoped.list(t, "/admin-api/users", nil)
		if len(list) != len(want) {
			t.Fatalf("mod's users list = %d rows; want %d", len(list), len(want))
		}
		for _, row := range list {
			if id := row["id"].(string); row["_role"] != want[id] {
				t.Errorf("mod's list: %s has _role %v; want %v", id, row["_role"], want[id])
			}
		}
		for id, role := range want {
			if got := cr.modScoped.do("GET", "/admin-api/users/"+id, nil).want(t, 200).body["_role"]; got != role {
				t.Errorf("mod's read of %s: _role %v; want %v", id, got, role)
			}
		}
		adminList, _ := cr.admin.list(t, "/admin-api/users", nil)
		for _, row := range adminList {
			if _, ok := row["_role"]; ok {
				t.Errorf("admin's list carries _role: %v", row)
			}
		}
	})
}

// TestConcurrentBootstraps: several first-admin sign-ups at once (on
// MariaDB their locks on the admins' roles may deadlock, and the victim
// runs again) make exactly one admin; every other answers a refusal with
// the error body, never a 500.
func TestConcurrentBootstraps(t *testing.T) {
	t.Parallel()
	for round := range 3 { // the race is the scheduler's: a few fresh databases
		testdb.Each(t, func(t *testing.T, db *bun.DB) {
			e := newEnv(t, db, Options{})
			tok := e.setupToken()
			const n = 8
			codes := make([]int, n)
			bodies := make([]string, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					b, _ := json.Marshal(map[string]any{"email": fmt.Sprintf("root%d-%d@example.com", round, i), "password": "correct horse", "token": tok})
					res, err := http.Post(e.srv.URL+"/admin-api/auth/bootstrap", "application/json", bytes.NewReader(b))
					if err != nil {
						bodies[i] = err.Error()
						return
					}
					defer res.Body.Close()
					raw, _ := io.ReadAll(res.Body)
					codes[i], bodies[i] = res.StatusCode, string(raw)
				}()
			}
			wg.Wait()
			made := 0
			for i, code := range codes {
				switch {
				case code == 201:
					made++
				case code == 403 || code == 409:
					var body map[string]any
					if json.Unmarshal([]byte(bodies[i]), &body) != nil || body["code"] == nil || body["error"] == nil {
						t.Errorf("round %d: bootstrap %d = %d %s; want an error body", round, i, code, bodies[i])
					}
				default:
					t.Errorf("round %d: bootstrap %d = %d %s; want 201, or 403/409 with the error body", round, i, code, bodies[i])
				}
			}
			if made != 1 {
				t.Errorf("round %d: %d bootstraps made an admin (codes %v); want 1", round, made, codes)
			}
			var admins int
			if err := db.NewSelect().TableExpr("?", bun.Ident(e.admin.TableName("roles"))).Where("role = 'admin'").ColumnExpr("COUNT(*)").Scan(context.Background(), &admins); err != nil {
				t.Fatal(err)
			}
			if admins != 1 {
				t.Errorf("round %d: %d admins; want 1", round, admins)
			}
		})
	}
}
