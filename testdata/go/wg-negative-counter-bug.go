//@ expect: unsafe
//@ violation: panic
// On the error path the worker calls wg.Done and then its deferred wg.Done runs too:
// the counter goes from 1 to 0 to -1, "sync: negative WaitGroup counter", every schedule.

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
			wg.Done()
			return
		}
	}()
	wg.Wait()
}
