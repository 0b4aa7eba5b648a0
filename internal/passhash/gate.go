package passhash

import (
	"context"
	"runtime"
)

// Gate bounds how many password hashes run at once, so that a flood of
// sign-ins queues instead of using up every CPU and, with argon2id's memory
// cost, the heap.
type Gate struct {
	sem chan struct{}
}

// NewGate returns a gate letting n functions run at once;
// n <= 0 means runtime.GOMAXPROCS(0).
func NewGate(n int) *Gate {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return &Gate{sem: make(chan struct{}, n)}
}

// Do runs fn once a slot is free. A caller still waiting when ctx ends gets
// ctx.Err() and fn does not run; fn itself is never interrupted.
func (g *Gate) Do(ctx context.Context, fn func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-g.sem }()
	fn()
	return nil
}
