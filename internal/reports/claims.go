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
// both win. Stale, set when read, says the claim is older than the
// store's expiry: it no longer keeps another moderator out.
type Claim struct {
	bun.BaseModel `bun:"table:game_report_claims,alias:rc"`

	PlayerID  string    `bun:"player_id,pk" json:"playerId"`
	ClaimedBy string    `bun:"claimed_by,notnull" json:"claimedBy"`
	ClaimedAt time.Time `bun:"claimed_at,notnull" json:"claimedAt"`
	Stale     bool      `bun:"-" json:"stale,omitempty"`
}

// DefaultClaimExpiry is how long a claim keeps other moderators out when
// Config.ClaimExpiry is 0: a claim not acted on for that long (its
// holder neither resolved nor claimed again) is taken by the next
// moderator who claims.
const DefaultClaimExpiry = 30 * time.Minute

// ErrNotClaimed is a release of a player no one holds.
var ErrNotClaimed = errors.New("admin: no one holds this player's reports")

// stale reports whether c is past the expiry now.
func (s *Store) stale(c Claim) bool {
	return !c.ClaimedAt.After(s.now().UTC().Add(-s.expiry))
}

// ClaimResult is what Claim did: the claim, and whose it took (a
// takeover, or an expired claim) when it took one.
type ClaimResult struct {
	Claim
	TakenFrom string
	Expired   bool // the claim taken had expired
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
// holds them: then a *ClaimedError, or, with takeover (an admin's) or
// when the other's claim expired, the claim passes to by. The insert is
// keyed by the player, so of two claims at once exactly one wins. record
// runs in the claim's transaction, when the claim changed, to audit it:
// prev is whose claim it took, expired whether that had expired.
func (s *Store) Claim(ctx context.Context, playerID, by string, takeover bool, record func(ctx context.Context, tx bun.Tx, prev string, expired bool) error) (ClaimResult, error) {
	c := Claim{PlayerID: playerID, ClaimedBy: by, ClaimedAt: s.now().UTC()}
	var out ClaimResult
	// A player without open reports (or no player: the claim's foreign
	// key would refuse it) has nothing to claim; checked again inside.
	open, err := s.db.NewSelect().TableExpr("?", s.table).Where("player_id = ? AND status = ?", playerID, Open).Exists(ctx)
	if err != nil {
		return out, err
	}
	if !open {
		return out, ErrNoOpenReports
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
			return record(ctx, tx, "", false)
		}
		var held Claim
		if err := tx.NewSelect().Model(&held).ModelTableExpr("? AS rc", s.claims).Where("player_id = ?", playerID).Scan(ctx); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("%w: released meanwhile", ErrClaimed)
			}
			return err
		}
		held.ClaimedAt = held.ClaimedAt.UTC()
		expired := s.stale(held)
		switch {
		case held.ClaimedBy == by:
			c = held
			return nil
		case !takeover && !expired:
			return &ClaimedError{Claim: held}
		}
		// Keyed by the holder read: a claim taken meanwhile is not taken
		// from under its new holder.
		res, err = tx.NewUpdate().Table(string(s.claims)).Set("claimed_by = ?, claimed_at = ?", by, c.ClaimedAt).
			Where("player_id = ? AND claimed_by = ?", playerID, held.ClaimedBy).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("%w: taken meanwhile", ErrClaimed)
		}
		out.TakenFrom, out.Expired = held.ClaimedBy, expired && !takeover
		return record(ctx, tx, held.ClaimedBy, out.Expired)
	})
	out.Claim = c
	return out, err
}

// Holder is playerID's claim as stored (its holder and since when, Stale
// set), nil when no one holds it.
func (s *Store) Holder(ctx context.Context, db bun.IDB, playerID string) (*Claim, error) {
	var cs []Claim
	err := db.NewSelect().Model(&cs).ModelTableExpr("? AS rc", s.claims).Where("player_id = ?", playerID).Scan(ctx)
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	c := cs[0]
	c.ClaimedAt = c.ClaimedAt.UTC()
	c.Stale = s.stale(c)
	return &c, nil
}

// Release ends playerID's claim: by's own, or, with anyone (an admin's),
// whoever's. A claim another holds answers a *ClaimedError; none,
// ErrNotClaimed. record runs in the release's transaction with the
// holder released, to audit it.
func (s *Store) Release(ctx context.Context, playerID, by string, anyone bool, record func(ctx context.Context, tx bun.Tx, holder Claim) error) (Claim, error) {
	var held Claim
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// A write comes first, so that on SQLite the transaction takes
		// the write lock at once (as Claim's); it locks the row elsewhere.
		if _, err := tx.NewUpdate().Table(string(s.claims)).Set("claimed_by = claimed_by").Where("player_id = ?", playerID).Exec(ctx); err != nil {
			return err
		}
		c, err := s.Holder(ctx, tx, playerID)
		if err != nil {
			return err
		}
		if c == nil {
			return ErrNotClaimed
		}
		held = *c
		if held.ClaimedBy != by && !anyone {
			return &ClaimedError{Claim: held}
		}
		// Keyed by the holder read: a claim taken meanwhile stays.
		res, err := tx.NewDelete().TableExpr("?", s.claims).Where("player_id = ? AND claimed_by = ?", playerID, held.ClaimedBy).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("%w: taken meanwhile", ErrClaimed)
		}
		return record(ctx, tx, held)
	})
	return held, err
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
		cs[i].Stale = s.stale(cs[i])
		out[cs[i].PlayerID] = &cs[i]
	}
	return out, nil
}
