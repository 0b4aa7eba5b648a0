package audit

import (
	"encoding/json"
	"time"
)

// Event is a committed audit entry as Options.OnAudit receives it: the
// entry as the log stores it, with the words an operator reads for it.
type Event struct {
	// ID is the entry's id in the audit log.
	ID int64
	// Time is when the entry was written, in UTC.
	Time time.Time
	// OperatorID is the operator who acted; "" for the game's own code
	// and for anonymous events (a failed sign-in).
	OperatorID string
	// Operator names the operator: their display name, or, for an admin
	// or mod without one, their email. "" when OperatorID is "", the
	// account is gone, or it is a player's (a sign-in's) without a
	// display name: name them by OperatorID. A player's email is never a
	// label.
	Operator string
	// Action is what was done ("user.ban", "update", a game's own action).
	Action string
	// ActionLabel is the action's words ("Banned"); a game's own action
	// is its own label.
	ActionLabel string
	// Resource is the resource key the entry is about ("users").
	Resource string
	// TargetID is the id of the row acted on; "" when the entry is about
	// no one row.
	TargetID string
	// Target names the target user when Resource is "users": their
	// display name, or, for an admin or mod without one, their email. ""
	// otherwise, and for a player without a display name: name them by
	// TargetID.
	Target string
	// Payload is the entry's payload as the log stores it, decoded from
	// its JSON (numbers are float64, times strings): capped in size like
	// the log's, and with nothing the log leaves out (passwords, tokens).
	Payload map[string]any
}

// NewEvent is e as an Event whose labels are still to be filled in. The
// payload is a copy made through its JSON, so that the Event shares
// nothing with the writer that may still hold e and reads as the stored
// row does.
func NewEvent(e Entry) Event {
	ev := Event{ID: e.ID, Time: e.CreatedAt.UTC(), OperatorID: e.OperatorID, Action: e.Action,
		ActionLabel: ActionLabel(e.Action), Resource: e.Resource, TargetID: e.TargetID}
	if raw, err := json.Marshal(e.Payload); err == nil {
		_ = json.Unmarshal(raw, &ev.Payload)
	}
	return ev
}
