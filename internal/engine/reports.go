package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/reports"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun"
)

// ReportCategory is a kind of player report the game declares
// (Options.ReportCategories); it is internal/reports' Category.
type ReportCategory = reports.Category

// Report is one player's report about another, as the game files it; it
// is internal/reports' Report.
type Report = reports.Report

// newReportStore builds the reports store over the panel's tables, its
// clock, the reporters' limiter and the audit log.
func newReportStore(a *Admin) (*reports.Store, error) {
	return reports.New(reports.Config{
		DB: a.db, Table: string(a.tableNames) + "reports", Claims: string(a.tableNames) + "report_claims",
		Users: a.users, Categories: a.opts.ReportCategories, Window: a.opts.ReportWindow,
		Limiter: a.limits.Reports, Audit: a.audit, Now: a.now, ClaimExpiry: a.opts.ReportClaimExpiry,
	}, func(key string) bool { return a.resources[key] != nil })
}

// FileReport files a player's report from the game's code: r's category
// must be one of Options.ReportCategories, its player and reporter users
// of the users table. It returns the report's id, or that of the
// reporter's open report it folded into (the same player and category
// within Options.ReportWindow). See admin.Admin.FileReport.
func (a *Admin) FileReport(ctx context.Context, r Report) (int64, error) {
	if err := closedError(&a.closed); err != nil {
		return 0, err
	}
	if !a.reports.On() {
		return 0, ErrReportsOff
	}
	// An id the users table's id type cannot hold is an unknown player,
	// not a database error (PostgreSQL refuses 'x' as a uuid).
	for _, id := range []*string{&r.PlayerID, &r.ReporterID} {
		if *id == "" {
			continue
		}
		v, err := a.usersRes.userID(*id)
		if err != nil {
			return 0, fmt.Errorf("%w %q", ErrUnknownPlayer, *id)
		}
		*id = v
	}
	id, _, err := a.reports.File(ctx, r)
	return id, err
}

// reportView is a report as the queue and a player's page answer it:
// its evidence as its category reads, and its room while live.
type reportView struct {
	reports.Row
	CategoryLabel string         `json:"categoryLabel"`
	Evidence      map[string]any `json:"evidence,omitempty"`
	Room          *roomLink      `json:"room,omitempty"`
}

// roomLink is where a report was filed: the room, whether it is still
// live, and whether the reported player's session is still in it.
type roomLink struct {
	ID        string `json:"id"`
	Live      bool   `json:"live"`
	SessionID string `json:"sessionId,omitempty"`
	InRoom    bool   `json:"sessionLive"`
}

// reportViews turns rows into what op reads: evidence as declared (a
// text, or a link to a row op may read with its label; never the raw
// JSON of a declared kind), rooms and sessions checked once each.
func (h *reportsHandler) reportViews(ctx context.Context, op Operator, rows []reports.Row) []reportView {
	out := make([]reportView, len(rows))
	links := &roomLinks{h: h, live: map[string]bool{}, in: map[[2]string]bool{}}
	for i, r := range rows {
		v := reportView{Row: r}
		c, ok := h.store.Category(r.Category)
		v.CategoryLabel = r.Category
		if ok {
			v.CategoryLabel = c.Label
		}
		if r.Evidence != "" {
			v.Evidence = h.evidenceView(ctx, op, c, r.Evidence)
		}
		if r.RoomID != "" {
			v.Room = links.link(ctx, r.RoomID, r.SessionID)
		}
		out[i] = v
	}
	return out
}

// roomLinks are the room links of one answer: whether each report's room
// is live and the reported session still in it, asked of the runtime once
// per room and session with Session, which reads neither the room's state
// nor runs the game's callbacks. A room the runtime cannot answer for (a
// failure is logged) reads as not live, and is not asked again: the link
// is a convenience.
type roomLinks struct {
	h    *reportsHandler
	live map[string]bool    // room → live, once asked
	in   map[[2]string]bool // room and session → the session is in it
}

