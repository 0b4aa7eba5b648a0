package engine

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"log/slog"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/clientip"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/reports"
	"github.com/gameadmin/admin/internal/users"
	"github.com/gameadmin/admin/rooms"
	"github.com/uptrace/bun"
)

// The reports endpoints. Reports act on players, so they need the users
// resource: the queue and a player's reports need list on users, claiming
// and resolving need update on users (a mod, users in their scopes).
// Every mutation is audited: a claim as report.claim, a resolution as
// one report.resolve entry naming the reports it closed, the outcome and
// what the moderation did (a ban's or kick's own user.ban or
// user.revoke_sessions entry is written by the moderation path, in the
// same transaction).

// maxReportOffset bounds the queue's paging.
const maxReportOffset = 10000

// maxNoteLen bounds a resolution's note, in characters.
const maxNoteLen = 2000

// maxPlayerReports is how many reports of each side a player's page shows.
const maxPlayerReports = 100

// reportsHandler answers the reports endpoints (routes.go builds it):
// the reports store, the moderation a resolution applies, the players'
// labels as the operator reads them, and the bounds of the queue's
// reads.
type reportsHandler struct {
	store      *reports.Store
	db         *bun.DB
	roles      *users.RoleTable      // whom op may moderate
	sanctions  *moderation.Sanctions // a resolution's kick or ban
	audit      *audit.Log
	queries    *queryRunner      // the queue's reads: a slot and QueryTimeout
	rt         rooms.Runtime     // Options.Rooms (bound), nil: no room links
	notes      string            // the user notes table a warning goes to; "" without the built-in userNotes
	auditTable string            // the audit log's table, where a resolution's details are read back
	ips        clientip.Resolver // the ip of an entry, behind the trusted proxies
	log        *slog.Logger
	now        func() time.Time

	gate    func(op Operator, o Op, key string) error // may op do o on key, saying why not
	allowed func(op Operator, o Op, key string) bool  // may op do o on key
	as      func(op Operator, key string) *resource   // resource key as op's role sees it (resourceAs)
	userID  func(raw string) (string, error)          // raw as an id of the users table
	// A ban's body and whether the users table can take a moderation,
	// as the users endpoints check them.
	checkBan            func(banBody) (*time.Time, error)
	moderationSupported func(action string) error
}

// reportsOn answers 404 when the game declares no report categories.
func (h *reportsHandler) reportsOn() error {
	if !h.store.On() {
		return errorf(http.StatusNotFound, "reports_off", "reports are off: the game declares no report categories")
	}
	return nil
}

