// Package reports holds players' reports about other players: filing
// them from the game's code (bounded per reporter, duplicates folded),
// the moderators' queue grouped by reported player, claiming a player's
// reports, and closing them when a moderator resolves them. It knows the
// reports and claims tables and package users' table; what resolving
// does to the player (a ban, a note) is the engine's, through the one
// moderation path, with Close run inside that transaction.
package reports

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/ratelimit"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The kinds of evidence a category declares: how the queue shows a
// report's evidence.
const (
	// EvidenceNone takes no evidence: a report that carries some is refused.
	EvidenceNone = ""
	// EvidenceText is a JSON string, shown as text (a chat line).
	EvidenceText = "text"
	// EvidenceRow is the id of a row of Category.Resource (a JSON string
	// or integer), shown as a link to that row with its label.
	EvidenceRow = "row"
)

// Category is a kind of report the game declares (Options.ReportCategories).
type Category struct {
	// Key is what the game files ("cheating"): letters, digits, '_', '-'
	// and '.', at most 64.
	Key string `json:"key"`
	// Label is what operators read ("Cheating"). Default: Key.
	Label string `json:"label"`
	// Evidence is how a report's evidence reads: EvidenceNone (the
	// default), EvidenceText or EvidenceRow.
	Evidence string `json:"evidence,omitempty"`
	// Resource, for EvidenceRow, is the key of the resource whose row the
	// evidence names (a matches table).
	Resource string `json:"resource,omitempty"`
}

// Report is what the game files.
type Report struct {
	ReporterID string
	PlayerID   string
	Category   string
	Text       string
	RoomID     string
	SessionID  string
	Evidence   json.RawMessage
}

// The bounds of a report.
const (
	MaxTextLen     = 1000 // characters of Report.Text
	MaxEvidenceLen = 4096 // bytes of Report.Evidence
	maxRefLen      = 128  // bytes of RoomID and SessionID
	maxKeyLen      = 64
)

// The errors of filing; the root exports them.
var (
	ErrOff             = errors.New("admin: reports are off (Options.ReportCategories is empty)")
	ErrUnknownPlayer   = errors.New("admin: report: unknown player")
	ErrUnknownCategory = errors.New("admin: report: unknown category")
	ErrLimited         = errors.New("admin: report: too many reports from this reporter")
	ErrInvalid         = errors.New("admin: report: invalid")
)

// Row is a row of <prefix>reports. Count is how many duplicates folded
// into it (1 for one filing); LastAt is the newest of them.
type Row struct {
	bun.BaseModel `bun:"table:game_reports,alias:rp"`

	ID         int64      `bun:"id,pk,autoincrement" json:"id"`
	ReporterID string     `bun:"reporter_id,nullzero" json:"reporterId"`
	PlayerID   string     `bun:"player_id,notnull" json:"playerId"`
	Category   string     `bun:"category,notnull" json:"category"`
	Text       string     `bun:"text,notnull" json:"text"`
	RoomID     string     `bun:"room_id,nullzero" json:"roomId,omitempty"`
	SessionID  string     `bun:"session_id,nullzero" json:"sessionId,omitempty"`
	Evidence   string     `bun:"evidence,nullzero" json:"-"` // JSON text
	Count      int64      `bun:"filings,notnull" json:"count"`
	Status     string     `bun:"status,notnull" json:"status"`
	CreatedAt  time.Time  `bun:"created_at,notnull" json:"createdAt"`
	LastAt     time.Time  `bun:"last_at,notnull" json:"lastAt"`
	ResolvedAt *time.Time `bun:"resolved_at" json:"resolvedAt,omitempty"`
	ResolvedBy string     `bun:"resolved_by,nullzero" json:"resolvedBy,omitempty"`
	Outcome    string     `bun:"outcome,nullzero" json:"outcome,omitempty"`
}

// The statuses of a report.
const (
	Open     = "open"
	Resolved = "resolved"
)

// DefaultWindow is Options.ReportWindow's default.
const DefaultWindow = 10 * time.Minute

