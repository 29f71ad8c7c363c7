//@ expect: unsafe
//@ violation: leak
// merge sets a closed input to nil to disable its case, but loops for ever: once both
// inputs are nil its select waits on two nil channels, which block for ever.

package main

func merge(a, b <-chan int, out chan<- int) {
	for {
		select {
		case v, ok := <-a:
			if !ok {
				a = nil
				continue
			}
			out <- v
		case v, ok := <-b:
			if !ok {
				b = nil
				continue
			}
			out <- v
		}
	}
}

func main() {
	a, b, out := make(chan int), make(chan int), make(chan int)
	go func() { a <- 1; close(a) }()
	go func() { b <- 2; close(b) }()
	go merge(a, b, out)
	if <-out+<-out != 3 {
		panic("value lost")
	}
}
