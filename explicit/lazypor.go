package explicit

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync/atomic"

	"kbmc/ir"
	"kbmc/verify"
)

// LazyPOR is the LazyPOR algorithm of Metzler's thesis (2014, Listing 3.1): explore a
// maximal execution, build its trace constraint system (Def. 11–12, with the program
// order of §4.1), solve and execute every variation, split each resulting execution
// into a covered prefix and a rest whose dependencies still have to be varied, and
// recurse on the rest. Solver solves the trace constraint systems; nil selects one
// by Options.TCSSolver ("topo", the linear extension of Listing 5.1, by default).
//
// The thesis proves the algorithm for separated systems, where no step disables
// another, and it diverges on programs with global branchings (§4.2). This version
// is sound on every program of the language (locks, await, assume, join, atomic
// guards, nondet, data-dependent addresses and control flow, the depth bound) and
// terminates on every program. Where it departs from the thesis, and why, is
// described at each place below and in docs/explicit.md. In short:
//
//   - A run's constraint system also holds the pending next step of every thread
//     that had not terminated when the run ended (blocked, or cut by the depth
//     bound), with what its guard reads (ir.Probe: ir.Exact) and what its transition
//     may access, so that a variation can run a blocked thread before the step that
//     left it blocked, and a thread the depth bound cut off before the steps that
//     pushed it past the bound.
//   - Only satisfiable variations are executed (§4.3, generalised): every trace a
//     maximal satisfiable prefix stands for is also the trace of a satisfiable
//     variation. Variations that order a join before the joined thread's end or a
//     lock acquisition inside another thread's critical section are not generated.
//   - split-at-dependency is replaced by a split that is sound on every program: a
//     variation whose execution reproduces the planned trace exactly covers itself
//     (u1' is the whole run, as in the thesis); otherwise u1' is extended only by the
//     steps the variation must move (the swapped constraints and what they depend
//     on), and only as far as each of them provably behaves as in every execution
//     the variation stands for. Every recursive call therefore starts strictly
//     deeper; when no step can be taken at all, the state is expanded like a
//     depth-first search. That is what makes the search terminate (§4.2, §6.3.4).
//   - Nondeterministic values are varied like dependencies: every other value of
//     every step that draws one, in the run and in each variation that covers
//     itself.
//   - The visited-state check (§4.4) keeps the states of completed calls with their
//     remaining depth, and skips a later call at the same state with no more depth.
type LazyPOR struct {
	Options
	Solver TCSSolver // used by one search at a time

	// observe, if set, is called with the schedule of every maximal execution the
	// search explores; noVisited turns the visited-state check off. Tests use them
	// to check that every Mazurkiewicz trace is explored (the visited-state check
	// merges traces that reach the same state).
	observe   func(moves []ir.Move)
	noVisited bool

	// deal, levels and paths, set by a parallel or sharded run (parallel.go):
	// the part of the tree this search explores; or, for a first pass that
	// explores only the top levels, the iterations it finds per level and
	// those of the last level.
	deal   lazyDeal
	levels []int
	paths  map[uint64]int
}

// Check runs the search.
func (a LazyPOR) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	solver := a.Solver
	if solver == nil {
		var err error
		if solver, err = NewTCSSolver(a.TCSSolver); err != nil {
			return nil, fmt.Errorf("lazypor: %w", err)
		}
		if c, ok := solver.(io.Closer); ok {
			defer c.Close()
		}
	}
	x, err := newExecutor(ctx, p, a.Options)
	if err != nil {
		return nil, err
	}
	s := &lazySearch{x: x, p: p, solver: solver, observe: a.observe, noVisited: a.noVisited,
		visited: newVisitedStore[[]lazyVisit](), scratch: make(ir.State, p.StateSize)}
	if a.visited != nil {
		s.shared, s.owner = a.visited, a.worker
	}
	s.deal, s.levels, s.paths = a.deal, a.levels, a.paths
	if _, ok := solver.(*TopoSolver); !ok {
		s.canon = new(TopoSolver)
	}
	s.search()
	if s.err != nil {
		return nil, s.err
	}
	return x.result("lazypor", depthOnly(), "tcs_built", "tcs_solved", "tcs_unsat")
}

