//@ expect: safe
// A buffered channel of one slot is a mutex: the second goroutine's send blocks until
// the first has received its token back, so the increments never interleave.

package main

import "sync"

func main() {
	sem := make(chan struct{}, 1)
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
