//@ expect: safe
// The deferred wg.Done is the only one: the counter goes from 1 to 0 once.

package main

import (
	"errors"
	"sync"
)

func step(i int) error {
	if i == 1 {
		return errors.New("step failed")
	}
	return nil
}

func main() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := step(1); err != nil {
			return
		}
	}()
	wg.Wait()
}
