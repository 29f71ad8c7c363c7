//@ expect: unsafe
//@ violation: leak
// search returns on ctx.Done (cancelled by the other goroutine) without receiving the
// worker's result: the worker's unbuffered send blocks for ever.

package main

import "context"

func search(ctx context.Context) (int, error) {
	out := make(chan int)
	go func() {
		out <- 42 // no case for ctx.Done: blocks once search has returned
	}()
	select {
	case v := <-out:
		return v, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	_, _ = search(ctx)
}