// Config is what New builds the store from; every field but Categories
// is set by the engine.
type Config struct {
	DB         *bun.DB
	Table      string // <prefix>reports
	Claims     string // <prefix>report_claims
	Users      *users.Table
	Categories []Category
	Window     time.Duration // folding window; 0: DefaultWindow
	Limiter    ratelimit.Limiter
	Audit      *audit.Log
	Now        func() time.Time
	// ClaimExpiry is how long a claim keeps other moderators out; 0:
	// DefaultClaimExpiry.
	ClaimExpiry time.Duration
}

// Store files, lists, claims and closes reports.
type Store struct {
	db      *bun.DB
	table   bun.Ident
	claims  bun.Ident
	users   *users.Table
	cats    []Category
	byKey   map[string]Category
	window  time.Duration
	limiter ratelimit.Limiter
	audit   *audit.Log
	now     func() time.Time
	expiry  time.Duration
}

// New checks the categories (a programmer's mistake is an error naming
// it) and returns the store. resourceOK says whether a resource key
// exists, for EvidenceRow.
func New(cfg Config, resourceOK func(string) bool) (*Store, error) {
	s := &Store{db: cfg.DB, table: bun.Ident(cfg.Table), claims: bun.Ident(cfg.Claims), users: cfg.Users,
		byKey: map[string]Category{}, window: cfg.Window, limiter: cfg.Limiter, audit: cfg.Audit, now: cfg.Now, expiry: cfg.ClaimExpiry}
	if s.expiry < 0 {
		return nil, fmt.Errorf("admin: ReportClaimExpiry %v is negative", s.expiry)
	}
	if s.expiry == 0 {
		s.expiry = DefaultClaimExpiry
	}
	if s.window < 0 {
		return nil, fmt.Errorf("admin: ReportWindow %v is negative", s.window)
	}
	if s.window == 0 {
		s.window = DefaultWindow
	}
	for _, c := range cfg.Categories {
		if !validKey(c.Key) {
			return nil, fmt.Errorf("admin: ReportCategories: key %q: letters, digits, '_', '-' and '.', 1 to %d", c.Key, maxKeyLen)
		}
		if _, dup := s.byKey[c.Key]; dup {
			return nil, fmt.Errorf("admin: ReportCategories: key %q twice", c.Key)
		}
		switch c.Evidence {
		case EvidenceNone, EvidenceText:
			if c.Resource != "" {
				return nil, fmt.Errorf("admin: ReportCategories: %q: Resource is for Evidence %q only", c.Key, EvidenceRow)
			}
		case EvidenceRow:
			if !resourceOK(c.Resource) {
				return nil, fmt.Errorf("admin: ReportCategories: %q: Evidence %q needs the key of a resource, not %q", c.Key, EvidenceRow, c.Resource)
			}
		default:
			return nil, fmt.Errorf("admin: ReportCategories: %q: Evidence %q: use %q, %q or %q", c.Key, c.Evidence, EvidenceNone, EvidenceText, EvidenceRow)
		}
		if c.Label == "" {
			c.Label = c.Key
		}
		s.cats = append(s.cats, c)
		s.byKey[c.Key] = c
	}
	return s, nil
}

// On reports whether the game declared categories: without any,
// reports are off.
func (s *Store) On() bool { return len(s.cats) > 0 }

// Categories are the declared categories, labels defaulted.
func (s *Store) Categories() []Category { return s.cats }

// Category is the category of key.
func (s *Store) Category(key string) (Category, bool) {
	c, ok := s.byKey[key]
	return c, ok
}

// storable reports whether s is text both databases store as it is:
// UTF-8 (Bun writes U+FFFD for a bad byte) without NUL (PostgreSQL's
// text holds none, and Bun refuses to write one).
func storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

func validKey(k string) bool {
	if k == "" || len(k) > maxKeyLen {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.", r)) {
			return false
		}
	}
	return true
}

