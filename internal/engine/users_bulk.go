package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/users"
)

// POST /admin-api/users/_bulk/{op} {ids, reason?, until?}: ban, unban or
// revoke the sessions of several users at once, as the users list's
// selection offers. Each user is moderated on its own, exactly as
// POST /users/{id}/{op} would (its own transaction and audit row, its
// live connections closed), so one refusal stops no other. The answer
// says what happened to each: "banned", "unbanned", "revoked", or why not
// ("already_banned", "not_banned", "self", "not_found", "forbidden"),
// with the counts of each, so the UI can say "7 banned, 1 already
// banned".
func (h userHandler) handleUserBulk(w http.ResponseWriter, r *http.Request, op Operator) error {
	if !h.ours(r) {
		return errNotFoundRoute
	}
	u := h.users
	action := r.PathValue("op")
	done := map[string]string{"ban": "banned", "unban": "unbanned", "revoke-sessions": "revoked"}[action]
	if done == "" {
		return errNotFoundRoute
	}
	if err := h.gate(op, OpUpdate, u.res.Key); err != nil {
		return err
	}
	if err := u.moderationSupported(action); err != nil {
		return err
	}
	// Numbers decode as json.Number: a 64-bit id (a Steam id past 2^53)
	// as a float64 would name another user.
	var body struct {
		IDs []any `json:"ids"`
		banBody
	}
	if err := readJSON(r, &body, strict|numbers); err != nil {
		return err
	}
	switch {
	case len(body.IDs) == 0:
		return errorf(http.StatusBadRequest, "missing_field", "ids is required").WithParams("field", "ids")
	case len(body.IDs) > maxActionIDs:
		return errorf(http.StatusBadRequest, "invalid_value", "at most %d ids at once", maxActionIDs).WithParams("field", "ids", "max", maxActionIDs)
	case action != "ban" && (body.Reason != "" || len(body.Until) > 0):
		return errorf(http.StatusBadRequest, "unknown_field", "reason and until are for ban only").WithParams("fields", []string{"reason", "until"})
	}
	until, err := u.checkBan(body.banBody)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(body.IDs))
	for i, raw := range body.IDs {
		var s string
		switch v := raw.(type) {
		case string:
			s = v
		case json.Number:
			// Whole numbers only: 1e3 or 1.5 name no row.
			if _, err := strconv.ParseInt(v.String(), 10, 64); err == nil {
				s = v.String()
			}
		}
		id, err := u.userID(s)
		var ae *APIError
		switch {
		case s == "":
			return errorf(http.StatusBadRequest, "invalid_value", "ids[%d] is not an id", i)
		case errors.As(err, &ae):
			return errorf(ae.Status, ae.Code, "ids[%d]: %s", i, ae.Message)
		case err != nil:
			return err
		}
		ids = append(ids, id)
	}

	ctx := r.Context()
	results := make(map[string]string, len(ids))
	counts := map[string]int{}
	closed, partial := 0, false
	for _, id := range ids {
		if _, seen := results[id]; seen {
			continue
		}
		outcome := done
		acc, err := u.users.AccountByID(ctx, u.db, id)
		if errors.Is(err, users.ErrMalformedBan) && acc != nil {
			// A ban column the panel cannot read: banning or unbanning
			// writes it anew.
			err, acc.Ban = nil, &users.BanInfo{Until: &time.Time{}}
		}
		if err == nil {
			// A user op's row scope leaves out is not there for op: its
			// ban is not op's to learn.
			in, serr := u.users.InScope(ctx, u.db, op, id)
			if serr != nil {
				return serr
			}
			if !in {
				err = ErrNotFound
			}
		}
		switch {
		case errors.Is(err, ErrNotFound):
			outcome = "not_found"
		case err != nil:
			return err
		case acc.ID == op.UserID:
			outcome = "self"
		case action == "ban" && acc.Ban != nil && acc.Ban.Active(u.now()):
			outcome = "already_banned"
		case action == "unban" && acc.Ban == nil:
			outcome = "not_banned"
		default:
			n, part, err := h.sanctions.Apply(ctx, op, acc.ID, moderation.Action{Name: action, Reason: body.Reason, Until: until, Meta: h.meta(r)})
			var ae *APIError
			switch {
			case errors.As(err, &ae) && ae.Status == http.StatusForbidden:
				outcome = "forbidden"
			case errors.Is(err, ErrNotFound):
				outcome = "not_found" // deleted meanwhile
			case errors.As(err, &ae) && ae.Status < 500:
				outcome = ae.Code // this user's own refusal stops no other
			case err != nil:
				return fmt.Errorf("admin: bulk %s of %s: %w", action, acc.ID, err)
			}
			closed += n
			partial = partial || part
		}
		results[id] = outcome
		counts[outcome]++
	}
	out := map[string]any{"results": results, "counts": counts}
	if action != "unban" {
		out["sessionsClosed"] = closed
	}
	if partial {
		out["partial"] = true
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// moderationSupported is 501 when the users table lacks what action needs:
// a ban column (and the token version a ban bumps) to ban and unban, a
// token version to revoke sessions.
func (u *usersResource) moderationSupported(action string) error {
	t := u.users
	switch {
	case action == "revoke-sessions" && !t.HasTokenVersion:
		return errorf(http.StatusNotImplemented, "unsupported", "the users table needs a token_version column to revoke sessions")
	case action != "revoke-sessions" && (!t.HasBan || !t.HasTokenVersion):
		return errorf(http.StatusNotImplemented, "unsupported", "the users table needs ban and token_version columns for moderation")
	}
	return nil
}
