package explicit

import (
	"fmt"
	"slices"

	"kbmc/ir"
)

// lazySystem is a node's trace constraint system with what the search needs beside
// the constraints: each event's structure (the accesses its step made in the run,
// or for a pending step what it may access), and the enumeration of its
// variations, which the workers in the node's loop share (under the node's lock).
type lazySystem struct {
	TCS
	node   *lazyNode
	runLen int // events [0, runLen) are the run's steps; the rest are pending steps

	from  []int32       // each event's control location before it
	acc   [][]ir.Access // each event's structure
	pend  [][]ir.Access // pending events: their ir.Exact accesses at the run's end
	dep   []bitSet      // dep[e]: the events dependent with e
	refs  []lazyRef     // every structure access, by location
	enum  tcsEnum
	draws []int32 // run steps that drew nondeterministic values
	ord   []int32 // each event's number among its thread's steps, from 1
}

type lazyRef struct {
	loc  int32
	ev   int32
	kind ir.AccessKind
}

// lazyVar is one iteration of a node's loop under way on one worker: the node's
// system with the variation this iteration explores (its own Swapped), and the
// worker's scratch for it.
type lazyVar struct {
	TCS
	*lazySystem
	swapped []bool

	predStart, preds []int32
	succStart, succs []int32
	last, fill       []int32
	pos, lastEv      []int // for TCS.satisfies
	need             []int32
	inE, done        bitSet
	stack            []int32
	state, piState   ir.State
	piCounts         []int32
	piSleep          []lazySleeper
	run              lazySteps
	fallback         bool // the variation could not start: expand the state instead
}

// bind makes t an iteration of node n's loop, nothing swapped.
func (t *lazyVar) bind(n *lazyNode) {
	sys := n.sys
	t.lazySystem = sys
	m := len(sys.Deps)
	if cap(t.swapped) < m {
		t.swapped = make([]bool, m)
	}
	t.TCS = TCS{Events: sys.Events, NumThreads: sys.NumThreads, Deps: sys.Deps, Swapped: t.swapped[:m]}
	clear(t.Swapped)
	t.fallback = false
}

// build makes the trace constraint system of the node's run (Def. 12), plus the
// pending steps, with the dependency list in the order <_{N×N}. The run ended
// within the bound (a cut run is explored along it, not varied).
//
// The dependency relation is quadratic in the run's length (a loop of 10^5 steps
// on one variable makes 10^10 pairs and a relation of a gigabyte), so build looks
// at the search's clock and memory flag as it goes and returns nil once the run
// must stop.
func (s *lazySearch) build(n *lazyNode) *lazySystem {
	p, x := s.p, s.x
	run := n.run
	t := &lazySystem{node: n, runLen: len(run.steps)}
	t.NumThreads = len(p.Threads)
	// At most one event per step and per thread: sized once, not grown.
	most := len(run.steps) + len(p.Threads)
	t.Events = make([]TCSEvent, 0, most)
	t.from = make([]int32, 0, most)
	t.acc = make([][]ir.Access, 0, most)
	t.pend = make([][]ir.Access, 0, most)
	for i := range run.steps {
		st := &run.steps[i]
		t.Events = append(t.Events, TCSEvent{Thread: int(st.thread)})
		t.from = append(t.from, st.from)
		t.acc = append(t.acc, run.accesses(i))
		t.pend = append(t.pend, nil)
		if st.val1 > st.val0 {
			t.draws = append(t.draws, int32(i))
		}
	}
	for u := range p.Threads {
		tr := p.Transition(run.final, u)
		if tr == nil {
			continue
		}
		status := p.Status(run.final, u)
		pend := slices.Clone(s.x.accesses(run.final, u, status, ir.Exact, s.pend))
		structure := slices.Clone(s.x.accesses(run.final, u, status, ir.Static, s.pend))
		t.Events = append(t.Events, TCSEvent{Thread: u, Pending: true})
		t.from = append(t.from, int32(tr.Index))
		t.acc = append(t.acc, structure)
		t.pend = append(t.pend, pend)
	}
	ne := len(t.Events)
	t.ord = make([]int32, ne)
	{
		seen := make([]int32, len(p.Threads))
		for e := range ne {
			th := t.Events[e].Thread
			seen[th]++
			t.ord[e] = seen[th]
		}
	}
	refs := 0
	for _, acc := range t.acc {
		refs += len(acc)
	}
	t.refs = make([]lazyRef, 0, refs)
	for e := range ne {
		for _, a := range t.acc[e] {
			t.refs = append(t.refs, lazyRef{loc: int32(a.Loc), ev: int32(e), kind: a.Kind})
		}
	}
	slices.SortFunc(t.refs, func(a, b lazyRef) int {
		if a.loc != b.loc {
			return int(a.loc - b.loc)
		}
		return int(a.ev - b.ev)
	})
	t.dep = make([]bitSet, ne)
	for e := range t.dep {
		if x.done() {
			return nil
		}
		t.dep[e] = resetBitSet(nil, ne)
	}
	for i := 0; i < len(t.refs); {
		j := i
		for j < len(t.refs) && t.refs[j].loc == t.refs[i].loc {
			j++
		}
		for a := i; a < j; a++ {
			if x.done() {
				return nil
			}
			for b := a + 1; b < j; b++ {
				ra, rb := t.refs[a], t.refs[b]
				if ir.Conflicts(ra.kind, rb.kind) && t.Events[ra.ev].Thread != t.Events[rb.ev].Thread {
					t.dep[ra.ev].add(int(rb.ev))
					t.dep[rb.ev].add(int(ra.ev))
				}
			}
		}
		i = j
	}
	for a := range ne {
		if x.done() {
			return nil
		}
		for b := a + 1; b < ne; b++ {
			if t.dep[a].has(b) {
				t.Deps = append(t.Deps, TCSDep{int32(a), int32(b)})
			}
		}
	}
	t.constrain(p)
	return t
}

