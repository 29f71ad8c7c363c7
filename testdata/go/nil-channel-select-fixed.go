//@ expect: safe
//@ engines: explicit/dfs/stateful, explicit/dpor, explicit/persistent, explicit/process-local, explicit/bfs
// merge stops when both inputs are nil (closed and drained) and closes out; main reads
// until the close.

package main

func merge(a, b <-chan int, out chan<- int) {
	defer close(out)
	for a != nil || b != nil {
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
	sum := 0
	for v := range out {
		sum += v
	}
	if sum != 3 {
		panic("value lost")
	}
}
