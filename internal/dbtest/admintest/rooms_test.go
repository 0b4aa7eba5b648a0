package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
)

// farRooms is a Rooms whose rooms all live on other nodes: one is gone
// (unavailable), one is silent (timeout).
type farRooms struct{}

func (farRooms) err(roomID string) error {
	if roomID == "silent" {
		return fmt.Errorf("node b did not answer within 2s: %w", ErrNodeTimeout)
	}
	return fmt.Errorf("no node listens for room %s: %w", roomID, ErrNodeUnavailable)
}

func (farRooms) List(context.Context) ([]RoomSummary, error) { return nil, ErrNodeUnavailable }

func (f farRooms) Inspect(_ context.Context, id string) (RoomView, error) {
	return RoomView{}, f.err(id)
}

func (f farRooms) Session(_ context.Context, id, _ string) (UserSession, error) {
	return UserSession{}, f.err(id)
}

func (f farRooms) Kick(_ context.Context, id, _, _ string) error { return f.err(id) }

func (f farRooms) SetLocked(_ context.Context, id string, _ bool) error { return f.err(id) }

func (f farRooms) Dispose(_ context.Context, id string) error { return f.err(id) }

func (f farRooms) DeleteState(_ context.Context, id string, _ []any) error { return f.err(id) }

func (f farRooms) EditState(_ context.Context, id string, _ []any, _ json.RawMessage) error {
	return f.err(id)
}

func (farRooms) UserSessions(context.Context, string) ([]UserSession, error) { return nil, nil }

func (farRooms) DisconnectUser(context.Context, string, LeaveReason, string) (int, error) {
	return 0, nil
}

// TestRoomNodeErrors: a room whose node is gone answers 503
// node_unavailable, one whose node is silent 504 node_timeout, both in
// the error body and logged with their cause.
func TestRoomNodeErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), Options{Rooms: farRooms{}})
	root, _ := e.bootstrap()
	root.do("GET", "/admin-api/rooms", nil).want(t, 503, "node_unavailable")
	root.do("GET", "/admin-api/rooms/gone", nil).want(t, 503, "node_unavailable")
	root.do("PATCH", "/admin-api/rooms/gone", map[string]any{"locked": true}).want(t, 503, "node_unavailable")
	root.do("DELETE", "/admin-api/rooms/gone/clients/s1", nil).want(t, 503, "node_unavailable")
	root.do("GET", "/admin-api/rooms/silent", nil).want(t, 504, "node_timeout")
	root.do("PATCH", "/admin-api/rooms/silent/state", map[string]any{"path": []any{"a"}, "value": 1}).want(t, 504, "node_timeout")
	root.do("DELETE", "/admin-api/rooms/silent", nil).want(t, 504, "node_timeout")
	logs := e.logs.String()
	if !strings.Contains(logs, "no node listens for room gone") || !strings.Contains(logs, "did not answer within 2s") {
		t.Fatalf("the causes are not logged: %s", logs)
	}
}
