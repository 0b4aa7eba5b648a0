package reports

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/gameadmin/admin/internal/query"
	"github.com/uptrace/bun"
)

// Filter narrows the queue. Status is Open (the default) or Resolved.
type Filter struct {
	Status   string
	Category string
	RoomID   string
	Limit    int // players per page, 1 to MaxPage; 0: DefaultPage
	Offset   int
	// Narrow, when set, narrows every read of the reports table (its
	// columns unqualified): the reports an operator's row scope lets
	// them see.
	Narrow func(q *bun.SelectQuery) *bun.SelectQuery
}

// The queue's page bounds.
const (
	DefaultPage = 50
	MaxPage     = 100
	// maxGroupRows bounds the reports read for one page of the queue, so
	// a player reported ten thousand times costs what a hundred do: the
	// counts stay exact, the latest reports and reporters are those read.
	maxGroupRows = 2000
	// LatestPerGroup is how many of a player's reports the queue shows.
	LatestPerGroup = 10
	// maxReporters is how many reporters a group names.
	maxReporters = 20
)

// Group is one reported player in the queue.
type Group struct {
	PlayerID   string         `json:"playerId"`
	Count      int64          `json:"count"`   // reports (folded duplicates count once)
	Recent     int64          `json:"last24h"` // of them filed in the last 24 hours
	Filings    int64          `json:"filings"` // every filing, folded duplicates included
	FirstAt    time.Time      `json:"firstAt"` // the oldest report's filing
	LastAt     time.Time      `json:"lastAt"`  // the newest filing
	Categories map[string]int `json:"categories"`
	Reporters  []string       `json:"reporters"`
	Claim      *Claim         `json:"claim"`
	Latest     []Row          `json:"latest"`
}

// Queue is a page of the reported players matching f, the most reported
// in the last 24 hours first (then the most reported, then the newest),
// and whether there are more, read through db (the caller's time limit).
func (s *Store) Queue(ctx context.Context, db bun.IDB, f Filter) ([]Group, bool, error) {
	if f.Limit <= 0 {
		f.Limit = DefaultPage
	}
	f.Limit = min(f.Limit, MaxPage)
	f.Offset = max(f.Offset, 0)
	where := func(q *bun.SelectQuery) *bun.SelectQuery {
		q = q.Where("status = ?", cmp.Or(f.Status, Open))
		if f.Category != "" {
			q = q.Where("category = ?", f.Category)
		}
		if f.RoomID != "" {
			q = q.Where("room_id = ?", f.RoomID)
		}
		if f.Narrow != nil {
			q = f.Narrow(q)
		}
		return q
	}
	since := s.now().UTC().Add(-24 * time.Hour)
	var heads []struct {
		PlayerID string    `bun:"player_id"`
		N        int64     `bun:"n"`
		Recent   int64     `bun:"recent"`
		Filings  int64     `bun:"filings"`
		FirstAt  time.Time `bun:"first_at"`
		LastAt   time.Time `bun:"last_at"`
	}
	err := where(db.NewSelect().TableExpr("?", s.table)).
		ColumnExpr("player_id").ColumnExpr("COUNT(*) AS n").
		ColumnExpr("SUM(CASE WHEN created_at >= ? THEN 1 ELSE 0 END) AS recent", since).
		ColumnExpr("SUM(filings) AS filings").ColumnExpr("MIN(created_at) AS first_at").ColumnExpr("MAX(last_at) AS last_at").
		GroupExpr("player_id").OrderExpr("recent DESC, n DESC, last_at DESC, player_id").
		Limit(int64(f.Limit+1)).Offset(int64(f.Offset)).Scan(ctx, &heads)
	if err != nil {
		return nil, false, err
	}
	more := len(heads) > f.Limit
	heads = heads[:min(len(heads), f.Limit)]
	if len(heads) == 0 {
		return []Group{}, false, nil
	}
	ids := make([]string, len(heads))
	for i, h := range heads {
		ids[i] = h.PlayerID
	}
	var rows []Row
	if err := where(db.NewSelect().Model(&rows).ModelTableExpr("? AS rp", s.table)).
		Where("player_id IN (?)", bun.List(ids)).OrderExpr("last_at DESC, id DESC").Limit(int64(maxGroupRows)).Scan(ctx); err != nil {
		return nil, false, err
	}
	claims, err := s.claimsOf(ctx, db, ids)
	if err != nil {
		return nil, false, err
	}
	out := make([]Group, len(heads))
	at := map[string]int{}
	for i, h := range heads {
		out[i] = Group{PlayerID: h.PlayerID, Count: h.N, Recent: h.Recent, Filings: h.Filings, FirstAt: h.FirstAt.UTC(), LastAt: h.LastAt.UTC(),
			Categories: map[string]int{}, Reporters: []string{}, Latest: []Row{}, Claim: claims[h.PlayerID]}
		at[h.PlayerID] = i
	}
	for _, r := range rows {
		g := &out[at[r.PlayerID]]
		g.Categories[r.Category]++
		if r.ReporterID != "" && len(g.Reporters) < maxReporters && !slices.Contains(g.Reporters, r.ReporterID) {
			g.Reporters = append(g.Reporters, r.ReporterID)
		}
		if len(g.Latest) < LatestPerGroup {
			g.Latest = append(g.Latest, r)
		}
	}
	return out, more, nil
}

