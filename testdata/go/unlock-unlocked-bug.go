//@ expect: unsafe
//@ violation: panic
// On an insufficient balance withdraw unlocks a.mu and then its deferred Unlock runs
// too: one of the Unlocks finds the mutex unlocked, "sync: unlock of unlocked mutex".
// The second withdrawal always finds 20 < 30, so every schedule reaches it.

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
		a.mu.Unlock()
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
}
