package authz

import (
	"slices"
	"testing"
)

func TestPolicies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p              Policy
		role           Role
		playersCanRead bool
		want           bool
	}{
		{Everyone(), RoleUser, true, true},
		{Everyone(), RoleUser, false, false},
		{Everyone(), RoleMod, false, true},
		{Everyone(), "", false, false},
		{Deny(), RoleAdmin, false, false},
		{Roles(RoleMod), RoleAdmin, false, false}, // admin is not implied
		{Roles(RoleAdmin, RoleMod), RoleMod, false, true},
		{Roles(RoleAdmin), RoleUser, false, false},
	}
	for _, tt := range tests {
		if got := tt.p.Allows(tt.role, tt.playersCanRead); got != tt.want {
			t.Errorf("%v.Allows(%q, playersCanRead=%v) = %v; want %v", tt.p, tt.role, tt.playersCanRead, got, tt.want)
		}
	}
	if (Policy{}).IsSet() || !Deny().IsSet() {
		t.Error("IsSet wrong for the zero policy or Deny()")
	}
}

// TestMayChangeAccountOf: only an admin changes an operator's account;
// ChangesAccountsOf lists the same rule for the UI.
func TestMayChangeAccountOf(t *testing.T) {
	for _, tt := range []struct {
		op   Role
		want []Role
	}{
		{RoleAdmin, []Role{RoleAdmin, RoleMod, RoleUser}},
		{RoleMod, []Role{RoleUser}},
		{RoleUser, []Role{RoleUser}},
	} {
		if got := tt.op.ChangesAccountsOf(); !slices.Equal(got, tt.want) {
			t.Errorf("%s.ChangesAccountsOf() = %v; want %v", tt.op, got, tt.want)
		}
		for _, target := range []Role{RoleAdmin, RoleMod, RoleUser} {
			if got, want := tt.op.MayChangeAccountOf(target), slices.Contains(tt.want, target); got != want {
				t.Errorf("%s.MayChangeAccountOf(%s) = %v; want %v", tt.op, target, got, want)
			}
		}
	}
}
