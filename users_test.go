package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
)

func TestUsersTableWithoutOptionalColumns(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := db.NewCreateTable().Model((*Player)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		tables := BuiltinTables()
		tables["users"] = (*Player)(nil)
		got := make(chan ResetRequest, 1)
		e := newEnv(t, db, Options{Tables: tables, OnResetRequest: func(_ context.Context, r ResetRequest) error { got <- r; return nil }})
		id := e.user("p@example.com", "player password")
		if id != "1" {
			t.Fatalf("created id = %q; want 1", id)
		}
		c := e.login("p@example.com", "player password")
		if r := c.do("GET", "/admin-api/auth/me", nil).want(t, 200); r.body["userId"] != "1" || r.body["displayName"] != "" {
			t.Fatalf("me = %s", r.raw)
		}
		c.do("POST", "/admin-api/auth/logout-everywhere", nil).want(t, 501, "unsupported")
		if err := e.admin.Auth().Ban(ctx, id, BanInfo{}); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("Ban = %v; want ErrUnsupported", err)
		}
		if err := e.admin.Auth().BumpTokenVersion(ctx, id); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("BumpTokenVersion = %v; want ErrUnsupported", err)
		}
		// Reset tokens stay single-use: they are bound to the old hash.
		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "p@example.com"}).want(t, 200)
		req := <-got
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "new password"}).want(t, 200)
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "newer password"}).want(t, 400, "invalid_token")
		e.login("p@example.com", "new password")
	})
}

func TestUsersTableMustHaveSignInColumns(t *testing.T) {
	t.Parallel()
	type NoPassword struct {
		ID    int64  `bun:"id,pk"`
		Email string `bun:"email"`
	}
	db := testdb.SQLite(t)
	tables := BuiltinTables()
	tables["users"] = (*NoPassword)(nil)
	if _, err := New(db, Options{Secret: testSecret, Tables: tables}); err == nil || !strings.Contains(err.Error(), "password_hash") {
		t.Fatalf("New with a users table without password_hash = %v; want an error naming it", err)
	}
}

// TestUserListColumns: the users list leads with what names a user
// (email, display name) and ends with the id, for the built-in table and
// an adopted one; the password hash is never listed.
func TestUserListColumns(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opts Options
		want []string
	}{
		{"builtin", Options{}, []string{"email", "display_name", "ban", "token_version", "created_at", "id"}},
		{"adopted", Options{
			Tables:      map[string]any{"users": (*bigintPlayer)(nil)},
			UserColumns: UserColumns{PasswordHash: "pw_hash", DisplayName: "nickname", Ban: "banned", TokenVersion: "gen"},
		}, []string{"email", "nickname", "banned", "gen", "id"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, db *bun.DB) {
				createTables(t, db, (*bigintPlayer)(nil))
				e := newEnv(t, db, tt.opts)
				c, _ := e.bootstrap()
				got := "no users resource"
				for _, en := range rows(t, c.do("GET", "/admin-api", nil).want(t, 200)) {
					if en["name"] == "users" {
						got = fmt.Sprint(en["listColumns"])
					}
				}
				if got != fmt.Sprint(tt.want) {
					t.Errorf("users listColumns = %s; want %v", got, tt.want)
				}
			})
		})
	}
}
