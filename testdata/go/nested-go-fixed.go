//@ expect: safe
// scan reads the field itself while it holds its one read lock, so a waiting writer
// only waits for that lock's release, which always comes, whichever goroutine
// starts the writer and whenever.

package main

import "sync"

type store struct {
	mu    sync.RWMutex
	items int
}

func (s *store) scan() {
	s.mu.RLock()
	_ = s.items
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
