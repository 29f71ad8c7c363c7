//@ expect: safe
// The channel has room for the result: on a timeout the worker's send still completes,
// and the timer itself is no goroutine that could leak.

package main

import "time"

func main() {
	res := make(chan int, 1)
	go func() { res <- 1 }()
	select {
	case <-res:
	case <-time.After(time.Second):
	}
}
