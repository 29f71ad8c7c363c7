package encode

import (
	"kbmc/ir"
	"kbmc/solver"
	"kbmc/verify"
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
//
// Where ir gives up. ir's check enumerates the draws a step makes up to its
// first memory operation, at most ir.MaxProbeDraws combinations, and reports
// Unsupported beyond, naming the first thread (in order) whose step draws
// more, when two threads are enabled. The encoding fails the step into such
// a state the same way (a probe reaching a draw of more values), so that the
// answer is unknown where the replay could not confirm a race; Supported
// refuses a step whose smaller draws may combine to more (raceSupported).

// raceProbe collects the enabled accesses of one probe (a move whose race is
// set): exec reports each access (saw) and each node it executed (visited).
type raceProbe struct {
	u      *Unrolling
	memory []bool // ir.Program.RaceMemory
	atomic []bool // ir.Program.RaceAtomicCells
	cur    []seenAccess
	out    []raceAccess
	// wide: the guards of the draws of more values than ir's check
	// enumerates (ir.MaxProbeDraws).
	wide []*solver.Term
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

// drew records a draw of nondet e under g.
func (r *raceProbe) drew(e *ir.Expr, g *solver.Term) {
	if drawSpan(r.u.p, e) > ir.MaxProbeDraws {
		r.wide = append(r.wide, g)
	}
}

// drawSpan is the number of values nondet e draws from, its range read
// modulo 2^64 from its low end as ir reads it (a U64's whole range is
// 0..-1), at most 2^64 − 1.
func drawSpan(p *ir.Program, e *ir.Expr) uint64 {
	lo, hi := e.Lo, e.Hi
	if e.Unbounded {
		lo, hi = e.Type.Range(p.Width)
	}
	if span := uint64(hi-lo) + 1; span != 0 {
		return span
	}
	return 1<<64 - 1
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
		r.out = append(r.out, raceAccess{loc: a.loc, write: a.write, atomic: atomic || r.atomic != nil && r.atomic[a.loc], g: a.g})
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

// threadProbes is what the probes of one thread in one state found.
type threadProbes struct {
	accesses map[int]*raceKinds // per location
	enabled  *solver.Term       // the thread is enabled (ir.Program.Status)
	// wide holds, per location the thread may be at whose step may draw
	// more values than ir enumerates, the condition that it sits there,
	// enabled, and does.
	wide []wideProbe
}

// wideProbe is a probe that drew more values than ir's check enumerates.
type wideProbe struct {
	g   *solver.Term
	pos ir.Pos // the transition's entry, as ir reports it
}

// probes executes every location thread th may be at in s (reach) as a probe
// and returns what they found. k numbers the state, for the probes' draws.
func (u *Unrolling) probes(k int, s *state, th *ir.Thread, reach []bool, memory []bool, acc *accesses,
	as *[]*solver.Term) (*threadProbes, error) {
	b := u.b
	tm := th.Template
	out := make(map[int]*raceKinds)
	tp := &threadProbes{accesses: out}
	var acts []*solver.Term
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
		acts = append(acts, act)
		r := &raceProbe{u: u, memory: memory, atomic: u.atomicCells}
		u.probe = r
		mv, err := u.exec(index, s, th, tr, act, acc, as)
		u.probe = nil
		if err != nil {
			return nil, err
		}
		if w := b.Or(r.wide...); !w.IsFalse() {
			tp.wide = append(tp.wide, wideProbe{g: b.And(act, w), pos: tr.EntryNode().Pos})
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
	tp.enabled = b.Or(acts...)
	return tp, nil
}

// racing returns the term "state k, s (whose threads may be at the locations
// reach marks), has a data race", and the probes of its threads.
func (u *Unrolling) racing(k int, s *state, reach [][]bool, as *[]*solver.Term) (*solver.Term, []*threadProbes, error) {
	p, b := u.p, u.b
	memory := p.RaceMemory()
	acc := u.newAccesses() // the probes' footprints: no step's
	probes := make([]*threadProbes, len(p.Threads))
	perThread := make([]map[int]*raceKinds, len(p.Threads))
	var locs []int
	seen := make(map[int]int) // location: how many threads access it
	for t, th := range p.Threads {
		tp, err := u.probes(k, s, th, reach[t], memory, acc, as)
		if err != nil {
			return nil, nil, err
		}
		probes[t] = tp
		m := tp.accesses
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
	return b.Or(or...), probes, nil
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
	race, probes, err := u.racing(k, ns, reach, as)
	if err != nil {
		return err
	}
	b := u.b
	// ir's check gives up (Unsupported) where two threads are enabled and
	// one's next step draws more values than it enumerates, naming the
	// first such thread: the step that reaches the state fails so too, so
	// that the engine answers unknown where the replay cannot confirm.
	enabled := make([]*solver.Term, len(probes))
	for t, tp := range probes {
		enabled[t] = tp.enabled
	}
	two := someOther(b, enabled, enabled)
	var wide []check
	earlier := b.False() // a thread before the one at hand is wide
	for t, tp := range probes {
		var mine []*solver.Term
		for _, w := range tp.wide {
			wide = append(wide, check{guard: b.And(two, b.Not(earlier), w.g), kind: ir.Unsupported, pos: w.pos,
				msg:   "the data-race check enumerates a bounded number of values per step, and this thread's next step draws more",
				other: true, thread: t})
			mine = append(mine, w.g)
		}
		earlier = b.Or(earlier, b.Or(mine...))
	}
	race = b.And(b.Not(b.And(two, earlier)), race)
	for _, mv := range moves {
		var own []*solver.Term
		for _, c := range mv.checks {
			own = append(own, c.guard)
		}
		g := b.And(mv.act, b.Not(b.Or(own...)))
		for _, c := range wide {
			if cg := b.And(g, c.guard); !cg.IsFalse() {
				c.guard = cg
				mv.checks = append(mv.checks, c)
			}
		}
		if g := b.And(g, race); !g.IsFalse() {
			tm := u.p.Threads[mv.thread].Template
			mv.checks = append(mv.checks, check{guard: g, kind: ir.DataRace,
				pos: tm.Transitions[mv.loc].EntryNode().Pos, msg: "data race"})
		}
	}
	return nil
}

// raceSupported refuses, under the property, a program with a transition
// whose draws of at most ir.MaxProbeDraws values each may still combine to
// more than that: whether ir's check enumerates them all depends on the
// path, which the encoding does not follow. (A draw of more values makes
// the check give up wherever it is reached, which the encoding follows.)
func raceSupported(p *ir.Program) error {
	if !p.ChecksRaces() {
		return nil
	}
	for _, ch := range p.Channels {
		if ch.Rendezvous() {
			// A sender's step runs the receiver's transition (rendezvous.go);
			// the probes that find a thread's enabled access do not follow
			// it there, as ir's race check does.
			return &verify.UnsupportedError{Pos: ch.Pos, Engine: "symbolic engine",
				Msg: "the property no-data-race on a program with a rendezvous channel is not encoded (the explicit engine checks it: --engine explicit --algo dfs)"}
		}
	}
	for _, tm := range p.Templates {
		for _, tr := range tm.Transitions {
			combos := uint64(1)
			var at ir.Pos
			for _, n := range tr.Nodes {
				node := tm.Nodes[n]
				span := uint64(1)
				switch node.Op {
				case ir.OpSelect:
					span = uint64(len(node.Cases) + 1) // which ready case
				case ir.OpSend, ir.OpRecv:
					span = 2 // a lossy send loses its message or not
					for _, ch := range p.Channels {
						span = max(span, uint64(ch.Cap)) // which message an unordered receive takes
					}
				}
				for e := range node.Exprs() {
					ir.Inspect(e, func(e *ir.Expr) bool {
						if s := drawSpan(p, e); e.Op == ir.ENondet && s <= ir.MaxProbeDraws {
							span = min(span*s, ir.MaxProbeDraws+1) // no overflow
						}
						return true
					})
				}
				if combos *= span; combos > ir.MaxProbeDraws {
					at = node.Pos
					break
				}
			}
			if combos > ir.MaxProbeDraws {
				return &verify.UnsupportedError{Pos: at, Engine: "symbolic engine",
					Msg: "this step's draws combine to more values than the data-race check enumerates (the explicit engine checks it: --engine explicit)"}
			}
		}
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
