package explicit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"kbmc/ir"
	"kbmc/verify"
)

// BPORPreempt is the preemption-bounded search of Coons, Musuvathi and McKinley's
// "Bounded Partial-Order Reduction" (OOPSLA 2013, and its proofs): Algorithm 1
// with the Initialize and Backtrack of Algorithm 2. It explores every execution with
// at most Preemptions preemptions (Def. 1.5: a step by another thread while the
// previous step's thread is still enabled), up to partial-order equivalence; a
// negative bound means no bound. The verdict is bounded-safe when the bound kept the
// search from some step.
//
// Like DPOR, a path cut by the depth bound backtracks on every enabled thread along
// it (the proofs assume an acyclic state space searched to the end).
type BPORPreempt struct {
	Options
}

// Check runs the search.
func (b BPORPreempt) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	return check(ctx, p, "bpor-preempt", b)
}

func (b BPORPreempt) options() Options { return b.Options }

func (b BPORPreempt) start(x *executor, sh *sharing) (runner, error) {
	return bporRun{opts: b.Options, sh: sh}, nil
}

// BPORFair is the fair-bounded search of the same paper: Algorithm 1 with the
// Initialize and Backtrack of Algorithm 3. The fair bound Fair limits how many more
// yields (`yield;` steps) a scheduled thread may have made than an enabled thread
// (Def. 1.9), so spin loops that yield cannot starve the thread they wait for. A
// release operation — one that may enable another thread: unlock, a write to a
// variable some await, assume, lock index or join index reads, or the last step of
// a thread somebody joins — backtracks on every enabled thread. If MaxSteps > 0 and
// an execution within the fair bound runs past MaxSteps steps, the search stops and
// reports a possible livelock with verdict unknown (Algorithm 3, lines 2-3). A
// negative bound means no bound.
type BPORFair struct {
	Options
}

// Check runs the search.
func (b BPORFair) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	return check(ctx, p, "bpor-fair", b)
}

func (b BPORFair) options() Options { return b.Options }

func (b BPORFair) start(x *executor, sh *sharing) (runner, error) {
	return bporRun{opts: b.Options, sh: sh, fair: true}, nil
}

// bporRun is one run of BPOR: its searches give work away to the driver's
// pool, if the run has one.
type bporRun struct {
	opts Options
	sh   *sharing
	fair bool
}

func (r bporRun) finish() error { return nil }

func (r bporRun) search(w *worker) search {
	p := w.p
	s := &bporSearch{porStack: newPORStack(w, false), fair: r.fair, found: newBitSet(len(p.Threads))}
	s.bound = r.opts.Preemptions
	if r.fair {
		s.bound = r.opts.Fair
		s.release = releases(p)
		s.yields = make([]int, len(p.Threads))
		s.maxSteps = r.opts.MaxSteps
	}
	if s.bound < 0 {
		s.bound = math.MaxInt
	}
	s.pool = r.sh.pool
	s.capture = s.captureTask
	return s
}

// explore explores a task: the search from its root, or work another search
// gave away.
func (s *bporSearch) explore(t *task) {
	x := s.x
	s.begin(t)
	if st, ok := t.stolen.(*porTask); ok && st.depth >= 0 {
		s.resume(st)
		return
	}
	if s.fair {
		clear(s.yields)
		if x.from != nil && x.from.yields != nil {
			copy(s.yields, x.from.yields)
		}
	}
	copy(s.frame(0).state, x.initial())
	cost := 0
	if x.from != nil {
		cost = x.from.cost
	}
	s.costs = append(s.costs[:0], cost)
	s.visit(0)
}

type bporSearch struct {
	*porStack
	fair     bool
	bound    int // c
	found    bitSet
	release  [][]bool // fair: per thread, per control location: may its transition release?
	yields   []int    // fair: per thread, yields on the current path
	maxSteps int
	costs    []int // costs[d]: Pb or Fb of the path's steps up to depth d
}

func (s *bporSearch) stopped() bool { return s.x.done() }