// GET /admin-api/_reports: the queue, grouped by reported player; with
// ?player=<id>, that player's reports received and filed.
func (h *reportsHandler) handleReports(w http.ResponseWriter, r *http.Request, op Operator) error {
	if err := h.reportsOn(); err != nil {
		return err
	}
	if err := h.gate(op, OpList, "users"); err != nil {
		return err
	}
	q := r.URL.Query()
	for k := range q {
		if !slices.Contains([]string{"player", "category", "status", "room", "limit", "offset"}, k) {
			return fieldError(http.StatusBadRequest, "invalid_filter", k, "unknown parameter %q: use player, category, status, room, limit or offset", k)
		}
	}
	if p := q.Get("player"); p != "" {
		return h.playerReports(w, r, op, p)
	}
	f := reports.Filter{Status: q.Get("status"), Category: q.Get("category"), RoomID: q.Get("room"), Narrow: h.scopeReports(op)}
	if f.Status != "" && f.Status != reports.Open && f.Status != reports.Resolved {
		return fieldError(http.StatusBadRequest, "invalid_value", "status", "status must be open or resolved").WithParams("field", "status", "accepted", []string{"open", "resolved"})
	}
	if _, ok := h.store.Category(f.Category); f.Category != "" && !ok {
		return fieldError(http.StatusBadRequest, "invalid_value", "category", "unknown category %q", f.Category)
	}
	if len(f.RoomID) > 128 {
		return fieldError(http.StatusBadRequest, "invalid_value", "room", "room is longer than 128 bytes")
	}
	var err error
	if f.Limit, err = intParam(q.Get("limit"), reports.DefaultPage, 1, reports.MaxPage, "limit"); err != nil {
		return err
	}
	if f.Offset, err = intParam(q.Get("offset"), 0, 0, maxReportOffset, "offset"); err != nil {
		return err
	}
	ctx := r.Context()
	var groups []reports.Group
	var more bool
	err = h.bounded(ctx, op, func(ctx context.Context, db bun.IDB) (err error) {
		groups, more, err = h.store.Queue(ctx, db, f)
		return err
	})
	if err != nil {
		return err
	}
	var ids []string
	var rows []reports.Row
	for _, g := range groups {
		ids = append(ids, g.PlayerID)
		ids = append(ids, g.Reporters...)
		if g.Claim != nil {
			ids = append(ids, g.Claim.ClaimedBy)
		}
		for _, rr := range g.Latest {
			ids = append(ids, rr.ResolvedBy)
		}
		rows = append(rows, g.Latest...)
	}
	labels, err := h.rowLabels(ctx, op, "users", ids)
	if err != nil {
		return err
	}
	views := h.reportViews(ctx, op, rows)
	details := h.resolutions(ctx, op, rows)
	out := make([]map[string]any, len(groups))
	for i, g := range groups {
		cats := []map[string]any{}
		for _, c := range h.store.Categories() {
			if n := g.Categories[c.Key]; n > 0 {
				cats = append(cats, map[string]any{"key": c.Key, "label": c.Label, "count": n})
			}
		}
		reporters := make([]map[string]any, len(g.Reporters))
		for j, id := range g.Reporters {
			reporters[j] = userRef(id, labels)
		}
		latest := views[:len(g.Latest)]
		views = views[len(g.Latest):]
		out[i] = map[string]any{
			"player": userRef(g.PlayerID, labels), "count": g.Count, "last24h": g.Recent, "filings": g.Filings,
			"firstAt": g.FirstAt, "lastAt": g.LastAt, "categories": cats, "reporters": reporters,
			"claim": claimView(g.Claim, labels), "latest": withLabels(latest, labels, details),
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"categories": h.store.Categories(), "players": out, "hasMore": more, "limit": f.Limit, "offset": f.Offset})
	return nil
}

// playerReports answers a player's page: the reports about them and
// those they filed, newest first, and who holds their claim.
func (h *reportsHandler) playerReports(w http.ResponseWriter, r *http.Request, op Operator, raw string) error {
	ctx := r.Context()
	playerID, err := h.userID(raw)
	if err != nil {
		return fieldError(http.StatusBadRequest, "invalid_value", "player", "player is not a user id")
	}
	var received, filed []reports.Row
	var holder *reports.Claim
	err = h.bounded(ctx, op, func(ctx context.Context, db bun.IDB) (err error) {
		// A player op's row scope leaves out has no page for op: 404, as
		// a player who is not there.
		if err := h.roles.Users.OutOfScope(ctx, db, op, playerID); err != nil {
			return err
		}
		if received, filed, err = h.store.ForPlayer(ctx, db, playerID, maxPlayerReports, h.scopeReports(op)); err != nil {
			return err
		}
		holder, err = h.store.Holder(ctx, db, playerID)
		return err
	})
	if err != nil {
		return err
	}
	ids := []string{playerID}
	if holder != nil {
		ids = append(ids, holder.ClaimedBy)
	}
	for _, rr := range slices.Concat(received, filed) {
		ids = append(ids, rr.PlayerID, rr.ReporterID, rr.ResolvedBy)
	}
	labels, err := h.rowLabels(ctx, op, "users", ids)
	if err != nil {
		return err
	}
	details := h.resolutions(ctx, op, slices.Concat(received, filed))
	writeJSON(w, http.StatusOK, map[string]any{
		"player":   userRef(playerID, labels),
		"received": withLabels(h.reportViews(ctx, op, received), labels, details),
		"filed":    withLabels(h.reportViews(ctx, op, filed), labels, details),
		"claim":    claimView(holder, labels),
	})
	return nil
}