// check bounds r and its evidence as its category declares it.
func (s *Store) check(r *Report) error {
	if !s.On() {
		return ErrOff
	}
	c, ok := s.byKey[r.Category]
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownCategory, r.Category)
	}
	switch {
	case r.PlayerID == "" || r.ReporterID == "":
		return fmt.Errorf("%w: the reporter and the reported player are needed", ErrInvalid)
	case r.PlayerID == r.ReporterID:
		return fmt.Errorf("%w: a player cannot report themselves", ErrInvalid)
	case utf8.RuneCountInString(r.Text) > MaxTextLen:
		return fmt.Errorf("%w: text is longer than %d characters", ErrInvalid, MaxTextLen)
	case !storable(r.Text):
		return fmt.Errorf("%w: text is not UTF-8 or holds a NUL character", ErrInvalid)
	case len(r.RoomID) > maxRefLen || len(r.SessionID) > maxRefLen:
		return fmt.Errorf("%w: room and session ids are at most %d bytes", ErrInvalid, maxRefLen)
	case !storable(r.RoomID):
		return fmt.Errorf("%w: room id is not UTF-8 or holds a NUL character", ErrInvalid)
	case !storable(r.SessionID):
		return fmt.Errorf("%w: session id is not UTF-8 or holds a NUL character", ErrInvalid)
	case len(r.Evidence) > MaxEvidenceLen:
		return fmt.Errorf("%w: evidence is larger than %d bytes", ErrInvalid, MaxEvidenceLen)
	case !utf8.Valid(r.Evidence) || query.LoneSurrogate(r.Evidence):
		// encoding/json would read both as U+FFFD, changing the
		// player's words; PostgreSQL refuses a lone surrogate.
		return fmt.Errorf("%w: evidence is not UTF-8 or escapes half a surrogate pair", ErrInvalid)
	}
	ev := strings.TrimSpace(string(r.Evidence))
	if ev == "" || ev == "null" {
		r.Evidence = nil
		return nil
	}
	if !json.Valid(r.Evidence) {
		return fmt.Errorf("%w: evidence is not JSON", ErrInvalid)
	}
	var v any
	_ = json.Unmarshal(r.Evidence, &v)
	switch c.Evidence {
	case EvidenceNone:
		return fmt.Errorf("%w: category %q takes no evidence", ErrInvalid, c.Key)
	case EvidenceText:
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%w: category %q takes a JSON string as evidence", ErrInvalid, c.Key)
		}
	case EvidenceRow:
		if _, ok := v.(string); !ok {
			if n, ok := v.(float64); !ok || n != float64(int64(n)) {
				return fmt.Errorf("%w: category %q takes a row id (a JSON string or integer) as evidence", ErrInvalid, c.Key)
			}
		}
	}
	return nil
}

// File stores r, or folds it into the same reporter's open report of the
// same player and category filed within the window (its count and last
// time go up): id is the report's, folded says which. Every call spends a
// token of the reporter's bucket; a new report writes a report.file
// audit entry with the player's open reports in the same transaction.
func (s *Store) File(ctx context.Context, r Report) (id int64, folded bool, err error) {
	if err := s.check(&r); err != nil {
		return 0, false, err
	}
	if err := ratelimit.Spend(ctx, s.limiter, r.ReporterID); err != nil {
		var rl *ratelimit.Error
		if errors.As(err, &rl) {
			return 0, false, fmt.Errorf("%w: %w", ErrLimited, err)
		}
		return 0, false, err
	}
	for _, uid := range []string{r.PlayerID, r.ReporterID} {
		ok, err := s.userExists(ctx, uid)
		if err != nil {
			return 0, false, err
		}
		if !ok {
			return 0, false, fmt.Errorf("%w %q", ErrUnknownPlayer, uid)
		}
	}
	now := s.now().UTC()
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// Two filings at once (a player tapping "report" twice) fold too:
		// on PostgreSQL a lock per reporter and player orders them; on
		// SQLite the write that starts the transaction takes the one
		// writer's lock before the read, where a read first would fail
		// the second writer instead of waiting.
		if tx.Dialect().Name() == dialect.PG {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "gameadmin.report "+r.ReporterID+" "+r.PlayerID); err != nil {
				return err
			}
		}
		if tx.Dialect().Name() == dialect.MySQL {
			return s.foldMySQL(ctx, tx, r, now, &id, &folded)
		}
		var prev []int64
		err := tx.NewRaw("UPDATE ? SET filings = filings + 1, last_at = ? WHERE id = (SELECT id FROM ? "+
			"WHERE reporter_id = ? AND player_id = ? AND category = ? AND status = ? AND created_at >= ? ORDER BY id DESC LIMIT 1) RETURNING id",
			s.table, now, s.table, r.ReporterID, r.PlayerID, r.Category, Open, now.Add(-s.window)).Scan(ctx, &prev)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if len(prev) > 0 {
			id, folded = prev[0], true
			return nil
		}
		return s.insert(ctx, tx, r, now, &id)
	})
	return id, folded, err
}

