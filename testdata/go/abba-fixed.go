//@ expect: safe
//@ engines: explicit/dfs/stateful, explicit/dpor, explicit/lazypor, explicit/persistent, explicit/process-local, explicit/bfs
// transfer always locks the account with the lower id first, whatever the direction:
// one global lock order, so no cycle of waits; the total is kept on every schedule.

package main

import "sync"

type account struct {
	id      int
	mu      sync.Mutex
	balance int
}

func transfer(from, to *account, amount int) {
	first, second := from, to
	if to.id < from.id {
		first, second = to, from
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	second.mu.Lock()
	defer second.mu.Unlock()
	from.balance -= amount
	to.balance += amount
}

func main() {
	a, b := &account{id: 1, balance: 10}, &account{id: 2, balance: 10}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); transfer(a, b, 1) }()
	go func() { defer wg.Done(); transfer(b, a, 2) }()
	wg.Wait()
	if a.balance+b.balance != 20 {
		panic("money created or lost")
	}
}