// constrain sets the dependency constraints that no execution can swap, so that
// the enumeration does not produce variations no execution realises:
//
//   - A thread's termination is written once, by its last step, and a join reads it
//     only after it: the constraint (last step, join) is never swapped (keep), for
//     a join whose target does not depend on shared data (as for locks below).
//   - Mutual exclusion. Let A's critical section [a_A, r_A] of lock L precede B's
//     acquisition a_B in the run (r_A is A's first release after a_A). The
//     variation may swap (r_A, a_B) only if it also swaps (a_A, a_B): it may not
//     put a_B inside A's critical section. And if B's release r_B follows r_A in the
//     run, it may swap (r_A, r_B) only if it also swaps (a_A, r_B): it may not put
//     A's critical section around r_B. Both only for lock operations whose lock
//     does not depend on shared data, so that another execution of them locks the
//     same lock.
//
// Why no covered execution is lost: the variation the correctness argument assigns
// to an execution w (see variation) orders two events of Q+ as w does, an event of
// Q+ before one outside it, and two events outside Q+ as the run does, and a swap
// always moves an event of Q+ forward. Every execution orders a termination before
// a join of it. If (r_A, a_B) is swapped, a_B is in Q+, and so is a_A if it
// precedes a_B; then w runs A's release, and so r_A, between them, and (r_A, a_B)
// is not swapped after all. If (r_A, r_B) is swapped, r_B and a_B are in Q+, and
// so is a_A if it precedes r_B; w cannot run a_A inside B's critical section, so it
// runs A's critical section before a_B, r_A included, and (r_A, r_B) is not
// swapped after all.
func (t *lazySystem) constrain(p *ir.Program) {
	m := len(t.Deps)
	t.enum.keep = make([]bool, m)
	t.enum.requires = make([]int32, m)
	pair := make(map[[2]int32]int32, m)
	for i, d := range t.Deps {
		t.enum.requires[i] = -1
		pair[[2]int32{d.A, d.B}] = int32(i)
	}
	lockLoc := func(e int) int {
		for _, a := range t.acc[e] {
			if k, _ := p.Locate(a.Loc); k == ir.LocLock && a.Kind == ir.Write {
				return a.Loc
			}
		}
		return -1
	}
	op := func(e int) *ir.Node {
		th := p.Threads[t.Events[e].Thread]
		return th.Template.Transitions[t.from[e]].EntryNode()
	}
	// acquire returns, for a run step e that releases lock L, the same thread's
	// acquisition of L right before it (with no other operation on L between), or
	// -1.
	acquire := func(e, l int) int {
		for f := e - 1; f >= 0; f-- {
			if t.Events[f].Thread != t.Events[e].Thread || lockLoc(f) != l {
				continue
			}
			if op(f).Op == ir.OpLock && staticTarget(op(f)) {
				return f
			}
			return -1
		}
		return -1
	}
	for i, d := range t.Deps {
		a, b := int(d.A), int(d.B)
		// Termination before join, only for a join whose target does not depend on
		// shared data: join(w[x]) may wait for another instance in another
		// execution (as the first event that differs from the run, the one the
		// argument puts last in Q+). A run step's accesses are exact; a pending
		// join's structure holds every instance it might wait for, of which only
		// those its guard reads are certain.
		reads := t.acc[b]
		switch {
		case op(b).Op == ir.OpJoin && !staticTarget(op(b)):
			reads = nil
		case b >= t.runLen:
			reads = t.pend[b]
		}
		for _, wa := range t.acc[a] {
			if k, _ := p.Locate(wa.Loc); k != ir.LocThread || wa.Kind != ir.Write {
				continue
			}
			for _, rb := range reads {
				if rb.Loc == wa.Loc && rb.Kind == ir.Read {
					t.enum.keep[i] = true
				}
			}
		}
		// Mutual exclusion: a = r_A, a run step releasing L. Not with Go's
		// unlocks, by which another thread may end A's critical section.
		if a >= t.runLen || op(a).Op != ir.OpUnlock || !staticTarget(op(a)) || p.AnyOwnerUnlocks() {
			continue
		}
		l := lockLoc(a)
		if l < 0 || lockLoc(b) != l || !staticTarget(op(b)) {
			continue
		}
		aA := acquire(a, l)
		if aA < 0 {
			continue
		}
		switch op(b).Op {
		case ir.OpLock: // b = a_B
			if j, ok := pair[[2]int32{int32(aA), int32(b)}]; ok {
				t.enum.requires[i] = j
			}
		case ir.OpUnlock: // b = r_B
			if b < t.runLen && acquire(b, l) >= 0 {
				if j, ok := pair[[2]int32{int32(aA), int32(b)}]; ok {
					t.enum.requires[i] = j
				}
			}
		}
	}
}