// scopeReports narrows a read of the reports table to the reports op's
// row scope lets op see: about a player in it, filed by a player in it or
// by none (the game's own); nil unless op is narrowed to some users.
func (h *reportsHandler) scopeReports(op Operator) func(q *bun.SelectQuery) *bun.SelectQuery {
	u := h.roles.Users
	if !u.RowScoped(op) {
		return nil
	}
	return func(q *bun.SelectQuery) *bun.SelectQuery {
		q = u.WhereInScope(q, op, "player_id")
		expr, args := u.ScopeCond(op, "reporter_id")
		return q.Where("(reporter_id IS NULL OR "+expr+")", args...)
	}
}

// bounded runs fn, reads of the reports tables through db, as a list's
// search or exact count runs: in one of op's QueryConcurrency slots (429
// past them) and under QueryTimeout (503 query_timeout). The queue groups
// every open report by player: a flood of reports makes it a scan.
func (h *reportsHandler) bounded(ctx context.Context, op Operator, fn func(context.Context, bun.IDB) error) error {
	release, err := h.queries.holdQuery(op)
	if err != nil {
		return err
	}
	defer release()
	return h.queries.limited(ctx, h.queries.queryDeadline(), fn)
}

// userRef is a user as the reports answers name them: id and, when op
// may read one, label.
func userRef(id string, labels map[string]string) map[string]any {
	out := map[string]any{"id": id}
	if l := labels[id]; l != "" {
		out["label"] = l
	}
	return out
}

// claimView is a claim as the answers say it: who, since when (the
// stored claim's time), and, once it expired, stale.
func claimView(c *reports.Claim, labels map[string]string) any {
	if c == nil {
		return nil
	}
	out := map[string]any{"by": userRef(c.ClaimedBy, labels), "at": c.ClaimedAt.UTC()}
	if c.Stale {
		out["stale"] = true
	}
	return out
}

// withLabels names each report's player, reporter and resolver, and adds
// a resolved report's details (resolutions') as "resolution".
func withLabels(vs []reportView, labels map[string]string, details map[int64]map[string]any) []map[string]any {
	out := make([]map[string]any, len(vs))
	for i, v := range vs {
		m := map[string]any{
			"id": v.ID, "category": v.Category, "categoryLabel": v.CategoryLabel, "text": v.Text, "count": v.Count,
			"status": v.Status, "createdAt": v.CreatedAt.UTC(), "lastAt": v.LastAt.UTC(),
			"player": userRef(v.PlayerID, labels),
		}
		if v.ReporterID != "" {
			m["reporter"] = userRef(v.ReporterID, labels)
		}
		if v.Evidence != nil {
			m["evidence"] = v.Evidence
		}
		if v.Room != nil {
			m["room"] = v.Room
		}
		if v.ResolvedAt != nil {
			m["resolvedAt"], m["resolvedBy"], m["outcome"] = v.ResolvedAt.UTC(), userRef(v.ResolvedBy, labels), v.Outcome
			if d := details[v.ID]; d != nil {
				m["resolution"] = d
			}
		}
		out[i] = m
	}
	return out
}

// intParam reads a bounded integer query parameter.
func intParam(raw string, def, lo, hi int, name string) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < lo || n > hi {
		return 0, fieldError(http.StatusBadRequest, "invalid_value", name, "%s must be a whole number from %d to %d", name, lo, hi).WithParams("field", name, "min", lo, "max", hi)
	}
	return n, nil
}