// visit is Algorithm 1's Explore(S) for the execution on the stack, |S| = d.
func (s *bporSearch) visit(d int) {
	x := s.x
	_, more := s.enter(d, s.races)
	if !more {
		return
	}
	if s.fair && s.maxSteps > 0 && d+x.prefixLen() > s.maxSteps {
		x.stats.Executions++
		within := "a fair execution"
		if s.bound != math.MaxInt {
			within = fmt.Sprintf("an execution within fair bound %d", s.bound)
		}
		x.livelock(fmt.Sprintf("%s runs past %d steps (--max-steps)", within, s.maxSteps))
		return
	}
	s.initialize(d)
	s.loop(d)
}

// loop is lines 10-13 of Algorithm 1 for the state at depth d: backtrack(s) grows
// while it runs.
func (s *bporSearch) loop(d int) {
	for !s.stopped() {
		s.offer(d)
		u := s.claim(d)
		if u < 0 {
			break
		}
		s.try(d, u)
	}
}

// try runs thread u from depth d, unless that would exceed the bound.
func (s *bporSearch) try(d, u int) {
	c := s.costOf(d, u)
	if c > s.bound {
		s.pruned()
		return
	}
	s.costs = append(s.costs[:d+1], c)
	s.run(d, u)
}

// resume explores a task another worker gave away (steal.go): the given thread
// from the given depth, then what is left to run at every state of the copied
// path, up to the root.
func (s *bporSearch) resume(t *porTask) {
	s.install(t)
	s.costs = append(s.costs[:0], t.path.costs[:t.depth+1]...)
	if s.fair {
		copy(s.yields, t.path.yields)
		for m := t.depth; m < len(t.path.yielding); m++ {
			if t.path.yielding[m] {
				s.yields[t.path.moves[m].Thread]--
			}
		}
	}
	s.try(t.depth, t.thread)
	for d := t.depth; d >= 0; d-- {
		if d < t.depth {
			s.trace.pop()
			if s.fair && s.yielding(d) {
				s.yields[s.moves[d].Thread]--
			}
		}
		s.loop(d)
	}
}

// captureTask adds to a copy of the search's path down to depth j, taken when the
// path has depth d, the bound's costs and, for the fair bound, the yields at
// depth j and which moves were yields.
func (s *bporSearch) captureTask(path *porPath, j, d int) {
	path.costs = append([]int(nil), s.costs[:j+1]...)
	if s.fair {
		path.yields = slices.Clone(s.yields)
		for m := j; m < d; m++ {
			if s.yielding(m) {
				path.yields[s.moves[m].Thread]--
			}
		}
		path.yielding = make([]bool, j)
		for m := range j {
			path.yielding[m] = s.yielding(m)
		}
	}
}

// yielding reports whether the path's move at depth d is a yield.
func (s *bporSearch) yielding(d int) bool {
	return s.p.Transition(s.frames[d].state, s.moves[d].Thread).EntryNode().Op == ir.OpYield
}

// races is lines 3-7 of Algorithm 1: for every thread u and every other thread v,
// the latest step of v dependent with u's next transition gets a backtracking point
// for u. As in DPOR, only the threads observe recomputed can have a new one.
func (s *bporSearch) races(d int) {
	f := s.frames[d]
	n := len(s.p.Threads)
	for u := 0; u < n; u++ {
		if !f.fresh.has(u) || len(f.fp[u]) == 0 {
			continue
		}
		s.found.clear()
		left := n - 1
		for i := d - 1; i >= 0 && left > 0; i-- {
			st := &s.trace.steps[i]
			v := st.thread
			if v == u || s.found.has(v) || !ir.Conflict(st.acc, f.fp[u]) {
				continue
			}
			s.found.add(v)
			left--
			s.backtrack(i, u)
		}
	}
}

