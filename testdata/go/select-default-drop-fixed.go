//@ expect: safe
// The worker sends without a default case: it waits until main receives.

package main

func main() {
	results := make(chan int)
	go func() {
		results <- 7
	}()
	if <-results != 7 {
		panic("wrong result")
	}
}