// reportTarget checks the operator may work reports about the player
// the path names, and reads the player: working a player's reports
// follows the rule of moderating them (a mod works no report about an
// admin or a fellow mod, nobody about their own account).
func (h *reportsHandler) reportTarget(r *http.Request, op Operator) (string, error) {
	if err := h.gate(op, OpUpdate, "users"); err != nil {
		return "", err
	}
	playerID, err := h.userID(r.PathValue("playerId"))
	if err != nil {
		return "", err
	}
	if playerID == op.UserID {
		return "", errorf(http.StatusBadRequest, "self_moderation", "you cannot work reports about your own account").WithParams("reason", "reports")
	}
	if _, err := h.roles.CanWriteUser(r.Context(), h.db, op, playerID); err != nil {
		return "", err
	}
	return playerID, nil
}

// reportError answers the store's refusals.
func (h *reportsHandler) reportError(ctx context.Context, op Operator, err error) error {
	var held *reports.ClaimedError
	switch {
	case errors.As(err, &held):
		labels, _ := h.rowLabels(ctx, op, "users", []string{held.Claim.ClaimedBy})
		who, by := labels[held.Claim.ClaimedBy], labels[held.Claim.ClaimedBy]
		if who == "" {
			who = "another moderator"
		}
		return errorf(http.StatusConflict, "claimed", "%s has been working on this player's reports since %s UTC", who, held.Claim.ClaimedAt.Format("2006-01-02 15:04")).
			WithParams("by", by, "since", held.Claim.ClaimedAt.UTC().Format(time.RFC3339))
	case errors.Is(err, reports.ErrClaimed):
		return errorf(http.StatusConflict, "claimed", "another moderator took this player's reports meanwhile").WithParams("by", "")
	case errors.Is(err, reports.ErrNotClaimed):
		return errorf(http.StatusConflict, "not_claimed", "no one holds this player's reports (released or resolved meanwhile?)")
	case errors.Is(err, reports.ErrNoOpenReports):
		return errorf(http.StatusConflict, "no_open_reports", "this player has no open reports (resolved meanwhile?)")
	}
	return err
}

// POST /admin-api/_reports/{playerId}/claim: the operator takes the
// player's open reports, so two moderators do not work the same player.
// Of two claims at once one wins (200) and the other answers 409 claimed
// naming the holder; an admin's claim with {"takeover": true} takes it.
func (h *reportsHandler) handleReportClaim(w http.ResponseWriter, r *http.Request, op Operator) error {
	if err := h.reportsOn(); err != nil {
		return err
	}
	playerID, err := h.reportTarget(r, op)
	if err != nil {
		return err
	}
	var body struct {
		Takeover bool `json:"takeover"`
	}
	if err := decodeOptional(r, &body); err != nil {
		return err
	}
	if body.Takeover && op.Role != RoleAdmin {
		return errorf(http.StatusForbidden, "forbidden", "only an admin may take over another moderator's claim").WithParams("reason", "admin_only")
	}
	ctx := r.Context()
	meta := requestMeta(r, h.ips)
	c, err := h.store.Claim(ctx, playerID, op.UserID, body.Takeover, func(ctx context.Context, tx bun.Tx, prev string, expired bool) error {
		p := audit.Payload(meta)
		if prev != "" {
			p["takenFrom"] = prev
		}
		if expired {
			p["expired"] = true
		}
		return h.audit.RecordTx(ctx, tx, audit.Entry{OperatorID: op.UserID, Action: "report.claim", Resource: "users", TargetID: playerID, Payload: p})
	})
	if err != nil {
		return h.reportError(ctx, op, err)
	}
	labels, _ := h.rowLabels(ctx, op, "users", []string{op.UserID, c.TakenFrom})
	out := map[string]any{"claim": claimView(&c.Claim, labels)}
	if c.TakenFrom != "" {
		out["takenFrom"] = userRef(c.TakenFrom, labels)
		out["expired"] = c.Expired
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// POST /admin-api/_reports/{playerId}/release: the holder gives up the
// player's claim, or an admin ends whoever's; audited as report.release
// (releasedFrom naming the holder when it was not the operator's own).
// Another mod's claim answers 409 claimed, no claim 409 not_claimed.
func (h *reportsHandler) handleReportRelease(w http.ResponseWriter, r *http.Request, op Operator) error {
	if err := h.reportsOn(); err != nil {
		return err
	}
	playerID, err := h.reportTarget(r, op)
	if err != nil {
		return err
	}
	if err := decodeOptional(r, &struct{}{}); err != nil {
		return err
	}
	ctx := r.Context()
	meta := requestMeta(r, h.ips)
	held, err := h.store.Release(ctx, playerID, op.UserID, op.Role == RoleAdmin, func(ctx context.Context, tx bun.Tx, held reports.Claim) error {
		p := audit.Payload(meta, "claimedAt", held.ClaimedAt)
		if held.ClaimedBy != op.UserID {
			p["releasedFrom"] = held.ClaimedBy
		}
		return h.audit.RecordTx(ctx, tx, audit.Entry{OperatorID: op.UserID, Action: "report.release", Resource: "users", TargetID: playerID, Payload: p})
	})
	if err != nil {
		return h.reportError(ctx, op, err)
	}
	labels, _ := h.rowLabels(ctx, op, "users", []string{held.ClaimedBy})
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "releasedFrom": userRef(held.ClaimedBy, labels)})
	return nil
}