func (l *roomLinks) link(ctx context.Context, roomID, sessionID string) *roomLink {
	link := &roomLink{ID: roomID, SessionID: sessionID}
	rt := l.h.rt
	if live, asked := l.live[roomID]; rt == nil || asked && !live {
		return link
	}
	key := [2]string{roomID, sessionID}
	in, asked := l.in[key]
	if !asked {
		// An empty session id asks whether the room is live.
		_, err := rt.Session(ctx, roomID, sessionID)
		switch {
		case err == nil:
			in = true
		case errors.Is(err, ErrSessionNotFound):
		default:
			if !errors.Is(err, ErrRoomNotFound) {
				l.h.log.WarnContext(ctx, "admin: reports: ask the runtime for a room's session", append([]any{"roomId", roomID}, errAttrs(err)...)...)
			}
			l.live[roomID] = false
			return link
		}
		l.live[roomID], l.in[key] = true, in
	}
	link.Live, link.InRoom = true, sessionID != "" && in
	return link
}

// evidenceView is raw as category c reads it: {"kind": "text", "text"},
// {"kind": "row", "resource", "id", "readable", "label"} (readable when
// op may open the row, label when op may read it), or, for a category
// declaring none, {"kind": "json", "json"}.
func (h *reportsHandler) evidenceView(ctx context.Context, op Operator, c ReportCategory, raw string) map[string]any {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return nil
	}
	switch c.Evidence {
	case reports.EvidenceText:
		if s, ok := v.(string); ok {
			return map[string]any{"kind": "text", "text": s}
		}
	case reports.EvidenceRow:
		id := strings.TrimSuffix(fmt.Sprint(v), ".0")
		if f, ok := v.(float64); ok {
			id = fmt.Sprintf("%.0f", f)
		}
		out := map[string]any{"kind": "row", "resource": c.Resource, "id": id, "readable": h.rowReadable(ctx, op, c.Resource, id)}
		if l := h.rowLabel(ctx, op, c.Resource, id); l != "" {
			out["label"] = l
		}
		return out
	default:
		return map[string]any{"kind": "json", "json": v}
	}
	return nil
}

// rowLabel is the label of row id of resource key as op reads it: "" when
// op may not read the resource, its label columns are not op's to read,
// or the row is gone.
func (h *reportsHandler) rowLabel(ctx context.Context, op Operator, key, id string) string {
	labels, err := h.rowLabels(ctx, op, key, []string{id})
	if err != nil {
		h.log.WarnContext(ctx, "admin: reports: row label", "resource", key, "err", err)
	}
	return labels[id]
}

// rowReadable reports whether op may open row id of resource key: op
// may read the resource and the row is there within op's row scope. A
// failure is logged and reads as not readable.
func (h *reportsHandler) rowReadable(ctx context.Context, op Operator, key, id string) bool {
	res := h.as(op, key)
	if res == nil || !h.allowed(op, OpRead, key) || len(res.Table.PK) != 1 {
		return false
	}
	m, err := query.DecodeID(res.Table, id)
	if err != nil {
		return false
	}
	pk := res.Table.PK[0]
	q := h.db.NewSelect().TableExpr("?", bun.Ident(res.Table.Name)).Where("? = ?", bun.Ident(pk.Name), m[pk.Name])
	if res.Scoped(op) {
		if len(op.Rows) == 0 {
			return false
		}
		q = q.Where("? IN (?)", bun.Ident(res.ScopeColumn().Name), bun.List(op.Rows))
	}
	ok, err := q.Exists(ctx)
	if err != nil {
		h.log.WarnContext(ctx, "admin: reports: evidence row", "resource", key, "err", err)
	}
	return ok
}

// rowLabels are the labels of rows ids of resource key as op reads them,
// by id (rows without one left out).
func (h *reportsHandler) rowLabels(ctx context.Context, op Operator, key string, ids []string) (map[string]string, error) {
	out := map[string]string{}
	res := h.as(op, key)
	if res == nil || !h.allowed(op, OpRead, key) || len(res.Labels) == 0 || len(res.Table.PK) != 1 || len(ids) == 0 {
		return out, nil
	}
	pk := res.Table.PK[0]
	var keys []any
	for _, id := range ids {
		// Typed by the key column, so the IN list uses its index; an id
		// that cannot be such a key has no label.
		if m, err := query.DecodeID(res.Table, id); err == nil {
			keys = append(keys, m[pk.Name])
		}
	}
	if len(keys) == 0 {
		return out, nil
	}
	expr, args := query.LabelExpr(bun.Ident(res.Table.Name), res.Labels)
	var found []struct {
		Key   string         `bun:"k"`
		Label sql.NullString `bun:"l"`
	}
	q := h.db.NewSelect().TableExpr("?", bun.Ident(res.Table.Name)).
		ColumnExpr("? AS k", sqldialect.AsText(bun.Ident(pk.Name))).ColumnExpr(expr+" AS l", args...).
		Where("? IN (?)", bun.Ident(pk.Name), bun.List(keys))
	if res.Scoped(op) {
		// A row op's row scope leaves out has no label for op: it is
		// not there for them.
		if len(op.Rows) == 0 {
			return out, nil
		}
		q = q.Where("? IN (?)", bun.Ident(res.ScopeColumn().Name), bun.List(op.Rows))
	}
	if err := q.Scan(ctx, &found); err != nil {
		return out, err
	}
	for _, f := range found {
		if f.Label.Valid && f.Label.String != "" {
			out[f.Key] = f.Label.String
		}
	}
	return out, nil
}

