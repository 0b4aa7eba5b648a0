package admin

import (
	"testing"
)

func TestPolicies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p             Policy
		role          Role
		operatorsOnly bool
		want          bool
	}{
		{Everyone(), RoleUser, false, true},
		{Everyone(), RoleUser, true, false},
		{Everyone(), RoleMod, true, true},
		{Everyone(), "", false, false},
		{Deny(), RoleAdmin, false, false},
		{Roles(RoleMod), RoleAdmin, false, false}, // admin is not implied
		{Roles(RoleAdmin, RoleMod), RoleMod, false, true},
		{Roles(RoleAdmin), RoleUser, false, false},
	}
	for _, tt := range tests {
		if got := tt.p.allows(tt.role, tt.operatorsOnly); got != tt.want {
			t.Errorf("%v.allows(%q, operatorsOnly=%v) = %v; want %v", tt.p, tt.role, tt.operatorsOnly, got, tt.want)
		}
	}
	if (Policy{}).IsSet() || !Deny().IsSet() {
		t.Error("IsSet wrong for the zero policy or Deny()")
	}
}
