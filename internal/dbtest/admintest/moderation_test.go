package admintest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestRoleTransitions walks every role change: each move, its next state, and
// that it applies on the next request with the same cookie.
func TestRoleTransitions(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		tables := BuiltinTables()
		tables["guilds"] = (*testGuild)(nil)
		e := newEnv(t, db, Options{Tables: tables})
		m := e.admin.Moderation()
		e.bootstrap() // another admin: the last one cannot be demoted
		id := e.user("p@example.com", "player password")
		c := e.login("p@example.com", "player password")
		me := func() (Role, []string) {
			r := c.do("GET", "/admin-api/auth/me", nil).want(t, 200)
			var scopes []string
			for _, s := range r.body["scopes"].([]any) {
				scopes = append(scopes, s.(string))
			}
			return Role(r.body["role"].(string)), scopes
		}
		steps := []struct {
			name   string
			move   func() error
			role   Role
			scopes []string
		}{
			{"no role row is user", func() error { return nil }, RoleUser, nil},
			{"first assignMod promotes", func() error { return m.AssignMod(ctx, id, "guilds") }, RoleMod, []string{"guilds"}},
			{"second key adds a scope", func() error { return m.AssignMod(ctx, id, "userNotes") }, RoleMod, []string{"guilds", "userNotes"}},
			{"assigning twice is idempotent", func() error { return m.AssignMod(ctx, id, "userNotes") }, RoleMod, []string{"guilds", "userNotes"}},
			{"unassign removes the scope", func() error { return m.UnassignMod(ctx, id, "guilds") }, RoleMod, []string{"userNotes"}},
			{"unassigning the last never demotes", func() error { return m.UnassignMod(ctx, id, "userNotes") }, RoleMod, nil},
			{"setRole admin", func() error { return m.SetRole(ctx, id, RoleAdmin) }, RoleAdmin, nil},
			{"assignMod keeps an admin admin", func() error { return m.AssignMod(ctx, id, "rooms") }, RoleAdmin, []string{"rooms"}},
			{"setRole user", func() error { return m.SetRole(ctx, id, RoleUser) }, RoleUser, []string{"rooms"}},
			{"setRole mod", func() error { return m.SetRole(ctx, id, RoleMod) }, RoleMod, []string{"rooms"}},
		}
		for _, s := range steps {
			if err := s.move(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			role, scopes := me()
			if role != s.role || !slices.Equal(scopes, s.scopes) {
				t.Fatalf("%s: me = %s %v; want %s %v", s.name, role, scopes, s.role, s.scopes)
			}
		}
	})
}

func TestModerationErrors(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := newEnv(t, db, Options{})
		m := e.admin.Moderation()
		id := e.user("p@example.com", "player password")
		if err := m.SetRole(ctx, id, "superuser"); !errors.Is(err, ErrInvalidRole) {
			t.Errorf("SetRole(superuser) = %v; want ErrInvalidRole", err)
		}
		if err := m.SetRole(ctx, "nobody", RoleAdmin); !errors.Is(err, ErrNotFound) {
			t.Errorf("SetRole(unknown user) = %v; want ErrNotFound", err)
		}
		if err := m.AssignMod(ctx, id, "guild"); !errors.Is(err, ErrUnknownResource) {
			t.Errorf("AssignMod(typo) = %v; want ErrUnknownResource", err)
		}
		if err := m.AssignMod(ctx, "nobody", "users"); !errors.Is(err, ErrNotFound) {
			t.Errorf("AssignMod(unknown user) = %v; want ErrNotFound", err)
		}
		if _, err := m.Can(ctx, id, "explode", "users"); err == nil {
			t.Error("Can(unknown action) = nil error")
		}
		if ok, err := m.Can(ctx, "nobody", OpList, "users"); ok || err != nil {
			t.Errorf("Can(unknown user) = %v, %v; want false, nil", ok, err)
		}
	})
}