// topReported is how many players the open-reports widget names.
const topReported = 5

// openReportStats is the dashboard's open-reports widget: the count, the
// oldest's age in hours, and the most reported players, each linked to
// its page of the UI.
func (h *reportsHandler) openReportStats(ctx context.Context, op Operator) ([]Stat, error) {
	var sum reports.Summary
	err := h.bounded(ctx, op, func(ctx context.Context, db bun.IDB) (err error) {
		sum, err = h.store.Summarize(ctx, db, topReported)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := []Stat{{Label: "Open reports", Value: sum.Open, Link: "/reports"}}
	if sum.Oldest != nil {
		out = append(out, Stat{Label: "Oldest open, hours ago", Value: int64(h.now().Sub(*sum.Oldest).Hours()), Link: "/reports"})
	}
	ids := make([]string, len(sum.Top))
	for i, t := range sum.Top {
		ids[i] = t.PlayerID
	}
	labels, err := h.rowLabels(ctx, op, "users", ids)
	if err != nil {
		return nil, err
	}
	for _, t := range sum.Top {
		label := labels[t.PlayerID]
		if label == "" {
			label = t.PlayerID
		}
		out = append(out, Stat{Label: label, Value: t.Count, Link: "/users/" + url.PathEscape(t.PlayerID)})
	}
	return out, nil
}

// maxResolutionEntries bounds the report.resolve entries one answer reads
// back for its resolved reports' details.
const maxResolutionEntries = 500

// resolutions are the details of the resolved reports among rows, by
// report id, read back from their report.resolve audit entries (the
// reports table keeps only the outcome, who and when): a ban's end
// ("until", or "permanent") for every reader; the operator's note (the
// warning itself for a warning) and the ban's reason for an admin and for
// the operator who resolved it, as a mod reads no other operator's words.
// A failure is logged and the details left out: they are a convenience.
func (h *reportsHandler) resolutions(ctx context.Context, op Operator, rows []reports.Row) map[int64]map[string]any {
	out := map[int64]map[string]any{}
	var players []string
	by := map[int64]string{}
	for _, r := range rows {
		if r.Status == reports.Resolved && r.Outcome != "" && r.Outcome != "erase" {
			by[r.ID] = r.ResolvedBy
			if !slices.Contains(players, r.PlayerID) {
				players = append(players, r.PlayerID)
			}
		}
	}
	if len(players) == 0 || h.auditTable == "" {
		return out
	}
	var entries []audit.Entry
	err := h.db.NewSelect().Model(&entries).ModelTableExpr("? AS aa", bun.Ident(h.auditTable)).
		Where("resource = ? AND target_id IN (?) AND action = ?", "users", bun.List(players), "report.resolve").
		OrderExpr("id DESC").Limit(maxResolutionEntries).Scan(ctx)
	if err != nil {
		h.log.WarnContext(ctx, "admin: reports: read resolutions", "err", err)
		return out
	}
	for _, e := range entries {
		ids, _ := e.Payload["reports"].([]any)
		d := map[string]any{}
		words := op.Role == RoleAdmin || e.OperatorID == op.UserID
		if m, ok := e.Payload["moderation"].(map[string]any); ok && m["action"] == "user.ban" {
			if u, ok := m["until"].(string); ok && u != "" {
				d["until"] = u
			} else {
				d["permanent"] = true
			}
			if reason, ok := m["reason"].(string); ok && reason != "" && words {
				d["reason"] = reason
			}
		}
		if note, ok := e.Payload["note"].(string); ok && note != "" && words {
			d["note"] = note
		}
		for _, raw := range ids {
			id, ok := raw.(float64)
			if !ok {
				continue
			}
			rid := int64(id)
			if _, mine := by[rid]; !mine || out[rid] != nil {
				continue
			}
			out[rid] = d
		}
	}
	return out
}
