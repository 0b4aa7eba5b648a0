package admin_test

import (
	"testing"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/testdb"
	"github.com/gameadmin/admin/live"
	"github.com/uptrace/bun"
)

// TestRoomOperations: kick, lock, state edit and delete, dispose, each
// visible to real WebSocket clients and audited.
func TestRoomOperations(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		alice, bob := w.user("alice@example.com", admin.RoleUser), w.user("bob@example.com", admin.RoleUser)
		pa := w.mustJoin("arena", alice, "")
		pb := w.mustJoin("arena", bob, "")
		room := pa.roomID
		if pb.roomID != room {
			t.Fatalf("players in rooms %s and %s; want one room", room, pb.roomID)
		}

		code, _ := root.do("GET", "/admin-api/rooms", nil)
		if code != 200 {
			t.Fatalf("GET /rooms = %d", code)
		}
		rooms, _ := w.hub.List(t.Context())
		if len(rooms) != 1 || rooms[0].Clients != 2 {
			t.Fatalf("rooms = %+v; want one room with 2 clients", rooms)
		}
		view := root.want("GET", "/admin-api/rooms/"+room, nil, 200)
		if view["roomId"] != room || view["name"] != "arena" || len(view["clientList"].([]any)) != 2 || view["state"] == nil {
			t.Fatalf("inspect = %v", view)
		}
		root.want("GET", "/admin-api/rooms/nope", nil, 404)

		// State edit and delete reach the clients.
		root.want("PATCH", "/admin-api/rooms/"+room+"/state", map[string]any{"path": []any{"score", "red"}, "value": 5}, 200)
		if s := pa.next(t, "state")["state"].(map[string]any); s["score"].(map[string]any)["red"] != 5.0 {
			t.Fatalf("state after edit = %v; want score.red 5", s)
		}
		root.want("DELETE", "/admin-api/rooms/"+room+"/state", map[string]any{"path": []any{"items", 0}}, 200)
		if s := pa.next(t, "state")["state"].(map[string]any); len(s["items"].([]any)) != 1 || s["items"].([]any)[0] != "shield" {
			t.Fatalf("state after delete = %v; want items [shield]", s)
		}
		for _, bad := range []map[string]any{
			{"path": []any{"items", 9}, "value": 1},
			{"path": []any{"score", "red", "deeper"}, "value": 1},
			{"path": []any{true}, "value": 1},
			{"path": []any{"items", -1}, "value": 1},
		} {
			if code, body := root.do("PATCH", "/admin-api/rooms/"+room+"/state", bad); code != 400 || body["code"] != "invalid_path" {
				t.Fatalf("edit %v = %d %v; want 400 invalid_path", bad, code, body)
			}
		}
		if code, body := root.do("PATCH", "/admin-api/rooms/"+room+"/state", map[string]any{"path": []any{"x"}}); code != 400 || body["code"] != "missing_field" {
			t.Fatalf("edit without value = %d %v; want 400 missing_field", code, body)
		}

		// Kick.
		root.want("DELETE", "/admin-api/rooms/"+room+"/clients/"+pb.sid, map[string]any{"reason": "afk"}, 200)
		if k := pb.next(t, "kicked"); k["reason"] != "afk" {
			t.Fatalf("kicked = %v; want reason afk", k)
		}
		if code, _ := pb.waitClosed(t); code != live.CloseKicked {
			t.Fatalf("kick close code = %d", code)
		}
		root.want("DELETE", "/admin-api/rooms/"+room+"/clients/nobody", nil, 404)

		// Lock refuses new joins; unlock lets them in.
		root.want("PATCH", "/admin-api/rooms/"+room, map[string]any{"locked": true}, 200)
		if _, res, err := w.join("arena", bob, room); err == nil || res == nil || res.StatusCode != 409 {
			t.Fatalf("join a locked room = %v; want 409", err)
		}
		root.want("PATCH", "/admin-api/rooms/"+room, map[string]any{"locked": false}, 200)
		pb = w.mustJoin("arena", bob, room)
		root.want("PATCH", "/admin-api/rooms/"+room, map[string]any{}, 400)

		// Dispose closes everyone.
		root.want("DELETE", "/admin-api/rooms/"+room, nil, 200)
		for _, p := range []*player{pa, pb} {
			if code, _ := p.waitClosed(t); code != live.CloseDisposed {
				t.Fatalf("dispose close code = %d; want %d", code, live.CloseDisposed)
			}
		}
		root.want("GET", "/admin-api/rooms/"+room, nil, 404)

		for action, n := range map[string]int{"room.kick": 1, "room.lock": 1, "room.unlock": 1, "room.state.edit": 1, "room.state.delete": 1, "room.dispose": 1} {
			rows := w.audit(action)
			if len(rows) != n || rows[0].TargetID != room || rows[0].Resource != "rooms" || rows[0].Payload["ip"] != "127.0.0.1" || rows[0].Payload["userAgent"] == nil {
				t.Fatalf("%s audit = %+v; want %d row with room, ip and userAgent", action, rows, n)
			}
		}
		if k := w.audit("room.kick")[0].Payload; k["sessionId"] != pb.sid && k["reason"] != "afk" {
			t.Fatalf("room.kick payload = %v", k)
		}
	})
}

// TestRoomScopes: a mod needs the rooms scope; with it, a mod may list,
// inspect, kick and lock but not dispose; without Rooms every endpoint is 501.
func TestRoomScopes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true)
		w.user("scoped@example.com", admin.RoleMod, "rooms")
		w.user("unscoped@example.com", admin.RoleMod, "users")
		scoped, unscoped := w.login("scoped@example.com"), w.login("unscoped@example.com")
		p := w.mustJoin("arena", w.user("p@example.com", admin.RoleUser), "")
		room := p.roomID
		tests := []struct {
			o      *operator
			method string
			path   string
			body   any
			code   int
		}{
			{unscoped, "GET", "/admin-api/rooms", nil, 403},
			{unscoped, "GET", "/admin-api/rooms/" + room, nil, 403},
			{unscoped, "DELETE", "/admin-api/rooms/" + room + "/clients/" + p.sid, nil, 403},
			{unscoped, "PATCH", "/admin-api/rooms/" + room, map[string]any{"locked": true}, 403},
			{scoped, "GET", "/admin-api/rooms", nil, 200},
			{scoped, "GET", "/admin-api/rooms/" + room, nil, 200},
			{scoped, "PATCH", "/admin-api/rooms/" + room, map[string]any{"locked": true}, 200},
			{scoped, "DELETE", "/admin-api/rooms/" + room, nil, 403},
			{scoped, "DELETE", "/admin-api/rooms/" + room + "/clients/" + p.sid, nil, 200},
		}
		for _, tt := range tests {
			if code, body := tt.o.do(tt.method, tt.path, tt.body); code != tt.code {
				t.Fatalf("%s %s = %d %v; want %d", tt.method, tt.path, code, body, tt.code)
			}
		}

		none := newWorld(t, db, false)
		none.user("root2@example.com", admin.RoleAdmin)
		root := none.login("root2@example.com")
		for _, path := range []string{"/admin-api/rooms", "/admin-api/rooms/x", "/admin-api/rooms/by-user/x"} {
			if code, body := root.do("GET", path, nil); code != 501 || body["code"] != "rooms_unsupported" {
				t.Fatalf("GET %s without Rooms = %d %v; want 501", path, code, body)
			}
		}
	})
}