// TestCan is the standard rule (standardCan) as
// (role, scope, action, resource) -> allowed.
func TestCan(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := newEnv(t, db, Options{PlayersCanRead: true})
		m := e.admin.Moderation()
		admin := e.user("a@example.com", "password1")
		mod := e.user("m@example.com", "password1")
		user := e.user("u@example.com", "password1")
		if err := m.SetRole(ctx, admin, RoleAdmin); err != nil {
			t.Fatal(err)
		}
		if err := m.AssignMod(ctx, mod, "configs"); err != nil {
			t.Fatal(err)
		}
		// A mod can be assigned "roles", but the core rule still blocks it.
		if err := m.AssignMod(ctx, mod, "roles"); err != nil {
			t.Fatal(err)
		}
		all := []Op{OpList, OpRead, OpCreate, OpUpdate, OpDelete}
		tests := []struct {
			who      string
			id       string
			resource string
			allowed  []Op
		}{
			{"admin", admin, "configs", all},
			{"admin", admin, "roles", all},
			{"mod in scope", mod, "configs", []Op{OpList, OpRead, OpUpdate}},
			{"mod out of scope", mod, "leaderboards", nil},
			{"mod on roles", mod, "roles", nil},
			{"user", user, "configs", []Op{OpList, OpRead}},
			{"admin on the audit log", admin, "adminAudit", []Op{OpList, OpRead}},
			{"mod on the audit log", mod, "adminAudit", nil},
			{"user on the audit log", user, "adminAudit", nil},
		}
		for _, tt := range tests {
			for _, action := range all {
				got, err := m.Can(ctx, tt.id, action, tt.resource)
				if want := slices.Contains(tt.allowed, action); err != nil || got != want {
					t.Errorf("Can(%s, %s, %s) = %v, %v; want %v", tt.who, action, tt.resource, got, err, want)
				}
			}
		}
		// Without PlayersCanRead (the default) plain users list and
		// read nothing.
		e2 := newEnv(t, db, Options{})
		if ok := must(e2.admin.Moderation().Can(ctx, user, OpList, "configs")); ok {
			t.Error("Can(user, list) without PlayersCanRead; want false")
		}
	})
}

// testGuild is a custom table of a game.
type testGuild struct {
	bun.BaseModel `bun:"table:guilds"`
	ID            int64  `bun:"id,pk,autoincrement"`
	Name          string `bun:"name,notnull"`
	OwnerID       string `bun:"owner_id"`
}

// TestTokenBumpsCloseLiveSessions: every change that ends a user's
// sessions (ban, revoke, the Go API's Ban, logout everywhere, a password
// reset or change, enabling or resetting the second factor) also closes
// the user's live connections; ban and revoke audit how many.
func TestTokenBumpsCloseLiveSessions(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		rooms := &sessionRooms{live: map[string]bool{}}
		box := &mailbox{}
		e, clk := totpEnv(t, db, Options{Rooms: rooms, OnResetRequest: box.deliver})
		root, rootID := e.bootstrap()
		p := e.user("p@example.com", "player password")
		live := func(id string) {
			rooms.mu.Lock()
			defer rooms.mu.Unlock()
			rooms.live[id] = true
		}
		mustClose := func(what, id string) {
			t.Helper()
			rooms.mu.Lock()
			defer rooms.mu.Unlock()
			if rooms.live[id] {
				t.Fatalf("%s left %s's live connection open", what, id)
			}
		}
		ctx := context.Background()

		live(p)
		r := root.do("POST", "/admin-api/users/"+p+"/ban", map[string]any{"reason": "bot"}).want(t, 200)
		bans := e.auditRows("user.ban")
		if r.body["sessionsClosed"] != float64(1) || len(bans) != 1 || bans[0].Payload["sessionsClosed"] != float64(1) {
			t.Fatalf("ban = %s, audit %+v; want one session closed, said by both", r.raw, bans)
		}
		mustClose("ban", p)
		root.do("POST", "/admin-api/users/"+p+"/unban", nil).want(t, 200)
		live(p)
		if r := root.do("POST", "/admin-api/users/"+p+"/revoke-sessions", nil).want(t, 200); r.body["sessionsClosed"] != float64(1) ||
			e.auditRows("user.revoke_sessions")[0].Payload["sessionsClosed"] != float64(1) {
			t.Fatalf("revoke = %s; want one session closed, audited", r.raw)
		}
		// No session to close: the entry says 0 and no correction follows.
		root.do("POST", "/admin-api/users/"+p+"/revoke-sessions", nil).want(t, 200)
		if n := len(e.auditRows("user.sessions_closed")); n != 0 {
			t.Fatalf("%d user.sessions_closed rows; want none when the count held", n)
		}

		live(p)
		if err := e.admin.Auth().Ban(ctx, p, BanInfo{Reason: "from the game"}); err != nil {
			t.Fatal(err)
		}
		mustClose("Auth().Ban", p)
		if err := e.admin.Auth().Unban(ctx, p); err != nil {
			t.Fatal(err)
		}

		live(p)
		player := e.login("p@example.com", "player password")
		player.do("POST", "/admin-api/auth/logout-everywhere", nil).want(t, 200)
		mustClose("logout everywhere", p)

		live(p)
		player = e.login("p@example.com", "player password")
		player.do("POST", "/admin-api/auth/password", map[string]any{"current": "player password", "new": "player password 2"}).want(t, 200)
		mustClose("password change", p)
		player.do("GET", "/admin-api/auth/me", nil).want(t, 200) // the changer's own session goes on

		live(p)
		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "p@example.com"}).want(t, 200)
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": box.wait(t, 1).Token, "password": "player password 3"}).want(t, 200)
		mustClose("password reset", p)

		// Enabling the second factor ends the other sessions, not this one.
		live(rootID)
		other := e.login("root@example.com", "correct horse")
		enrol(t, root, clk)
		mustClose("TOTP enable", rootID)
		root.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		other.do("GET", "/admin-api/auth/me", nil).want(t, 401)

		live(p)
		root.do("POST", "/admin-api/users/"+p+"/totp/reset", nil).want(t, 200)
		mustClose("TOTP reset", p)
	})
}

