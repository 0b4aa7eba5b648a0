package live

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gameadmin/admin/rooms"
)

// Sessions returns every admitted session of an authenticated user, by user
// id, each user's sessions by join time. A cluster layer (such as the
// redisstore module) publishes it so other nodes can find a user's
// sessions; anonymous clients are not listed.
func (h *Hub) Sessions() map[string][]rooms.UserSession {
	h.mu.Lock()
	out := make(map[string][]rooms.UserSession, len(h.users))
	for userID, set := range h.users {
		s := make([]rooms.UserSession, 0, len(set))
		for c := range set {
			s = append(s, c.userSession())
		}
		out[userID] = s
	}
	h.mu.Unlock()
	for _, s := range out {
		slices.SortFunc(s, func(a, b rooms.UserSession) int {
			return cmp.Or(a.JoinedAt.Compare(b.JoinedAt), strings.Compare(a.SessionID, b.SessionID))
		})
	}
	return out
}

// NotifyChanges makes the hub signal ch, without ever blocking, whenever
// what List or Sessions return may have changed: a room created or gone, a
// client admitted or gone, a lock changed. Signals coalesce: give ch a
// buffer of 1 and re-read List and Sessions after each receive. A cluster
// layer uses it to publish changes promptly instead of polling.
func (h *Hub) NotifyChanges(ch chan<- struct{}) {
	h.notifyMu.Lock()
	defer h.notifyMu.Unlock()
	next := append(slices.Clone(*h.notify.Load()), ch)
	h.notify.Store(&next)
}

// changed signals the channels given to NotifyChanges.
func (h *Hub) changed() {
	for _, ch := range *h.notify.Load() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
