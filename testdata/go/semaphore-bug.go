//@ expect: unsafe
//@ violation: panic
// The semaphore has two slots, so both goroutines can be inside the critical section
// at once: both read n == 0 before either writes, and n ends at 1.

package main

import "sync"

func main() {
	sem := make(chan struct{}, 2)
	n := 0
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			n++
			<-sem
		}()
	}
	wg.Wait()
	if n != 2 {
		panic("lost update")
	}
}
