//@ expect: unsafe
//@ violation: panic
// n++ is a read then a write: if both goroutines read 0 before either writes, n ends
// at 1.

package main

import "sync"

func main() {
	n := 0
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() {
			defer wg.Done()
			n++
		}()
	}
	wg.Wait()
	if n != 2 {
		panic("lost update")
	}
}
