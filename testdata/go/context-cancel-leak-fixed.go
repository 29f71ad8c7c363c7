//@ expect: safe
// The worker's send is a select that also waits on ctx.Done: when search has returned
// on the cancellation, the worker sees it too and ends.

package main

import "context"

func search(ctx context.Context) (int, error) {
	out := make(chan int)
	go func() {
		select {
		case out <- 42:
		case <-ctx.Done():
		}
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
