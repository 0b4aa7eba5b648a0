package admintest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/live"
	"github.com/uptrace/bun"
)

// TestLeaveReasonsFromThePanel: the game's leave callback learns why a
// player left, whichever path of the panel closed the socket: a kick, a
// ban, revoked sessions, a report resolved with a kick or a ban, a
// dispose.
func TestLeaveReasonsFromThePanel(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newWorld(t, db, true, func(o *admin.Options) {
			o.ReportCategories = []admin.ReportCategory{{Key: "abuse", Label: "Abuse", Evidence: "text"}}
		})
		type leave struct{ user, why string }
		leaves := make(chan leave, 16)
		w.hub.Define("seats", live.RoomType{EmptyTimeout: -1, OnLeave: func(_ *live.Room, c *live.Client) {
			leaves <- leave{c.UserID(), string(c.LeaveReason())}
		}})
		w.user("root@example.com", admin.RoleAdmin)
		root := w.login("root@example.com")
		users := map[string]string{}
		for _, name := range []string{"kicked", "banned", "revoked", "reportkick", "reportban", "stayer", "reporter"} {
			users[name] = w.user(name+"@example.com", admin.RoleUser)
		}
		players := map[string]*player{}
		room := ""
		for _, name := range []string{"kicked", "banned", "revoked", "reportkick", "reportban", "stayer"} {
			players[name] = w.mustJoin("seats", users[name], room)
			room = players[name].roomID
		}
		for _, name := range []string{"reportkick", "reportban"} {
			if _, err := w.admin.FileReport(t.Context(), admin.Report{ReporterID: users["reporter"], PlayerID: users[name], Category: "abuse",
				Evidence: json.RawMessage(`"gg"`), RoomID: room, SessionID: players[name].sid}); err != nil {
				t.Fatal(err)
			}
		}
		steps := []struct {
			name, method, path string
			body               any
			user, want         string
		}{
			{"kick", "DELETE", "/admin-api/rooms/" + room + "/clients/" + players["kicked"].sid, nil, "kicked", "kicked"},
			{"ban", "POST", "/admin-api/users/" + users["banned"] + "/ban", map[string]any{"reason": "bot"}, "banned", "banned"},
			{"revoke sessions", "POST", "/admin-api/users/" + users["revoked"] + "/revoke-sessions", nil, "revoked", "revoked"},
			{"a report resolved with a kick", "POST", "/admin-api/_reports/" + users["reportkick"] + "/resolve", map[string]any{"outcome": "kick"}, "reportkick", "kicked"},
			{"a report resolved with a ban", "POST", "/admin-api/_reports/" + users["reportban"] + "/resolve",
				map[string]any{"outcome": "ban", "ban": map[string]any{"preset": "1d", "reason": "abuse"}}, "reportban", "banned"},
			{"dispose", "DELETE", "/admin-api/rooms/" + room, nil, "stayer", "disposed"},
		}
		for _, s := range steps {
			root.want(s.method, s.path, s.body, 200)
			select {
			case l := <-leaves:
				if l.user != users[s.user] || l.why != s.want {
					t.Errorf("%s: OnLeave learned %s left %q; want %s left %q", s.name, l.user, l.why, users[s.user], s.want)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: OnLeave never ran", s.name)
			}
		}
	})
}