// swapOrders are the node's orders plus those of the variation in t.Swapped.
func (t *lazyVar) swapOrders() []lazyOrder {
	out := append([]lazyOrder(nil), t.node.orders...)
	for i, sw := range t.Swapped {
		if !sw {
			continue
		}
		a, b := t.Deps[i].A, t.Deps[i].B
		if int(b) >= t.runLen {
			continue // a pending step's structure is not what it accesses
		}
		out = append(out, lazyOrder{ta: int32(t.Events[a].Thread), na: t.ord[a],
			tb: int32(t.Events[b].Thread), nb: t.ord[b], acc: t.acc[b]})
	}
	return out
}

// The correctness argument. A node covers every maximal execution w from its state
// s (within its depth budget) if it explores an execution equivalent to w or a
// child at a state w passes through, after a prefix of w's trace. Let u2 be the
// node's run. Call an event of the constraint system matched in w when w executes
// it (the same thread's same step) with the same accesses, successor location and
// nondeterministic values as u2 did (a pending event: within its structure, with
// the low-end values). Let Q be the longest prefix of w of matched events, and Q+
// be Q plus w's next event if that is an event of the system. The variation c(w)
// orders two events of Q+ as w does, an event of Q+ before one outside it, and two
// events outside Q+ as u2 does; it is acyclic (witness: Q+ then the rest in u2's
// order), it respects the constraints of constrain, and each of its swaps moves an
// event of Q+ forward. Then:
//
//  1. If c(w) swaps nothing, w is equivalent to u2: every event of Q reads what it
//     read in u2, so w's next event would be matched too; and a pending event of
//     Q+ would still be blocked. (A run the bound cut has no system: it is
//     explored along it, alongAt.)
//  2. Let E be the closure, under the constraints of c(w), of the events the swaps
//     move forward; E lies within Q+. Execute events of E, each after its
//     constraint predecessors, with the values planned for it, and keep only those
//     that are "good": enabled, drawing no value other than planned, and accessing
//     only locations where every conflict with another thread's event structure is
//     a dependency of the system. By induction over them, each reads exactly what
//     it reads in w (its writers are the same events, in the same order), so the
//     good prefix is a prefix of w's trace, and a child at the state after it
//     covers w (by induction on the remaining depth).
//  3. If every event executes matched in the planned order and the run ends as u2
//     did (the same pending steps, still blocked), every w with this variation and
//     u2's values is equivalent to that execution: the variation covers itself
//     (u1' is the whole run, as in the thesis) and needs no child.
//  4. If no event of E can start, at most one event of E can fail for a given w
//     (w's first unmatched event; the others are in Q and could start). If two
//     fail, or the only one is blocked by a guard that reads only its structure
//     (then it is blocked in w too), no execution has this variation. Otherwise the
//     state is expanded by one step of every thread with every value.
//
// Nondeterministic values: only w's next event, the last of Q+, can draw values
// other than u2's, and only if it draws in u2's variation as well. A step of E that
// draws ends the good prefix (a child covers the rest); for a variation that
// covers itself, and for u2 itself, choice explores every other value of every step
// that draws one. The visited-state check is sound because a completed node covers
// every execution from its state; it records the longest, so that a later node
// with less depth left still learns whether the bound cuts an execution.

