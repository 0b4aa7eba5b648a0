package slots

import "testing"

func TestHold(t *testing.T) {
	t.Parallel()
	var s Slots
	release, ok := s.Hold("u1", 1)
	if !ok {
		t.Fatal("first Hold refused")
	}
	if _, ok := s.Hold("u1", 1); ok {
		t.Fatal("a second request of u1 was let run past 1")
	}
	other, ok := s.Hold("u2", 1)
	if !ok {
		t.Fatal("u2 refused while u1 holds its slot")
	}
	release()
	release() // twice is harmless
	again, ok := s.Hold("u1", 1)
	if !ok {
		t.Fatal("u1 refused after release")
	}
	if _, ok := s.Hold("u1", 2); !ok {
		t.Fatal("u1 refused its second of 2 slots")
	}
	if _, ok := s.Hold("u1", 2); ok {
		t.Fatal("u1 given a third of 2 slots")
	}
	again()
	other()
}
