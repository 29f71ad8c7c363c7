package explicit

import (
	"context"

	"kbmc/ir"
	"kbmc/verify"
)

// DPOR is Flanagan and Godefroid's dynamic partial-order reduction (FG05: POPL
// 2005): a stateless depth-first search that starts every state with one enabled
// thread and adds backtracking points where the execution it has explored shows a
// race, with clock vectors for happens-before and sleep sets on top. NoSleep turns
// the sleep sets off.
//
// Three points, all about soundness:
//
//   - Dependency is computed from the state. A thread's next transition accesses,
//     if it is enabled, every location any of its nondeterministic alternatives
//     accesses; if it is blocked, what its guard reads (ir.Probe, ir.AllDraws). A step
//     that changes either writes a location in it, so it is dependent with it.
//   - Every race is reversed as in Abdulla et al.'s source-DPOR (JACM 2017): the
//     backtracking point is an initial step of the execution that reverses the
//     race. FG05 reverses only the latest race of a transition, which misses
//     executions both with sleep sets and with kbmc's transitions whose locations
//     depend on shared values (see reverse). FG05's fallback stays for a thread
//     that is not enabled where the race must be reversed: every enabled thread.
//   - FG05 is proved for acyclic state spaces explored to the end. A depth bound
//     breaks the commutation argument behind it: moving an independent step in
//     front of a violating one pushes the violation one step deeper, possibly past
//     the bound. So when an execution is cut by the depth bound, every state on its
//     path backtracks on every enabled thread (a plain search along that path).
//     Subtrees without a cut are reduced, and exactly: if no execution was cut,
//     every execution of the program is covered.
type DPOR struct {
	Options
}

// Check runs the search.
func (a DPOR) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	x, err := newExecutor(ctx, p, a.Options)
	if err != nil {
		return nil, err
	}
	n := len(p.Threads)
	s := &dporSearch{porStack: newPORStack(x, true), sleep: !a.NoSleep,
		next: make(vclock, n), first: make([]int, n), initials: newBitSet(n)}
	copy(s.frame(0).state, p.Initial())
	s.explore(0)
	var keys []string
	if s.sleep {
		keys = append(keys, "sleep_blocked")
	}
	return x.result("dpor", keys...)
}

type dporSearch struct {
	*porStack
	sleep bool // use sleep sets

	// Scratch for races.
	raceBuf  []int
	next     vclock // clock of the next transition of the thread being checked
	first    []int  // per thread, its first step in notdep(i)
	initials bitSet // initial steps of the race's reversal
}

// explore is FG05's Explore(S) for the execution on the stack, |S| = d.
func (s *dporSearch) explore(d int) {
	x := s.x
	f, more := s.enter(d, s.races)
	if !more {
		return
	}
	first := firstOf(f.enabled, nil, f.sleep, nil)
	if first < 0 {
		x.stats.SleepBlocked++
		return
	}
	f.backtrack.add(first)
	for !x.done() {
		t := firstOf(f.backtrack, f.enabled, f.done, f.sleep)
		if t < 0 {
			break
		}
		f.done.add(t)
		s.run(d, t)
		if s.sleep {
			// Every execution that starts with t here has been covered; later
			// siblings need not run t before a step dependent with it.
			f.sleep.add(t)
		}
	}
}

// races adds the backtracking points for the races of the state at depth d: for
// each thread, every earlier step dependent with its next transition that does not
// happen before it. Only the threads observe recomputed can have a new race: the
// last mover, and the threads whose next transition is dependent with the last
// step. Any other thread's next transition is the one it had a step earlier,
// independent of the step since, so its races are the ones already handled.
func (s *dporSearch) races(d int) {
	f := s.frames[d]
	for t := range s.p.Threads {
		if !f.fresh.has(t) {
			continue
		}
		s.raceBuf = s.trace.racesOf(t, f.fp[t], s.raceBuf[:0], s.next)
		for _, i := range s.raceBuf {
			s.reverse(i, t)
		}
	}
}

// reverse adds a backtracking point for the race between step i and thread t's
// next transition, as Abdulla et al.'s source-DPOR does (JACM 2017, Algorithm 1,
// lines 5-8): the initial steps of v = notdep(i).t, the execution that reverses
// the race, are the threads that can start it; if none of them is in backtrack
// before step i, one is added, t itself when it is one. If t is not enabled
// before step i, FG05's fallback applies: every enabled thread.
//
// FG05's own rule is to add t before the latest such step only, and to rely on
// exploring t there to reveal the races that lead further. That is not enough
// here, for two reasons. A sleep set may prune exactly that exploration (in
// readers-writers with two readers the search then misses the execution where the
// second reader reads before the write and the first after it;
// TestDPORReadersWriters). And a kbmc transition may read a shared variable and then
// access a location chosen by it (cas(a[x & 1], 2, 1)); moving it before the
// latest race changes what it reads, and the earlier race it had with the location
// it accessed is never reversed (the "dynamic-footprint" program of porPrograms).
func (s *dporSearch) reverse(i, t int) {
	f := s.frames[i]
	if !f.enabled.has(t) {
		f.backtrack.or(f.enabled)
		return
	}
	s.trace.notAfter(i, s.first)
	starts := s.initials
	starts.clear()
	s.trace.initialsAfter(s.first, starts)
	tStarts := !coversAny(s.next, s.first)
	if tStarts {
		starts.add(t)
	}
	switch {
	case firstOf(starts, f.backtrack, nil, nil) >= 0:
	case tStarts:
		f.backtrack.add(t)
	default:
		// Enabled before step i: it is independent of every step from i on
		// that precedes it.
		f.backtrack.add(firstOf(starts, nil, nil, nil))
	}
}

// run explores thread t's step from depth d, once per combination of its
// nondeterministic values.
func (s *dporSearch) run(d, t int) {
	x := s.x
	f := s.frames[d]
	c := s.frame(d + 1)
	fixed := f.fixed[:0]
	for {
		copy(c.state, f.state)
		if !x.move(c.state, t, &f.ch, fixed, &s.ev, s.moves[:d+1]) {
			break
		}
		c.sleep.clear()
		if s.sleep {
			for q := range s.p.Threads {
				if f.sleep.has(q) && !ir.Conflict(f.fp[q], s.ev.Accesses) {
					c.sleep.add(q)
				}
			}
		}
		s.trace.push(t, s.ev.Accesses)
		s.explore(d + 1)
		s.trace.pop()
		if x.done() {
			break
		}
		var more bool
		if fixed, more = f.ch.Next(fixed); !more {
			break
		}
	}
	f.fixed = fixed
}

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
	cost      int  // BPOR: Pb or Fb of the path's steps up to here

	ch    ir.Choices // alternatives of the step being explored from here
	fixed []int64
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
	if f.enabled.empty() {
		x.terminal(f.state, s.moves[:d])
		return f, false
	}
	if d == x.opts.Depth {
		x.bounded("depth bound reached")
		s.widen(d)
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