// solve is solve of Listing 3.1: a solution of the variation in t.Swapped, checked,
// and the canonical solution (Listing 5.1) the search executes. The enumeration
// produces satisfiable variations only, so a solver that finds none is wrong.
func (s *lazySearch) solve(t *lazyVar) ([]int, bool) {
	x := s.x
	order, ok, err := s.solver.Solve(x.ctx, &t.TCS)
	switch {
	case err != nil && x.cancelled():
		return nil, false // the time limit, not the solver: the verdict is unknown
	case err != nil:
		s.run.fail(s.x, fmt.Errorf("lazypor: trace constraint solver: %w", err))
		return nil, false
	case !ok:
		x.stats.TCSUnsat++
		s.run.fail(s.x, fmt.Errorf("lazypor: the trace constraint solver found a satisfiable system unsatisfiable"))
		return nil, false
	}
	x.stats.TCSSolved++
	if err := t.satisfies(order, &t.pos, &t.lastEv); err != nil {
		s.run.fail(s.x, fmt.Errorf("lazypor: trace constraint solver: %w", err))
		return nil, false
	}
	if s.canon != nil {
		if order, ok, err = s.canon.Solve(x.ctx, &t.TCS); err != nil || !ok {
			s.run.fail(s.x, fmt.Errorf("lazypor: no canonical schedule for a satisfiable system"))
			return nil, false
		}
	}
	return order, true
}