// lazySearch is one LazyPOR search.
//
// The search is a tree of explore calls (nodes). A node is a state s reached by a
// prefix u1 (the path in moves[:depth]) and a maximal run u2 from s; it covers
// every maximal execution from s within the remaining depth, up to Mazurkiewicz
// equivalence (for a node this is the correctness condition of Theorem 3.1 with
// u1's dependencies already covered). Children start strictly deeper, so the tree
// is finite.
type lazySearch struct {
	x      *executor
	p      *ir.Program
	solver TCSSolver
	canon  *TopoSolver // the canonical schedule when solver is not a TopoSolver
	err    error

	moves   []ir.Move // the path from the initial state
	visited *visitedStore[[]lazyVisit]
	// shared, in a parallel run, is the store of completed nodes that the
	// searches of all subtrees share, instead of visited; owner is this
	// search's records there.
	shared *sharedVisited[struct{}]
	owner  int

	// Where the search is in its tree of nodes, for deal and levels: the node
	// being explored, which of its loop iterations (variations, choices, the
	// expansion) is under way, and how many children that iteration started.
	cur       *lazyNode
	iter, sub int
	deal      lazyDeal
	levels    []int          // a first pass: the iterations it met at its last level, len(levels)-1
	paths     map[uint64]int // a first pass: those iterations' paths, numbered in order
	observe   func(moves []ir.Move)

	noVisited bool

	ev      ir.Event
	one     successors // step: one successor with given draws
	scratch ir.State
	pend    []ir.Access
}

// A lazyVisit is a completed node at a stored state: every maximal execution from
// the state within budget steps was covered; maxLen is the longest of them and cut
// says whether the depth bound cut one. A state keeps one per completed node, in
// the order they completed.
type lazyVisit struct {
	budget int
	maxLen int
	cut    bool
}

// A lazyRun is a sequence of steps from a node's state, with what each accessed.
type lazyRun struct {
	steps []lazyStep
	acc   []ir.Access
	vals  []int64
	final ir.State // the state after the last step
	cut   bool     // the depth bound cut the run (some thread was still enabled)
}

type lazyStep struct {
	thread, from, to int32
	acc0, acc1       int32 // accesses: acc[acc0:acc1]
	val0, val1       int32 // nondeterministic values drawn: vals[val0:val1]
}

func (r *lazyRun) reset() {
	r.steps, r.acc, r.vals, r.cut = r.steps[:0], r.acc[:0], r.vals[:0], false
}

func (r *lazyRun) push(ev *ir.Event) {
	st := lazyStep{thread: int32(ev.Thread), from: int32(ev.From), to: int32(ev.To),
		acc0: int32(len(r.acc)), val0: int32(len(r.vals))}
	r.acc = append(r.acc, ev.Accesses...)
	for _, c := range ev.Choices {
		r.vals = append(r.vals, c.Value)
	}
	st.acc1, st.val1 = int32(len(r.acc)), int32(len(r.vals))
	r.steps = append(r.steps, st)
}

func (r *lazyRun) accesses(i int) []ir.Access {
	st := &r.steps[i]
	return r.acc[st.acc0:st.acc1]
}

func (r *lazyRun) values(i int) []int64 {
	st := &r.steps[i]
	return r.vals[st.val0:st.val1]
}

// suffix copies the steps from k on into a new run.
func (r *lazyRun) suffix(k int) *lazyRun {
	out := &lazyRun{final: r.final.Clone(), cut: r.cut, steps: make([]lazyStep, 0, len(r.steps)-k)}
	for i := k; i < len(r.steps); i++ {
		st := r.steps[i]
		a, v := r.accesses(i), r.values(i)
		st.acc0, st.val0 = int32(len(out.acc)), int32(len(out.vals))
		out.acc = append(out.acc, a...)
		out.vals = append(out.vals, v...)
		st.acc1, st.val1 = int32(len(out.acc)), int32(len(out.vals))
		out.steps = append(out.steps, st)
	}
	return out
}

