package admintest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/live"
	"github.com/uptrace/bun"
)

func TestBanClosesEverySocket(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		cheater := w.user("cheater@example.com", admin.RoleUser)
		bystander := w.user("fair@example.com", admin.RoleUser)
		inArena := w.mustJoin("arena", cheater, "")
		inLobby := w.mustJoin("lobby", cheater, "")
		fair := w.mustJoin("arena", bystander, "")
		cheaterCookie := w.login("cheater@example.com")

		if got := root.want("GET", "/admin-api/rooms/by-user/"+cheater, nil, 200); got["_raw"] == nil {
			t.Fatalf("by-user = %v; want an array", got)
		}
		counts := root.want("GET", "/admin-api/users/"+cheater+"/_counts", nil, 200)
		if counts["activeSessions"] != 2.0 {
			t.Fatalf("_counts = %v; want activeSessions 2", counts)
		}
		// Sessions are moderation data: a plain user reading users (with
		// PlayersCanRead) is not told them.
		w.user("peer@example.com", admin.RoleUser)
		if counts := w.login("peer@example.com").want("GET", "/admin-api/users/"+cheater+"/_counts", nil, 200); counts["activeSessions"] != nil {
			t.Fatalf("a plain user's _counts = %v; want no activeSessions", counts)
		}

		until := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Second)
		res := root.want("POST", "/admin-api/users/"+cheater+"/ban", map[string]any{"reason": "wallhack", "until": until}, 200)
		if res["ok"] != true || res["sessionsClosed"] != 2.0 {
			t.Fatalf("ban = %v; want ok and sessionsClosed 2", res)
		}
		for _, p := range []*player{inArena, inLobby} {
			if kicked := p.next(t, "kicked"); kicked["reason"] != "banned" {
				t.Fatalf("kicked = %v; want reason banned", kicked)
			}
			if code, _ := p.waitClosed(t); code != live.CloseKicked {
				t.Fatalf("close code = %d; want %d", code, live.CloseKicked)
			}
		}
		// The bystander stays; the cheater cannot come back nor use the panel.
		fair.conn.WriteJSON("still here")
		if _, res, err := w.join("arena", cheater, ""); err == nil || res == nil || res.StatusCode != 403 {
			t.Fatalf("rejoin after ban = %v; want 403", err)
		}
		if code, _ := cheaterCookie.do("GET", "/admin-api/auth/me", nil); code != 401 {
			t.Fatalf("banned user's session = %d; want 401", code)
		}
		// The entry commits with the ban; the sockets close after the
		// commit, so it counts them before: the entry and the answer agree.
		rows := w.audit("user.ban")
		if len(rows) != 1 || rows[0].TargetID != cheater || rows[0].Payload["reason"] != "wallhack" || rows[0].Payload["sessionsClosed"] != 2.0 ||
			rows[0].Payload["ip"] != "127.0.0.1" || rows[0].Payload["userAgent"] == nil || rows[0].Payload["until"] == nil {
			t.Fatalf("user.ban audit = %+v", rows)
		}

		root.want("POST", "/admin-api/users/"+cheater+"/unban", nil, 200)
		w.mustJoin("arena", cheater, "")
		if len(w.audit("user.unban")) != 1 {
			t.Fatal("no user.unban audit row")
		}
	})
}

func TestRevokeSessionsClosesSockets(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		id := w.user("p@example.com", admin.RoleUser)
		panel := w.login("p@example.com")
		p := w.mustJoin("lobby", id, "")
		res := root.want("POST", "/admin-api/users/"+id+"/revoke-sessions", nil, 200)
		if res["sessionsClosed"] != 1.0 {
			t.Fatalf("revoke = %v; want sessionsClosed 1", res)
		}
		p.waitClosed(t)
		if code, _ := panel.do("GET", "/admin-api/auth/me", nil); code != 401 {
			t.Fatalf("revoked session = %d; want 401", code)
		}
		if rows := w.audit("user.revoke_sessions"); len(rows) != 1 || rows[0].TargetID != id || rows[0].Payload["ip"] != "127.0.0.1" {
			t.Fatalf("user.revoke_sessions audit = %+v", rows)
		}
	})
}

// TestEmailChangeClosesSockets: an admin's change of an operator's email
// ends the operator's sessions, and once it is committed their live
// connections close, as a ban's or a revoke's do; so does a revert of the
// change, which ends them again. A player's email change ends nothing.
func TestEmailChangeClosesSockets(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		mod := w.user("mod@example.com", admin.RoleMod, "users")
		playerID := w.user("player@example.com", admin.RoleUser)
		modPanel := w.login("mod@example.com")
		closed := func(p *player, when string) {
			t.Helper()
			if kicked := p.next(t, "kicked"); kicked["reason"] != "email changed" {
				t.Fatalf("%s: kicked = %v; want reason email changed", when, kicked)
			}
			if code, _ := p.waitClosed(t); code != live.CloseKicked {
				t.Fatalf("%s: close code = %d; want %d", when, code, live.CloseKicked)
			}
		}

		p := w.mustJoin("arena", mod, "")
		other := w.mustJoin("arena", playerID, p.roomID)
		root.want("PATCH", "/admin-api/users/"+mod, map[string]any{"email": "mod.renamed@example.com"}, 200)
		closed(p, "the email change")
		if code, _ := modPanel.do("GET", "/admin-api/auth/me", nil); code != 401 {
			t.Fatalf("the mod's session after the email change = %d; want 401", code)
		}

		// The revert puts the old email back, which ends the sessions
		// opened under the new one.
		p = w.mustJoin("arena", mod, p.roomID)
		var entries []map[string]any // an array: do keeps it as _raw
		raw, _ := root.want("GET", "/admin-api/users/"+mod+"/_history", nil, 200)["_raw"].(string)
		if err := json.Unmarshal([]byte(raw), &entries); err != nil || len(entries) == 0 {
			t.Fatalf("history = %s, %v", raw, err)
		}
		root.want("POST", "/admin-api/users/"+mod+"/_revert", map[string]any{"auditId": entries[0]["id"]}, 200)
		closed(p, "the revert")

		// A player's email is no operator's sign-in: their socket stays.
		root.want("PATCH", "/admin-api/users/"+playerID, map[string]any{"email": "player.renamed@example.com"}, 200)
		if s, err := w.hub.UserSessions(t.Context(), playerID); err != nil || len(s) != 1 || s[0].SessionID != other.sid {
			t.Fatalf("the player's sessions after their email change = %v, %v; want the one", s, err)
		}
	})
}

