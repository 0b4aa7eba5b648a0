package moderation

import (
	"context"
	"errors"
	"testing"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/users"
)

// The database tests of moderation are admintest's (moderation_test.go,
// users_http_test.go, users_bulk_test.go): these are the refusals made
// before any statement.

func TestAllowed(t *testing.T) {
	t.Parallel()
	m := New(nil, nil, nil, map[string]authz.Policies{
		"guilds": {},
		"notes":  {Delete: authz.Roles(authz.RoleMod)},
		"logs":   {List: authz.Deny()},
	}, false)
	admin := authz.Operator{UserID: "a", Role: authz.RoleAdmin}
	mod := authz.Operator{UserID: "m", Role: authz.RoleMod, Scopes: []string{"guilds", "notes"}}
	for _, tt := range []struct {
		op       authz.Operator
		action   authz.Op
		resource string
		want     bool
	}{
		{admin, authz.OpDelete, "guilds", true}, // the standard rule
		{mod, authz.OpUpdate, "guilds", true},   // scoped
		{mod, authz.OpDelete, "guilds", false},  // mods never delete by the standard rule
		{mod, authz.OpDelete, "notes", true},    // the resource's policy
		{admin, authz.OpDelete, "notes", false}, // a policy's list is literal
		{admin, authz.OpList, "logs", false},    // Deny
		{mod, authz.OpList, "unknown", false},   // no scope, no policy
		{admin, authz.OpList, authz.RolesResource, true},
	} {
		if got := m.Allowed(tt.op, tt.action, tt.resource); got != tt.want {
			t.Errorf("Allowed(%s, %s, %s) = %v; want %v", tt.op.Role, tt.action, tt.resource, got, tt.want)
		}
	}
}

func TestRefusedBeforeTheDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := New(nil, nil, nil, map[string]authz.Policies{"guilds": {}}, false)
	if err := m.SetRole(ctx, "u1", "owner"); !errors.Is(err, ErrInvalidRole) {
		t.Errorf("SetRole(owner) = %v; want ErrInvalidRole", err)
	}
	if err := m.AssignMod(ctx, "u1", "nowhere"); !errors.Is(err, ErrUnknownResource) {
		t.Errorf("AssignMod(nowhere) = %v; want ErrUnknownResource", err)
	}
	if _, err := m.Can(ctx, "u1", "fly", "guilds"); err == nil {
		t.Error("Can with an unknown action answered")
	}
	if !m.isResourceKey("rooms") || !m.isResourceKey("guilds") || m.isResourceKey("nowhere") {
		t.Error("isResourceKey: rooms and the panel's resources are scopes, nothing else")
	}
}

func TestSanctionsNeedTheirColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct {
		table   users.Table
		refused []string
	}{
		{users.Table{Name: "players"}, []string{Ban, Unban, RevokeSessions}},
		{users.Table{Name: "players", HasTokenVersion: true}, []string{Ban, Unban}},
		{users.Table{Name: "players", HasBan: true}, []string{Ban, RevokeSessions}},
	} {
		s := NewSanctions(nil, &users.RoleTable{Name: "roles", Users: &tt.table}, nil, nil, nil, nil)
		for _, act := range tt.refused {
			if _, _, err := s.Apply(ctx, authz.Operator{}, "u1", Action{Name: act}); !errors.Is(err, users.ErrUnsupported) {
				t.Errorf("%+v: %s = %v; want ErrUnsupported", tt.table, act, err)
			}
		}
	}
	// Without a token version nothing is closed, and nothing asks Rooms.
	s := NewSanctions(nil, &users.RoleTable{Users: &users.Table{}}, nil, nil, nil, nil)
	s.SessionsEnded(ctx, "u1", "password changed")
}
