//@ expect: unsafe
//@ violation: deadlock
// transfer locks from then to: one goroutine locks a then b, the other b then a. If
// each takes its first lock before the other takes its second, both wait for ever and
// main waits in wg.Wait: all goroutines are asleep.

package main

import "sync"

type account struct {
	mu      sync.Mutex
	balance int
}

func transfer(from, to *account, amount int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.balance -= amount
	to.balance += amount
}

func main() {
	a, b := &account{balance: 10}, &account{balance: 10}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); transfer(a, b, 1) }()
	go func() { defer wg.Done(); transfer(b, a, 2) }()
	wg.Wait()
}
