package query

import (
	"sync"
	"time"
)

// Estimates remembers the unfiltered row estimates of large tables for a
// short while, so a busy list of a big table asks the statistics once a
// moment instead of once a page. Only an estimate at or past the exact
// threshold is kept: a small table's count is exact and always read
// anew. The statistics themselves move only with ANALYZE, VACUUM or the
// table's growth, so an answer a second old is as good as a fresh one.
// The zero value is not usable; use NewEstimates. Safe for concurrent use.
type Estimates struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]estimateEntry
}

type estimateEntry struct {
	n       int64
	expires time.Time
}

// NewEstimates returns a cache that keeps an estimate for ttl.
func NewEstimates(ttl time.Duration) *Estimates {
	return &Estimates{ttl: ttl, m: map[string]estimateEntry{}}
}

func (e *Estimates) get(table string, now time.Time) (int64, bool) {
	if e == nil {
		return 0, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.m[table]
	if !ok || now.After(c.expires) {
		return 0, false
	}
	return c.n, true
}

func (e *Estimates) put(table string, n int64, now time.Time) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.m[table] = estimateEntry{n: n, expires: now.Add(e.ttl)}
}
