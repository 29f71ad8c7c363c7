package explicit

import (
	"context"

	"kbmc/ir"
	"kbmc/verify"
)

// ProcessLocal is the partial-order reduction for distributed programs of
// "Reduction Techniques for Distributed Applications"
// (§3, Algorithm 1; docs/explicit.md, process-local): a stateful
// search that, in a state where process p can go on by itself, explores only p's
// transitions:
//
//	Branch(s, p) = Enabled(s, p)  when p has enabled transitions, all of them
//	                              local (no channel operation), and no thread of p
//	                              waits on a channel (¬ApproxBlocked_G(s, p));
//	Branch(s, p) = Enabled(s)     otherwise.
//
// Theorem 3.1 shows Branch(s, p) persistent for any state and any process p (the
// paper takes the process of the last step; this search tries that one first and
// then the others, and takes the smallest set that qualifies). Two of the paper's
// assumptions need a word in kbmc:
//
//   - Assumption 3.3 (a process's local transitions are independent of every
//     other process's transitions) holds by construction: processes share no
//     memory and no locks, a join names a thread of the same process, and channels
//     are the only locations two processes both access (ir.Conflict).
//   - Assumption 3.2 (only global actions block) does not hold: a thread of p may
//     block on p's mutex, an await or assume over p's memory, or a join of p's
//     thread. The proof uses the assumption in one place, to rule out that a step
//     of another process enables a blocked transition of p (step (10)). A local
//     guard reads only p's memory, locks and threads, which no other process
//     writes, so no other process can enable it either: the argument stands for
//     local blocking, and ApproxBlocked_G only has to look at threads of p whose
//     blocked transition touches a channel.
//
// The paper proves that the reduced search preserves deadlocks (Theorem 3.2,
// through Godefroid's Theorem 4.3). For assertions and run-time errors, and for
// kbmc's depth bound, the search reuses persistent's two phases: the exhaustive
// phase explores Branch(s, p) and finds every violation when no execution is
// longer than the bound; otherwise the bounded phase adds the construction of
// Godefroid and Wolper §4 — a state where a thread of another process may still
// fail is explored in full (Branch(s, p) = Enabled(s)), so that no violation is
// postponed behind p forever — with sleep sets on top. A program without
// processes is one process, and the search is then a stateful search of every
// interleaving.
type ProcessLocal struct {
	Options
}

// Check runs the search.
func (a ProcessLocal) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	return check(ctx, p, "process-local", a)
}

func (a ProcessLocal) options() Options { return a.Options }

func (a ProcessLocal) start(x *executor, sh *sharing) (runner, error) {
	return persistentRun{opts: a.Options, sh: sh, local: true}, nil
}

// processLocal chooses Branch(s, p).
type processLocal struct {
	s       *persistentSearch
	procOf  []int    // thread -> process
	threads []bitSet // process -> its threads
	global  [][]bool // thread, location: the transition there may touch a channel
	cand    bitSet   // scratch: Enabled(s, p)
}

func newProcessLocal(s *persistentSearch) *processLocal {
	p := s.p
	pl := &processLocal{s: s, procOf: make([]int, s.n), threads: make([]bitSet, p.NumProcesses()),
		global: make([][]bool, s.n), cand: newBitSet(s.n)}
	for i := range pl.threads {
		pl.threads[i] = newBitSet(s.n)
	}
	byTemplate := map[*ir.Template][]bool{}
	invLoc, hasInv := p.InvariantLocation()
	for t, th := range p.Threads {
		pl.procOf[t] = p.ProcessOf(t)
		pl.threads[pl.procOf[t]].add(t)
		g, ok := byTemplate[th.Template]
		if !ok || hasInv {
			// Two more: the terminated and the stuck location
			// (Template.Stuck) run no code.
			g = make([]bool, len(th.Template.Transitions)+2)
			for l, tr := range th.Template.Transitions {
				// A transition that may write what an invariant reads is
				// visible, as a channel operation is: global (docs/explicit.md,
				// "Invariants"). Its footprint is the thread's own.
				g[l] = len(tr.Chans) > 0 || hasInv && s.info.own[t][l].acc[ir.Write].has(invLoc)
			}
			byTemplate[th.Template] = g
		}
		pl.global[t] = g
	}
	return pl
}

// choose sets frames[d].pset to Branch(s, p) for the first process p, the last
// step's first, whose transitions alone are persistent, or to every enabled thread.
func (pl *processLocal) choose(d int, safety bool) {
	s := pl.s
	f := s.frames[d]
	best := -1
	bestCount := 0
	try := func(q int) {
		if c, ok := pl.local(d, q, safety); ok && (best < 0 || c < bestCount) {
			best, bestCount = q, c
		}
	}
	first := -1
	if d > 0 {
		first = pl.procOf[s.moves[d-1].Thread]
		try(first)
	}
	for q := range pl.threads {
		if q != first {
			try(q)
		}
	}
	f.pset.copyFrom(f.enabled)
	if best >= 0 && bestCount < f.enabled.count() {
		f.pset.and(pl.threads[best])
		s.x.stats.LocalStates++
	}
}

// local reports whether the state at depth d is process-local for process q, and
// how many of q's threads are enabled: q has an enabled thread, every enabled
// thread of q is about to take a local transition, no thread of q waits at a
// transition that touches a channel (ApproxBlocked_G), and, in the bounded phase
// (safety), no thread of another process may still fail.
func (pl *processLocal) local(d, q int, safety bool) (int, bool) {
	s := pl.s
	f := s.frames[d]
	cur := s.states[d]
	pl.cand.copyFrom(f.enabled)
	pl.cand.and(pl.threads[q])
	if pl.cand.empty() {
		return 0, false
	}
	for t := pl.threads[q].next(0); t >= 0; t = pl.threads[q].next(t + 1) {
		switch f.probes[t].status {
		case ir.Enabled, ir.Blocked, ir.BlockedAssume:
			if pl.global[t][s.p.Location(cur, t)] {
				return 0, false
			}
		}
	}
	if safety {
		for u := range s.n {
			if pl.procOf[u] != q && s.info.mayFail(u, s.p.Location(cur, u)) {
				return 0, false
			}
		}
	}
	return pl.cand.count(), true
}
