package admin_test

import (
	"testing"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/testdb"
	"github.com/gameadmin/admin/live"
	"github.com/uptrace/bun"
)

// typedArena is a game state of Go types whose OnJoin writes into a map, as
// the demo's arena does: a nil map there panics the room.
type typedArena struct {
	Players map[string]int `json:"players"`
	Round   int            `json:"round"`
}

// TestRoomStateEditsTheGameCannotHold: a mod with update rights cannot wipe
// the state (an empty path), null a map or a number, nor delete a struct
// field; the room keeps running, and the next join does not panic it.
func TestRoomStateEditsTheGameCannotHold(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.hub.Define("typed", live.RoomType{EmptyTimeout: -1,
			NewState: func() any { return &typedArena{Players: map[string]int{}} },
			OnJoin: func(r *live.Room, c *live.Client) {
				r.State().(*typedArena).Players[c.SessionID()] = 1
			}})
		w.user("mod@example.com", admin.RoleMod, "rooms")
		mod := w.login("mod@example.com")
		p := w.mustJoin("typed", w.user("p@example.com", admin.RoleUser), "")
		state := "/admin-api/rooms/" + p.roomID + "/state"

		for _, tt := range []struct {
			name, method string
			body         map[string]any
			code         string
		}{
			{"wipe with an empty path", "PATCH", map[string]any{"path": []any{}, "value": nil}, "invalid_path"},
			{"replace with an empty path", "PATCH", map[string]any{"path": []any{}, "value": map[string]any{"round": 3}}, "invalid_path"},
			{"delete with an empty path", "DELETE", map[string]any{"path": []any{}}, "invalid_path"},
			{"null a map", "PATCH", map[string]any{"path": []any{"players"}, "value": nil}, "invalid_value"},
			{"null a number", "PATCH", map[string]any{"path": []any{"round"}, "value": nil}, "invalid_value"},
			{"a string for a number", "PATCH", map[string]any{"path": []any{"round"}, "value": "x"}, "invalid_value"},
			{"delete a struct field", "DELETE", map[string]any{"path": []any{"players"}}, "invalid_value"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				if got := mod.want(tt.method, state, tt.body, 400); got["code"] != tt.code {
					t.Fatalf("%s %v = %v; want code %s", tt.method, tt.body, got, tt.code)
				}
			})
		}
		mod.want("PATCH", state, map[string]any{"path": []any{"round"}, "value": 7}, 200)
		// The room runs on: a second player joins, and the first is not
		// closed with 1011.
		w.mustJoin("typed", w.user("q@example.com", admin.RoleUser), p.roomID)
		view := mod.want("GET", "/admin-api/rooms/"+p.roomID, nil, 200)
		if view["clients"] != 2.0 || view["state"].(map[string]any)["round"] != 7.0 {
			t.Fatalf("room after the refused edits = %v; want 2 clients and round 7", view)
		}
	})
}

// TestDashboardLiveRoomsNeedRoomsScope: the dashboard shows live rooms only
// to an operator who may list them (GET /rooms' rule).
func TestDashboardLiveRoomsNeedRoomsScope(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("cfg@example.com", admin.RoleMod, "configs")
		w.user("rooms@example.com", admin.RoleMod, "rooms")
		w.mustJoin("arena", w.user("p@example.com", admin.RoleUser), "")
		liveRooms := func(o *operator) []any {
			t.Helper()
			for _, wd := range o.want("GET", "/admin-api/_dashboard", nil, 200)["widgets"].([]any) {
				if m := wd.(map[string]any); m["id"] == "liveRooms" {
					rooms, _ := m["data"].([]any)
					return rooms
				}
			}
			t.Fatal("no liveRooms widget")
			return nil
		}
		cfg := w.login("cfg@example.com")
		cfg.want("GET", "/admin-api/rooms", nil, 403)
		if rooms := liveRooms(cfg); len(rooms) != 0 {
			t.Fatalf("mod without the rooms scope sees rooms on the dashboard: %v", rooms)
		}
		if rooms := liveRooms(w.login("rooms@example.com")); len(rooms) != 1 {
			t.Fatalf("mod with the rooms scope sees %v; want the one room", rooms)
		}
	})
}
