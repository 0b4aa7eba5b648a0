// Package slots bounds how many requests of one kind each operator runs at
// once, per process: one CSV export, a few expensive queries.
package slots

import "sync"

// Slots counts the requests each key (an operator's user id) holds. The
// zero value is ready.
type Slots struct {
	mu   sync.Mutex
	held map[string]int
}

// Hold takes one of key's n slots; ok is false when all n are held.
// release gives it back, once however often it is called.
func (s *Slots) Hold(key string, n int) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[string]int{}
	}
	if s.held[key] >= n {
		return nil, false
	}
	s.held[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.held[key]--; s.held[key] <= 0 {
				delete(s.held, key)
			}
		})
	}, true
}
