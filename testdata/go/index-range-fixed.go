//@ expect: safe
//@ engines: explicit/dfs/stateful, explicit/dpor, explicit/persistent, explicit/process-local, explicit/bfs
// main waits for both done signals, each sent after its worker's append, so results
// has two elements when it reads them.

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
	<-done
	<-done
	mu.Lock()
	sum := results[0] + results[1]
	mu.Unlock()
	if sum != 1 {
		panic("a result was lost")
	}
}
