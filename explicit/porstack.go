package explicit

import "kbmc/ir"

// porStack is the stack of a stateless partial-order reduced search (DPOR and
// BPOR): per depth the state, each thread's status and next-transition accesses,
// and the thread sets of the algorithms; and the execution itself, step by step.
type porStack struct {
	x      *executor
	p      *ir.Program
	frames []*porFrame // frames[d]: the state after d steps on the current path
	moves  []ir.Move   // the current path
	trace  *hbTrace
	ev     ir.Event
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

	succ successors // the alternatives of the step being explored from here
}

func newPORStack(x *executor, clocks bool) *porStack {
	p := x.p
	return &porStack{x: x, p: p, trace: newHBTrace(len(p.Threads), clocks)}
}

// enter starts the exploration of the state at depth d, the part of Explore(S) that
// DPOR and BPOR share: it resets the frame's sets, observes every thread, lets
// races add backtracking points for the races of the step that led here, and ends
// an execution that is terminal or cut by the depth bound. It reports whether the
// state has successors to explore.
func (s *porStack) enter(d int, races func(d int)) (*porFrame, bool) {
	x := s.x
	f := s.frame(d)
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
// widened ancestors too, so the walk stops at the first one.
func (s *porStack) widen(d int) {
	for j := d - 1; j >= 0 && !s.frames[j].wide; j-- {
		f := s.frames[j]
		f.wide = true
		f.backtrack.or(f.enabled)
	}
}
