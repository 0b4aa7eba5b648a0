package audit

import (
	"testing"
	"time"
)

// TestNewEvent: an event reads as the stored row does (its payload
// through JSON) and shares nothing with the entry its writer still holds.
func TestNewEvent(t *testing.T) {
	until := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	inner := map[string]any{"n": 1}
	e := Entry{ID: 7, CreatedAt: until, OperatorID: "1", Action: "user.ban", Resource: "users", TargetID: "2",
		Payload: map[string]any{"until": &until, "sessionsClosed": 2, "inner": inner}}
	ev := NewEvent(e)
	inner["n"] = 99
	e.Payload["sessionsClosed"] = 5
	if ev.ID != 7 || ev.ActionLabel != "Banned" || ev.Payload["until"] != "2026-12-04T00:00:00Z" || ev.Payload["sessionsClosed"] != float64(2) {
		t.Errorf("NewEvent = %+v; want the entry as stored", ev)
	}
	if got := ev.Payload["inner"].(map[string]any)["n"]; got != float64(1) {
		t.Errorf("NewEvent payload inner n = %v after the writer changed it; want 1", got)
	}
	if got := NewEvent(Entry{Action: "game.own"}).ActionLabel; got != "game.own" {
		t.Errorf("ActionLabel of a game's action = %q; want the action", got)
	}
}
