//@ expect: unsafe
//@ violation: leak
// The producer checks ctx.Err before each send, but the deadline may pass between the
// check and the send: main has returned on ctx.Done and the unbuffered send blocks.

package main

import (
	"context"
	"time"
)

func produce(ctx context.Context, out chan<- int) {
	for i := 0; i < 3; i++ {
		if ctx.Err() != nil {
			return
		}
		out <- i // the deadline may pass after the check
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
