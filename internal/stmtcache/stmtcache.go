// Package stmtcache runs the statements a panel sends again and again (a
// list's first page, a filtered page: the same text each time) as
// prepared statements, so the database parses and plans them once per
// connection instead of on every request. A text is prepared the second
// time it is seen; texts seen once (a keyset page, a row by its id) only
// pass through a small record of recent texts. Any failure of a prepared
// statement drops it and runs the text plainly, which has the last word;
// after MaxFailures such failures where the plain query worked (a pooler
// that does not keep prepared statements, as PgBouncer in transaction
// mode before 1.21) the cache stops preparing.
//
// A text's plain runs go through the caller's plain function (Bun's, with
// its query hooks); its prepared runs bypass Bun's query hooks.
//
// Inside a transaction (QueryTx) a failed prepared statement cannot be
// followed by the plain text: on PostgreSQL the failure ends the
// transaction. The caller is told to run its transaction again
// (ErrRetry), and that run goes plain.
package stmtcache

import (
	"container/list"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// MaxFailures is how many times prepared statements may fail where the
// plain text works before the cache stops preparing.
const MaxFailures = 5

// Cache holds up to Size prepared statements of db, and remembers up to
// 4×Size texts seen once.
type Cache struct {
	db   *sql.DB
	size int
	// OnGiveUp, when set, is called once, with the last failure, when the
	// cache stops preparing.
	OnGiveUp func(err error)
	// Final, when set, reports failures that are the statement's own and
	// not the preparing's (a time limit that ended it): Query and QueryTx
	// return them as they are, and the text stays prepared.
	Final func(err error) bool

	// Writes, when set, lets one RunInTx transaction run at a time (see
	// SerializeWrites).
	writes chan struct{}

	mu       sync.Mutex
	entries  map[string]*list.Element // of *entry, most recent first
	lru      list.List
	prepared int
	failures int
	off      bool
}

type entry struct {
	text    string
	stmt    *sql.Stmt // nil: seen once
	evicted bool      // closed by the cache: a failure of stmt is not the database's
	warming bool      // a Warm of it runs in the background
}

// New returns a cache of up to size prepared statements of db.
func New(db *sql.DB, size int) *Cache {
	return &Cache{db: db, size: size, entries: map[string]*list.Element{}}
}

// Query runs text with args (the driver's placeholders: $1 on
// PostgreSQL, ? on SQLite) and returns its rows: through a prepared
// statement when text has been seen before, else through plain, which
// runs the same statement with the values in its text.
func (c *Cache) Query(ctx context.Context, text string, plain func() (*sql.Rows, error), args ...any) (*sql.Rows, error) {
	e := c.entry(ctx, text, true, true)
	if e == nil {
		return plain()
	}
	rs, err := e.stmt.QueryContext(ctx, args...)
	if err == nil {
		return rs, nil
	}
	if ctx.Err() != nil || c.Final != nil && c.Final(err) {
		return nil, err
	}
	evicted := c.drop(e)
	rs, plainErr := plain()
	if plainErr == nil && !evicted {
		c.failed(err)
	}
	return rs, plainErr
}

// ErrRetry is wrapped by QueryTx's error when a prepared statement failed
// inside the transaction for a reason the plain text may not share (a
// pooler that lost it, a plan the schema outdated): the statement is
// dropped, and the caller runs its transaction again, where the text
// goes plain.
var ErrRetry = errors.New("stmtcache: the prepared statement failed; run the transaction again")

// QueryTx is Query inside tx, a transaction of the cache's db: a prepared
// statement is bound to tx's connection (database/sql prepares it there
// once, as on any pooled connection), and plain runs the text in tx.
// QueryTx never waits for a text to be prepared: one Warm was given
// before tx began runs prepared, and one seen before but not prepared
// runs plain while a Warm of it runs in the background, for the next
// transaction. A prepared statement's failure is returned wrapping
// ErrRetry, unless ctx is done or Final says it is the statement's own;
// the failure counts toward MaxFailures right away, as the plain run it
// would be weighed against comes in another transaction.
func (c *Cache) QueryTx(ctx context.Context, tx *sql.Tx, text string, plain func() (*sql.Rows, error), args ...any) (*sql.Rows, error) {
	return inTx(c, ctx, text, plain, func(stmt *sql.Stmt) (*sql.Rows, error) {
		return tx.StmtContext(ctx, stmt).QueryContext(ctx, args...)
	})
}

// ExecTx is QueryTx for a statement that returns no rows.
func (c *Cache) ExecTx(ctx context.Context, tx *sql.Tx, text string, plain func() (sql.Result, error), args ...any) (sql.Result, error) {
	return inTx(c, ctx, text, plain, func(stmt *sql.Stmt) (sql.Result, error) {
		return tx.StmtContext(ctx, stmt).ExecContext(ctx, args...)
	})
}

// inTx runs text in a transaction for QueryTx and ExecTx: through run,
// given its prepared statement, or through plain when it has none. A
// failure of run is returned wrapping ErrRetry, unless ctx is done or
// Final says it is the statement's own.
func inTx[T any](c *Cache, ctx context.Context, text string, plain func() (T, error), run func(*sql.Stmt) (T, error)) (T, error) {
	e := c.entry(ctx, text, true, false)
	if e == nil {
		return plain()
	}
	out, err := run(e.stmt)
	if err == nil || ctx.Err() != nil || c.Final != nil && c.Final(err) {
		return out, err
	}
	if !c.drop(e) {
		c.failed(err)
	}
	var zero T
	return zero, fmt.Errorf("%w: %w", ErrRetry, err)
}

// warmLater is a Warm of text in the background, for a caller that holds
// a connection and so cannot wait for another: bounded by a minute, and
// run once at a time. c.mu is held.
func (c *Cache) warmLater(e *entry) {
	if e.warming {
		return
	}
	e.warming = true
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c.entry(ctx, e.text, false, true)
		c.mu.Lock()
		e.warming = false
		c.mu.Unlock()
	}()
}

