//@ expect: unsafe
//@ violation: deadlock
// main waits on the condition without checking ready first: if the goroutine signals
// before main's Wait, the Signal wakes nobody and main waits for ever.

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
	cond.Wait()
	_ = ready
	mu.Unlock()
}