// A lazyNode is one explore(u1, u2) call: the state s = u1(s0) at depth |u1| and
// the run u2 from s.
type lazyNode struct {
	depth int
	state ir.State
	run   *lazyRun
	level int    // in the tree of nodes: the root is 0, its children 1, …
	path  uint64 // a hash of the loop iterations that led to it from the root
}

// A lazyDeal splits the tree of nodes among the searches of a parallel or sharded
// run, as the thesis proposes (§4.5: the iterations of explore's loop are
// independent): every search explores the nodes above level alike, and the
// iterations of the nodes at level (their variations and choices) are shared
// out; an iteration is explored, with every node it leads to, by one search.
// index numbers them in the order the sequential search meets them (a first pass
// found them). Part part of parts takes a contiguous range of them; within it,
// the workers claim chunks of consecutive iterations as they come to them, each
// the next chunk nobody has claimed. Chunks of neighbouring iterations, not
// iterations dealt one by one, because neighbouring iterations converge on the
// same states: a worker then meets the states it explored a moment ago, which
// are complete, rather than states the other worker has under way, which it
// would explore again. The zero value is the whole tree.
type lazyDeal struct {
	on          bool
	level       int
	index       map[uint64]int
	parts, part int
	worker      int
	claims      *lazyClaims // shared by the part's workers; nil: one worker
}

// lazyClaims says which worker (plus one) claimed each chunk of the dealt
// iterations.
type lazyClaims struct {
	size  int // iterations per chunk
	chunk []atomic.Int32
}

// mine reports whether the search explores the iteration of n under way
// (s.iter). A first pass counts the iterations of its last level's nodes and
// explores none of them.
func (s *lazySearch) mine(n *lazyNode) bool {
	if s.levels != nil && n.level == len(s.levels)-1 {
		s.levels[n.level]++
		s.paths[mixPath(n.path, s.iter, -1)] = len(s.paths)
		return false
	}
	return !s.deal.on || n.level != s.deal.level || s.deal.owns(mixPath(n.path, s.iter, -1))
}

// owns reports whether the dealt iteration with this path is this search's.
func (d lazyDeal) owns(path uint64) bool {
	i, ok := d.index[path]
	if !ok {
		// The first pass meets every iteration of the dealt level (the top of
		// the tree does not depend on what is explored below it, and lookups
		// only prune); one it did not meet is explored by whoever meets it.
		return true
	}
	if i*max(d.parts, 1)/len(d.index) != d.part {
		return false
	}
	if d.claims == nil {
		return true
	}
	c := &d.claims.chunk[i/d.claims.size]
	me := int32(d.worker + 1)
	return c.Load() == me || c.CompareAndSwap(0, me) || c.Load() == me
}

// mixPath is the path of the sub-th child started in iteration iter of a node
// with path path (splitmix64's finalizer, so that the low bits spread).
func mixPath(path uint64, iter, sub int) uint64 {
	h := path ^ (uint64(iter)<<32 | uint64(uint32(sub))) + 0x9e3779b97f4a7c15
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h ^ h>>31
}

// search explores from the initial state: explore(ε, ε).
func (s *lazySearch) search() {
	root := &lazyNode{state: s.x.initial(), run: new(lazyRun)}
	st := root.state.Clone()
	if _, ok := s.complete(st, 0, root.run); !ok {
		return
	}
	s.explore(root)
}

// path returns the first n moves of the path from the initial state, growing it
// with the depth the search reaches (never with the bound).
func (s *lazySearch) path(n int) []ir.Move {
	for len(s.moves) < n {
		s.moves = append(s.moves, ir.Move{})
	}
	return s.moves[:n]
}

