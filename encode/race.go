package encode

import (
	"kbmc/ir"
	"kbmc/solver"
)

// Data races (the property no-data-race, ir/race.go) in the step encoding.
// ir owns the definition: a state races when two enabled threads each have
// an enabled access to one memory location, at least one a write, not both
// atomic, where a thread's enabled accesses are those of the first operation
// of its next step that touches memory (every operation of an atomic
// section), over every draw of the step. ir.Program.RaceMemory,
// ir.RaceAtomic, ir.RaceFirstOnly and ir.MutexAccess give the static facts;
// this file builds the term "s_k races" from them.
//
// The term. For every thread t and every location l it may be at in s_k,
// the transition at l is executed symbolically from s_k once more, as a
// probe rather than a step: active under at_l ∧ en_{t,l} (the thread sits
// there and is enabled), with draws of its own (variables named as a step of
// negative index, one per state and thread, so that two threads' probes and
// the steps never share one), its accesses recorded per node. After the
// first node that touches memory the probe's paths end (a plain step): each
// later node is reached only on paths on which no earlier node touched
// memory. Each access is a location and a guard (an index or a pointer that
// may name several cells gives one guarded access per cell), read or write,
// plain or atomic; a write of a transition with an inner guard counts only
// where the step does not get stuck, as ir undoes it. Per location,
// race = ∃ t ≠ u: (PW_t ∧ A_u) ∨ (AW_t ∧ P_u) ∨ (PR_t ∧ W_u), where PW_t is
// "t's enabled accesses include a plain write of it", AW an atomic one, PR a
// plain read, A any access, P a plain one, W a write; each ∃ t ≠ u is built
// with prefix and suffix disjunctions, linear in the threads.
//
// The violation. Step i is a DataRace when it is taken, fails no other check
// and s_{i+1} races: a check of every move of the step, as checkInvariants
// adds, so that the execution halts there and the counterexample replays
// through ir as Step reports it. The initial state is concrete: New asks
// ir.Program.InitialViolation, which checks it for races. Under the
// property a failing assertion is no violation (ir.Program.AbortsOnAssert):
// the step ends at Stuck() keeping its writes (halt), and its thread never
// moves again.

// raceProbe collects the enabled accesses of one probe (a move whose race is
// set): exec reports each access (saw) and each node it executed (visited).
type raceProbe struct {
	u      *Unrolling
	memory []bool // ir.Program.RaceMemory
	cur    []seenAccess
	out    []raceAccess
}

// seenAccess is an access of the node being executed.
type seenAccess struct {
	loc   int
	write bool
	g     *solver.Term
}

// raceAccess is an enabled access: its location, its kind and its guard.
type raceAccess struct {
	loc           int
	write, atomic bool
	g             *solver.Term
}

func (r *raceProbe) saw(loc int, write bool, g *solver.Term) {
	r.cur = append(r.cur, seenAccess{loc, write, g})
}

// visited ends node n of tr: its memory accesses are enabled accesses, and
// in a plain step the paths on which it touched memory end (succ's
// conditions exclude them).
func (r *raceProbe) visited(tr *ir.Transition, n *ir.Node, succ []edge) {
	b := r.u.b
	atomic := ir.RaceAtomic(tr, n)
	var touched []*solver.Term
	for _, a := range r.cur {
		if a.loc >= len(r.memory) || !r.memory[a.loc] || ir.MutexAccess(n, r.u.cellType[a.loc]) {
			continue
		}
		touched = append(touched, a.g)
		r.out = append(r.out, raceAccess{loc: a.loc, write: a.write, atomic: atomic, g: a.g})
	}
	r.cur = r.cur[:0]
	if len(touched) == 0 || !ir.RaceFirstOnly(tr) {
		return
	}
	untouched := b.Not(b.Or(touched...))
	for j := range succ {
		succ[j].cond = b.And(succ[j].cond, untouched)
	}
}

// Kinds of enabled accesses, indexing raceKinds.
const (
	plainRead = iota
	plainWrite
	atomicRead
	atomicWrite
)

// raceKinds holds, per location, the guards of one thread's enabled
// accesses of each kind.
type raceKinds [4][]*solver.Term

func kindOf(a raceAccess) int {
	k := plainRead
	if a.write {
		k = plainWrite
	}
	if a.atomic {
		k += atomicRead
	}
	return k
}

// probes executes every location thread th may be at in s (reach) as a probe
// and returns its enabled accesses per location. k numbers the state, for
// the probes' draws.
func (u *Unrolling) probes(k int, s *state, th *ir.Thread, reach []bool, memory []bool, acc *accesses,
	as *[]*solver.Term) (map[int]*raceKinds, error) {
	b := u.b
	tm := th.Template
	out := make(map[int]*raceKinds)
	// The draws of state k's probe of thread t are those of "step"
	// −1 − (k·n + t): no step and no other probe has that index.
	index := -1 - (k*len(u.p.Threads) + th.ID)
	for l := 0; l < tm.Terminated(); l++ {
		if !reach[l] {
			continue
		}
		if u.stop.stopped(8) {
			return nil, u.stop.stopErr()
		}
		tr := tm.Transitions[l]
		act := b.And(u.is(s.loc[th.ID], uint64(l)), u.guard(s, th, tr).en)
		if act.IsFalse() {
			continue
		}
		r := &raceProbe{u: u, memory: memory}
		u.probe = r
		mv, err := u.exec(index, s, th, tr, act, acc, as)
		u.probe = nil
		if err != nil {
			return nil, err
		}
		for _, a := range r.out {
			g := a.g
			if a.write && mv.logging {
				g = b.And(g, b.Not(mv.undone)) // undone when the step gets stuck
			}
			rk := out[a.loc]
			if rk == nil {
				rk = new(raceKinds)
				out[a.loc] = rk
			}
			rk[kindOf(a)] = append(rk[kindOf(a)], g)
		}
	}
	return out, nil
}

