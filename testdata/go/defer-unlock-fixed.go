//@ expect: safe
// get defers the unlock, so every return path releases c.mu.

package main

import "sync"

type cache struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *cache) get(key string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	if !ok {
		return 0, false
	}
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
