//@ expect: safe
// main reads the field directly while it holds its one read lock (getLocked): a
// waiting writer only waits for that lock's release, which always comes.

package main

import "sync"

type config struct {
	mu   sync.RWMutex
	port int
}

// getLocked must be called with c.mu held for reading or writing.
func (c *config) getLocked() int {
	return c.port
}

func main() {
	c := &config{port: 80}
	done := make(chan struct{})
	go func() {
		c.mu.Lock()
		c.port = 8080
		c.mu.Unlock()
		close(done)
	}()
	c.mu.RLock()
	_ = c.getLocked()
	c.mu.RUnlock()
	<-done
}
