//@ expect: unsafe
//@ violation: panic
//@ engines: explicit/dfs, explicit/bfs, explicit/dpor, explicit/lazypor, explicit/persistent, explicit/process-local, explicit/dfs/stateful, symbolic/gini
// main waits for one done signal but reads two results: if only one worker has
// appended by then, results[1] is out of range.

package main

import "sync"

func main() {
	var mu sync.Mutex
	var results []int
	done := make(chan struct{}, 2)
	for i := 0; i < 2; i++ {
		go func() {
			mu.Lock()
			results = append(results, i)
			mu.Unlock()
			done <- struct{}{}
		}()
	}
	<-done // one worker only
	mu.Lock()
	second := results[1]
	mu.Unlock()
	_ = second
}
