package compgen

import (
	"container/heap"
	"fmt"
	"math/rand/v2"

	"kbmc/detect"
)

// sim is a discrete-event simulation of message passing, as Stoller §6
// describes its simulator: message latencies and other delays are 1 + exp(1)
// (an exponential distribution with mean 1), and the run halts when some
// process has executed limit events. It records the computation as it goes.
type sim struct {
	rng    *rand.Rand
	b      *detect.Builder
	clocks [][]int64
	count  []int
	limit  int
	now    float64
	queue  timeline
	seq    int
	halted bool
}

func newSim(rng *rand.Rand, name string, names []string, limit int) *sim {
	s := &sim{rng: rng, b: detect.NewBuilder(name, nil, names), limit: limit,
		clocks: make([][]int64, len(names)), count: make([]int, len(names))}
	for i := range s.clocks {
		s.clocks[i] = make([]int64, len(names))
	}
	return s
}

// delay draws a latency or think time.
func (s *sim) delay() float64 { return 1 + s.rng.ExpFloat64() }

// after runs fn at now+d, unless the run has halted by then.
func (s *sim) after(d float64, fn func()) {
	s.seq++
	heap.Push(&s.queue, timed{at: s.now + d, seq: s.seq, fn: fn})
}

func (s *sim) run() *detect.Computation {
	for s.queue.Len() > 0 && !s.halted {
		t := heap.Pop(&s.queue).(timed)
		s.now = t.at
		t.fn()
	}
	c, err := s.b.Build()
	if err != nil {
		panic("compgen: a simulated computation does not build: " + err.Error())
	}
	return c
}

// A set is a variable assignment of an event.
type set struct {
	name string
	v    detect.Value
}

// event records an event of process p: it ticks p's clock, merges the clock of
// a received message (nil for other events), and sets variables. It reports
// false once the run has halted, and then records nothing.
func (s *sim) event(p int, kind detect.Kind, text string, msg []int64, sets ...set) bool {
	if s.halted {
		return false
	}
	c := s.clocks[p]
	c[p]++
	for j, v := range msg {
		c[j] = max(c[j], v)
	}
	s.b.Event(p, kind, text, detect.Pos{}, c)
	for _, a := range sets {
		s.b.Set(p, a.name, a.v, detect.Pos{})
	}
	s.count[p]++
	if s.count[p] >= s.limit {
		s.halted = true
	}
	return true
}

// send records a send event of p to each of to (a multicast is one event) and
// delivers a copy of p's clock to each after a random latency.
func (s *sim) send(p int, to []int, text string, deliver func(to int, clock []int64), sets ...set) {
	if !s.event(p, detect.Send, text, nil, sets...) {
		return
	}
	clock := append([]int64(nil), s.clocks[p]...)
	for _, q := range to {
		s.after(s.delay(), func() { deliver(q, clock) })
	}
}

type timed struct {
	at  float64
	seq int
	fn  func()
}

// timeline is a min-heap of timed actions, in time order, ties in order of
// scheduling.
type timeline []timed

func (t timeline) Len() int { return len(t) }
func (t timeline) Less(i, j int) bool {
	return t[i].at < t[j].at || t[i].at == t[j].at && t[i].seq < t[j].seq
}
func (t timeline) Swap(i, j int) { t[i], t[j] = t[j], t[i] }
func (t *timeline) Push(x any)   { *t = append(*t, x.(timed)) }
func (t *timeline) Pop() any {
	old := *t
	x := old[len(old)-1]
	*t = old[:len(old)-1]
	return x
}

func indexed(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s[%d]", prefix, i)
	}
	return names
}

func others(n int, not ...int) []int {
	var out []int
	for i := range n {
		skip := false
		for _, x := range not {
			skip = skip || i == x
		}
		if !skip {
			out = append(out, i)
		}
	}
	return out
}

func intv(n int) detect.Value   { return detect.IntVal(int64(n)) }
func boolv(b bool) detect.Value { return detect.BoolVal(b) }
