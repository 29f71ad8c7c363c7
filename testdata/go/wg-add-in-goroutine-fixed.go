//@ expect: safe
// main adds each worker to the WaitGroup before starting it, so Wait returns only
// after both Done calls, and n is 2 on every schedule.

package main

import "sync"

type tally struct {
	wg sync.WaitGroup
	mu sync.Mutex
	n  int
}

func (t *tally) work() {
	defer t.wg.Done()
	t.mu.Lock()
	t.n++
	t.mu.Unlock()
}

func main() {
	t := &tally{}
	for i := 0; i < 2; i++ {
		t.wg.Add(1)
		go t.work()
	}
	t.wg.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n != 2 {
		panic("Wait returned before the workers finished")
	}
}
