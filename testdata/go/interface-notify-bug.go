//@ expect: unsafe
//@ violation: deadlock
// update calls the notifier while holding s.mu; the channel notifier's send waits for
// the watcher, which first needs s.mu in current: if update locks first, each waits
// for the other and main waits in wg.Wait.

package main

import "sync"

type notifier interface {
	notify(version int)
}

type chanNotifier struct{ ch chan int }

func (c *chanNotifier) notify(version int) { c.ch <- version }

type countNotifier struct{ calls int }

func (c *countNotifier) notify(int) { c.calls++ }

type server struct {
	mu      sync.Mutex
	version int
	n       notifier
}

func (s *server) update() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	s.n.notify(s.version) // called with s.mu held
}

func (s *server) current() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

func main() {
	quiet := &server{n: &countNotifier{}}
	quiet.update()

	ch := make(chan int)
	s := &server{n: &chanNotifier{ch: ch}}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.update() }()
	go func() { defer wg.Done(); _ = s.current(); <-ch }()
	wg.Wait()
}
