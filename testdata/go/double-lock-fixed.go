//@ expect: safe
// addTwice calls incrLocked, which expects the caller to hold c.mu: the lock is taken
// once, and the final check holds on the only schedule.

package main

import "sync"

type counter struct {
	mu sync.Mutex
	n  int
}

// incrLocked must be called with c.mu held.
func (c *counter) incrLocked() {
	c.n++
}

func (c *counter) addTwice() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.incrLocked()
	c.incrLocked()
}

func main() {
	c := &counter{}
	c.addTwice()
	if c.n != 2 {
		panic("lost increment")
	}
}
