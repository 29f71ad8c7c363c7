//@ expect: safe
// Each send is a select with a case for done: once main has closed done, the producer
// returns instead of waiting for a receiver.

package main

func produce(items chan<- int, done <-chan struct{}) {
	for i := 0; i < 3; i++ {
		select {
		case items <- i:
		case <-done:
			return
		}
	}
}

func main() {
	items := make(chan int)
	done := make(chan struct{})
	go produce(items, done)
	first := <-items
	close(done)
	if first != 0 {
		panic("items out of order")
	}
}
