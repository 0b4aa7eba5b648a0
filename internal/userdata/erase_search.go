package userdata

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The erase's heavy part is the audit log's search for the entries that
// mention the user: a text search of every payload. It runs before the
// erase's transaction, which then holds its locks (on SQLite, the
// database's one write lock, which the game's writes wait for) only as
// long as the redaction takes: the search reads the log auditRange ids
// at a time, each range inside the panel's gate and followed by a pause
// as long as it took, so that an erase over a large log leaves the game
// its cores. The transaction reads again only the entries found and
// those written since.

// auditRange is how many ids of the audit log one statement of the
// search reads.
const auditRange = 10_000

// auditFound is what the search found: the ids of the entries that
// mention the user, among those up to top, searched for emails.
type auditFound struct {
	ids    []int64
	top    int64
	emails []string
}

// mentions narrows an audit query to the entries about or by s.userID
// and those whose payload holds one of s.emails, in any case.
func (s *eraseScope) mentions(d dialect.Name) func(q *bun.SelectQuery) *bun.SelectQuery {
	return func(q *bun.SelectQuery) *bun.SelectQuery {
		q = q.WhereOr("resource IN ('users', 'roles', 'auth') AND target_id = ?", s.userID).
			WhereOr(sqldialect.CastText(d, "operator_id")+" = ?", s.userID)
		for _, e := range s.emails {
			q = q.WhereOr("lower("+sqldialect.CastText(d, "payload")+") LIKE ?", likeText(e))
		}
		return q
	}
}

// searchAudit finds the entries that mention s's user, outside any
// transaction, in ranges of ids (see above).
func (a *Service) searchAudit(ctx context.Context, s *eraseScope) (*auditFound, error) {
	found := &auditFound{emails: s.emails}
	table := a.Table("admin_audit")
	if err := a.DB.NewSelect().TableExpr("?", table).ColumnExpr("coalesce(max(id), 0)").Scan(ctx, &found.top); err != nil {
		return nil, fmt.Errorf("admin: erase: read the audit log: %w", err)
	}
	mentions := s.mentions(a.DB.Dialect().Name())
	for lo := int64(0); lo < found.top; lo += auditRange {
		start := time.Now()
		in, leave, err := a.Gate.Enter(ctx, time.Time{})
		if err != nil {
			return nil, err
		}
		var ids []int64
		err = a.DB.NewSelect().TableExpr("?", table).Column("id").
			Where("id > ? AND id <= ?", lo, min(lo+auditRange, found.top)).WhereGroup(" AND ", mentions).
			Scan(in, &ids)
		leave()
		if err != nil {
			return nil, fmt.Errorf("admin: erase: read the audit log: %w", err)
		}
		found.ids = append(found.ids, ids...)
		if err := a.Gate.Pause(ctx, time.Since(start)); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// covers reports whether found was searched for every email of s: an
// email the account had gained since (its row changed between the search
// and the transaction) sends the transaction through the whole log.
func (found *auditFound) covers(s *eraseScope) bool {
	for _, e := range s.emails {
		if !slices.Contains(found.emails, e) {
			return false
		}
	}
	return true
}
