//@ expect: safe
//@ engines: explicit/dfs/stateful, explicit/dpor, explicit/lazypor, explicit/persistent, explicit/process-local, explicit/bfs
// Stop closes s.done inside a sync.Once: only the first call closes it, and a second
// caller waits in Do until the first has returned.

package main

import "sync"

type server struct {
	once sync.Once
	done chan struct{}
}

func (s *server) Stop() {
	s.once.Do(func() { close(s.done) })
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
