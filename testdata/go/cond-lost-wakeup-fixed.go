//@ expect: safe
// main waits only while ready is false, checked under the mutex: a Signal sent before
// main looks is not needed, and one sent after wakes main's Wait.

package main

import "sync"

func main() {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready := false
	go func() {
		mu.Lock()
		ready = true
		cond.Signal()
		mu.Unlock()
	}()
	mu.Lock()
	for !ready {
		cond.Wait()
	}
	mu.Unlock()
}
