//@ expect: unsafe
//@ violation: panic
// main closes the channel without waiting for the sender: if close runs before the
// goroutine's send, the send panics with "send on closed channel".

package main

func main() {
	ch := make(chan int, 2)
	go func() { ch <- 1 }()
	close(ch)
	for v := range ch {
		_ = v
	}
}
