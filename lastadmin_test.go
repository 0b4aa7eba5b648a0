package admin

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
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
		exists, err := e.admin.adminExists(ctx, db)
		if err != nil || !exists {
			t.Fatalf("after two admins deleted each other (%v): admin exists = %v, %v", codes, exists, err)
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