// variation executes one variation of the node's run (lines 12–13 of Listing 3.1:
// execute, split, explore) in its canonical schedule: first the events the
// variation must move, each as soon as it can start (lowest event first), then the
// rest in the order of the canonical solution. The first part needs no solver: the
// variation's constraints order it. The rest is solved only when the first part
// went exactly as planned, for only then can the execution cover the variation by
// itself (point 3); otherwise any maximal continuation will do.
func (s *lazySearch) variation(t *lazyVar) (maxLen int, cut bool) {
	x, p := s.x, s.p
	n := t.node
	ne := len(t.Events)
	s.graph(t)
	// E: the overtakers and everything the variation orders before them.
	t.inE = resetBitSet(t.inE, ne)
	t.stack = t.stack[:0]
	for i, sw := range t.Swapped {
		if sw {
			if b := int(t.Deps[i].B); !t.inE.has(b) {
				t.inE.add(b)
				t.stack = append(t.stack, int32(b))
			}
		}
	}
	s.closeE(t)
	t.state = append(t.state[:0], n.state...)
	t.run.reset()
	t.done = resetBitSet(t.done, ne)
	pos := n.depth
	faithful := true
	orders := t.swapOrders()
	s.begin(orders, n.sleep)
	// Phase 1: the events of E.
	var bad, drawn, badEvent int
	for {
		if x.done() {
			return 0, false
		}
		committed := false
		bad, drawn, badEvent = 0, 0, -1
		left := false
		for e := range ne {
			if !t.inE.has(e) || t.done.has(e) {
				continue
			}
			left = true
			if t.need[e] > 0 || pos == x.budget {
				continue
			}
			switch s.try(t, e, pos) {
			case tryStop, trySlept:
				return 0, false
			case tryBad:
				bad++
				badEvent = e
				continue
			case tryDrawn, tryHeld:
				drawn++
				continue
			}
			s.commit(t, e)
			if e >= t.runLen || !s.matched(t, e) {
				faithful = false
			}
			pos++
			committed = true
			break
		}
		if !left || !committed {
			if left {
				faithful = false
			}
			break
		}
	}
	k := len(t.run.steps) // the covered prefix u1' = u1·v1[:k]
	if !faithful && k == 0 {
		// Nothing can start (point 4).
		if drawn == 0 && (bad >= 2 || bad == 1 && s.staticallyBlocked(t, badEvent)) {
			return 0, false
		}
		t.fallback = true
		return 0, false
	}
	t.piState = append(t.piState[:0], t.state...)
	t.piCounts = append(t.piCounts[:0], s.counts...)
	t.piSleep = append(t.piSleep[:0], s.asleep...)
	if s.subsumed(n, &t.run, k) {
		return 0, false
	}
	var order []int
	if !faithful {
		if l, c, ok := s.lookup(t.piState, x.budget-pos, childOrders(orders, t.piCounts), t.piSleep); ok {
			return k + l, c
		}
	} else {
		var ok bool
		if order, ok = s.solve(t); !ok {
			return 0, false
		}
	}
	// Phase 2: the rest of the schedule.
	for _, e := range order {
		if t.done.has(e) || e >= t.runLen {
			continue
		}
		if pos == x.budget {
			faithful = false
			break
		}
		th := t.Events[e].Thread
		if p.Location(t.state, th) != int(t.from[e]) || !p.Enabled(t.state, th) {
			faithful = false
			continue
		}
		if s.limited(th) || sleepsThread(s.asleep, th) {
			copy(s.trial, t.state)
			if !s.step(s.trial, pos, th, t.node.run.values(e)) {
				return 0, false
			}
			if s.violates(th, s.ev.Accesses) || asleep(s.asleep, th, s.moves[pos].Choices) {
				// No execution this variation stands for needs covering
				// beyond what the child after its first part covers.
				l, c := s.child(t.piState, n.depth+k, nil, 0, childOrders(orders, t.piCounts), t.piSleep)
				return k + l, c
			}
			copy(t.state, s.trial)
		} else if !s.step(t.state, pos, th, t.node.run.values(e)) {
			return 0, false
		}
		t.run.push(&s.ev)
		s.counts[th]++
		if len(s.asleep) > 0 {
			s.asleep = wake(s.asleep, th, s.ev.Accesses, true)
		}
		t.done.add(e)
		pos++
		if faithful && !s.matched(t, e) {
			faithful = false
		}
	}
	if len(t.run.steps) != t.runLen {
		faithful = false
	}
	extended, ok := s.complete(t.state, pos, &t.run)
	if !ok {
		return 0, false
	}
	if s.pruned {
		l, c := s.child(t.piState, n.depth+k, nil, 0, childOrders(orders, t.piCounts), t.piSleep)
		return k + l, c
	}
	if extended || faithful && !n.run.cut && !s.sameEnd(t) {
		faithful = false
	}
	maxLen, cut = len(t.run.steps), t.run.cut
	if faithful {
		// Point 3: u2' is empty. An execution with this variation may still draw
		// other values in one event; those start with a choice.
		for _, e := range t.draws {
			if t.fallback || x.done() || s.run.failed() {
				break
			}
			l, c := s.choice(t, int(e))
			maxLen, cut = max(maxLen, l), cut || c
		}
		return maxLen, cut
	}
	l, c := s.child(t.piState, n.depth+k, &t.run, k, childOrders(orders, t.piCounts), t.piSleep)
	if !x.done() {
		s.cover(n, &t.run, k, orders[len(n.orders):], t.piCounts)
	}
	return max(maxLen, k+l), cut || c
}

