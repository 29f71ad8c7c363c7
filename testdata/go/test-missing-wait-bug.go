//@ expect: unsafe
//@ violation: assertion
//@ args: --entry TestSum
// The test never waits for its workers: if it checks sum before both have added, sum
// is below 3 and t.Fatalf is reached.

package main

import (
	"sync"
	"testing"
)

func TestSum(t *testing.T) {
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sum int
	)
	for i := 1; i <= 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			sum += i
			mu.Unlock()
		}()
	}
	mu.Lock()
	defer mu.Unlock()
	if sum != 3 {
		t.Fatalf("sum = %d, want 3", sum)
	}
}
