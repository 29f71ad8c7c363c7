//@ expect: unsafe
//@ violation: panic
// The workers call wg.Add themselves: if main reaches wg.Wait before either worker has
// run, the counter is 0, Wait returns at once and main sees n == 0.

package main

import "sync"

type tally struct {
	wg sync.WaitGroup
	mu sync.Mutex
	n  int
}

func (t *tally) work() {
	t.wg.Add(1) // too late: main may already be in Wait
	defer t.wg.Done()
	t.mu.Lock()
	t.n++
	t.mu.Unlock()
}

func main() {
	t := &tally{}
	for i := 0; i < 2; i++ {
		go t.work()
	}
	t.wg.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n != 2 {
		panic("Wait returned before the workers finished")
	}
}