// resolveBody is a resolution: the outcome, an operator's note (the
// warning itself for warn), and for a ban its end and reason.
type resolveBody struct {
	Outcome string `json:"outcome"`
	Note    string `json:"note"`
	Ban     *struct {
		banBody
		Preset string `json:"preset"`
	} `json:"ban"`
}

// POST /admin-api/_reports/{playerId}/resolve: one step that closes
// every open report about the player with an outcome: dismiss; warn (a
// note on the player, in the user notes table); kick (every session of
// the player ends and their live connections close); ban (with until or
// a preset, and a reason). Kick and ban run through the moderation path
// (the same as POST /users/{id}/ban and /revoke-sessions, with the same
// hierarchy check and audit entry); the reports close, and one
// report.resolve entry naming them is written, in that transaction. A
// claim held by another mod refuses it (409); an admin may resolve it.
func (h *reportsHandler) handleReportResolve(w http.ResponseWriter, r *http.Request, op Operator) error {
	if err := h.reportsOn(); err != nil {
		return err
	}
	playerID, err := h.reportTarget(r, op)
	if err != nil {
		return err
	}
	var body resolveBody
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if utf8.RuneCountInString(body.Note) > maxNoteLen {
		return fieldError(http.StatusBadRequest, "invalid_value", "note", "note is longer than %d characters", maxNoteLen).WithParams("field", "note", "max", maxNoteLen)
	}
	if body.Ban != nil && body.Outcome != "ban" {
		return fieldError(http.StatusBadRequest, "invalid_value", "ban", "ban is for the ban outcome only")
	}
	ctx := r.Context()
	meta := requestMeta(r, h.ips)
	var ids []int64
	// closeReports runs in the outcome's transaction: the claim check,
	// the reports closed, the one entry linking them to what was done.
	closeReports := func(ctx context.Context, tx bun.Tx, done map[string]any) error {
		held, err := h.store.Holder(ctx, tx, playerID)
		if err != nil {
			return err
		}
		// An expired claim no longer keeps another moderator out.
		if held != nil && held.ClaimedBy != op.UserID && op.Role != RoleAdmin && !held.Stale {
			return &reports.ClaimedError{Claim: *held}
		}
		if ids, err = h.store.Close(ctx, tx, playerID, op.UserID, body.Outcome); err != nil {
			return err
		}
		p := audit.Payload(meta, "reports", ids, "outcome", body.Outcome)
		if body.Note != "" {
			p["note"] = body.Note
		}
		if done != nil {
			p["moderation"] = done
		}
		return h.audit.RecordTx(ctx, tx, audit.Entry{OperatorID: op.UserID, Action: "report.resolve", Resource: "users", TargetID: playerID, Payload: p})
	}
	out := map[string]any{"ok": true, "outcome": body.Outcome}
	switch body.Outcome {
	case "dismiss":
		err = h.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			// The player's role is read again where the reports close: a
			// promotion since reportTarget's check refuses it too, as the
			// other outcomes' own checks do.
			if _, err := h.roles.CanWriteUser(ctx, tx, op, playerID); err != nil {
				return err
			}
			return closeReports(ctx, tx, nil)
		})
	case "warn":
		if strings.TrimSpace(body.Note) == "" {
			return fieldError(http.StatusBadRequest, "required", "note", "a warning needs its note")
		}
		if h.notes == "" {
			return errorf(http.StatusNotImplemented, "unsupported", "warnings are notes on the player: the panel needs the built-in userNotes table")
		}
		err = h.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := h.roles.CanWriteUser(ctx, tx, op, playerID); err != nil {
				return err
			}
			note := &UserNote{UserID: playerID, AuthorID: op.UserID, Body: body.Note, CreatedAt: time.Now().UTC()}
			if _, err := tx.NewInsert().Model(note).ModelTableExpr("?", bun.Ident(h.notes)).Returning("id").Exec(ctx); err != nil {
				return err
			}
			out["noteId"] = note.ID
			return closeReports(ctx, tx, map[string]any{"noteId": note.ID})
		})
	case "kick", "ban":
		// A kick ends the player's sessions; the game hears it as a kick.
		act := moderation.Action{Name: moderation.RevokeSessions, Leave: rooms.LeaveKicked, Meta: meta}
		if body.Outcome == "ban" {
			act.Name, act.Leave = moderation.Ban, rooms.LeaveBanned
			if body.Ban == nil {
				return fieldError(http.StatusBadRequest, "required", "ban", "a ban needs ban: {until or preset, reason}")
			}
			if act.Until, err = h.resolveBan(body.Ban.banBody, body.Ban.Preset); err != nil {
				return err
			}
			act.Reason = body.Ban.Reason
		}
		if err := h.moderationSupported(act.Name); err != nil {
			return err
		}
		act.Within = func(ctx context.Context, tx bun.Tx, e audit.Entry) error {
			done := map[string]any{"action": e.Action}
			for _, k := range []string{"reason", "until", "sessionsClosed"} {
				if v, ok := e.Payload[k]; ok {
					done[k] = v
				}
			}
			return closeReports(ctx, tx, done)
		}
		var n int
		var partial bool
		if n, partial, err = h.sanctions.Apply(ctx, op, playerID, act); err == nil {
			out["sessionsClosed"] = n
			if partial {
				out["partial"] = true
			}
		}
	default:
		return fieldError(http.StatusBadRequest, "invalid_value", "outcome", "outcome must be dismiss, warn, kick or ban").WithParams("field", "outcome", "accepted", []string{"dismiss", "warn", "kick", "ban"})
	}
	if err != nil {
		return h.reportError(ctx, op, err)
	}
	out["reports"] = ids
	writeJSON(w, http.StatusOK, out)
	return nil
}

// resolveBan is a resolution's ban end: until (as a ban's body reads it)
// or a preset of the UI's, not both.
func (h *reportsHandler) resolveBan(b banBody, preset string) (*time.Time, error) {
	if preset == "" {
		return h.checkBan(b)
	}
	if len(b.Until) > 0 && string(b.Until) != "null" {
		return nil, fieldError(http.StatusBadRequest, "invalid_value", "ban.preset", "give until or preset, not both")
	}
	if err := checkReason(b.Reason); err != nil {
		return nil, err
	}
	d, ok := moderation.BanPresetLength(preset)
	if !ok {
		return nil, fieldError(http.StatusBadRequest, "invalid_value", "ban.preset", "preset must be 1h, 1d, 7d, 30d or permanent").WithParams("field", "preset", "accepted", []string{"1h", "1d", "7d", "30d", "permanent"})
	}
	if d == 0 {
		return nil, nil
	}
	t := h.now().UTC().Add(d)
	return &t, nil
}
