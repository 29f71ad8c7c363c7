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
	return check(ctx, p, "dpor", a)
}

func (a DPOR) options() Options { return a.Options }

func (a DPOR) start(x *executor, sh *sharing) (runner, error) { return dporRun{a, sh}, nil }

// dporRun is one run of DPOR: its searches give work away to the driver's pool,
// if the run has one.
type dporRun struct {
	a  DPOR
	sh *sharing
}

func (r dporRun) finish() error { return nil }

func (r dporRun) search(w *worker) search {
	n := len(w.p.Threads)
	s := &dporSearch{porStack: newPORStack(w, true), sleep: !r.a.NoSleep,
		next: make(vclock, n), first: make([]int, n), initials: newBitSet(n)}
	s.sleepy, s.pool = s.sleep, r.sh.pool
	return s
}

// explore explores a task: the search from its root, or work another search
// gave away.
func (s *dporSearch) explore(t *task) {
	x := s.x
	s.begin(t)
	if st, ok := t.stolen.(*porTask); ok && st.depth >= 0 {
		s.resume(st)
		return
	}
	copy(s.frame(0).state, x.initial())
	s.frame(0).sleep.clear()
	if s.sleep && x.from != nil && x.from.sleep != nil {
		s.frame(0).sleep.copyFrom(x.from.sleep)
	}
	s.visit(0)
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

// visit is FG05's Explore(S) for the execution on the stack, |S| = d.
func (s *dporSearch) visit(d int) {
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
	s.loop(d)
}

// loop runs the threads to run from the state at depth d (its backtrack set,
// which grows while the loop runs) until none is left.
func (s *dporSearch) loop(d int) {
	f := s.frames[d]
	for !s.x.done() {
		s.offer(d)
		t := s.claim(d)
		if t < 0 {
			break
		}
		s.run(d, t, nil)
		if s.sleep {
			// Every execution that starts with t here has been covered; later
			// siblings need not run t before a step dependent with it. (At a
			// shared state, claim keeps the sleep set.)
			f.sleep.add(t)
		}
	}
}

// resume explores a task another worker gave away (steal.go): the given thread
// from the given depth, then what is left to run at every state of the copied
// path, up to the root.
func (s *dporSearch) resume(t *porTask) {
	s.install(t)
	s.run(t.depth, t.thread, t.after)
	for d := t.depth; d >= 0; d-- {
		if d < t.depth {
			s.trace.pop()
		}
		s.loop(d)
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
		if !f.fresh.has(t) || s.joinWaits(d, t) {
			continue
		}
		s.raceBuf = s.trace.racesOf(t, f.fp[t], s.raceBuf[:0], s.next)
		for _, i := range s.raceBuf {
			s.reverse(i, t, f.fp[t])
		}
	}
}

// joinWaits reports whether thread t's next transition at depth d is a join
// that no race reversal can move: one whose accesses are all on cells set for
// good (ir.SetOnceOnly: the ends of the threads it waits for, their start
// cells), each accessed by no step before t's latest one. A step i after t's
// latest step that races with it sets such a cell: it ends a thread the join
// waits for (or creates one whose result it takes), so at step i the join, at
// the same node, was waiting; reverse would find t not enabled there and
// ir.OnlyEnables true, and add nothing. A C program's main joins every thread
// at the end (ir.Node.JAlso): without this, every execution compared the join
// with the end of every thread, to reverse none of them.
func (s *dporSearch) joinWaits(d, t int) bool {
	f := s.frames[d]
	tr := s.p.Transition(f.state, t)
	if tr == nil || tr.EntryNode().Op != ir.OpJoin || !s.p.SetOnceOnly(f.fp[t]) {
		return false
	}
	return s.trace.allAfter(f.fp[t], s.trace.last[t])
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
//
// A race with a step that only enables t (ir.OnlyEnables: the step ends the
// thread t joins, or starts t) is no race to reverse when t waits before it:
// no reordering runs t first. Nor is a conflict on a channel's message slot
// alone (ir.OrderedOnly: t's recv takes the message step i sent, or t's send
// fills the slot step i's recv freed), whether or not t waits before step i. Falling back there explored every thread at
// every pthread_create and at every thread's end.
//
// Nor is a thread created at run time and not yet started before step i
// (ir.Dormant) a reason to fall back: its next transition cannot move in front
// of its creation, so notdep(i)'s initial steps, which lead to the creation,
// reverse the race; if none precedes t, step i is the creation itself.
func (s *dporSearch) reverse(i, t int, fp []ir.Access) {
	if s.p.OrderedOnly(s.trace.steps[i].acc, fp) {
		return // no run takes t's transition before step i (ir.OrderedOnly)
	}
	f := s.frames[i]
	dormant := false
	if !f.enabled.has(t) {
		if s.p.OnlyEnables(s.trace.steps[i].acc, fp) {
			return
		}
		if dormant = s.p.Status(f.state, t) == ir.Dormant; !dormant {
			f.lock()
			f.backtrack.or(f.enabled)
			f.unlock()
			return
		}
	}
	s.trace.notAfter(i, s.first)
	starts := s.initials
	starts.clear()
	s.trace.initialsAfter(s.first, starts)
	tStarts := !coversAny(s.next, s.first)
	if tStarts && dormant {
		return
	}
	if tStarts {
		starts.add(t)
	}
	f.lock()
	defer f.unlock()
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
// nondeterministic values (those after the draws after, if set).
func (s *dporSearch) run(d, t int, after []ir.Choice) {
	x := s.x
	f := s.frames[d]
	c := s.frame(d + 1)
	f.succ.start(f.state, c.state, t, &s.ev, &s.moves, d+1)
	if after != nil {
		f.succ.resume(after)
	}
	for x.next(&f.succ) {
		c.sleep.clear()
		if s.sleep {
			for q := range s.p.Threads {
				if f.sleep.has(q) && !ir.Conflict(f.fp[q], s.ev.Accesses) {
					c.sleep.add(q)
				}
			}
		}
		s.trace.push(t, s.ev.Accesses)
		s.visit(d + 1)
		s.trace.pop()
		if x.done() || s.quit {
			break
		}
	}
}
