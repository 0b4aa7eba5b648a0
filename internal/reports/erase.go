package reports

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/uptrace/bun"
)

// Erased is what a report's text reads once its reporter or the player
// it is about is erased, as in the audit log.
const Erased = "[erased]"

// MaxExport is how many reports of each side (received, filed) a
// player's data export holds, the newest.
const MaxExport = 10000

// Erase takes away, in tx, what a player's reports say as their account
// is erased: every report they filed or that is about them keeps its
// category and times, its text becomes Erased and its evidence none.
// Their open reports are closed (outcome "erase", by the operator by)
// and the claim on them dropped; those they filed about others stay
// open for a moderator, without their words. It returns how many
// reports changed.
func (s *Store) Erase(ctx context.Context, tx bun.Tx, playerID, by string) (int64, error) {
	if _, err := s.Close(ctx, tx, playerID, by, "erase"); err != nil && !errors.Is(err, ErrNoOpenReports) {
		return 0, err
	}
	res, err := tx.NewUpdate().Table(string(s.table)).
		Set("text = CASE WHEN text = '' THEN '' ELSE ? END, evidence = NULL", Erased).
		Where("player_id = ? OR reporter_id = ?", playerID, playerID).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// reporterKey names the reporter in a report.file audit payload.
const reporterKey = "reporterId"

// WithoutReporter takes the reporter out of an audit entry's payload p
// of the given action, as a data export of the reported player holds
// it: like a report in that export (Row.Export), the report.file entry
// about them does not say who filed it.
func WithoutReporter(action string, p map[string]any) {
	if action == "report.file" {
		delete(p, reporterKey)
	}
}

// Export is one report as a player's data export holds it. A report
// about them leaves out who filed it: that is the reporter's, not theirs
// (and naming them invites retaliation); one they filed says whom about.
func (r Row) Export(filed bool) map[string]any {
	m := map[string]any{
		"id": r.ID, "category": r.Category, "text": r.Text, "count": r.Count, "status": r.Status,
		"createdAt": r.CreatedAt.UTC(), "lastAt": r.LastAt.UTC(),
	}
	if filed {
		m["playerId"] = r.PlayerID
	}
	if r.RoomID != "" {
		m["roomId"] = r.RoomID
	}
	if r.Evidence != "" && json.Valid([]byte(r.Evidence)) {
		m["evidence"] = json.RawMessage(r.Evidence)
	}
	if r.ResolvedAt != nil {
		m["resolvedAt"], m["outcome"] = r.ResolvedAt.UTC(), r.Outcome
	}
	return m
}