// foldMySQL is File's fold on MySQL, which has no UPDATE … RETURNING and
// cannot update a table its own subquery reads: the reporter's users row
// locked (ordering two filings at once), the open report read, then
// counted up by id; or, when there is none, a new one.
func (s *Store) foldMySQL(ctx context.Context, tx bun.Tx, r Report, now time.Time, id *int64, folded *bool) error {
	u := s.users
	if _, err := tx.NewSelect().TableExpr("?", bun.Ident(u.Name)).ColumnExpr("?", bun.Ident(u.Cols.ID)).
		Where("? = ?", bun.Ident(u.Cols.ID), r.ReporterID).For("UPDATE").Exec(ctx); err != nil {
		return err
	}
	var prev []int64
	err := tx.NewRaw("SELECT id FROM ? WHERE reporter_id = ? AND player_id = ? AND category = ? AND status = ? AND created_at >= ? ORDER BY id DESC LIMIT 1 FOR UPDATE",
		s.table, r.ReporterID, r.PlayerID, r.Category, Open, now.Add(-s.window)).Scan(ctx, &prev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if len(prev) == 0 {
		return s.insert(ctx, tx, r, now, id)
	}
	if _, err := tx.NewRaw("UPDATE ? SET filings = filings + 1, last_at = ? WHERE id = ?", s.table, now, prev[0]).Exec(ctx); err != nil {
		return err
	}
	*id, *folded = prev[0], true
	return nil
}

// insert stores r as a new open report and writes its report.file audit
// entry in tx.
func (s *Store) insert(ctx context.Context, tx bun.Tx, r Report, now time.Time, id *int64) error {
	row := &Row{ReporterID: r.ReporterID, PlayerID: r.PlayerID, Category: r.Category, Text: r.Text,
		RoomID: r.RoomID, SessionID: r.SessionID, Evidence: string(query.StoredJSON(r.Evidence)), Count: 1, Status: Open, CreatedAt: now, LastAt: now}
	if _, err := tx.NewInsert().Model(row).ModelTableExpr("?", s.table).Returning("id").Exec(ctx); err != nil {
		return err
	}
	*id = row.ID
	open, err := tx.NewSelect().TableExpr("?", s.table).Where("player_id = ? AND status = ?", r.PlayerID, Open).Count(ctx)
	if err != nil {
		return err
	}
	return s.audit.RecordTx(ctx, tx, audit.Entry{Action: "report.file", Resource: "users", TargetID: r.PlayerID,
		Payload: map[string]any{"reportId": *id, "playerId": r.PlayerID, reporterKey: r.ReporterID, "category": r.Category, "openReports": open}})
}

// userExists reports whether the users table has id.
func (s *Store) userExists(ctx context.Context, id string) (bool, error) {
	u := s.users
	return s.db.NewSelect().TableExpr("?", bun.Ident(u.Name)).Where("? = ?", bun.Ident(u.Cols.ID), id).Exists(ctx)
}
