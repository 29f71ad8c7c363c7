//@ expect: unsafe
//@ violation: leak
// main takes one item and closes done, but the producer does not watch done: its
// second send on the unbuffered channel blocks for ever, every schedule.

package main

func produce(items chan<- int, done <-chan struct{}) {
	for i := 0; i < 3; i++ {
		items <- i
	}
}

func main() {
	items := make(chan int)
	done := make(chan struct{})
	go produce(items, done)
	first := <-items
	close(done)
	_ = first
}
