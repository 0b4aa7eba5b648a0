package admin

import (
	"context"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

func TestAuditAPI(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := newEnv(t, db, Options{})
		au := e.admin.Audit()
		if err := au.Record(ctx, AuditEntry{Resource: "x"}); err == nil {
			t.Fatal("Record without Action = nil; want an error")
		}
		old := time.Now().Add(-48 * time.Hour).UTC()
		if err := au.Record(ctx, AuditEntry{OperatorID: "op", Action: "custom.thing", Resource: "guilds", TargetID: "7", CreatedAt: old, Payload: map[string]any{"n": 1}}); err != nil {
			t.Fatal(err)
		}
		got := e.auditRows("custom.thing")
		if len(got) != 1 || got[0].OperatorID != "op" || got[0].TargetID != "7" || got[0].Payload["n"] != float64(1) || got[0].CreatedAt.Sub(old).Abs() > time.Second {
			t.Fatalf("recorded = %+v", got)
		}

		before := &User{ID: "u1", Email: "a@example.com", DisplayName: "A", PasswordHash: "secret-hash-1", TokenVersion: 1, CreatedAt: old}
		after := *before
		after.DisplayName, after.PasswordHash, after.TokenVersion = "B", "secret-hash-2", 2
		if err := au.RecordUpdate(ctx, UpdateRecord{OperatorID: "op", Resource: "users", TargetID: "u1", Before: before, After: &after}); err != nil {
			t.Fatal(err)
		}
		if err := au.RecordUpdate(ctx, UpdateRecord{Resource: "users", TargetID: "u1", Before: before, After: before}); err != nil {
			t.Fatal(err)
		}
		if err := au.RecordUpdate(ctx, UpdateRecord{Resource: "configs", TargetID: "k", Before: map[string]any{"a": 1, "b": "x"}, After: map[string]any{"a": 1.0, "b": "y"}}); err != nil {
			t.Fatal(err)
		}
		ups := e.auditRows("update")
		if len(ups) != 2 {
			t.Fatalf("update rows = %d; want 2 (an unchanged update writes nothing)", len(ups))
		}
		changes := ups[0].Payload["changes"].(map[string]any)
		if len(changes) != 2 || changes["display_name"] == nil || changes["token_version"] == nil {
			t.Fatalf("changes = %v; want display_name and token_version only (no password_hash)", changes)
		}
		dn := changes["display_name"].(map[string]any)
		if dn["before"] != "A" || dn["after"] != "B" {
			t.Fatalf("display_name change = %v", dn)
		}
		if c := ups[1].Payload["changes"].(map[string]any); len(c) != 1 || c["b"] == nil {
			t.Fatalf("map changes = %v; want only b (1 and 1.0 are equal)", c)
		}

		n, err := au.Prune(ctx, time.Now().Add(-24*time.Hour))
		if err != nil || n != 1 {
			t.Fatalf("Prune = %d, %v; want 1", n, err)
		}
		if len(e.auditRows("custom.thing")) != 0 || len(e.auditRows("update")) != 2 {
			t.Fatal("Prune removed the wrong rows")
		}
	})
}

// TestAuditFailureNeverBlocks: with the audit table gone, sign-in still
// works and the failure is logged.
func TestAuditFailureNeverBlocks(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		e.user("p@example.com", "player password")
		if _, err := db.ExecContext(context.Background(), "DROP TABLE game_admin_audit"); err != nil {
			t.Fatal(err)
		}
		c := e.login("p@example.com", "player password")
		c.do("POST", "/admin-api/auth/logout", nil).want(t, 200)
		if !contains(e.logs.String(), "audit write failed") {
			t.Fatalf("no audit failure logged:\n%s", e.logs)
		}
	})
}
