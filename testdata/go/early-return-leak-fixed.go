//@ expect: safe
// The result channel has room for the one result: the worker's send never blocks, so
// it terminates whether or not fetch receives.

package main

import "errors"

func fetch(fail bool) (int, error) {
	result := make(chan int, 1)
	go func() { result <- 42 }()
	if fail {
		return 0, errors.New("request rejected")
	}
	return <-result, nil
}

func main() {
	_, _ = fetch(true)
}
