//@ expect: unsafe
//@ violation: deadlock
// Worker 1 reports its error and returns without wg.Done: the counter stays at 1, so
// main waits in wg.Wait for ever after both workers have ended, every schedule.

package main

import (
	"errors"
	"sync"
)

func work(i int, wg *sync.WaitGroup, errs chan<- error) {
	if i == 1 {
		errs <- errors.New("bad input")
		return
	}
	wg.Done()
}

func main() {
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go work(i, &wg, errs)
	}
	wg.Wait()
	close(errs)
	for range errs {
	}
}