// ForPlayer is the player's page: the reports about them (received) and
// theirs about others (filed), newest first, at most limit of each, read
// through db; narrow, when not nil, narrows both reads as Filter.Narrow
// does the queue's.
func (s *Store) ForPlayer(ctx context.Context, db bun.IDB, playerID string, limit int, narrow func(q *bun.SelectQuery) *bun.SelectQuery) (received, filed []Row, err error) {
	received, filed = []Row{}, []Row{}
	for _, q := range []struct {
		col string
		out *[]Row
	}{{"player_id", &received}, {"reporter_id", &filed}} {
		sel := db.NewSelect().Model(q.out).ModelTableExpr("? AS rp", s.table).Where("? = ?", bun.Ident(q.col), playerID)
		if narrow != nil {
			sel = narrow(sel)
		}
		if err := sel.OrderExpr("last_at DESC, id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
			return nil, nil, err
		}
	}
	return received, filed, nil
}

// Close resolves every open report about playerID in tx, with outcome,
// by the moderator by, and releases the claim: it returns their ids,
// ErrNoOpenReports when there were none.
func (s *Store) Close(ctx context.Context, tx bun.Tx, playerID, by, outcome string) ([]int64, error) {
	var ids []int64
	if err := tx.NewSelect().TableExpr("?", s.table).Column("id").Where("player_id = ? AND status = ?", playerID, Open).
		OrderExpr("id").Scan(ctx, &ids); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, ErrNoOpenReports
	}
	res, err := tx.NewUpdate().Table(string(s.table)).
		Set("status = ?, resolved_at = ?, resolved_by = ?, outcome = ?", Resolved, s.now().UTC(), by, outcome).
		Where("id IN (?) AND status = ?", bun.List(ids), Open).Exec(ctx)
	if err != nil {
		return nil, err
	}
	// Another resolution that committed between the read and the update
	// closed some: this one is then no longer the one that resolves them.
	if n, _ := res.RowsAffected(); n != int64(len(ids)) {
		return nil, ErrNoOpenReports
	}
	if _, err := tx.NewDelete().TableExpr("?", s.claims).Where("player_id = ?", playerID).Exec(ctx); err != nil {
		return nil, err
	}
	return ids, nil
}

// Summary is the dashboard's open reports: how many, since when, and
// the most reported players.
type Summary struct {
	Open   int64      `json:"open"`
	Oldest *time.Time `json:"oldest"`
	Top    []TopEntry `json:"top"`
}

// TopEntry is one of the most reported players.
type TopEntry struct {
	PlayerID string `json:"playerId"`
	Count    int64  `bun:"n" json:"count"`
}

// Summarize is the open reports' Summary, with the top n players, read
// through db.
func (s *Store) Summarize(ctx context.Context, db bun.IDB, n int) (Summary, error) {
	var out Summary
	var head struct {
		N      int64      `bun:"n"`
		Oldest *time.Time `bun:"oldest"`
	}
	if err := db.NewSelect().TableExpr("?", s.table).ColumnExpr("COUNT(*) AS n").ColumnExpr("MIN(created_at) AS oldest").
		Where("status = ?", Open).Scan(ctx, &head); err != nil {
		return out, err
	}
	out.Open = head.N
	if head.Oldest != nil {
		t := head.Oldest.UTC()
		out.Oldest = &t
	}
	out.Top = []TopEntry{}
	err := db.NewSelect().TableExpr("?", s.table).ColumnExpr("player_id").ColumnExpr("COUNT(*) AS n").
		Where("status = ?", Open).GroupExpr("player_id").OrderExpr("n DESC, player_id").Limit(int64(n)).Scan(ctx, &out.Top)
	return out, err
}

// Filed counts the reports filed in [from, to) (each at its first
// filing) per step, counted in the database: the start of each step
// that has reports, in seconds since the epoch, to its count; for the
// dashboard's chart.
func (s *Store) Filed(ctx context.Context, from, to time.Time, step time.Duration) (map[int64]int64, error) {
	bucket := query.EpochBucket(s.db.Dialect().Name(), step, "created_at")
	var rows []struct {
		B int64 `bun:"b"`
		N int64 `bun:"n"`
	}
	err := s.db.NewSelect().TableExpr("?", s.table).ColumnExpr(bucket+" AS b").ColumnExpr("count(*) AS n").
		Where("created_at >= ? AND created_at < ?", from, to).GroupExpr("b").Scan(ctx, &rows)
	out := make(map[int64]int64, len(rows))
	for _, r := range rows {
		out[r.B] += r.N
	}
	return out, err
}
