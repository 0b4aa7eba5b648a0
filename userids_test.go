package admin

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"testing"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// A game's users table in each id type the panel supports, with its own
// column names for everything but the id.

type bigintPlayer struct {
	bun.BaseModel `bun:"table:players,alias:p"`

	ID       int64    `bun:"id,pk,autoincrement"`
	Email    string   `bun:"email,notnull,unique"`
	Nickname string   `bun:"nickname"`
	PwHash   string   `bun:"pw_hash"`
	Banned   *BanInfo `bun:"banned"`
	Gen      int64    `bun:"gen,notnull,default:0"`
}

type uuidPlayer struct {
	bun.BaseModel `bun:"table:players,alias:p"`

	ID       uuid.UUID `bun:"player_id,pk,type:uuid"`
	Email    string    `bun:"email,notnull,unique"`
	Nickname string    `bun:"nickname"`
	PwHash   string    `bun:"pw_hash"`
	Banned   *BanInfo  `bun:"banned"`
	Gen      int64     `bun:"gen,notnull,default:0"`
}

type textPlayer struct {
	bun.BaseModel `bun:"table:players,alias:p"`

	ID       string   `bun:"handle,pk"`
	Email    string   `bun:"email,notnull,unique"`
	Nickname string   `bun:"nickname"`
	PwHash   string   `bun:"pw_hash"`
	Banned   *BanInfo `bun:"banned"`
	Gen      int64    `bun:"gen,notnull,default:0"`
}

// A game table of items owned by players, in each id type.

type bigintItem struct {
	bun.BaseModel `bun:"table:items,alias:i"`

	ID      int64  `bun:"id,pk,autoincrement"`
	OwnerID int64  `bun:"owner_id,notnull"`
	Name    string `bun:"name,notnull"`
}

type uuidItem struct {
	bun.BaseModel `bun:"table:items,alias:i"`

	ID      int64     `bun:"id,pk,autoincrement"`
	OwnerID uuid.UUID `bun:"owner_id,notnull,type:uuid"`
	Name    string    `bun:"name,notnull"`
}

type textItem struct {
	bun.BaseModel `bun:"table:items,alias:i"`

	ID      int64  `bun:"id,pk,autoincrement"`
	OwnerID string `bun:"owner_id,notnull"`
	Name    string `bun:"name,notnull"`
}

// sessionRooms is a Rooms with one live session per user it was told
// about, which records the user ids the panel asks for.
type sessionRooms struct {
	farRooms
	mu    sync.Mutex
	live  map[string]bool
	asked []string
}

func (s *sessionRooms) UserSessions(_ context.Context, userID string) ([]UserSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, userID)
	if s.live[userID] {
		return []UserSession{{SessionID: "s-" + userID, RoomID: "lobby"}}, nil
	}
	return nil, nil
}

func (s *sessionRooms) DisconnectUser(_ context.Context, userID, _ string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live[userID] {
		delete(s.live, userID)
		return 1, nil
	}
	return 0, nil
}

