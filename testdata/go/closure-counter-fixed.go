//@ expect: safe
// Each increment holds mu, so the two read-then-write sequences cannot interleave.

package main

import "sync"

func main() {
	n := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 2 {
		panic("lost update")
	}
}
