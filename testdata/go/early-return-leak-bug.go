//@ expect: unsafe
//@ violation: leak
// fetch returns early on an error without receiving the worker's result: the worker
// blocks for ever on its unbuffered send once main has returned, under every schedule.

package main

import "errors"

func fetch(fail bool) (int, error) {
	result := make(chan int)
	go func() { result <- 42 }()
	if fail {
		return 0, errors.New("request rejected")
	}
	return <-result, nil
}

func main() {
	_, _ = fetch(true)
}
