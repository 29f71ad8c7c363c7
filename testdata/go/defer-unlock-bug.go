//@ expect: unsafe
//@ violation: deadlock
// get returns early on a missing key still holding c.mu: if get("b") runs first, the
// other goroutine's get blocks on c.mu for ever and main waits in wg.Wait.

package main

import "sync"

type cache struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *cache) get(key string) (int, bool) {
	c.mu.Lock()
	v, ok := c.m[key]
	if !ok {
		return 0, false // returns without c.mu.Unlock()
	}
	c.mu.Unlock()
	return v, true
}

func main() {
	c := &cache{m: map[string]int{"a": 1}}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.get("a") }()
	go func() { defer wg.Done(); c.get("b") }()
	wg.Wait()
}