// graph computes, for the variation in t.Swapped, each event's constraint
// predecessors and successors (program order and dependency constraints).
func (s *lazySearch) graph(t *lazyVar) {
	ne := len(t.Events)
	t.predStart = resizeInt32(t.predStart, ne+1)
	t.succStart = resizeInt32(t.succStart, ne+1)
	clear(t.predStart)
	clear(t.succStart)
	t.last = resizeInt32(t.last, t.NumThreads)
	for i := range t.last {
		t.last[i] = -1
	}
	for e := range ne {
		if l := t.last[t.Events[e].Thread]; l >= 0 {
			t.predStart[e+1]++
			t.succStart[l+1]++
		}
		t.last[t.Events[e].Thread] = int32(e)
	}
	for i := range t.Deps {
		b, a := t.Constraint(i)
		t.predStart[a+1]++
		t.succStart[b+1]++
	}
	for e := range ne {
		t.predStart[e+1] += t.predStart[e]
		t.succStart[e+1] += t.succStart[e]
	}
	t.preds = resizeInt32(t.preds, int(t.predStart[ne]))
	t.succs = resizeInt32(t.succs, int(t.succStart[ne]))
	t.need = resizeInt32(t.need, ne)
	t.fill = resizeInt32(t.fill, ne)
	copy(t.need, t.predStart[:ne]) // as cursors
	copy(t.fill, t.succStart[:ne])
	link := func(b, a int32) {
		t.preds[t.need[a]] = b
		t.need[a]++
		t.succs[t.fill[b]] = a
		t.fill[b]++
	}
	for i := range t.last {
		t.last[i] = -1
	}
	for e := range ne {
		if l := t.last[t.Events[e].Thread]; l >= 0 {
			link(l, int32(e))
		}
		t.last[t.Events[e].Thread] = int32(e)
	}
	for i := range t.Deps {
		b, a := t.Constraint(i)
		link(int32(b), int32(a))
	}
}

// closeE closes t.inE (seeded with t.stack) under constraint predecessors and sets
// t.need to each event's number of predecessors.
func (s *lazySearch) closeE(t *lazyVar) {
	for len(t.stack) > 0 {
		e := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		for _, b := range t.preds[t.predStart[e]:t.predStart[e+1]] {
			if !t.inE.has(int(b)) {
				t.inE.add(int(b))
				t.stack = append(t.stack, b)
			}
		}
	}
	for e := range t.Events {
		t.need[e] = t.predStart[e+1] - t.predStart[e]
	}
}

// commit records that event e, just executed on s.scratch, is part of the run.
func (s *lazySearch) commit(t *lazyVar, e int) {
	copy(t.state, s.scratch)
	t.run.push(&s.ev)
	th := t.Events[e].Thread
	s.counts[th]++
	if len(s.asleep) > 0 {
		s.asleep = wake(s.asleep, th, s.ev.Accesses, true)
	}
	t.done.add(e)
	for _, a := range t.succs[t.succStart[e]:t.succStart[e+1]] {
		t.need[a]--
	}
}

type tryResult uint8

const (
	tryGood  tryResult = iota
	tryBad             // cannot start, or accesses beyond its structure
	tryDrawn           // would be good but drew nondeterministic values
	tryHeld            // would be good but breaks an order (lazyOrder) now
	trySlept           // the step sleeps: every execution with it here is covered
	tryStop            // a violation was found or the search is over
)

// try executes event e on s.scratch (a copy of the variation's state) at path
// position pos and classifies it (point 2 of the argument).
func (s *lazySearch) try(t *lazyVar, e, pos int) tryResult {
	p := s.p
	th := t.Events[e].Thread
	if p.Location(t.state, th) != int(t.from[e]) || !p.Enabled(t.state, th) {
		return tryBad
	}
	copy(s.scratch, t.state)
	var fixed []int64
	if e < t.runLen {
		fixed = t.node.run.values(e)
	}
	if !s.step(s.scratch, pos, th, fixed) {
		return tryStop
	}
	// Only a step that behaves as in every execution the variation stands for
	// (monotone, no draw) may be judged by what sleeps or what the orders say.
	if !s.monotone(t, e, s.ev.Accesses) {
		return tryBad
	}
	if len(s.ev.Choices) > 0 {
		return tryDrawn
	}
	if asleep(s.asleep, th, s.moves[pos].Choices) {
		return trySlept
	}
	if s.violates(th, s.ev.Accesses) {
		return tryHeld
	}
	return tryGood
}

