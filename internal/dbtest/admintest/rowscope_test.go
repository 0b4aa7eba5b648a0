package admintest

import (
	"context"
	"slices"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// testMatch is a table several games share, each row keyed by game_id.
type testMatch struct {
	bun.BaseModel `bun:"table:matches,alias:mt"`

	ID     int64  `bun:"id,pk,autoincrement"`
	GameID string `bun:"game_id,notnull"`
	Name   string `bun:"name,notnull"`
	Score  int64  `bun:"score,notnull"`
}

// scopeEnv is a panel over matches of two games, alpha and beta, with a
// mod of each: each mod's scopes hold matches and users, its row scope
// its game.
type scopeEnv struct {
	*env
	admin, alpha, beta       *client
	adminID, alphaID, betaID string
}

func newScopeEnv(t *testing.T, db *bun.DB) scopeEnv {
	t.Helper()
	ctx := context.Background()
	createTables(t, db, (*testMatch)(nil))
	var ms []testMatch
	for i := range 30 {
		g := "alpha"
		if i%3 == 0 {
			g = "beta"
		}
		ms = append(ms, testMatch{GameID: g, Name: g + " match", Score: int64(i)})
	}
	insert(t, db, &ms)
	e := newEnv(t, db, Options{
		Tables:    tablesWith(map[string]any{"matches": (*testMatch)(nil)}),
		Resources: map[string]*Resource{"matches": DefineResource((*testMatch)(nil), ResourceConfig{ScopeColumn: "game_id", Search: []string{"name"}})},
	})
	s := scopeEnv{env: e}
	s.admin, s.adminID = e.bootstrap()
	for _, g := range []string{"alpha", "beta"} {
		id := e.user(g+"-mod@example.com", "mod password")
		if err := e.admin.Moderation().AssignMod(ctx, id, "matches"); err != nil {
			t.Fatal(err)
		}
		if err := e.admin.Moderation().SetRowScope(ctx, id, []string{g}); err != nil {
			t.Fatal(err)
		}
		c := e.login(g+"-mod@example.com", "mod password")
		if g == "alpha" {
			s.alpha, s.alphaID = c, id
		} else {
			s.beta, s.betaID = c, id
		}
	}
	return s
}

// TestRowScopeSetting: SetRowScope keeps a mod's values in the roles
// table (read live, as the role is), writes an audit entry, and clears
// with nil; New refuses a ScopeColumn that cannot scope.
func TestRowScopeSetting(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := newScopeEnv(t, db)
		op, err := s.admin0().Role(ctx, s.alphaID)
		if err != nil || !slices.Equal(op.Rows, []string{"alpha"}) {
			t.Fatalf("Role = %+v, %v; want rows [alpha]", op, err)
		}
		if n := len(s.auditRows("role.set_row_scope")); n != 2 {
			t.Fatalf("role.set_row_scope entries = %d; want 2", n)
		}
		if err := s.admin0().SetRowScope(ctx, s.alphaID, nil); err != nil {
			t.Fatal(err)
		}
		if op, _ := s.admin0().Role(ctx, s.alphaID); op.Rows != nil {
			t.Fatalf("after clearing, rows = %#v; want nil", op.Rows)
		}
		if err := s.admin0().SetRowScope(ctx, s.alphaID, []string{}); err != nil {
			t.Fatal(err)
		}
		if op, _ := s.admin0().Role(ctx, s.alphaID); op.Rows == nil || len(op.Rows) != 0 {
			t.Fatalf("an empty scope reads %#v; want [] (no rows)", op.Rows)
		}

		for col, want := range map[string]string{"nope": "no column", "score": "", "id": ""} {
			_, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher, Tables: tablesWith(map[string]any{"matches": (*testMatch)(nil)}),
				Resources: map[string]*Resource{"matches": DefineResource((*testMatch)(nil), ResourceConfig{ScopeColumn: col})}})
			if want == "" {
				if err != nil {
					t.Errorf("ScopeColumn %q: %v; want accepted (an integer column)", col, err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), "ScopeColumn") || !strings.Contains(err.Error(), want) {
				t.Errorf("ScopeColumn %q: New = %v; want an error naming ScopeColumn and %q", col, err, want)
			}
		}
	})
}

// admin0 is the panel's Moderation.
func (s scopeEnv) admin0() *Moderation { return s.admin.e.admin.Moderation() }
