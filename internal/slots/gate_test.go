package slots

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestGate(t *testing.T) {
	t.Parallel()
	g := NewGate(1)
	ctx := context.Background()
	in, leave, err := g.Enter(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	// Work already inside passes: a request never waits for itself.
	if _, again, err := g.Enter(in, time.Time{}); err != nil {
		t.Fatalf("nested Enter: %v", err)
	} else {
		again()
	}
	// Another waits until the place is given back, or its ctx ends.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, _, err := g.Enter(short, time.Time{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Enter past the bound = %v, want the deadline's error", err)
	}
	if _, _, err := g.Enter(ctx, time.Now().Add(20*time.Millisecond)); !errors.Is(err, ErrBusy) {
		t.Fatalf("Enter past the bound until a time = %v, want ErrBusy", err)
	}
	entered := make(chan func())
	go func() {
		_, l, err := g.Enter(ctx, time.Time{})
		if err != nil {
			t.Error(err)
		}
		entered <- l
	}()
	select {
	case <-entered:
		t.Fatal("a second holder entered a gate of 1 place")
	case <-time.After(20 * time.Millisecond):
	}
	leave()
	leave() // twice gives back one place only
	second := <-entered
	short2, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	if _, _, err := g.Enter(short2, time.Time{}); err == nil {
		t.Fatal("the second leave gave back a place it did not hold")
	}
	second()

	var none *Gate // no bound
	if NewGate(0) != nil || NewGate(-1) != nil {
		t.Fatal("NewGate(<1) bounds something")
	}
	for range 3 {
		if _, _, err := none.Enter(ctx, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := none.Pause(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
}

func TestGatePause(t *testing.T) {
	t.Parallel()
	g := NewGate(1)
	start := time.Now()
	if err := g.Pause(context.Background(), 30*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 30*time.Millisecond {
		t.Fatalf("Pause(30ms) returned after %s", took)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Pause(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Pause on an ended ctx = %v", err)
	}
}
