//@ expect: safe
// The sender owns the channel and closes it after its last send; main ranges until
// the close, so no send can follow the close on any schedule.

package main

func main() {
	ch := make(chan int, 2)
	go func() {
		defer close(ch)
		ch <- 1
		ch <- 2
	}()
	sum := 0
	for v := range ch {
		sum += v
	}
	if sum != 3 {
		panic("message lost")
	}
}
