package engine

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"time"

	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/rows"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/uptrace/bun"
)

// A game migrates its database while the panel runs. What a migration
// may change without the game's model changing (an enum's labels, the
// check constraints, the triggers) the panel reads again (schema.Live):
// at once when a value is refused for a label or a check it does not
// know, and every Options.CatalogRefresh. A table's Live is replaced
// whole, so requests read it without a lock. The columns themselves
// (kinds, types, nullability) are read once, at New.

const (
	// defaultCatalogRefresh is Options.CatalogRefresh's default.
	defaultCatalogRefresh = time.Minute
	// rereadEvery bounds the reads a refusal makes: at most one per table
	// and column (or check) in this time, however many requests a
	// client sends with a label the database does not have.
	rereadEvery = time.Second
	// liveReadTimeout bounds one table's read.
	liveReadTimeout = 10 * time.Second
)

// liveCatalog keeps the resources' tables' Live current.
type liveCatalog struct {
	db     *bun.DB
	tables []*schema.Table // every resource's, in sidebar order
	now    func() time.Time
	log    *slog.Logger
	// turn is held by the one read that runs at a time; last (under
	// turn) is when a refusal last read each table and key.
	turn chan struct{}
	last map[string]time.Time
}

func newLiveCatalog(a *Admin) *liveCatalog {
	c := &liveCatalog{db: a.db, now: a.now, log: a.log, turn: make(chan struct{}, 1), last: map[string]time.Time{}}
	for _, key := range a.order {
		c.tables = append(c.tables, a.resources[key].Table)
	}
	return c
}

// reread reads t's Live again because a request met what t's last read
// did not know (key: the column or check), unless a read for the same
// key ran in the last rereadEvery (the Options.Clock's), whose answer
// stands. It reports whether the request should look again: true once
// a read has run, its own or one it waited for.
func (c *liveCatalog) reread(ctx context.Context, t *schema.Table, key string) bool {
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-c.turn }()
	k := t.Name + "\x00" + key
	now := c.now()
	if at, ok := c.last[k]; ok && now.Sub(at) < rereadEvery && !now.Before(at) {
		return true
	}
	c.last[k] = now
	return c.read(ctx, t) == nil
}

// read reads t's Live and makes it what requests see, logging a change
// at Info and a failure at Warn.
func (c *liveCatalog) read(ctx context.Context, t *schema.Table) error {
	ctx, cancel := context.WithTimeout(ctx, liveReadTimeout)
	defer cancel()
	l, err := schema.ReadLive(ctx, c.db, t)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			c.log.WarnContext(ctx, "admin: reading the catalog again failed; the panel keeps what it read before", "table", t.Name, "err", err)
		}
		return err
	}
	if old := t.Live(); !reflect.DeepEqual(old, l) {
		c.log.InfoContext(ctx, "admin: the table's enum labels, checks or triggers changed; the panel uses them from now on", "table", t.Name)
	}
	t.SetLive(l)
	return nil
}

// refresh reads every table's Live, each in its turn (requests that meet
// an unknown label wait for one table, not all).
func (c *liveCatalog) refresh(ctx context.Context) {
	for _, t := range c.tables {
		select {
		case c.turn <- struct{}{}:
		case <-ctx.Done():
			return
		}
		_ = c.read(ctx, t) // logged
		<-c.turn
	}
}

// run refreshes every every until ctx ends (Close).
func (c *liveCatalog) run(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			c.refresh(ctx)
		}
	}
}

// start starts the refresh every every (Options.CatalogRefresh: 0 is
// the default, negative none) on a goroutine that spawn runs with the
// background work; the returned func ends it (stopBackground).
func (c *liveCatalog) start(every time.Duration, spawn func(context.Context, func(context.Context)) bool) (stop context.CancelFunc) {
	if every == 0 {
		every = defaultCatalogRefresh
	}
	ctx, cancel := context.WithCancel(context.Background())
	if every > 0 {
		spawn(ctx, func(context.Context) { c.run(ctx, every) })
	}
	return cancel
}

// enumRefusal is the column of res err refuses a value of when that
// column is an enum (or an array of one): the value may be a label the
// database gained since its labels were read. "" for any other error.
func enumRefusal(res *resource, err error) string {
	var qe *query.Error
	if !errors.As(err, &qe) || qe.Code != query.CodeInvalidValue {
		return ""
	}
	c := res.Table.ByName[qe.Column]
	if c == nil || c.Kind != schema.KindEnum && (c.Kind != schema.KindArray || c.Elem != schema.KindEnum) {
		return ""
	}
	return c.Name
}

// relabel reads res's table's catalog again when err refuses a value of
// an enum column (enumRefusal), and reports whether the caller should try
// the value again.
func (c *liveCatalog) relabel(ctx context.Context, res *resource, err error) bool {
	col := enumRefusal(res, err)
	return col != "" && c.reread(ctx, res.Table, "labels\x00"+col)
}

// isChoice reports whether v is one of col's Choices (true when it has
// none). Choices that are an enum's labels are read again once when v is
// not among them: a label a migration added since.
func (c *liveCatalog) isChoice(ctx context.Context, res *resource, col *schema.Column, v string) bool {
	in := func() bool {
		choices := res.Choices(col.Name)
		if len(choices) == 0 {
			return true
		}
		return slices.Contains(choices, v)
	}
	if in() {
		return true
	}
	if len(res.Config.Columns[col.Name].Choices) > 0 || col.Kind != schema.KindEnum {
		return false // the game's own list: New read it, a restart reads it again
	}
	return c.reread(ctx, res.Table, "labels\x00"+col.Name) && in()
}

// writeRefused is the answer to a write of vals to res that the database
// refused with err, once its transaction has ended: a check the catalog
// did not know (a migration added it since) reads the table's catalog
// again, so that the answer names the columns it reads; a data exception
// names the value's column (rows.BlameColumn).
func (c *liveCatalog) writeRefused(ctx context.Context, res *resource, vals map[string]any, err error) error {
	if ref := rows.UnknownCheck(res, err); ref != "" && c.reread(ctx, res.Table, "check\x00"+ref) {
		err = rows.ColumnFields(res, err)
	}
	return rows.BlameColumn(ctx, c.db, res, vals, err)
}
