package passhash

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGateBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			g := NewGate(n)
			var running, peak atomic.Int32
			var wg sync.WaitGroup
			for range 20 {
				wg.Go(func() {
					err := g.Do(context.Background(), func() {
						cur := running.Add(1)
						for {
							p := peak.Load()
							if cur <= p || peak.CompareAndSwap(p, cur) {
								break
							}
						}
						time.Sleep(2 * time.Millisecond)
						running.Add(-1)
					})
					if err != nil {
						t.Errorf("do: %v", err)
					}
				})
			}
			wg.Wait()
			if p := peak.Load(); p > int32(n) || p < 1 {
				t.Errorf("peak of %d functions at once; want at most %d", p, n)
			}
		})
	}
}

func TestGateDefault(t *testing.T) {
	t.Parallel()
	if g, want := NewGate(0), runtime.GOMAXPROCS(0); cap(g.sem) != want {
		t.Errorf("NewGate(0) lets %d run; want GOMAXPROCS = %d", cap(g.sem), want)
	}
	if g := NewGate(3); cap(g.sem) != 3 {
		t.Errorf("NewGate(3) lets %d run; want 3", cap(g.sem))
	}
}

func TestGateCancel(t *testing.T) {
	t.Parallel()
	g := NewGate(1)
	release := make(chan struct{})
	held := make(chan struct{})
	go g.Do(context.Background(), func() { close(held); <-release })
	<-held

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ran := false
	go func() { done <- g.Do(ctx, func() { ran = true }) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("do with a cancelled ctx = %v; want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("do did not return after its ctx was cancelled")
	}
	if ran {
		t.Error("fn ran although ctx was cancelled while waiting")
	}

	// Already cancelled: refused at once even with a free slot.
	close(release)
	if err := g.Do(ctx, func() { ran = true }); !errors.Is(err, context.Canceled) || ran {
		t.Errorf("do(cancelled ctx) = %v, ran %v; want context.Canceled without running", err, ran)
	}
	if err := g.Do(context.Background(), func() {}); err != nil {
		t.Errorf("do after release = %v; want nil (the slot must be given back)", err)
	}
}