// TestHTTPSurfaceByUserIDType runs the panel's whole user-facing HTTP
// surface over a game users table whose ids are bigint, uuid or text, on
// both databases: the built-in tables take the users id type, and no
// comparison of user ids answers 500 (PostgreSQL's "text = bigint").
func TestHTTPSurfaceByUserIDType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		model any
		item  any
		idCol string
		bogus string // an id no user has, malformed for the type where it can be
		// bogusStatus and bogusCode answer a path naming bogus: 400 when
		// it is malformed, else 404.
		bogusStatus int
		bogusCode   string
	}{
		{"bigint", (*bigintPlayer)(nil), (*bigintItem)(nil), "id", "not-a-number", 400, "invalid_value"},
		{"uuid", (*uuidPlayer)(nil), (*uuidItem)(nil), "player_id", "not-a-uuid", 400, "invalid_value"},
		{"text", (*textPlayer)(nil), (*textItem)(nil), "handle", "nobody", 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, db *bun.DB) {
				createTables(t, db, tt.model, tt.item)
				rooms := &sessionRooms{live: map[string]bool{}}
				e := newEnv(t, db, Options{
					Tables: tablesWith(map[string]any{"users": tt.model, "items": tt.item}),
					Relations: map[string][]Relation{
						"items": {{Name: "owner", Target: "users", Kind: One, FK: "owner_id"}},
						"users": {{Name: "items", Target: "items", Kind: Many, FK: "owner_id"}},
					},
					UserColumns: UserColumns{ID: tt.idCol, PasswordHash: "pw_hash", DisplayName: "nickname", Ban: "banned", TokenVersion: "gen"},
					Rooms:       rooms,
				})
				t.Cleanup(func() {
					if t.Failed() {
						t.Log(e.logs.String())
					}
				})
				root, rootID := e.bootstrap()
				pid := e.user("p@example.com", "player password")
				rooms.live[pid] = true
				id := func(v any) string { return fmt.Sprint(v) }

				// Catalog, list, read.
				cat := rows(t, root.do("GET", "/admin-api/", nil).want(t, 200))
				if len(cat) == 0 || cat[0]["name"] != "users" || fmt.Sprint(cat[0]["primaryKey"]) != "["+tt.idCol+"]" {
					t.Fatalf("catalog = %v; want the users resource keyed by %s", cat, tt.idCol)
				}
				users, _ := root.list(t, "/admin-api/users", url.Values{"_sort": {tt.idCol}})
				if got := column(users, tt.idCol); !slices.Contains(got, rootID) || !slices.Contains(got, pid) {
					t.Fatalf("GET /users ids = %v; want %s and %s", got, rootID, pid)
				}
				u := root.do("GET", "/admin-api/users/"+pid, nil).want(t, 200).body
				if u["email"] != "p@example.com" || id(u[tt.idCol]) != pid {
					t.Fatalf("GET /users/%s = %v", pid, u)
				}
				if _, ok := u["pw_hash"]; ok {
					t.Fatalf("GET /users/%s shows the password hash: %v", pid, u)
				}
				root.do("GET", "/admin-api/users/"+tt.bogus, nil).want(t, tt.bogusStatus, tt.bogusCode)
				found, _ := root.list(t, "/admin-api/users", url.Values{tt.idCol: {pid}})
				if len(found) != 1 {
					t.Fatalf("GET /users?%s=%s = %v; want one row", tt.idCol, pid, found)
				}
				if r := root.do("GET", "/admin-api/users?"+tt.idCol+"="+tt.bogus, nil); r.StatusCode != 200 && r.StatusCode != 400 {
					t.Fatalf("GET /users?%s=%s = %d %s; want 200 or 400", tt.idCol, tt.bogus, r.StatusCode, r.raw)
				}
				search, _ := root.list(t, "/admin-api/users", url.Values{"_q": {"p@example"}})
				if len(search) != 1 {
					t.Fatalf("GET /users?_q=p@example = %v; want one row", search)
				}

				// Rows that refer to the player, created through the panel
				// with the id as the list shows it (a JSON number for bigint).
				pidJSON := users[slices.Index(column(users, tt.idCol), pid)][tt.idCol]
				note := root.do("POST", "/admin-api/userNotes", map[string]any{"user_id": pidJSON, "body": "hello"}).want(t, 201).body
				root.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": pid, "slot": "a"}).want(t, 201)
				root.do("POST", "/admin-api/leaderboards", map[string]any{"id": "weekly", "name": "Weekly"}).want(t, 201)
				root.do("POST", "/admin-api/leaderboardEntries", map[string]any{"leaderboard_id": "weekly", "user_id": pidJSON, "score": 7}).want(t, 201)
				root.do("POST", "/admin-api/analyticsEvents", map[string]any{"user_id": pid, "name": "login"}).want(t, 201)
				item := root.do("POST", "/admin-api/items", map[string]any{"owner_id": pidJSON, "name": "sword"}).want(t, 201).body
				bad := root.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": tt.bogus, "slot": "b"}).want(t, 400)
				if tt.bogusStatus == 400 && !contains(fmt.Sprint(bad.body["error"]), map[string]string{"bigint": "an integer column", "uuid": "a uuid column"}[tt.name]) {
					// The column is a Go string; the message names what
					// the database holds.
					t.Errorf("POST /cloudSaves with user_id %q: %s; want the message to name the %s column", tt.bogus, bad.raw, tt.name)
				}
				root.do("POST", "/admin-api/userNotes", map[string]any{"user_id": tt.bogus, "body": "x"}).want(t, 400)

				counts := root.do("GET", "/admin-api/users/"+pid+"/_counts", nil).want(t, 200).body
				for _, k := range []string{"userNotes", "cloudSaves", "leaderboardEntries", "analyticsEvents", "items", "activeSessions"} {
					if counts[k] != float64(1) {
						t.Errorf("GET /users/%s/_counts = %v; want %s 1", pid, counts, k)
					}
				}
				if !slices.Contains(rooms.asked, pid) {
					t.Errorf("Rooms.UserSessions asked for %q; want %s", rooms.asked, pid)
				}
				root.do("GET", "/admin-api/users/"+tt.bogus+"/_counts", nil).want(t, tt.bogusStatus, tt.bogusCode)
				for _, rel := range []string{"userNotes", "cloudSaves", "leaderboardEntries", "analyticsEvents", "items"} {
					rows, _ := root.list(t, "/admin-api/users/"+pid+"/relations/"+rel, nil)
					if len(rows) != 1 || id(cmp.Or(rows[0]["user_id"], rows[0]["owner_id"])) != pid {
						t.Errorf("GET /users/%s/relations/%s = %v; want the player's row", pid, rel, rows)
					}
				}
				noteID := id(note["id"])
				for rel, want := range map[string]string{"user": pid, "author": rootID} {
					rows, _ := root.list(t, "/admin-api/userNotes/"+noteID+"/relations/"+rel, nil)
					if len(rows) != 1 || id(rows[0][tt.idCol]) != want {
						t.Errorf("GET /userNotes/%s/relations/%s = %v; want user %s", noteID, rel, rows, want)
					}
				}

				owner, _ := root.list(t, "/admin-api/items/"+id(item["id"])+"/relations/owner", nil)
				if len(owner) != 1 || id(owner[0][tt.idCol]) != pid {
					t.Errorf("GET /items/%v/relations/owner = %v; want the player", item["id"], owner)
				}

				// Labels name a user by its display name (UserColumns.DisplayName),
				// else its email.
				root.do("PATCH", "/admin-api/users/"+rootID, map[string]any{"nickname": "Root"}).want(t, 200)
				notes, _ := root.list(t, "/admin-api/userNotes", nil)
				if len(notes) != 1 || labels(notes[0])["user_id"] != "p@example.com" || labels(notes[0])["author_id"] != "Root" {
					t.Errorf("GET /userNotes labels = %v", notes)
				}
				items, _ := root.list(t, "/admin-api/items", url.Values{"owner_id": {pid}})
				if len(items) != 1 || labels(items[0])["owner_id"] != "p@example.com" {
					t.Errorf("GET /items?owner_id=%s = %v; want the sword labelled with its owner", pid, items)
				}
				filtered, _ := root.list(t, "/admin-api/userNotes", url.Values{"user_id": {pid}})
				if len(filtered) != 1 {
					t.Errorf("GET /userNotes?user_id=%s = %v; want the note", pid, filtered)
				}

				// Role changes through the roles resource; the player signs in
				// and its session reads its role.
				root.do("POST", "/admin-api/roles", map[string]any{"user_id": pidJSON, "role": "mod", "scopes": []string{"userNotes"}}).want(t, 201)
				root.do("GET", "/admin-api/roles/"+pid, nil).want(t, 200)
				player := e.login("p@example.com", "player password")
				me := player.do("GET", "/admin-api/auth/me", nil).want(t, 200).body
				if me["userId"] != pid || me["role"] != "mod" {
					t.Fatalf("GET /auth/me as the player = %v; want mod %s", me, pid)
				}
				root.do("PATCH", "/admin-api/roles/"+pid, map[string]any{"role": "user"}).want(t, 200)
				if me := player.do("GET", "/admin-api/auth/me", nil).want(t, 200).body; me["role"] != "user" {
					t.Fatalf("GET /auth/me after the role change = %v; want user", me)
				}
				root.do("GET", "/admin-api/roles/"+tt.bogus, nil).want(t, tt.bogusStatus, tt.bogusCode)

				// Moderation.
				ban := root.do("POST", "/admin-api/users/"+pid+"/ban", map[string]any{"reason": "cheating"}).want(t, 200).body
				if ban["sessionsClosed"] != float64(1) {
					t.Errorf("ban = %v; want one session closed", ban)
				}
				player.do("GET", "/admin-api/auth/me", nil).want(t, 401)
				e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "player password"}).want(t, 403)
				root.do("POST", "/admin-api/users/"+pid+"/unban", nil).want(t, 200)
				player = e.login("p@example.com", "player password")
				root.do("POST", "/admin-api/users/"+pid+"/revoke-sessions", nil).want(t, 200)
				player.do("GET", "/admin-api/auth/me", nil).want(t, 401)
				for _, op := range []string{"ban", "unban", "revoke-sessions"} {
					root.do("POST", "/admin-api/users/"+tt.bogus+"/"+op, nil).want(t, tt.bogusStatus, tt.bogusCode)
				}

				// Audit filters by actor and target.
				byActor, _ := root.list(t, "/admin-api/adminAudit", url.Values{"operator_id": {rootID}})
				byTarget, _ := root.list(t, "/admin-api/adminAudit", url.Values{"target_id": {pid}, "resource": {"users"}})
				if len(byActor) == 0 || !slices.Contains(column(byTarget, "action"), "user.ban") || !slices.Contains(column(byTarget, "action"), "user.unban") {
					t.Errorf("audit by operator = %d rows, by target = %v; want rows and the ban and unban", len(byActor), column(byTarget, "action"))
				}
				if len(byActor) > 0 && labels(byActor[0])["operator_id"] != "Root" {
					t.Errorf("audit operator label = %v", labels(byActor[0]))
				}
				if r := root.do("GET", "/admin-api/adminAudit?operator_id="+tt.bogus, nil); r.StatusCode != 200 && r.StatusCode != 400 {
					t.Fatalf("GET /adminAudit?operator_id=%s = %d %s; want 200 or 400", tt.bogus, r.StatusCode, r.raw)
				}
				root.list(t, "/admin-api/adminAudit", url.Values{"_q": {pid}})

				// Deleting the player takes its rows along.
				root.do("DELETE", "/admin-api/users/"+pid, nil).want(t, 200)
				if n := count(t, db, (*UserNote)(nil)); n != 0 {
					t.Errorf("%d notes left after deleting their user", n)
				}
			})
		})
	}
}