// racing returns the term "state k, s (whose threads may be at the locations
// reach marks), has a data race".
func (u *Unrolling) racing(k int, s *state, reach [][]bool, as *[]*solver.Term) (*solver.Term, error) {
	p, b := u.p, u.b
	memory := p.RaceMemory()
	acc := u.newAccesses() // the probes' footprints: no step's
	perThread := make([]map[int]*raceKinds, len(p.Threads))
	var locs []int
	seen := make(map[int]int) // location: how many threads access it
	for t, th := range p.Threads {
		m, err := u.probes(k, s, th, reach[t], memory, acc, as)
		if err != nil {
			return nil, err
		}
		perThread[t] = m
		for loc := range m {
			if seen[loc]++; seen[loc] == 2 {
				locs = append(locs, loc)
			}
		}
	}
	var or []*solver.Term
	for _, loc := range locs {
		// X[t] per kind of access: the thread's accesses of loc of the kind.
		any := func(t int, kinds ...int) *solver.Term {
			rk := perThread[t][loc]
			if rk == nil {
				return b.False()
			}
			var gs []*solver.Term
			for _, kd := range kinds {
				gs = append(gs, rk[kd]...)
			}
			return b.Or(gs...)
		}
		n := len(p.Threads)
		pair := func(x, y []int) *solver.Term {
			xs, ys := make([]*solver.Term, n), make([]*solver.Term, n)
			for t := range n {
				xs[t], ys[t] = any(t, x...), any(t, y...)
			}
			return someOther(b, xs, ys)
		}
		all := []int{plainRead, plainWrite, atomicRead, atomicWrite}
		or = append(or,
			pair([]int{plainWrite}, all),
			pair([]int{atomicWrite}, []int{plainRead, plainWrite}),
			pair([]int{plainRead}, []int{plainWrite, atomicWrite}))
	}
	return b.Or(or...), nil
}

// someOther is ∃ t ≠ u: xs[t] ∧ ys[u], through prefix and suffix
// disjunctions of ys.
func someOther(b *solver.Builder, xs, ys []*solver.Term) *solver.Term {
	n := len(xs)
	suffix := make([]*solver.Term, n+1) // suffix[t] = ∨_{u ≥ t} ys[u]
	suffix[n] = b.False()
	for t := n - 1; t >= 0; t-- {
		suffix[t] = b.Or(ys[t], suffix[t+1])
	}
	var or []*solver.Term
	prefix := b.False() // ∨_{u < t} ys[u]
	for t := range n {
		if !xs[t].IsFalse() {
			or = append(or, b.And(xs[t], b.Or(prefix, suffix[t+1])))
		}
		prefix = b.Or(prefix, ys[t])
	}
	return b.Or(or...)
}

// checkRaces adds to every move of a step into state k, ns (reach: where
// its threads may be), the check that ns races, when the run looks for
// races: the step is taken, fails no other check, and reaches a racing state.
func (u *Unrolling) checkRaces(k int, ns *state, reach [][]bool, moves []*move, as *[]*solver.Term) error {
	if !u.p.ChecksRaces() {
		return nil
	}
	race, err := u.racing(k, ns, reach, as)
	if err != nil || race.IsFalse() {
		return err
	}
	b := u.b
	for _, mv := range moves {
		var own []*solver.Term
		for _, c := range mv.checks {
			own = append(own, c.guard)
		}
		g := b.And(mv.act, b.Not(b.Or(own...)), race)
		if g.IsFalse() {
			continue
		}
		tm := u.p.Threads[mv.thread].Template
		mv.checks = append(mv.checks, check{guard: g, kind: ir.DataRace,
			pos: tm.Transitions[mv.loc].EntryNode().Pos, msg: "data race"})
	}
	return nil
}

// halt is machine.halted: a failing assertion (fail holds) stops the thread
// for good under a property that is not about assertions; the path ends
// there (exec gives it an exit to Stuck() that keeps the step's writes).
func (f *frame) halt(fail *solver.Term) {
	b := f.b
	if g := b.And(f.g, fail); !g.IsFalse() {
		f.halts = append(f.halts, g)
	}
	f.g = b.And(f.g, b.Not(fail))
}

// halts reports whether a step of tr may stop its thread on a failing
// assertion (ir.Program.AbortsOnAssert).
func (u *Unrolling) halts(tr *ir.Transition) bool {
	if !u.p.AbortsOnAssert() {
		return false
	}
	for _, n := range tr.Nodes {
		node := tr.Template.Nodes[n]
		if node.Op == ir.OpAssert && node.Kind != ir.Unsupported && !node.Recoverable {
			return true
		}
	}
	return false
}

// mayStick reports whether a thread of tm may end at Stuck(): on a false
// inner guard, or stopped by a failing assertion.
func (u *Unrolling) mayStick(tm *ir.Template) bool {
	if innerGuards(tm) {
		return true
	}
	for _, tr := range tm.Transitions {
		if u.halts(tr) {
			return true
		}
	}
	return false
}

// lastLocOf is lastLoc, with Stuck() when a failing assertion may stop a
// thread of tm there.
func (u *Unrolling) lastLocOf(tm *ir.Template) int {
	if u.mayStick(tm) {
		return tm.Stuck()
	}
	return tm.Terminated()
}

// successors is the function successors, with Stuck() when a failing
// assertion may stop the step there.
func (u *Unrolling) successors(tr *ir.Transition, next []bool) {
	successors(tr, next)
	if u.halts(tr) {
		next[tr.Template.Stuck()] = true
	}
}