// backtrack is Backtrack(S, i, u) of Algorithm 2 (preemption bound) or 3 (fair
// bound), for the state before step i.
func (s *bporSearch) backtrack(i, u int) {
	if s.fair {
		// Algorithm 3 tests u's next transition there; Def. 1.12 tests step i. Both
		// are release tests, and testing both is the conservative reading.
		s.addPoint(i, u, s.releases(i, u) || s.releases(i, s.trace.steps[i].thread))
		return
	}
	s.addPoint(i, u, false)
	if i > 0 {
		// j: the latest context switch before i, where the thread that ran step
		// i-1 was scheduled.
		s.addPoint(s.trace.steps[i-1].run, u, false)
	}
}

// addPoint is AddBacktrackPoint: u if it is enabled before step i (and, for the
// fair bound, not a release), else every enabled thread.
func (s *bporSearch) addPoint(i, u int, all bool) {
	f := s.frames[i]
	f.lock()
	if !all && f.enabled.has(u) {
		f.backtrack.add(u)
	} else {
		f.backtrack.or(f.enabled)
	}
	f.unlock()
}

// releases reports whether thread u's next transition in the state at depth i may
// release (Def. 1.10).
func (s *bporSearch) releases(i, u int) bool {
	tab := s.release[u]
	l := s.p.Location(s.frames[i].state, u)
	return l < len(tab) && tab[l]
}

// initialize is Initialize(S): the zero-cost choice. For the preemption bound the
// thread that took the last step if it can go on (Algorithm 2), else the first
// enabled thread; for the fair bound an enabled thread with the fewest yields,
// through Backtrack (Algorithm 3).
func (s *bporSearch) initialize(d int) {
	f := s.frames[d]
	if !s.fair {
		if l := s.x.lastThread(s.moves, d); l >= 0 {
			if f.enabled.has(l) {
				f.backtrack.add(l)
				return
			}
		}
		f.backtrack.add(firstOf(f.enabled, nil, nil, nil))
		return
	}
	best := -1
	for t := range s.p.Threads {
		if f.enabled.has(t) && (best < 0 || s.yields[t] < s.yields[best]) {
			best = t
		}
	}
	s.addPoint(d, best, s.releases(d, best))
}

// costOf is Bv(S.next(s, u)): Pb (Def. 1.5) or Fb (Def. 1.9).
func (s *bporSearch) costOf(d, u int) int {
	f := s.frames[d]
	return boundCost(s.fair, s.costs[d], s.x.lastThread(s.moves, d), u, f.enabled, s.yields)
}

// boundCost is Bv(S.next(s, u)) for the path S with cost c whose last step was by
// thread last (-1: none), in a state whose enabled threads are enabled: for the
// preemption bound, c plus one if the step preempts last (Def. 1.5); for the fair
// bound, the largest lead in yields of u over an enabled thread, at least c (Def.
// 1.9). The search and the frontier of a parallel run (parallel.go) both use it.
func boundCost(fair bool, c, last, u int, enabled bitSet, yields []int) int {
	if !fair {
		if last >= 0 && last != u && enabled.has(last) {
			c++
		}
		return c
	}
	for t := range yields {
		if enabled.has(t) && yields[u]-yields[t] > c {
			c = yields[u] - yields[t]
		}
	}
	return c
}

// pruned records that the reduction bound kept the search from a step: the verdict
// can no longer be safe.
func (s *bporSearch) pruned() {
	if s.fair {
		s.x.cutOff("fair bound reached")
	} else {
		s.x.cutOff("preemption bound reached")
	}
}

// run explores thread u's step from depth d, once per combination of its
// nondeterministic values.
func (s *bporSearch) run(d, u int) {
	x := s.x
	f := s.frames[d]
	c := s.frame(d + 1)
	yield := s.fair && s.p.Transition(f.state, u).EntryNode().Op == ir.OpYield
	if yield {
		s.yields[u]++
	}
	f.succ.start(f.state, c.state, u, &s.ev, &s.moves, d+1)
	for x.next(&f.succ) {
		s.trace.push(u, s.ev.Accesses)
		s.visit(d + 1)
		s.trace.pop()
		if s.stopped() {
			break
		}
	}
	if yield {
		s.yields[u]--
	}
}
