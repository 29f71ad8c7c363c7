package explicit

import (
	"sync"

	"kbmc/ir"
)

// porStack is the stack of a stateless partial-order reduced search (DPOR and
// BPOR): per depth the state, each thread's status and next-transition accesses,
// and the thread sets of the algorithms; and the execution itself, step by step.
type porStack struct {
	x      *worker
	p      *ir.Program
	frames []*porFrame // frames[d]: the state after d steps on the current path
	moves  []ir.Move   // the current path
	trace  *hbTrace
	ev     ir.Event

	// sleepy: the algorithm keeps sleep sets in the frames (DPOR), so that a
	// thread claimed at a state sleeps in the siblings claimed after it.
	sleepy bool
	// pool, in a run on several workers, is where this search gives work to
	// idle workers (steal.go); capture adds what the algorithm needs besides
	// the stack to such work.
	pool    *pool
	capture func(path *porPath, j, d int)
	idle    int // offers to skip: the last found nothing to give
	// split, if set, makes the search give all its work away at a budget
	// (steal.go); quit is set once it has, and ends the search.
	split *porSplit
	quit  bool
}

// porFrame is one depth of a porStack.
type porFrame struct {
	state  ir.State
	status []ir.Status
	// fp[t] is what thread t's next transition may access (ir.AllDraws). It points
	// into own[t], or shares the parent's slice when t's next transition is
	// independent of the step that led here, which leaves it unchanged.
	fp  [][]ir.Access
	own [][]ir.Access

	enabled   bitSet
	fresh     bitSet // threads whose fp was recomputed here
	backtrack bitSet
	done      bitSet
	sleep     bitSet
	wide      bool // backtrack holds every enabled thread because of a depth cut below

	// node is set once the frame has given work to another worker (steal.go):
	// from then on backtrack and done are shared with the copies of the frame
	// that other workers hold, and are read and written under node's lock.
	node *porNode

	succ successors // the alternatives of the step being explored from here
}

// porNode is what the copies of one shared frame have in common besides its
// backtrack and done sets: the lock, the threads asleep there (the initial sleep
// set and every thread claimed there so far, by any worker), and whether a depth
// cut below widened it.
type porNode struct {
	mu    sync.Mutex
	sleep bitSet
	wide  bool
}

// lock and unlock guard f's backtrack and done sets, once they are shared.
func (f *porFrame) lock() {
	if f.node != nil {
		f.node.mu.Lock()
	}
}

func (f *porFrame) unlock() {
	if f.node != nil {
		f.node.mu.Unlock()
	}
}

func newPORStack(x *worker, clocks bool) *porStack {
	p := x.p
	return &porStack{x: x, p: p, trace: newHBTrace(len(p.Threads), p.NumLocations(), clocks)}
}

// begin prepares the search for task t: the stack of an earlier task is
// forgotten (a search that stopped early leaves it as it was), and t's split,
// if it has one, will make the search give its work away.
func (s *porStack) begin(t *task) {
	s.trace.reset(s.trace.steps[:0])
	s.split, s.quit, s.idle = t.split, false, 0
}

// enter starts the exploration of the state at depth d, the part of Explore(S) that
// DPOR and BPOR share: it resets the frame's sets, observes every thread, lets
// races add backtracking points for the races of the step that led here, and ends
// an execution that is terminal or cut by the depth bound. It reports whether the
// state has successors to explore.
func (s *porStack) enter(d int, races func(d int)) (*porFrame, bool) {
	x := s.x
	f := s.frame(d)
	if f.node != nil {
		// A new state at this depth: the shared sets stay with the node, which
		// other workers still use.
		n := len(s.p.Threads)
		f.node, f.backtrack, f.done = nil, newBitSet(n), newBitSet(n)
	}
	f.backtrack.clear()
	f.done.clear()
	f.wide = false
	s.observe(d)
	if d > 0 {
		races(d)
	}
	if leaf, cut := x.leaf(f.state, !f.enabled.empty(), s.moves[:d]); leaf {
		if cut {
			s.widen(d)
		}
		return f, false
	}
	return f, true
}

