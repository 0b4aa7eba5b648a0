package reports

// A claim: which moderator works a player's open reports, so that two do
// not act on one player at once. Resolving them (Close) releases it.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/gameadmin/admin/internal/sqldialect"
	"time"

	"github.com/uptrace/bun"
)

// Claim is a row of <prefix>report_claims: who works a player's open
// reports. Its primary key is the player, so two claims at once cannot
// both win.
type Claim struct {
	bun.BaseModel `bun:"table:game_report_claims,alias:rc"`

	PlayerID  string    `bun:"player_id,pk" json:"playerId"`
	ClaimedBy string    `bun:"claimed_by,notnull" json:"claimedBy"`
	ClaimedAt time.Time `bun:"claimed_at,notnull" json:"claimedAt"`
}

// ErrNoOpenReports is a claim or a resolution of a player who has no
// open report (another moderator resolved them).
var ErrNoOpenReports = errors.New("admin: the player has no open reports")

// ErrClaimed is a claim of a player another moderator holds; the error
// returned wraps it in a *ClaimedError naming them.
var ErrClaimed = errors.New("admin: another moderator holds this player's reports")

// ClaimedError names the holder of a claim.
type ClaimedError struct{ Claim Claim }

// Error names the holder by id and since when; the HTTP answer names
// them by label.
func (e *ClaimedError) Error() string {
	return fmt.Sprintf("%v (%s, since %s)", ErrClaimed, e.Claim.ClaimedBy, e.Claim.ClaimedAt.Format(time.RFC3339))
}

// Unwrap makes errors.Is(err, ErrClaimed) hold.
func (e *ClaimedError) Unwrap() error { return ErrClaimed }

// Claim makes by the holder of playerID's open reports, unless another
// holds them: then a *ClaimedError, or, with takeover (an admin's), the
// claim passes to by. The insert is keyed by the player, so of two
// claims at once exactly one wins. record runs in the claim's
// transaction, when the claim changed, to audit it.
func (s *Store) Claim(ctx context.Context, playerID, by string, takeover bool, record func(ctx context.Context, tx bun.Tx, prev string) error) (Claim, error) {
	c := Claim{PlayerID: playerID, ClaimedBy: by, ClaimedAt: s.now().UTC()}
	// A player without open reports (or no player: the claim's foreign
	// key would refuse it) has nothing to claim; checked again inside.
	open, err := s.db.NewSelect().TableExpr("?", s.table).Where("player_id = ? AND status = ?", playerID, Open).Exists(ctx)
	if err != nil {
		return c, err
	}
	if !open {
		return c, ErrNoOpenReports
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// The write comes first, so that on SQLite the transaction takes
		// the write lock at once rather than upgrading a read lock, which
		// two claims at once would deadlock on.
		res, err := sqldialect.OnConflictNothing(tx.NewInsert().Model(&c).ModelTableExpr("?", s.claims), "player_id").Exec(ctx)
		if err != nil {
			return err
		}
		open, err := tx.NewSelect().TableExpr("?", s.table).Where("player_id = ? AND status = ?", playerID, Open).Exists(ctx)
		if err != nil {
			return err
		}
		if !open {
			return ErrNoOpenReports // the claim just inserted rolls back
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return record(ctx, tx, "")
		}
		var held Claim
		if err := tx.NewSelect().Model(&held).ModelTableExpr("? AS rc", s.claims).Where("player_id = ?", playerID).Scan(ctx); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("%w: released meanwhile", ErrClaimed)
			}
			return err
		}
		held.ClaimedAt = held.ClaimedAt.UTC()
		switch {
		case held.ClaimedBy == by:
			c = held
			return nil
		case !takeover:
			return &ClaimedError{Claim: held}
		}
		res, err = tx.NewUpdate().Table(string(s.claims)).Set("claimed_by = ?, claimed_at = ?", by, c.ClaimedAt).
			Where("player_id = ? AND claimed_by = ?", playerID, held.ClaimedBy).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("%w: taken meanwhile", ErrClaimed)
		}
		return record(ctx, tx, held.ClaimedBy)
	})
	return c, err
}

// Holder is who holds playerID's claim, "" when no one.
func (s *Store) Holder(ctx context.Context, db bun.IDB, playerID string) (string, error) {
	var by []string
	err := db.NewSelect().TableExpr("?", s.claims).Column("claimed_by").Where("player_id = ?", playerID).Scan(ctx, &by)
	if err != nil || len(by) == 0 {
		return "", err
	}
	return by[0], nil
}

// claimsOf are the claims on players, by player.
func (s *Store) claimsOf(ctx context.Context, db bun.IDB, players []string) (map[string]*Claim, error) {
	var cs []Claim
	if err := db.NewSelect().Model(&cs).ModelTableExpr("? AS rc", s.claims).Where("player_id IN (?)", bun.List(players)).Scan(ctx); err != nil {
		return nil, err
	}
	out := make(map[string]*Claim, len(cs))
	for i := range cs {
		cs[i].ClaimedAt = cs[i].ClaimedAt.UTC()
		out[cs[i].PlayerID] = &cs[i]
	}
	return out, nil
}
