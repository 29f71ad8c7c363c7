//@ expect: safe
// Each send is a select with ctx.Done: when main has returned at the deadline, the
// producer's select takes ctx.Done (closed at the deadline) instead of waiting.

package main

import (
	"context"
	"time"
)

func produce(ctx context.Context, out chan<- int) {
	for i := 0; i < 3; i++ {
		select {
		case out <- i:
		case <-ctx.Done():
			return
		}
	}
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out := make(chan int)
	go produce(ctx, out)
	for i := 0; i < 3; i++ {
		select {
		case <-out:
		case <-ctx.Done():
			return
		}
	}
}