// unreachableRooms closes what this node holds and cannot reach another.
type unreachableRooms struct{ *sessionRooms }

func (u unreachableRooms) DisconnectUser(ctx context.Context, userID string, why LeaveReason, reason string) (int, error) {
	n, _ := u.sessionRooms.DisconnectUser(ctx, userID, why, reason)
	return n, fmt.Errorf("node b: %w", ErrNodeUnavailable)
}

// TestBanPartial: a ban that could not reach every node says so, in the
// answer and the audit log; the ban itself stands.
func TestBanPartial(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		rooms := &sessionRooms{live: map[string]bool{}}
		e := newEnv(t, db, Options{Rooms: unreachableRooms{rooms}})
		root, _ := e.bootstrap()
		p := e.user("p@example.com", "player password")
		rooms.live[p] = true
		r := root.do("POST", "/admin-api/users/"+p+"/ban", map[string]any{"reason": "bot"}).want(t, 200)
		if r.body["partial"] != true || r.body["sessionsClosed"] != float64(1) {
			t.Fatalf("ban with a node down = %s; want partial and one session closed", r.raw)
		}
		rows := e.auditRows("user.sessions_closed")
		if len(rows) != 1 || rows[0].Payload["partial"] != true {
			t.Fatalf("user.sessions_closed rows = %+v; want one saying partial", rows)
		}
		if ban, err := e.admin.Auth().Banned(context.Background(), p); err != nil || ban == nil {
			t.Fatalf("Banned = %v, %v; want the ban in force", ban, err)
		}
		if r := root.do("POST", "/admin-api/users/"+p+"/revoke-sessions", nil).want(t, 200); r.body["partial"] != true {
			t.Fatalf("revoke with a node down = %s; want partial", r.raw)
		}
	})
}

// TestUserStates: the token version and ban of each user asked about, an
// unknown id left out.
func TestUserStates(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		ctx := context.Background()
		p, q := e.user("p@example.com", "player password"), e.user("q@example.com", "player password")
		auth := e.admin.Auth()
		if err := auth.Ban(ctx, p, BanInfo{Reason: "bot"}); err != nil {
			t.Fatal(err)
		}
		got, err := auth.UserStates(ctx, []string{p, q, "no-such-user"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || !got[p].Banned || got[p].TokenVersion != 1 || got[q].Banned || got[q].TokenVersion != 0 {
			t.Fatalf("UserStates = %+v; want p banned at version 1, q free at 0, no third", got)
		}
	})
}
