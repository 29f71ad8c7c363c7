//@ expect: unsafe
//@ violation: deadlock
// main read-locks twice. If the writer calls Lock between the two RLocks, Go's writer
// preference blocks the second RLock behind the waiting writer, which waits for the
// first read lock: main and the writer wait for each other.

package main

import "sync"

type config struct {
	mu   sync.RWMutex
	port int
}

func (c *config) get() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
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
	_ = c.get() // a second read lock while holding the first
	c.mu.RUnlock()
	<-done
}
