package audit

import (
	"context"
	"sync"
	"time"
)

// Anonymous failures — sign-ins and reset requests for emails that match no
// account — say nothing about any account, and a client can send them by
// the thousand. They are collapsed per action and client IP: the first in a
// window is audited as it is; the others of the window are counted, and when
// the window ends one row sums them up:
//
//	{"ip": "...", "collapsed": 41, "emails": ["first", "five", ...], "since": "..."}
//
// So one address costs at most two rows per action and window, whatever it
// sends. Failures for known accounts are never collapsed.
const (
	failureWindow = time.Minute
	// maxFailureKeys bounds the map: past it, new addresses share one key
	// ("*"), so a spread of addresses still costs bounded memory and rows.
	maxFailureKeys = 10000
	// failureEmailSamples is how many attempted emails a collapsed row keeps.
	failureEmailSamples = 5
)

// failureKey is what failures collapse by: an action and a client address
// (ip), or an action and an account (user) for refusals about one account
// whatever the address.
type failureKey struct{ action, ip, user string }

type failureCount struct {
	since  time.Time
	n      int // collapsed: not audited yet
	emails []string
}

// Failures counts the anonymous failures of the current window.
type Failures struct {
	mu   sync.Mutex
	now  func() time.Time // time.Now; tests move a clock
	keys map[failureKey]*failureCount
	done chan struct{}
	once sync.Once
}

// NewFailures returns an empty count. Run Flush to write its rows.
func NewFailures() *Failures {
	return &Failures{now: time.Now, keys: make(map[failureKey]*failureCount), done: make(chan struct{})}
}

// First reports whether this failure opens its window, and so is audited on
// its own row; otherwise it is counted for the window's collapsed row.
func (f *Failures) First(action, ip, email string) bool {
	return f.firstOf(failureKey{action: action, ip: ip}, email)
}

// FirstFor is First for failures collapsed by account: its rows name the
// user as their target instead of an address.
func (f *Failures) FirstFor(action, userID string) bool {
	return f.firstOf(failureKey{action: action, user: userID}, "")
}

func (f *Failures) firstOf(k failureKey, email string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.keys[k]
	if !ok && len(f.keys) >= maxFailureKeys {
		k.ip, k.user = "*", ""
		c, ok = f.keys[k]
	}
	if !ok {
		f.keys[k] = &failureCount{since: f.now()}
		return true
	}
	c.n++
	if len(c.emails) < failureEmailSamples && email != "" {
		c.emails = append(c.emails, email)
	}
	return false
}

// take removes and returns the windows that ended before now (every window
// when all is true).
func (f *Failures) take(all bool) map[failureKey]*failureCount {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	out := map[failureKey]*failureCount{}
	for k, c := range f.keys {
		if all || now.Sub(c.since) >= failureWindow {
			out[k] = c
			delete(f.keys, k)
		}
	}
	return out
}

// Stop ends Flush, which writes the last rows; a second Stop does nothing.
func (f *Failures) Stop() { f.once.Do(func() { close(f.done) }) }

// Flush writes the collapsed rows of ended windows to au, every
// failureWindow, and all of them when Stop is called.
func (f *Failures) Flush(ctx context.Context, au *Log) {
	t := time.NewTicker(failureWindow)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			writeFailures(ctx, au, f.take(false))
		case <-f.done:
			writeFailures(ctx, au, f.take(true))
			return
		}
	}
}

func writeFailures(ctx context.Context, au *Log, counts map[failureKey]*failureCount) {
	for k, c := range counts {
		if c.n == 0 {
			continue
		}
		emails := c.emails
		if emails == nil {
			emails = []string{}
		}
		e := Entry{Action: k.action, Resource: "auth", Payload: map[string]any{
			"ip": k.ip, "collapsed": c.n, "emails": emails, "since": c.since.UTC().Format(time.RFC3339),
		}}
		if k.user != "" { // keyed by the account, not an address
			delete(e.Payload, "ip")
			e.TargetID = k.user
		}
		au.Event(ctx, e)
	}
}
