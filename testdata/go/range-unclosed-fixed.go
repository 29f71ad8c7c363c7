//@ expect: safe
// main closes ch after its last send, which ends the consumer's range, and waits for
// the consumer's done before returning.

package main

func main() {
	ch := make(chan int)
	done := make(chan int)
	go func() {
		sum := 0
		for v := range ch {
			sum += v
		}
		done <- sum
	}()
	for i := 0; i < 3; i++ {
		ch <- i
	}
	close(ch)
	if <-done != 3 {
		panic("value lost")
	}
}
