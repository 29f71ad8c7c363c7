//@ expect: safe
// update releases s.mu before it notifies: the watcher can always take s.mu, then
// receive the notification.

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
	s.version++
	v := s.version
	s.mu.Unlock()
	s.n.notify(v)
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