// Warm prepares text, when it has been seen before and is not prepared
// yet, on a connection of the pool, for a QueryTx of a transaction that
// has not begun: inside it the transaction holds a connection, and a
// pool with no other would wait forever.
func (c *Cache) Warm(ctx context.Context, text string) {
	c.entry(ctx, text, false, true)
}

// entry is text's entry with its prepared statement; nil when it is not
// (yet) prepared. record makes a text not seen before seen; prepare
// prepares one seen before.
func (c *Cache) entry(ctx context.Context, text string, record, prepare bool) *entry {
	c.mu.Lock()
	if c.off || c.size <= 0 {
		c.mu.Unlock()
		return nil
	}
	el, ok := c.entries[text]
	if !ok {
		if record {
			c.entries[text] = c.lru.PushFront(&entry{text: text})
			c.trim()
		}
		c.mu.Unlock()
		return nil
	}
	c.lru.MoveToFront(el)
	if e := el.Value.(*entry); e.stmt != nil {
		c.mu.Unlock()
		return e
	}
	if !prepare {
		if record {
			c.warmLater(el.Value.(*entry))
		}
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	// Prepared outside the lock; two requests may both prepare the same
	// text, and the second one's statement is closed.
	stmt, err := c.db.PrepareContext(ctx, text)
	if err != nil {
		return nil // the plain query says what is wrong, or works
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok = c.entries[text]
	if c.off || !ok || el.Value.(*entry).stmt != nil {
		closeLater(stmt)
		if ok && !c.off {
			return el.Value.(*entry)
		}
		return nil
	}
	e := el.Value.(*entry)
	e.stmt = stmt
	c.prepared++
	c.trim()
	if e.evicted {
		return nil
	}
	return e
}

// closeLater closes stmt once the queries running it end, without
// waiting for them: a caller may hold a connection those queries wait
// for.
func closeLater(stmt *sql.Stmt) { go stmt.Close() }

// trim forgets the least recent texts past the bounds, closing their
// statements. c.mu is held.
func (c *Cache) trim() {
	for el := c.lru.Back(); el != nil && (c.prepared > c.size || c.lru.Len() > 4*c.size); {
		prev := el.Prev()
		e := el.Value.(*entry)
		if c.lru.Len() > 4*c.size || e.stmt != nil {
			c.remove(el)
		}
		el = prev
	}
}

func (c *Cache) remove(el *list.Element) {
	e := el.Value.(*entry)
	if e.stmt != nil {
		closeLater(e.stmt)
		c.prepared--
	}
	e.evicted = true
	c.lru.Remove(el)
	delete(c.entries, e.text)
}

// drop forgets e, after its statement failed, and reports whether the
// cache had closed it already.
func (c *Cache) drop(e *entry) (evicted bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.evicted {
		return true
	}
	if el, ok := c.entries[e.text]; ok && el.Value.(*entry) == e {
		c.remove(el)
	}
	return false
}

// failed counts a failure of a prepared statement where the plain text
// worked; at MaxFailures the cache closes its statements for good.
func (c *Cache) failed(err error) {
	c.mu.Lock()
	c.failures++
	giveUp := c.failures == MaxFailures && !c.off
	if giveUp {
		c.off = true
		c.closeAll()
	}
	c.mu.Unlock()
	if giveUp && c.OnGiveUp != nil {
		c.OnGiveUp(err)
	}
}

// Close closes every prepared statement; later queries run plainly.
func (c *Cache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off = true
	c.closeAll()
}

func (c *Cache) closeAll() {
	for el := c.lru.Front(); el != nil; el = el.Next() {
		e := el.Value.(*entry)
		if e.stmt != nil {
			closeLater(e.stmt)
		}
		e.evicted = true
	}
	c.lru.Init()
	c.entries = map[string]*list.Element{}
	c.prepared = 0
}

// Prepared is how many statements the cache holds.
func (c *Cache) Prepared() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.prepared
}

// RunInTx runs fn in a transaction of db (the cache's, through Bun), and
// runs it once more, in a new transaction, when a prepared statement
// failed in the first (ErrRetry). The first run's context says so
// (Retryable), and only there may a caller's writes use QueryTx or
// ExecTx: the second run's statements all go plain, as do those of a
// transaction begun elsewhere, which nothing would run again.
func (c *Cache) RunInTx(ctx context.Context, db *bun.DB, fn func(ctx context.Context, tx bun.Tx) error) error {
	if c.writes != nil {
		select {
		case c.writes <- struct{}{}:
			defer func() { <-c.writes }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := db.RunInTx(context.WithValue(ctx, retryableKey{c}, true), nil, fn)
	if errors.Is(err, ErrRetry) {
		// Every statement of the second run is plain: a server that lost
		// one prepared statement may have lost them all.
		err = db.RunInTx(ctx, nil, fn)
	}
	return err
}

// SerializeWrites makes RunInTx run one transaction at a time, the
// others waiting their turn in order (or until their context ends). For
// SQLite, which lets one transaction write at a time: a write
// transaction that finds another holding the lock sleeps in SQLite's busy
// handler (1, 2, 5, 10 ms and on) instead of starting when the lock is
// free. Call it before c is used.
func (c *Cache) SerializeWrites() { c.writes = make(chan struct{}, 1) }

type retryableKey struct{ c *Cache }

// Retryable reports whether ctx is that of a transaction c's RunInTx runs
// again after ErrRetry: a nil cache's never is.
func (c *Cache) Retryable(ctx context.Context) bool {
	if c == nil {
		return false
	}
	ok, _ := ctx.Value(retryableKey{c}).(bool)
	return ok
}
