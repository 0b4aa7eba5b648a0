package slots

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Gate bounds how much of the panel's database work runs at once in the
// whole process, whoever asks: the panel shares its machine, and often
// its database, with a game whose ticks must not wait for a CPU. Work
// past the bound waits its turn, first come first served. A nil *Gate
// bounds nothing and never pauses.
type Gate struct {
	places chan struct{}
}

// NewGate is a gate of n places; nil (no bound) when n < 1.
func NewGate(n int) *Gate {
	if n < 1 {
		return nil
	}
	return &Gate{places: make(chan struct{}, n)}
}

// inside marks a context whose work holds a place of the gate.
type inside struct{}

// ErrBusy is Enter's error when its wait ran to the time it was given.
var ErrBusy = errors.New("the panel's share of the database is taken")

// Enter waits for a place until ctx ends or the time by (none when zero)
// and returns the context of the work inside and leave, which gives the
// place back (once, however often it is called). Work already inside
// (ctx came from Enter) passes without a second place: a request never
// waits for itself.
func (g *Gate) Enter(ctx context.Context, by time.Time) (_ context.Context, leave func(), err error) {
	if g == nil || ctx.Value(inside{}) != nil {
		return ctx, func() {}, nil
	}
	var expired <-chan time.Time
	if !by.IsZero() {
		t := time.NewTimer(time.Until(by))
		defer t.Stop()
		expired = t.C
	}
	select {
	case g.places <- struct{}{}:
	case <-ctx.Done():
		return ctx, nil, ctx.Err()
	case <-expired:
		return ctx, nil, ErrBusy
	}
	var once sync.Once
	return context.WithValue(ctx, inside{}, true), func() { once.Do(func() { <-g.places }) }, nil
}

// Pause is what a long job (an export, an erase) does between two of its
// batches: it waits as long as the last batch took, so that the job's
// share of a core stays near a half, whatever the number of batches. It
// returns early, with ctx's error, when ctx ends. It is outside the
// gate: the others' work goes on meanwhile.
func (g *Gate) Pause(ctx context.Context, took time.Duration) error {
	if g == nil || took <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(took)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
