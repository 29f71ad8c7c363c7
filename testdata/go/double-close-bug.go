//@ expect: unsafe
//@ violation: panic
// Both goroutines call Stop, and each Stop closes s.done: the second close panics with
// "close of closed channel", whichever order they run in.

package main

import "sync"

type server struct {
	done chan struct{}
}

func (s *server) Stop() {
	close(s.done)
}

func main() {
	s := &server{done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() {
			defer wg.Done()
			s.Stop()
		}()
	}
	wg.Wait()
	<-s.done
}