// start prepares it to enumerate the successors of thread t's step from from
// into to, the step being move n-1 of the path.
func (s *lazySearch) start(it *successors, from, to ir.State, t, n int) {
	s.path(n) // grows the buffer
	it.start(from, to, t, &s.ev, &s.moves, n)
}

// step executes thread t in st (in place) with the given leading nondeterministic
// values and records the move at position pos of the path. A failed step is a
// violation, reported at once; step then returns false.
func (s *lazySearch) step(st ir.State, pos, t int, fixed []int64) bool {
	s.start(&s.one, st, st, t, pos+1)
	s.one.once(fixed)
	return s.x.next(&s.one)
}

// complete extends run (whose steps so far lead from the node's state to st, at
// path position pos) to a maximal execution: the lowest-numbered enabled thread
// moves, nondeterministic values at their low end (the thesis's "arbitrary maximal
// transition sequence", lines 33–37). The execution is counted, and a terminal state
// goes through the executor's deadlock check. It reports whether it took a step,
// and false for ok when the search is over.
func (s *lazySearch) complete(st ir.State, pos int, run *lazyRun) (extended, ok bool) {
	x, p := s.x, s.p
	for {
		if x.done() {
			return extended, false
		}
		t := -1
		for u := range p.Threads {
			if p.Enabled(st, u) {
				t = u
				break
			}
		}
		if s.observe != nil && (t < 0 || pos == x.opts.Depth) {
			s.observe(s.path(pos))
		}
		if leaf, cut := x.leaf(st, t >= 0, s.path(pos)); leaf {
			run.final = append(run.final[:0], st...)
			run.cut = cut
			return extended, cut || !x.done()
		}
		if !s.step(st, pos, t, nil) {
			return extended, false
		}
		run.push(&s.ev)
		pos++
		extended = true
	}
}

// lazyTCS is a node's trace constraint system with what the search needs beside
// the constraints: each event's structure (the accesses its step made in the run,
// or for a pending step what it may access) and the scratch of one variation.
type lazyTCS struct {
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

	// Scratch for one variation.
	predStart, preds []int32
	succStart, succs []int32
	last, fill       []int32
	pos, lastEv      []int // for TCS.satisfies
	need             []int32
	inE, done        bitSet
	stack            []int32
	state, piState   ir.State
	run              lazyRun
	fallback         bool // some variation could not start: expand the state instead
}

type lazyRef struct {
	loc  int32
	ev   int32
	kind ir.AccessKind
}

