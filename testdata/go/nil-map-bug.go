//@ expect: unsafe
//@ violation: panic
// The registry is built without its map: the first register writes to a nil map,
// "assignment to entry in nil map", whichever goroutine gets there first.

package main

import "sync"

type registry struct {
	mu    sync.Mutex
	names map[string]int
}

func (r *registry) register(name string, id int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names[name] = id
}

func main() {
	r := &registry{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); r.register("a", 1) }()
	go func() { defer wg.Done(); r.register("b", 2) }()
	wg.Wait()
}