// monotone reports whether every conflict of the accesses acc of event e with the
// structure of an event of another thread is a dependency of the system, or is
// with an event that program order and the never-swapped dependencies alone
// order before or after e (tcsEnum.ordered). Such an event r keeps its place
// relative to e in every execution w the variation stands for: if r is before e
// in w, or r is matched and after it, the chain between them is made of matched
// events (everything before a matched event of Q is), so it holds in w. A
// thread's step that writes what the join after the thread's end reads
// (main summing up a table after joining its writers) no longer stops the
// variation: before, a cas that failed in the run and succeeds in the variation
// conflicted with main's later read, and the state was expanded instead, step
// after step (cas-independent-races.kb: 727 executions, now as many as dpor).
func (s *lazySearch) monotone(t *lazyVar, e int, acc []ir.Access) bool {
	th := t.Events[e].Thread
	for _, a := range acc {
		i, _ := slices.BinarySearchFunc(t.refs, int32(a.Loc), func(r lazyRef, loc int32) int { return int(r.loc - loc) })
		for ; i < len(t.refs) && t.refs[i].loc == int32(a.Loc); i++ {
			r := t.refs[i]
			if ir.Conflicts(a.Kind, r.kind) && t.Events[r.ev].Thread != th && !t.dep[e].has(int(r.ev)) && !t.enum.ordered(e, int(r.ev)) {
				return false
			}
		}
	}
	return true
}

// matched reports whether s.ev, the step just executed for run event e, did what
// e did in the run: the same accesses, successor location and values.
func (s *lazySearch) matched(t *lazyVar, e int) bool {
	run := t.node.run
	st := &run.steps[e]
	if int32(s.ev.To) != st.to || int32(s.ev.PartnerTo) != st.partnerTo {
		return false
	}
	acc := run.accesses(e)
	if len(acc) != len(s.ev.Accesses) {
		return false
	}
	for i, a := range acc {
		if b := s.ev.Accesses[i]; a.Loc != b.Loc || a.Kind != b.Kind {
			return false
		}
	}
	vals := run.values(e)
	if len(vals) != len(s.ev.Choices) {
		return false
	}
	for i, v := range vals {
		if s.ev.Choices[i].Value != v {
			return false
		}
	}
	return true
}

// sameEnd reports whether the variation's execution ended as the node's run did:
// every pending event's thread still blocked at it, with the same guard accesses
// (point 3). Since a pending event's structure includes its transition's static
// footprint, "still blocked" alone would do; the guard's accesses are compared as
// well, which can only make fewer variations cover themselves.
func (s *lazySearch) sameEnd(t *lazyVar) bool {
	p := s.p
	final := t.run.final
	for e := t.runLen; e < len(t.Events); e++ {
		th := t.Events[e].Thread
		status := p.Status(final, th)
		if p.Location(final, th) != int(t.from[e]) || status == ir.Enabled {
			return false
		}
		got := s.x.accesses(final, th, status, ir.Exact, s.pend)
		s.pend = got[:0]
		want := t.pend[e]
		if len(got) != len(want) {
			return false
		}
		for i := range want {
			if got[i].Loc != want[i].Loc || got[i].Kind != want[i].Kind {
				return false
			}
		}
	}
	return true
}

// staticallyBlocked reports whether event e cannot start at the variation's state
// because its thread is blocked by a guard that reads only locations of e's
// structure (point 4: then it is blocked in every execution the variation stands
// for).
func (s *lazySearch) staticallyBlocked(t *lazyVar, e int) bool {
	p := s.p
	th := t.Events[e].Thread
	status := p.Status(t.state, th)
	if p.Location(t.state, th) != int(t.from[e]) || status == ir.Enabled {
		return false
	}
	got := s.x.accesses(t.state, th, status, ir.Exact, s.pend)
	s.pend = got[:0]
	for _, a := range got {
		if !slices.ContainsFunc(t.acc[e], func(b ir.Access) bool { return b.Loc == a.Loc }) {
			return false
		}
	}
	return true
}

