//@ expect: unsafe
//@ violation: leak
// The timer may fire before the worker sends: main returns on the timeout and the
// worker's send on the unbuffered channel blocks for ever.

package main

import "time"

func main() {
	res := make(chan int)
	go func() { res <- 1 }()
	select {
	case <-res:
	case <-time.After(time.Second):
	}
}