func TestModerationBadInput(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		rootID := w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		id := w.user("p@example.com", admin.RoleUser)
		modID := w.user("mod@example.com", admin.RoleMod, "users")
		mod := w.login("mod@example.com")
		tests := []struct {
			name   string
			o      *operator
			path   string
			body   any
			code   int
			errKey string
		}{
			{"reason too long", root, "/admin-api/users/" + id + "/ban", map[string]any{"reason": strings.Repeat("x", 501)}, 400, "invalid_value"},
			{"until not a time", root, "/admin-api/users/" + id + "/ban", map[string]any{"until": "tomorrow"}, 400, "invalid_value"},
			{"until a number", root, "/admin-api/users/" + id + "/ban", map[string]any{"until": 1900000000}, 400, "invalid_value"},
			{"until an object", root, "/admin-api/users/" + id + "/ban", map[string]any{"until": map[string]any{}}, 400, "invalid_value"},
			{"until in the past", root, "/admin-api/users/" + id + "/ban", map[string]any{"until": time.Now().Add(-time.Hour)}, 400, "invalid_value"},
			{"unknown field", root, "/admin-api/users/" + id + "/ban", map[string]any{"forever": true}, 400, "unknown_field"},
			{"unknown user", root, "/admin-api/users/nobody/ban", nil, 404, "not_found"},
			{"self", root, "/admin-api/users/" + rootID + "/ban", nil, 400, "self_moderation"},
			{"mod bans admin", mod, "/admin-api/users/" + rootID + "/ban", nil, 403, "forbidden"},
			{"mod bans mod", mod, "/admin-api/users/" + modID + "/revoke-sessions", nil, 400, "self_moderation"},
			{"unknown op", root, "/admin-api/users/" + id + "/explode", nil, 404, "not_found"},
			{"not users", root, "/admin-api/configs/" + id + "/ban", nil, 404, "not_found"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				code, body := tt.o.do("POST", tt.path, tt.body)
				if code != tt.code || body["code"] != tt.errKey {
					t.Fatalf("POST %s = %d %v; want %d %s", tt.path, code, body, tt.code, tt.errKey)
				}
				// A bad until names the field and the form it takes.
				if m, _ := tt.body.(map[string]any); m != nil && m["until"] != nil {
					until := m["until"]
					f, _ := body["fields"].(map[string]any)
					if msg, _ := f["until"].(string); !strings.Contains(msg, "until") || (until != nil && !strings.Contains(msg, "RFC 3339") && !strings.Contains(msg, "future")) {
						t.Fatalf("POST %s = %v; want fields.until naming the RFC 3339 form", tt.path, body)
					}
				}
			})
		}
		// A mod scoped to users may ban a plain user, with a reason that
		// holds the typed text "\u0000".
		reason := `spam \u0000 "again"`
		mod.want("POST", "/admin-api/users/"+id+"/ban", map[string]any{"reason": reason}, 200)
		if b, _ := w.admin.Auth().Banned(context.Background(), id); b == nil || b.BannedBy != modID || b.Reason != reason {
			t.Fatalf("ban = %+v; want one by the mod for %q", b, reason)
		}
	})
}

// TestModerationWithoutColumns: a users table without ban and
// token_version answers 501.
func TestModerationWithoutColumns(t *testing.T) {
	t.Parallel()
	type Player struct {
		ID           int64  `bun:"id,pk,autoincrement"`
		Email        string `bun:"email,notnull,unique"`
		PasswordHash string `bun:"password_hash,nullzero"`
	}
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := db.NewCreateTable().Model((*Player)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		tables := admin.BuiltinTables()
		tables["users"] = (*Player)(nil)
		a, err := admin.New(db, admin.Options{Secret: []byte("0123456789abcdef0123456789abcdef-rooms"), Tables: tables,
			PasswordHasher: admin.Argon2id{Memory: 64, Time: 1, Threads: 1}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		h, _ := a.Auth().HashPassword(ctx, "root password")
		p := &Player{Email: "root@example.com", PasswordHash: h}
		if _, err := db.NewInsert().Model(p).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Moderation().SetRole(ctx, "1", admin.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(a)
		defer srv.Close()
		w := &world{t: t, srv: srv}
		jar, _ := cookiejar.New(nil)
		o := &operator{w: w, hc: &http.Client{Jar: jar}}
		o.want("POST", "/admin-api/auth/login", map[string]any{"email": "root@example.com", "password": "root password"}, 200)
		for _, op := range []string{"ban", "unban", "revoke-sessions"} {
			if code, body := o.do("POST", "/admin-api/users/2/"+op, nil); code != 501 || body["code"] != "unsupported" {
				t.Fatalf("POST users/2/%s = %d %v; want 501 unsupported", op, code, body)
			}
		}
	})
}