// frame returns frames[d], allocating it (and moves[d-1]) the first time the
// search gets that deep: a large depth bound costs nothing until it is used.
func (s *porStack) frame(d int) *porFrame {
	if d < len(s.frames) {
		return s.frames[d]
	}
	n := len(s.p.Threads)
	f := &porFrame{
		state:     make(ir.State, s.p.StateSize),
		status:    make([]ir.Status, n),
		fp:        make([][]ir.Access, n),
		own:       make([][]ir.Access, n),
		enabled:   newBitSet(n),
		fresh:     newBitSet(n),
		backtrack: newBitSet(n),
		done:      newBitSet(n),
		sleep:     newBitSet(n),
	}
	s.frames = append(s.frames, f)
	if d > 0 {
		s.moves = append(s.moves, ir.Move{})
	}
	return f
}

// observe computes, for the state at depth d, every thread's status and the
// accesses of its next transition. A thread that did not take the last step and
// whose next transition is independent of it keeps its parent's: the last step
// wrote nothing that transition reads, so it evaluates exactly as before, guard
// included.
func (s *porStack) observe(d int) {
	f := s.frames[d]
	f.enabled.clear()
	f.fresh.clear()
	var par *porFrame
	var last []ir.Access
	q := -1
	if d > 0 {
		par = s.frames[d-1]
		st := &s.trace.steps[d-1]
		last, q = st.acc, st.thread
	}
	for t := range s.p.Threads {
		if par != nil && t != q && !ir.Conflict(par.fp[t], last) {
			f.status[t] = par.status[t]
			f.fp[t] = par.fp[t]
		} else {
			f.status[t] = s.p.Status(f.state, t)
			f.own[t] = s.x.accesses(f.state, t, f.status[t], ir.AllDraws, f.own[t])
			f.fp[t] = f.own[t]
			f.fresh.add(t)
		}
		if f.status[t] == ir.Enabled {
			f.enabled.add(t)
		}
	}
}

// widen handles an execution cut by the depth bound at depth d: every state on its
// path backtracks on every enabled thread (see DPOR). States already widened have
// widened ancestors too, so the walk stops at the first one. (A shared frame's
// ancestors are shared too, and whoever widened it widened them.)
func (s *porStack) widen(d int) {
	for j := d - 1; j >= 0; j-- {
		f := s.frames[j]
		wide := &f.wide
		if f.node != nil {
			wide = &f.node.wide
		}
		f.lock()
		was := *wide
		*wide = true
		f.backtrack.or(f.enabled)
		f.unlock()
		if was {
			return
		}
	}
}

// claim takes the next thread to run from the state at depth d: the first that is
// in its backtrack set, enabled, not done and, with sleep sets, not asleep; it
// marks it done, or returns -1. At a shared frame the frame's sleep set becomes a
// copy of the node's (the threads claimed there before this one, by any worker,
// sleep in its subtree), and the thread joins the node's.
func (s *porStack) claim(d int) int {
	f := s.frames[d]
	n := f.node
	if n == nil {
		t := s.toRun(f)
		if t >= 0 {
			f.done.add(t)
		}
		return t
	}
	n.mu.Lock()
	t := s.claimShared(f, f.sleep)
	n.mu.Unlock()
	return t
}

// toRun returns the thread claim would take at the unshared frame f, or -1.
func (s *porStack) toRun(f *porFrame) int {
	var sleep bitSet
	if s.sleepy {
		sleep = f.sleep
	}
	return firstOf(f.backtrack, f.enabled, f.done, sleep)
}

// claimShared is claim at a shared frame, under its node's lock, for this search
// (sleep is the frame's sleep set) or for another (sleep receives the sleep set
// the thread's subtree starts with). It leaves sleep alone when no thread is
// left to claim: the search may still be running a thread from the frame, whose
// successors' sleep sets come from it.
func (s *porStack) claimShared(f *porFrame, sleep bitSet) int {
	var asleep bitSet
	if s.sleepy {
		asleep = f.node.sleep
	}
	t := firstOf(f.backtrack, f.enabled, f.done, asleep)
	if t >= 0 {
		f.done.add(t)
		if s.sleepy {
			sleep.copyFrom(f.node.sleep)
			f.node.sleep.add(t)
		}
	}
	return t
}
