//@ expect: safe
// work defers wg.Done, so every path out of it calls it once; errs has room for every
// error, so no worker blocks, and main drains errs after closing it.

package main

import (
	"errors"
	"sync"
)

func work(i int, wg *sync.WaitGroup, errs chan<- error) {
	defer wg.Done()
	if i == 1 {
		errs <- errors.New("bad input")
		return
	}
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
	failures := 0
	for range errs {
		failures++
	}
	if failures != 1 {
		panic("one error expected")
	}
}
