//@ expect: unsafe
//@ violation: deadlock
// The worker's select takes default when main is not yet waiting on the unbuffered
// channel: the result is dropped, the worker ends, and main waits for ever.

package main

func main() {
	results := make(chan int)
	go func() {
		select {
		case results <- 7:
		default: // nobody receiving right now: the result is lost
		}
	}()
	<-results
}
