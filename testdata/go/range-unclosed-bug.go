//@ expect: unsafe
//@ violation: leak
// main sends three values and returns without closing ch: the consumer's range waits
// for a fourth value or a close that never comes, every schedule.

package main

func main() {
	ch := make(chan int)
	go func() {
		for v := range ch {
			_ = v
		}
	}()
	for i := 0; i < 3; i++ {
		ch <- i
	}
}
