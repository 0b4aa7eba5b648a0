package audit

import (
	"context"
	"sync"

	"github.com/uptrace/bun"
)

// An entry is handed on (OnCommit) only once it is in the database for
// good. One written outside a transaction (Record) is, as soon as its
// insert returns. One written through a transaction (RecordTx) is held
// until that transaction commits, and forgotten if it rolls back. Bun has
// no after-commit callback, but it passes every BEGIN and COMMIT through
// the database's query hooks, and the context BEGIN's hooks return is the
// one RunInTx hands its function and COMMIT's hooks receive: txHook puts
// a list of held entries in that context, RecordTx adds to it, and the
// COMMIT that succeeds sends them. This covers every transaction on the
// panel's *bun.DB, the panel's and the game's, in one place.

// OnCommit makes fn receive every entry once it is committed, on the
// goroutine that committed it: fn must not block (the panel's queues it).
// It adds a query hook to the log's database, so that an entry written
// with RecordTx is seen after its transaction commits and never when it
// rolls back. Call it once, before the log is used.
func (au *Log) OnCommit(fn func(Entry)) {
	au.onCommit = fn
	au.db.AddQueryHook(txHook{au})
}

// heldKey is the context key of a transaction's held entries, one per log
// so that two panels on one database keep theirs apart.
type heldKey struct{ au *Log }

// held is a transaction's entries waiting for its COMMIT.
type held struct {
	mu      sync.Mutex
	entries []Entry
}

// txHook is the query hook OnCommit adds.
type txHook struct{ au *Log }

// BeforeQuery gives every transaction, at its BEGIN, a list of held
// entries in the context it will run with.
func (h txHook) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	if ev.Query == "BEGIN" {
		return context.WithValue(ctx, heldKey{h.au}, &held{})
	}
	return ctx
}

// AfterQuery sends a transaction's held entries once its COMMIT succeeded.
func (h txHook) AfterQuery(ctx context.Context, ev *bun.QueryEvent) {
	if ev.Query != "COMMIT" || ev.Err != nil {
		return
	}
	hd, _ := ctx.Value(heldKey{h.au}).(*held)
	if hd == nil {
		return
	}
	hd.mu.Lock()
	entries := hd.entries
	hd.entries = nil
	hd.mu.Unlock()
	for _, e := range entries {
		h.au.onCommit(e)
	}
}

// committed hands e on once it is in the database for good: at once when
// it was written through db itself, at its transaction's COMMIT when it
// was written through a bun.Tx whose context (the one RunInTx passes its
// function) holds the list BEGIN made.
func (au *Log) committed(ctx context.Context, db bun.IDB, e Entry) {
	if au.onCommit == nil {
		return
	}
	if _, inTx := db.(bun.Tx); !inTx {
		au.onCommit(e)
		return
	}
	hd, _ := ctx.Value(heldKey{au}).(*held)
	if hd == nil {
		// A transaction begun before OnCommit, or a context not derived
		// from the transaction's: its commit cannot be seen, and sending
		// the entry now could announce a change that rolls back.
		au.missed.Do(func() {
			au.log.WarnContext(ctx, "admin: an audit entry written with RecordTx is not sent to OnAudit: pass RecordTx the context RunInTx gives its function",
				"action", e.Action)
		})
		return
	}
	hd.mu.Lock()
	hd.entries = append(hd.entries, e)
	hd.mu.Unlock()
}
