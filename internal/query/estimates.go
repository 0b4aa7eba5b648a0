package query

import (
	"hash/maphash"
	"sync"
	"time"
)

// Estimates remembers the row estimates of tables, unfiltered and
// by filter, for a short while, so a busy list of a big table asks the
// statistics once a moment instead of once a page. An estimate only
// decides how to count: a small result is still counted exactly, and
// always anew. The statistics themselves move only with ANALYZE, VACUUM
// or the table's growth, so an answer a second old is as good as a fresh
// one. At most maxEstimates filters are kept; past that the cache starts
// over. The zero value is not usable; use NewEstimates. Safe for
// concurrent use.
type Estimates struct {
	// Now is the clock: time.Now (a cache keeps the real time, as
	// Options.Clock says); tests move a fake one instead of sleeping.
	Now func() time.Time

	ttl  time.Duration
	seed maphash.Seed
	mu   sync.Mutex
	m    map[uint64]estimateEntry // by the hash of the key: a filter may be long
}

type estimateEntry struct {
	n       int64
	expires time.Time
}

// NewEstimates returns a cache that keeps an estimate for ttl.
func NewEstimates(ttl time.Duration) *Estimates {
	return &Estimates{Now: time.Now, ttl: ttl, seed: maphash.MakeSeed(), m: map[uint64]estimateEntry{}}
}

func (e *Estimates) get(key string) (int64, bool) {
	if e == nil {
		return 0, false
	}
	now := e.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.m[maphash.String(e.seed, key)]
	if !ok || now.After(c.expires) {
		return 0, false
	}
	return c.n, true
}

// maxEstimates bounds the cache: clients choose the filters.
const maxEstimates = 1024

func (e *Estimates) put(key string, n int64) {
	if e == nil {
		return
	}
	now := e.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.m) >= maxEstimates {
		clear(e.m)
	}
	e.m[maphash.String(e.seed, key)] = estimateEntry{n: n, expires: now.Add(e.ttl)}
}
