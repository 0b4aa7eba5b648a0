package authz

import (
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
