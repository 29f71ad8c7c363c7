//@ expect: unsafe
//@ violation: deadlock
// addTwice holds c.mu and calls incr, which locks c.mu again: Go's mutexes are not
// reentrant, so main blocks on its own lock and no goroutine can move, every schedule.

package main

import "sync"

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) incr() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *counter) addTwice() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.incr()
	c.incr()
}

func main() {
	c := &counter{}
	c.addTwice()
}
