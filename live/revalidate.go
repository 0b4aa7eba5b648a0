package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gameadmin/admin/internal/panicerr"
	"github.com/gameadmin/admin/rooms"
)

// defaultRevalidateEvery is how often a hub with Options.UserStates
// re-checks its clients unless RevalidateEvery says otherwise.
const defaultRevalidateEvery = 30 * time.Second

// revalidateBatch is how many users one UserStates call is asked about.
const revalidateBatch = 500

// joinState asks UserStates about the user of a join: the token version
// the client is recorded with, or errUnauthenticated for a user that is
// gone, errBanned for a banned one.
func (h *Hub) joinState(ctx context.Context, userID string) (int64, error) {
	states, err := h.opts.UserStates(ctx, []string{userID})
	if err != nil {
		return 0, err
	}
	st, ok := states[userID]
	switch {
	case !ok:
		return 0, errUnauthenticated
	case st.Banned:
		return 0, errBanned
	}
	return st.TokenVersion, nil
}

// Revalidate re-checks every authenticated client of the hub against
// Options.UserStates, and kicks those whose user is banned or gone, or
// whose user's token version moved past the one it joined with (its
// sessions were revoked, its password changed). It returns how many it
// closed. A hub runs it every RevalidateEvery; redisstore's Cluster runs
// it too when its Redis connection comes back, so a ban broadcast that
// could not reach this node during an outage still takes effect here.
// Without UserStates it does nothing.
func (h *Hub) Revalidate(ctx context.Context) (int, error) {
	if h.opts.UserStates == nil {
		return 0, nil
	}
	h.mu.Lock()
	ids := make([]string, 0, len(h.users))
	for id := range h.users {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	slices.Sort(ids)
	closed := 0
	for chunk := range slices.Chunk(ids, revalidateBatch) {
		states, err := h.opts.UserStates(ctx, chunk)
		if err != nil {
			return closed, fmt.Errorf("live: revalidate: %w", err)
		}
		for _, id := range chunk {
			st, ok := states[id]
			n, err := h.kickWhere(ctx, id, func(c *Client) (rooms.LeaveReason, string, bool) {
				switch {
				case !ok:
					return rooms.LeaveRevoked, "account removed", true
				case st.Banned:
					return rooms.LeaveBanned, "banned", true
				case c.version < st.TokenVersion:
					return rooms.LeaveRevoked, "sessions revoked", true
				}
				return "", "", false
			})
			closed += n
			if err != nil {
				return closed, err
			}
		}
	}
	return closed, nil
}

// kickWhere kicks userID's clients for which kick says so, with the
// reason and message it gives (DisconnectUser's for all, Revalidate's per
// client), and returns how many. It waits for each room until ctx ends,
// but a room that gets to the closing later still does it: the sessions
// have ended already. A room whose game code panics in OnLeave still
// closes every connection; the panic is returned with the count
// (rooms.ErrRoomFailed), after the other rooms.
func (h *Hub) kickWhere(ctx context.Context, userID string, kick func(*Client) (why rooms.LeaveReason, message string, ok bool)) (int, error) {
	h.mu.Lock()
	var rs []*Room
	for c := range h.users[userID] {
		if !slices.Contains(rs, c.room) {
			rs = append(rs, c.room)
		}
	}
	h.mu.Unlock()
	total := 0
	var failed []error
	for _, r := range rs {
		n := 0
		err := r.serve(ctx, context.WithoutCancel(ctx), func() {
			for c := range r.clients {
				if c.userID != userID {
					continue
				}
				if why, msg, ok := kick(c); ok {
					r.kick(c, why, msg)
					n++
				}
			}
		})
		var cp *callbackPanic
		switch {
		case errors.As(err, &cp):
			failed = append(failed, err)
		case err != nil && !errors.Is(err, errRoomGone):
			return total, fmt.Errorf("live: close the sessions of user %q: %w", userID, errors.Join(append(failed, err)...))
		}
		total += n
	}
	if len(failed) > 0 {
		return total, fmt.Errorf("live: close the sessions of user %q: %w", userID, errors.Join(failed...))
	}
	return total, nil
}

// revalidateLoop runs Revalidate every RevalidateEvery until Close.
func (h *Hub) revalidateLoop() {
	defer h.wg.Done()
	t := time.NewTicker(h.opts.RevalidateEvery)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.RevalidateEvery)
		if n, err := h.Revalidate(ctx); err != nil {
			h.log.Error("live: revalidating clients", append(panicerr.Attrs(err), "closed", n)...)
		} else if n > 0 {
			h.log.Info("live: closed clients whose sessions ended elsewhere", "closed", n)
		}
		cancel()
	}
}
