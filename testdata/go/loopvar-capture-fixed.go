//@ expect: safe
//@ engines: explicit/dfs/stateful, explicit/dpor, explicit/lazypor, explicit/persistent, explicit/process-local, explicit/bfs
// Declared in the for statement, i is a new variable in each iteration (Go 1.22 and
// later): each goroutine sends its own iteration's value, so the sum is 3.

package main

func main() {
	results := make(chan int, 3)
	for i := 0; i < 3; i++ {
		go func() { results <- i }()
	}
	sum := 0
	for k := 0; k < 3; k++ {
		sum += <-results
	}
	if sum != 3 {
		panic("a goroutine saw another iteration's i")
	}
}
