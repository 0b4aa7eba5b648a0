package admin

import "context"

// activeSessions counts a user's live sessions across every room.
func (a *Admin) activeSessions(ctx context.Context, userID string) (int, error) {
	s, err := a.opts.Rooms.UserSessions(ctx, userID)
	return len(s), err
}
