package admintest

import (
	"strings"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
)

func TestPathsNormalizedAndChecked(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	for _, tt := range []struct{ ui, api, err string }{
		{"/admin", "/admin/api", "contain one another"},
		{"/ops", "/ops/admin-api", "contain one another"},
		{"/x", "/x", "contain one another"},
		{"/x", "/", "plain sub-path"},
		{"/x", `/a\b`, "plain sub-path"},
		{"/x", "/a?b", "plain sub-path"},
		{"/x y", "", "plain sub-path"},
	} {
		a, err := New(db, Options{Secret: testSecret, UIPath: tt.ui, APIPath: tt.api})
		if a != nil {
			a.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("New(UIPath %q, APIPath %q) = %v; want an error with %q", tt.ui, tt.api, err, tt.err)
		}
	}
	a := newPanel(t, db, Options{UIPath: "ops/admin/", APIPath: "/ops/admin-api/"})
	if a.UIPath() != "/ops/admin" || a.APIPath() != "/ops/admin-api" {
		t.Fatalf("paths = %q, %q; want /ops/admin, /ops/admin-api", a.UIPath(), a.APIPath())
	}
}
