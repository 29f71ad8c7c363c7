//@ expect: safe
//@ engines: explicit/dfs/stateful, explicit/dpor, explicit/lazypor, explicit/persistent, explicit/process-local, explicit/bfs
//@ args: --entry TestSum
// The test waits for both workers before it checks; i is a new variable in each
// iteration (Go 1.22), so the workers add 1 and 2.

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
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if sum != 3 {
		t.Fatalf("sum = %d, want 3", sum)
	}
}