// textOwnedItem refers to a bigint player from a text column, as a game's
// older table might.
type textOwnedItem struct {
	bun.BaseModel `bun:"table:items,alias:i"`

	ID      int64  `bun:"id,pk,autoincrement"`
	OwnerID string `bun:"owner_id"`
	Name    string `bun:"name,notnull"`
}

// TestRelationKeyTypesDiffer: a relation whose two columns have different
// types (a text owner_id naming a bigint player) works both ways on both
// databases: the key takes the type of the column it is compared with.
func TestRelationKeyTypesDiffer(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*bigintPlayer)(nil), (*textOwnedItem)(nil))
		e := newEnv(t, db, Options{
			Tables:      tablesWith(map[string]any{"users": (*bigintPlayer)(nil), "items": (*textOwnedItem)(nil)}),
			UserColumns: UserColumns{PasswordHash: "pw_hash", DisplayName: "nickname", Ban: "banned", TokenVersion: "gen"},
			Relations: map[string][]Relation{
				"items": {{Name: "owner", Target: "users", Kind: One, FK: "owner_id"}},
				"users": {{Name: "items", Target: "items", Kind: Many, FK: "owner_id"}},
			},
		})
		root, rootID := e.bootstrap()
		insert(t, db, &[]textOwnedItem{{OwnerID: rootID, Name: "sword"}, {OwnerID: "not-a-player", Name: "junk"}, {Name: "orphan"}})
		if got := root.do("GET", "/admin-api/users/"+rootID+"/_counts", nil).want(t, 200).body; got["items"] != float64(1) {
			t.Fatalf("GET /users/%s/_counts = %v; want items 1", rootID, got)
		}
		items, _ := root.list(t, "/admin-api/users/"+rootID+"/relations/items", nil)
		if len(items) != 1 || items[0]["name"] != "sword" {
			t.Fatalf("GET /users/%s/relations/items = %v; want the sword", rootID, items)
		}
		all, _ := root.list(t, "/admin-api/items", url.Values{"_sort": {"id"}})
		if len(all) != 3 || labels(all[0])["owner_id"] != "root@example.com" || labels(all[1]) != nil {
			t.Fatalf("GET /items = %v; want the sword labelled by its owner, the others not", all)
		}
		for i, want := range []int{1, 0, 0} {
			owner, _ := root.list(t, fmt.Sprintf("/admin-api/items/%v/relations/owner", all[i]["id"]), nil)
			if len(owner) != want {
				t.Errorf("GET /items/%v/relations/owner = %v; want %d rows", all[i]["id"], owner, want)
			}
		}
	})
}