// choice explores the nondeterministic alternatives of run step e under the
// variation in t.Swapped (nothing swapped: the run itself): the events the
// variation orders before e, each as soon as it can start, then e with every other
// combination of values. An execution that has this variation and differs from its
// schedule in e's values only (point 2 with E the closure of e) starts with one of
// these. If an alternative accesses beyond e's structure, the state before e is
// explored as a node instead (or, at the node's own state, expanded).
func (s *lazySearch) choice(t *lazyVar, e int) (maxLen int, cut bool) {
	x := s.x
	n := t.node
	ne := len(t.Events)
	s.graph(t)
	t.inE = resetBitSet(t.inE, ne)
	t.inE.add(e)
	t.stack = append(t.stack[:0], int32(e))
	s.closeE(t)
	t.state = append(t.state[:0], n.state...)
	t.run.reset()
	t.done = resetBitSet(t.done, ne)
	pos := n.depth
	orders := t.swapOrders()
	s.begin(orders, n.sleep)
	for {
		next := -1
		for f := range ne {
			if f != e && t.inE.has(f) && !t.done.has(f) && t.need[f] == 0 {
				next = f
				break
			}
		}
		if next < 0 {
			break
		}
		switch s.try(t, next, pos) {
		case tryStop, trySlept:
			return 0, false
		case tryGood:
			s.commit(t, next)
			pos++
			continue
		case tryDrawn:
			if !asleep(s.asleep, t.Events[next].Thread, s.moves[pos].Choices) && !s.violates(t.Events[next].Thread, s.ev.Accesses) {
				s.commit(t, next)
				pos++
				continue
			}
		}
		// The events before e behave as in the variation's own schedule, where they
		// were matched; a failure here is not expected, and covering from the
		// state reached so far is always sound.
		break
	}
	k := len(t.run.steps)
	th := t.Events[e].Thread
	t.piState = append(t.piState[:0], t.state...)
	runVals := n.run.values(e)
	good, alternatives := true, 0
	if t.need[e] == 0 && s.p.Location(t.state, th) == int(t.from[e]) && s.p.Enabled(t.state, th) {
		var it successors
		s.start(&it, t.state, s.scratch, th, pos+1)
		for x.next(&it) {
			if x.done() {
				return 0, false // a step may draw from millions of values
			}
			if !slices.Equal(s.moves[pos].Choices, runVals) && !s.violates(th, s.ev.Accesses) && !asleep(s.asleep, th, s.moves[pos].Choices) {
				alternatives++
				if !s.monotone(t, e, s.ev.Accesses) {
					good = false
					break
				}
			}
		}
		if it.failed {
			return 0, false
		}
	} else {
		good = false
	}
	if good && alternatives == 0 {
		return 0, false
	}
	if !good {
		if k == 0 {
			t.fallback = true
			return 0, false
		}
		l, c := s.child(t.piState, n.depth+k, nil, 0, childOrders(orders, s.counts), s.asleep)
		return k + l, c
	}
	// Every alternative is good: a child after each. (They were executed above
	// without failing.) A child keeps a copy of its state, so st can be reused.
	st := make(ir.State, len(t.piState))
	counts := slices.Clone(s.counts)
	sleep := slices.Clone(s.asleep)
	var it successors
	s.start(&it, t.piState, st, th, pos+1)
	for !x.done() && x.next(&it) {
		if slices.Equal(s.moves[pos].Choices, runVals) || violates(orders, counts, th, s.ev.Accesses) || asleep(sleep, th, s.moves[pos].Choices) {
			continue
		}
		counts[th]++
		co := childOrders(orders, counts)
		counts[th]--
		l, c := s.child(st, pos+1, nil, 0, co, wake(sleep, th, s.ev.Accesses, false))
		maxLen = max(maxLen, k+1+l)
		cut = cut || c
	}
	return maxLen, cut
}
