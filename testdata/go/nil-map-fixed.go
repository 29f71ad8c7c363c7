//@ expect: safe
//@ engines: explicit/dfs, explicit/bfs, explicit/dpor, explicit/lazypor, explicit/persistent, explicit/process-local, explicit/dfs/stateful, symbolic/z3
// newRegistry makes the map before any goroutine can register, and every access holds
// r.mu; both names are there at the end.

package main

import "sync"

type registry struct {
	mu    sync.Mutex
	names map[string]int
}

func newRegistry() *registry {
	return &registry{names: make(map[string]int)}
}

func (r *registry) register(name string, id int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names[name] = id
}

func main() {
	r := newRegistry()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); r.register("a", 1) }()
	go func() { defer wg.Done(); r.register("b", 2) }()
	wg.Wait()
	if len(r.names) != 2 {
		panic("a name was lost")
	}
}
