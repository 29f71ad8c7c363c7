//@ expect: safe
// The deferred Unlock is the only one: each withdrawal unlocks once; exactly one of the
// two succeeds and the balance never goes below zero.

package main

import "sync"

type account struct {
	mu      sync.Mutex
	balance int
}

func (a *account) withdraw(amount int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.balance < amount {
		return false
	}
	a.balance -= amount
	return true
}

func main() {
	a := &account{balance: 50}
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() { defer wg.Done(); a.withdraw(30) }()
	}
	wg.Wait()
	if a.balance != 20 {
		panic("balance wrong")
	}
}
