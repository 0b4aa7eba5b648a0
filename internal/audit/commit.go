package audit

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"
)

// An entry is handed on (Commits.OnCommit) only once it is in the
// database for good. One written outside a transaction (Record) is, as
// soon as its insert returns. One written through a transaction
// (RecordTx) is held until that transaction commits, and forgotten if it
// rolls back. Bun has no after-commit callback, but it passes every BEGIN
// and COMMIT through the database's query hooks, and the context BEGIN's
// hooks return is the one RunInTx hands its function and COMMIT's hooks
// receive: Commits puts a list of held entries in that context, RecordTx
// adds to it, and the COMMIT that succeeds sends them. Every transaction
// on the panel's *bun.DB (the game's given one with Commits as a hook)
// is covered in one place.

// Commits is the query hook that sees transactions commit. Give it to the
// panel's database (bun.DB.WithQueryHook) and to the log (SendCommits).
type Commits struct {
	send   atomic.Pointer[func(Entry)]
	missed sync.Once // the one warning of an entry whose commit cannot be seen
}

// NewCommits returns a hook that sends nothing until OnCommit.
func NewCommits() *Commits { return &Commits{} }

// OnCommit makes fn receive every committed entry, on the goroutine that
// committed it: fn must not block (the panel's queues it).
func (c *Commits) OnCommit(fn func(Entry)) { c.send.Store(&fn) }

// SendCommits makes the log hand its committed entries to c. Call it
// before the log is used.
func (au *Log) SendCommits(c *Commits) { au.commits = c }

// RunInTx runs fn in a transaction on the log's database: the entries fn
// writes with RecordTx are sent once it commits.
func (au *Log) RunInTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	return au.db.RunInTx(ctx, nil, fn)
}

// heldKey is the context key of a transaction's held entries, one per
// hook so that two panels on one database keep theirs apart.
type heldKey struct{ c *Commits }

// held is a transaction's entries waiting for its COMMIT.
type held struct {
	mu      sync.Mutex
	entries []Entry
}

// BeforeQuery gives every transaction, at its BEGIN, a list of held
// entries in the context it will run with.
func (c *Commits) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if ev.Query == "BEGIN" {
		return context.WithValue(ctx, heldKey{c}, &held{})
	}
	return ctx
}

// AfterQuery sends a transaction's held entries once its COMMIT succeeded.
func (c *Commits) AfterQuery(ctx context.Context, ev *bun.QueryEvent) {
	if ev.Query != "COMMIT" || ev.Err != nil {
		return
	}
	hd, _ := ctx.Value(heldKey{c}).(*held)
	if hd == nil {
		return
	}
	hd.mu.Lock()
	entries := hd.entries
	hd.entries = nil
	hd.mu.Unlock()
	for _, e := range entries {
		c.deliver(e)
	}
}

// deliver hands e to OnCommit's receiver, if there is one yet.
func (c *Commits) deliver(e Entry) {
	if fn := c.send.Load(); fn != nil {
		(*fn)(e)
	}
}

// committed hands e on once it is in the database for good: at once when
// it was written through db itself, at its transaction's COMMIT when it
// was written through a bun.Tx whose context (the one RunInTx passes its
// function) holds the list BEGIN made.
func (au *Log) committed(ctx context.Context, db bun.IDB, e Entry) {
	c := au.commits
	if c == nil {
		return
	}
	if _, inTx := db.(bun.Tx); !inTx {
		c.deliver(e)
		return
	}
	hd, _ := ctx.Value(heldKey{c}).(*held)
	if hd == nil {
		// A transaction on a database without the hook (the game's own
		// *bun.DB), or a context not derived from the transaction's: its
		// commit cannot be seen, and sending the entry now could announce
		// a change that rolls back.
		c.missed.Do(func() {
			au.log.WarnContext(ctx, "admin: an audit entry written with RecordTx is not sent to OnAudit: run the transaction with Audit().RunInTx and pass RecordTx the context it gives",
				"action", e.Action)
		})
		return
	}
	hd.mu.Lock()
	hd.entries = append(hd.entries, e)
	hd.mu.Unlock()
}