// build makes the trace constraint system of the node's run (Def. 12), plus the
// pending steps, with the dependency list in the order <_{N×N}.
//
// The dependency relation is quadratic in the run's length (a loop of 10^5 steps
// on one variable makes 10^10 pairs and a relation of a gigabyte), so build looks
// at the search's clock and memory flag as it goes and returns nil once the run
// must stop.
func (s *lazySearch) build(n *lazyNode) *lazyTCS {
	p, x := s.p, s.x
	run := n.run
	t := &lazyTCS{node: n, runLen: len(run.steps)}
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
		structure := pend
		if !run.cut {
			structure = slices.Clone(s.x.accesses(run.final, u, status, ir.Static, s.pend))
		}
		t.Events = append(t.Events, TCSEvent{Thread: u, Pending: true})
		t.from = append(t.from, int32(tr.Index))
		t.acc = append(t.acc, structure)
		t.pend = append(t.pend, pend)
	}
	ne := len(t.Events)
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
	if run.cut {
		// The depth bound cut the run: a pending step may belong before any step of
		// another thread (moving it earlier pushes those past the bound), so it is
		// dependent with every event of another thread.
		for e := t.runLen; e < ne; e++ {
			for f := range ne {
				if t.Events[f].Thread != t.Events[e].Thread {
					t.dep[e].add(f)
					t.dep[f].add(e)
				}
			}
		}
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
func (t *lazyTCS) constrain(p *ir.Program) {
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
		// Mutual exclusion: a = r_A, a run step releasing L.
		if a >= t.runLen || op(a).Op != ir.OpUnlock || !staticTarget(op(a)) {
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

// explore is explore(u1, u2) of Listing 3.1 for node n. It returns the length of
// the longest execution it covered (from n's state) and whether the depth bound
// cut any, for the visited-state check.
func (s *lazySearch) explore(n *lazyNode) (maxLen int, cut bool) {
	x := s.x
	maxLen, cut = len(n.run.steps), n.run.cut
	budget := x.opts.Depth - n.depth
	if budget == 0 || x.done() {
		return maxLen, cut
	}
	t := s.build(n)
	if t == nil {
		return maxLen, cut // stopped while building
	}
	note := func(l int, c bool) {
		maxLen = max(maxLen, l)
		cut = cut || c
	}
	cur, iter, sub := s.cur, s.iter, s.sub
	defer func() { s.cur, s.iter, s.sub = cur, iter, sub }()
	s.cur, s.iter = n, 0
	// Lines 11–14: every variation of u2.
	t.enum.poll = x.done
	if !t.enum.init(&t.TCS) {
		return maxLen, cut // stopped while building
	}
	t.enum.run(func() bool {
		if x.done() || s.err != nil {
			return false
		}
		if !slices.Contains(t.Swapped, true) {
			return true // the run itself
		}
		s.iter, s.sub = s.iter+1, 0
		if !s.mine(n) {
			return true
		}
		x.stats.TCSBuilt++
		l, c := s.variation(t)
		note(l, c)
		return !t.fallback && !x.done() && s.err == nil
	})
	x.stats.TCSBuilt += t.enum.unsat
	x.stats.TCSUnsat += t.enum.unsat
	// The nondeterministic alternatives of the run's steps.
	clear(t.Swapped)
	for _, e := range t.draws {
		if t.fallback || x.done() || s.err != nil {
			break
		}
		s.iter, s.sub = s.iter+1, 0
		if !s.mine(n) {
			continue
		}
		l, c := s.choice(t, int(e))
		note(l, c)
	}
	// The expansion follows an iteration that fell back; in a dealt node, the
	// search that ran that iteration expands (it is not dealt).
	if t.fallback && !x.done() && s.err == nil {
		s.iter, s.sub = s.iter+1, 0
		l, c := s.expand(n)
		note(l, c)
	}
	// A node at or above the dealt level has had only this search's share of
	// its iterations explored: it covers nothing.
	if !x.done() && s.err == nil && !s.noVisited && (!s.deal.on || n.level > s.deal.level) {
		if s.shared != nil {
			// Published once complete, as dfs does: the height is the longest
			// execution covered, budget+1 if the bound cut one (then the
			// longest is budget), so that a lookup with any smaller budget
			// reads both from it.
			e, _ := s.shared.visit(n.state, s.owner)
			h := min(maxLen, budget)
			if cut {
				h = budget + 1
			}
			e.publish(budget, h)
		} else {
			v, _ := s.visited.visit(n.state)
			v.own = append(v.own, lazyVisit{budget: budget, maxLen: maxLen, cut: cut})
		}
	}
	return maxLen, cut
}

// lookup is the visited-state check (§4.4) for a node about to start at state st
// with budget steps left: if a completed node covered st with at least that budget,
// it returns the covered length (capped by budget) and cut flag, and marks the
// search as cut when executions from st exceed budget.
func (s *lazySearch) lookup(st ir.State, budget int) (maxLen int, cut, ok bool) {
	if s.shared != nil {
		// A node completed by any worker, with at least this budget; one
		// still under way covers nothing yet.
		e := s.shared.lookup(st)
		if e == nil {
			return 0, false, false
		}
		b, h := e.completed()
		if b < budget {
			return 0, false, false
		}
		if cut = h > budget; cut {
			s.x.cutOff("depth bound reached")
		}
		return min(h, budget), cut, true
	}
	rec := s.visited.lookup(st)
	if rec == nil {
		return 0, false, false
	}
	for _, v := range rec.own {
		if v.budget < budget {
			continue
		}
		cut = v.cut
		if v.budget > budget {
			cut = v.maxLen > budget
		}
		if cut {
			s.x.cutOff("depth bound reached")
		}
		return min(v.maxLen, budget), cut, true
	}
	return 0, false, false
}

// child starts the node at state st, depth depth, whose run is run[k:] (a run from
// the parent's state, already executed) or, when run is nil, a fresh maximal run
// from st. It returns the length covered from st and whether anything was cut.
func (s *lazySearch) child(st ir.State, depth int, run *lazyRun, k int) (maxLen int, cut bool) {
	// Children are numbered by the parent's loop iteration and their order in
	// it, which lookups do not change (a lookup that ends an iteration early
	// does so before its first child), so the searches of a parallel run,
	// which explore the top of the tree alike, number its nodes alike.
	level, path := s.cur.level+1, mixPath(s.cur.path, s.iter, s.sub)
	s.sub++
	if l, c, ok := s.lookup(st, s.x.opts.Depth-depth); ok {
		return l, c
	}
	n := &lazyNode{depth: depth, state: st.Clone(), level: level, path: path}
	if run != nil {
		n.run = run.suffix(k)
	} else {
		n.run = new(lazyRun)
		cur := st.Clone()
		if _, ok := s.complete(cur, depth, n.run); !ok {
			return len(n.run.steps), n.run.cut
		}
	}
	return s.explore(n)
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
//     Q+ would still be blocked, or w would be longer than the bound, since a
//     pending event of a cut run is dependent with every other event.
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
func (s *lazySearch) solve(t *lazyTCS) ([]int, bool) {
	x := s.x
	order, ok, err := s.solver.Solve(x.ctx, &t.TCS)
	switch {
	case err != nil && x.cancelled():
		return nil, false // the time limit, not the solver: the verdict is unknown
	case err != nil:
		s.err = fmt.Errorf("lazypor: trace constraint solver: %w", err)
		return nil, false
	case !ok:
		x.stats.TCSUnsat++
		s.err = fmt.Errorf("lazypor: the trace constraint solver found a satisfiable system unsatisfiable")
		return nil, false
	}
	x.stats.TCSSolved++
	if err := t.satisfies(order, &t.pos, &t.lastEv); err != nil {
		s.err = fmt.Errorf("lazypor: trace constraint solver: %w", err)
		return nil, false
	}
	if s.canon != nil {
		if order, ok, err = s.canon.Solve(x.ctx, &t.TCS); err != nil || !ok {
			s.err = fmt.Errorf("lazypor: no canonical schedule for a satisfiable system")
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
func (s *lazySearch) variation(t *lazyTCS) (maxLen int, cut bool) {
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
			if t.need[e] > 0 || pos == x.opts.Depth {
				continue
			}
			switch s.try(t, e, pos) {
			case tryStop:
				return 0, false
			case tryBad:
				bad++
				badEvent = e
				continue
			case tryDrawn:
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
	var order []int
	if !faithful {
		if l, c, ok := s.lookup(t.piState, x.opts.Depth-pos); ok {
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
		if pos == x.opts.Depth {
			faithful = false
			break
		}
		th := t.Events[e].Thread
		if p.Location(t.state, th) != int(t.from[e]) || !p.Enabled(t.state, th) {
			faithful = false
			continue
		}
		if !s.step(t.state, pos, th, t.node.run.values(e)) {
			return 0, false
		}
		t.run.push(&s.ev)
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
	if extended || faithful && !n.run.cut && !s.sameEnd(t) {
		faithful = false
	}
	maxLen, cut = len(t.run.steps), t.run.cut
	if faithful {
		// Point 3: u2' is empty. An execution with this variation may still draw
		// other values in one event; those start with a choice.
		for _, e := range t.draws {
			if t.fallback || x.done() || s.err != nil {
				break
			}
			l, c := s.choice(t, int(e))
			maxLen, cut = max(maxLen, l), cut || c
		}
		return maxLen, cut
	}
	l, c := s.child(t.piState, n.depth+k, &t.run, k)
	return max(maxLen, k+l), cut || c
}

// graph computes, for the variation in t.Swapped, each event's constraint
// predecessors and successors (program order and dependency constraints).
func (s *lazySearch) graph(t *lazyTCS) {
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
func (s *lazySearch) closeE(t *lazyTCS) {
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
func (s *lazySearch) commit(t *lazyTCS, e int) {
	copy(t.state, s.scratch)
	t.run.push(&s.ev)
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
	tryStop            // a violation was found or the search is over
)

// try executes event e on s.scratch (a copy of the variation's state) at path
// position pos and classifies it (point 2 of the argument).
func (s *lazySearch) try(t *lazyTCS, e, pos int) tryResult {
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
	if !s.monotone(t, e, s.ev.Accesses) {
		return tryBad
	}
	if len(s.ev.Choices) > 0 {
		return tryDrawn
	}
	return tryGood
}

// monotone reports whether every conflict of the accesses acc of event e with the
// structure of an event of another thread is a dependency of the system.
func (s *lazySearch) monotone(t *lazyTCS, e int, acc []ir.Access) bool {
	th := t.Events[e].Thread
	for _, a := range acc {
		i, _ := slices.BinarySearchFunc(t.refs, int32(a.Loc), func(r lazyRef, loc int32) int { return int(r.loc - loc) })
		for ; i < len(t.refs) && t.refs[i].loc == int32(a.Loc); i++ {
			r := t.refs[i]
			if ir.Conflicts(a.Kind, r.kind) && t.Events[r.ev].Thread != th && !t.dep[e].has(int(r.ev)) {
				return false
			}
		}
	}
	return true
}

// matched reports whether s.ev, the step just executed for run event e, did what
// e did in the run: the same accesses, successor location and values.
func (s *lazySearch) matched(t *lazyTCS, e int) bool {
	run := t.node.run
	st := &run.steps[e]
	if int32(s.ev.To) != st.to {
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
func (s *lazySearch) sameEnd(t *lazyTCS) bool {
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
func (s *lazySearch) staticallyBlocked(t *lazyTCS, e int) bool {
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
func (s *lazySearch) choice(t *lazyTCS, e int) (maxLen int, cut bool) {
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
		case tryStop:
			return 0, false
		case tryGood, tryDrawn:
			s.commit(t, next)
			pos++
			continue
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
			if !slices.Equal(s.moves[pos].Choices, runVals) {
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
		l, c := s.child(t.piState, n.depth+k, nil, 0)
		return k + l, c
	}
	// Every alternative is good: a child after each. (They were executed above
	// without failing.) A child keeps a copy of its state, so st can be reused.
	st := make(ir.State, len(t.piState))
	var it successors
	s.start(&it, t.piState, st, th, pos+1)
	for !x.done() && x.next(&it) {
		if slices.Equal(s.moves[pos].Choices, runVals) {
			continue
		}
		l, c := s.child(st, pos+1, nil, 0)
		maxLen = max(maxLen, k+1+l)
		cut = cut || c
	}
	return maxLen, cut
}

// expand explores the node's state like a depth-first search: a child after every
// step of every enabled thread, with every combination of nondeterministic values.
// Those children cover every execution from the state.
func (s *lazySearch) expand(n *lazyNode) (maxLen int, cut bool) {
	x, p := s.x, s.p
	// A child keeps a copy of its state, so one successor buffer will do.
	st := make(ir.State, len(n.state))
	var it successors
	for th := range p.Threads {
		if !p.Enabled(n.state, th) {
			continue
		}
		s.start(&it, n.state, st, th, n.depth+1)
		for !x.done() && x.next(&it) {
			l, c := s.child(st, n.depth+1, nil, 0)
			maxLen = max(maxLen, 1+l)
			cut = cut || c
		}
		if it.failed {
			return maxLen, cut
		}
	}
	return maxLen, cut
}
