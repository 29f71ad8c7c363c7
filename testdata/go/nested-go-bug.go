//@ expect: unsafe
//@ violation: leak
// The writer is a goroutine that another goroutine starts. If it calls Lock between
// the scanner's two read locks, Go's writer preference blocks the second RLock
// behind the waiting writer, which waits for the first: both are left waiting when
// main returns. (A search that reduces by persistent sets must count the starter of
// a goroutine not started yet among the threads that may enable it.)

package main

import "sync"

type store struct {
	mu    sync.RWMutex
	items int
}

func (s *store) status() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.items
}

func (s *store) scan() {
	s.mu.RLock()
	_ = s.status() // a second read lock while holding the first
	s.mu.RUnlock()
}

func (s *store) process() {
	go func() {
		s.mu.Lock()
		s.items++
		s.mu.Unlock()
	}()
}

func main() {
	s := &store{}
	go s.scan()
	go s.process()
}
