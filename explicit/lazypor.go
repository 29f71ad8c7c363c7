package explicit

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"kbmc/ir"
	"kbmc/verify"
)

// LazyPOR is the LazyPOR algorithm of Metzler's thesis ("Lazy POR for the
// Verification of Distributed Programs", 2014, Listing 3.1): explore a maximal
// execution, build its trace constraint system (Def. 11–12, with the program
// order of §4.1), solve and execute every variation, split each resulting
// execution into a covered prefix and a rest whose dependencies still have to be
// varied, and recurse on the rest. Solver solves the trace constraint systems;
// nil selects one by Options.TCSSolver ("topo", the linear extension of Listing
// 5.1, by default).
//
// The thesis proves the algorithm for separated systems, where no step disables
// another, and it diverges on programs with global branchings (§4.2). This version
// is sound on every program of the language (locks, await, assume, join, atomic
// guards, nondet, data-dependent addresses and control flow, the depth bound) and
// terminates on every program. Where it departs from the thesis, and why, is
// described at each place below and in docs/explicit.md. In short:
//
//   - A run's constraint system also holds the pending next step of every thread
//     that had not terminated when the run ended (blocked), with what its guard
//     reads (ir.Probe: ir.Exact) and what its transition may access, so that a
//     variation can run a blocked thread before the step that left it blocked.
//   - A run the depth bound cut is explored like a depth-first search along it,
//     with sleep sets (along): which steps commute with the ones the bound kept
//     out is not known, and variations that moved a cut thread forward explored
//     far more executions than the plain search.
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
//   - A child covers only the executions its variation stands for: those in
//     which each step the variation moved forward comes before the step it moved
//     over (lazyOrder), and, below a search that explored some steps first, those
//     that do not start with such a step (sleep sets, lazySleeper). A later
//     variation whose first part an earlier child covers is not explored again
//     (subsumed).
//   - Nondeterministic values are varied like dependencies: every other value of
//     every step that draws one, in the run and in each variation that covers
//     itself; the run's own first, since a run may have more variations than can
//     be enumerated.
//   - The visited-state check (§4.4) keeps the states of completed calls with their
//     remaining depth, and skips a later call at the same state with no more depth
//     and no fewer executions to cover.
type LazyPOR struct {
	Options
	Solver TCSSolver // used by one search at a time: a run on one worker only

	// observe, if set, is called with the schedule of every maximal execution the
	// search explores; noVisited turns the visited-state check off. Tests use them
	// to check that every Mazurkiewicz trace is explored (the visited-state check
	// merges traces that reach the same state).
	observe   func(moves []ir.Move)
	noVisited bool
}

// Check runs the search.
func (a LazyPOR) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	return check(ctx, p, "lazypor", a)
}

func (a LazyPOR) options() Options { return a.Options }

func (a LazyPOR) start(x *executor, sh *sharing) (runner, error) {
	if err := CheckTCSSolver(a.TCSSolver); err != nil && a.Solver == nil {
		return nil, fmt.Errorf("lazypor: %w", err)
	}
	r := &lazyPORRun{a: a, sh: sh, x: x, store: newSharedVisited[lazyRecords](sh.workers)}
	r.wake.L = &r.mu
	return r, nil
}

// lazyPORRun is one run of LazyPOR: the open nodes, whose iterations every
// worker takes in one order (lazyQueue), and the store of completed nodes (the
// visited-state check).
type lazyPORRun struct {
	a     LazyPOR
	sh    *sharing
	x     *executor
	store *sharedVisited[lazyRecords]

	mu   sync.Mutex // guards what follows and every node's loop
	wake sync.Cond  // a node was opened, or the run is over
	// open is the stack of open nodes: the iterations of the top one are
	// taken next, so that a node's children come before its own next
	// iteration, as in the thesis's recursion (depth first).
	open     []*lazyNode
	started  bool
	inflight int    // iterations taken and not finished, and the root's creation
	nodes    uint64 // nodes created: each node's id (the root's is 0)
	err      error
	closers  []io.Closer // the solvers that hold resources
}

func (r *lazyPORRun) search(w *worker) search {
	s := &lazySearch{x: w, run: r, p: w.p, scratch: make(ir.State, w.p.StateSize),
		trial: make(ir.State, w.p.StateSize)}
	s.solver = r.a.Solver
	if s.solver == nil || r.sh.workers > 1 {
		var err error
		if s.solver, err = NewTCSSolver(r.a.TCSSolver); err != nil {
			r.fail(w, fmt.Errorf("lazypor: %w", err))
			s.solver = new(TopoSolver) // the run ends with the error
		}
		if c, ok := s.solver.(io.Closer); ok {
			r.mu.Lock()
			r.closers = append(r.closers, c)
			r.mu.Unlock()
		}
	}
	if _, ok := s.solver.(*TopoSolver); !ok {
		s.canon = new(TopoSolver)
	}
	return s
}

func (r *lazyPORRun) finish() error {
	for _, c := range r.closers {
		c.Close()
	}
	return r.err
}

// failed reports whether a search of the run failed.
func (r *lazyPORRun) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err != nil
}

// fail ends the run with err, unless another search failed first.
func (r *lazyPORRun) fail(x *worker, err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	x.abort()
	r.signal()
}

// signal wakes the workers waiting for a node to open.
func (r *lazyPORRun) signal() {
	r.mu.Lock()
	r.wake.Broadcast()
	r.mu.Unlock()
}

// lazySearch is one worker's LazyPOR search.
//
// The search is a tree of explore calls (nodes). A node is a state s reached by a
// prefix u1 (the path in moves[:depth]) and a maximal run u2 from s; it covers
// every maximal execution from s within the remaining depth, up to Mazurkiewicz
// equivalence (for a node this is the correctness condition of Theorem 3.1 with
// u1's dependencies already covered), but the ones its orders and sleep set
// exclude. Children start strictly deeper, so the tree is finite. A node's loop
// over its iterations (the other values of its run's draws, its variations, the
// expansion of its state, the states along a cut run) is the thesis's loop of
// explore (lines 11–14), whose iterations are independent (§4.5): the workers
// take the iterations of every open node from one stack, depth first. A node completes, and is stored for the visited-state
// check, when its loop is done and every child it started has completed.
type lazySearch struct {
	x      *worker
	run    *lazyPORRun
	p      *ir.Program
	solver TCSSolver
	canon  *TopoSolver // the canonical schedule when solver is not a TopoSolver

	moves []ir.Move // the path from the initial state
	node  *lazyNode // the node whose iteration is under way
	t     lazyVar   // scratch for the iteration

	// The execution under way from a node's state (begin): the orders and
	// sleepers in effect, each thread's steps from the node's state, and
	// whether complete met a state where every enabled step sleeps or breaks an
	// order.
	orders []lazyOrder
	asleep []lazySleeper
	counts []int32
	pruned bool

	ev      ir.Event
	one     successors // step: one successor with given draws
	scratch ir.State
	trial   ir.State
	pend    []ir.Access

	// subsumed's scratch: the steps of a node's path (pathSteps) and a
	// sequence of steps from an ancestor's state.
	chain      lazySteps
	chainOf    *lazyNode
	chainState ir.State
	chainEv    ir.Event
	seq        lazySteps
	used       []bool  // movable's scratch
	ord        []int32 // movable's scratch
}

// A lazyNode is one explore(u1, u2) call: the state s = u1(s0) at depth |u1| and
// the run u2 from s, with its loop. What follows its parent is guarded by the
// run's lock.
type lazyNode struct {
	depth  int
	state  ir.State
	path   []ir.Move // u1: the schedule to the node
	run    *lazySteps
	orders []lazyOrder   // the executions it covers respect them (see lazyOrder)
	sleep  []lazySleeper // and start with no step that sleeps (see lazySleeper)
	parent *lazyNode
	offset int // depth - parent.depth

	sys   *lazySystem // its trace constraint system; nil for a run that was cut or blocked
	along *lazyAlong  // for a run that was cut or blocked: its states
	stage lazyStage
	next  int // the next draw or state of the run
	taken int // iterations taken: a sharded run deals out the root's
	// pending counts the iterations taken and not finished and the children
	// started and not completed; the node completes when it is 0 and its loop
	// is done (exhausted).
	pending   int
	exhausted bool
	maxLen    int  // the longest execution covered
	cut       bool // the depth bound cut one
	fallback  bool // some iteration could not start: the state is expanded
	// covered are the prefixes (from the node's state) of children that cover
	// every execution the node must cover through them.
	covered [][]ir.Move
	// before is how many of the parent's covered prefixes were recorded when
	// the node was created: its subtree may skip what those children cover,
	// never what later ones do, so that no two subtrees leave an execution to
	// each other (see subsumed).
	before int
	id     uint64 // unique in the run
	// partial lists the ancestors whose earlier children's executions the
	// subtree skipped (subsumed): it did not cover everything from its state
	// by itself, only what a node below the same ancestors must cover.
	partial []lazyPartial

	opened bool // on the stack of open nodes
}

// lazyStage is where a node's loop is.
type lazyStage uint8

const (
	stageDraws      lazyStage = iota // the other values of the run's draws
	stageVariations                  // the variations of the run
	stageExpand                      // an iteration could not start: the state is expanded
	stageAlong                       // a cut or blocked run: the states along it
	stageDone
)

// lazyIter is one iteration of a node's loop.
type lazyIter struct {
	stage   lazyStage
	index   int    // the draw (stageDraws) or the state of the run (stageAlong)
	swapped []bool // stageVariations: the variation
}

// explore runs this worker's share of the run: the first worker to start
// creates the root node, and every worker takes iterations of open nodes until
// none is left and none can open.
func (s *lazySearch) explore(*task) {
	r, x := s.run, s.x
	r.mu.Lock()
	first := !r.started
	if first {
		r.started = true
		r.inflight++ // the root's creation
	}
	r.mu.Unlock()
	if first {
		root := &lazyNode{state: x.initial(), run: new(lazySteps)}
		st := root.state.Clone()
		s.begin(nil, nil)
		ok := true
		if _, ok = s.complete(st, 0, root.run); ok {
			s.open(root)
		}
		r.mu.Lock()
		r.inflight--
		r.wake.Broadcast()
		r.mu.Unlock()
	}
	for {
		n, it, ok := s.take()
		if !ok {
			return
		}
		// The path's values go into this search's own buffers: draws below
		// the node reuse them (worker.draw), and the node's path is shared
		// with every worker that takes one of its iterations.
		for i, mv := range n.path {
			m := &s.path(n.depth)[i]
			m.Thread, m.Choices = mv.Thread, append(m.Choices[:0], mv.Choices...)
		}
		s.node = n
		before := x.stats.Executions
		l, c := s.iterate(n, it)
		s.finish(n, it, x.stats.Executions > before, l, c)
	}
}

// open prepares node n's loop and puts it in the queue; a node with nothing to
// explore (no depth left, or a search stopped while preparing it) completes at
// once. It reports the length of the longest execution the node covered and
// whether the bound cut one, when it has completed.
func (s *lazySearch) open(n *lazyNode) (maxLen int, cut bool, done bool) {
	x, r := s.x, s.run
	n.maxLen, n.cut = len(n.run.steps), n.run.cut
	if n.run.blocked {
		n.maxLen = 0 // no execution of its own
	}
	switch budget := x.budget - n.depth; {
	case budget == 0 || x.done():
		return n.maxLen, n.cut, true
	case n.run.cut || n.run.blocked:
		if !s.prepareAlong(n) {
			return n.maxLen, n.cut, true
		}
	default:
		if n.sys = s.build(n); n.sys == nil || !n.sys.enum.init(&n.sys.TCS) {
			return n.maxLen, n.cut, true // stopped while building
		}
	}
	r.mu.Lock()
	if n.parent != nil {
		n.parent.pending++
	}
	r.push(n)
	r.wake.Broadcast()
	r.mu.Unlock()
	return 0, false, false
}

// push puts n on top of the stack of open nodes.
func (r *lazyPORRun) push(n *lazyNode) {
	n.opened = true
	r.open = append(r.open, n)
}

// take returns the next iteration: of the first open node whose loop has one,
// waiting while none has and some iteration under way may open one; false when
// the run is over.
func (s *lazySearch) take() (*lazyNode, lazyIter, bool) {
	r := s.run
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if s.x.halted() {
			r.wake.Broadcast()
			return nil, lazyIter{}, false
		}
		if len(r.open) == 0 {
			if r.inflight == 0 {
				r.wake.Broadcast()
				return nil, lazyIter{}, false
			}
			r.wake.Wait()
			continue
		}
		n := r.open[len(r.open)-1]
		it, ok := n.take(s)
		if !ok {
			r.open = r.open[:len(r.open)-1]
			n.opened, n.exhausted = false, true
			r.complete(s, n)
			continue
		}
		n.pending++
		r.inflight++
		return n, it, true
	}
}

// take returns the next iteration of n's loop, false when none is left.
func (n *lazyNode) take(s *lazySearch) (lazyIter, bool) {
	for {
		var it lazyIter
		switch n.stage {
		case stageAlong:
			if n.next == len(n.run.steps) {
				n.stage = stageDone
				continue
			}
			it = lazyIter{stage: stageAlong, index: n.next}
			n.next++
		case stageDraws:
			if n.fallback || n.next == len(n.sys.draws) {
				n.stage = stageVariations
				continue
			}
			it = lazyIter{stage: stageDraws, index: n.next}
			n.next++
		case stageVariations:
			if n.fallback {
				n.stage = stageExpand
				continue
			}
			en := &n.sys.enum
			unsat := en.unsat
			more := en.next()
			s.x.stats.TCSBuilt += en.unsat - unsat
			s.x.stats.TCSUnsat += en.unsat - unsat
			if !more {
				n.stage = stageDone
				continue
			}
			if en.weight == 0 {
				continue // the run itself
			}
			it = lazyIter{stage: stageVariations, swapped: slices.Clone(n.sys.Swapped)}
		case stageExpand:
			// Not dealt out: the part that fell back expands.
			n.stage = stageDone
			return lazyIter{stage: stageExpand}, true
		default:
			return lazyIter{}, false
		}
		n.taken++
		if sh := s.run.sh.shard; n.parent == nil && sh.Count > 1 && (n.taken-1)%sh.Count != sh.Index {
			continue // another part's
		}
		if it.stage == stageVariations {
			s.x.stats.TCSBuilt++
		}
		return it, true
	}
}

// finish records that an iteration of n ended, having covered executions of
// length up to l from n's state (c: one was cut).
func (s *lazySearch) finish(n *lazyNode, it lazyIter, explored bool, l int, c bool) {
	r := s.run
	r.mu.Lock()
	defer r.mu.Unlock()
	n.maxLen = max(n.maxLen, l)
	n.cut = n.cut || c
	if s.t.fallback && n.sys != nil && !n.fallback {
		// The state is expanded once, whoever took the loop's last
		// iteration meanwhile.
		n.fallback = true
		if n.stage == stageDone {
			n.stage = stageExpand
			if !n.opened {
				n.exhausted = false
				r.push(n)
			}
		}
	}
	n.pending--
	r.inflight--
	r.complete(s, n)
	r.wake.Broadcast()
}

// complete completes n if its loop is done and nothing it started is under way:
// it is stored for the visited-state check, and its parent learns what it
// covered (and completes in turn if it can).
func (r *lazyPORRun) complete(s *lazySearch, n *lazyNode) {
	for n != nil && n.exhausted && n.pending == 0 && !n.opened {
		n.pending = -1 // completed
		x := s.x
		if !x.halted() && r.err == nil && !r.a.noVisited && !(n.parent == nil && r.sh.shard.Count > 1) {
			s.store(n, x.budget-n.depth, n.maxLen, n.cut)
		}
		p := n.parent
		if p == nil {
			return
		}
		p.maxLen = max(p.maxLen, n.offset+n.maxLen)
		p.cut = p.cut || n.cut
		p.pending--
		n = p
	}
}

// iterate runs one iteration of n's loop and returns the length of the longest
// execution it covered and whether the depth bound cut one (as far as it knows:
// children report when they complete).
func (s *lazySearch) iterate(n *lazyNode, it lazyIter) (maxLen int, cut bool) {
	t := &s.t
	t.fallback = false
	switch it.stage {
	case stageAlong:
		return s.alongAt(n, it.index)
	case stageExpand:
		return s.expand(n)
	}
	t.bind(n)
	if it.stage == stageDraws {
		return s.choice(t, int(n.sys.draws[it.index]))
	}
	copy(t.Swapped, it.swapped)
	return s.variation(t)
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

// begin makes orders and sleep the ones in effect for an execution from a
// node's state.
func (s *lazySearch) begin(orders []lazyOrder, sleep []lazySleeper) {
	s.orders = orders
	s.asleep = append(s.asleep[:0], sleep...)
	if len(s.counts) != len(s.p.Threads) {
		s.counts = make([]int32, len(s.p.Threads))
	}
	clear(s.counts)
	s.pruned = false
}

// complete extends run (whose steps so far lead from the node's state to st, at
// path position pos) to a maximal execution: the lowest-numbered enabled thread
// moves, nondeterministic values at their low end (the thesis's "arbitrary maximal
// transition sequence", lines 33–37), but a step that sleeps or breaks an order in
// effect (begin): then the next thread. The execution is counted, and a terminal
// state goes through the executor's deadlock check; where every enabled step sleeps
// or breaks an order, the run ends blocked (s.pruned), no execution of its own. It
// reports whether it took a step, and false for ok when the search is over.
func (s *lazySearch) complete(st ir.State, pos int, run *lazySteps) (extended, ok bool) {
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
		trial := false
		if t >= 0 && pos < x.budget && (len(s.orders) > 0 || len(s.asleep) > 0) {
			first := t
			t = -1
			for u := first; u < len(p.Threads); u++ {
				if !p.Enabled(st, u) {
					continue
				}
				if !s.limited(u) && !sleepsThread(s.asleep, u) {
					t = u
					break
				}
				copy(s.trial, st)
				if !s.step(s.trial, pos, u, nil) {
					return extended, false
				}
				if !s.violates(u, s.ev.Accesses) && !asleep(s.asleep, u, s.moves[pos].Choices) {
					t, trial = u, true
					break
				}
			}
			if t < 0 {
				x.stats.SleepBlocked++
				s.pruned, run.blocked = true, true
				run.final = append(run.final[:0], st...)
				return extended, true
			}
		}
		if s.run.a.observe != nil && (t < 0 || pos == x.budget) {
			s.run.a.observe(s.path(pos))
		}
		if leaf, cut := x.leaf(st, t >= 0, s.path(pos)); leaf {
			run.final = append(run.final[:0], st...)
			run.cut = cut
			return extended, cut || !x.done()
		}
		if trial {
			copy(st, s.trial)
		} else if !s.step(st, pos, t, nil) {
			return extended, false
		}
		run.push(&s.ev)
		s.counts[t]++
		if len(s.asleep) > 0 {
			s.asleep = wake(s.asleep, t, s.ev.Accesses, true)
		}
		pos++
		extended = true
	}
}

// child starts the node at state st, depth depth, whose run is run[k:] (a run from
// the parent's state, already executed) or, when run is nil, a fresh maximal run
// from st, and whose executions respect orders and sleep, below the node whose
// iteration is under way. Unless the visited-state check answers for it, the
// node opens, and what it covers reaches its parent when it completes; child
// returns what it knows by then: the length covered from st and whether
// anything was cut.
func (s *lazySearch) child(st ir.State, depth int, run *lazySteps, k int, orders []lazyOrder, sleep []lazySleeper) (maxLen int, cut bool) {
	sleep = slices.Clone(sleep) // it may be the search's working set
	if l, c, ok := s.lookup(st, s.x.budget-depth, orders, sleep); ok {
		return l, c
	}
	parent := s.node
	n := &lazyNode{depth: depth, state: st.Clone(), path: ir.CloneMoves(s.moves[:depth]), orders: orders, sleep: sleep,
		parent: parent, offset: depth - parent.depth}
	s.run.mu.Lock()
	n.before = len(parent.covered)
	s.run.nodes++
	n.id = s.run.nodes
	s.run.mu.Unlock()
	if run != nil {
		n.run = run.suffix(k)
	} else {
		n.run = new(lazySteps)
		cur := st.Clone()
		s.begin(orders, sleep)
		if _, ok := s.complete(cur, depth, n.run); !ok {
			return len(n.run.steps), n.run.cut
		}
		if n.run.blocked && len(n.run.steps) == 0 {
			return 0, false // every execution from st starts with a step that sleeps or breaks an order
		}
	}
	l, c, done := s.open(n)
	if !done {
		return 0, false
	}
	return l, c
}

// lazyRecords are the completed nodes at one stored state: each covered every
// execution from the state within budget steps that respects its orders and
// starts with no step of its sleep set.
type lazyRecords struct {
	mu     sync.Mutex
	visits []lazyVisit
}

// A lazyVisit is a completed node: maxLen is the longest execution it covered and
// cut says whether the depth bound cut one.
type lazyVisit struct {
	budget  int
	maxLen  int
	cut     bool
	orders  []lazyOrder
	sleep   []lazySleeper
	partial []lazyPartial
}

// store records a completed node for the visited-state check.
func (s *lazySearch) store(n *lazyNode, budget, maxLen int, cut bool) {
	e, _ := s.run.store.visit(n.state, s.x.id)
	r := &e.own
	r.mu.Lock()
	r.visits = append(r.visits, lazyVisit{budget: budget, maxLen: maxLen, cut: cut, orders: n.orders, sleep: n.sleep, partial: n.partial})
	r.mu.Unlock()
}

// lookup is the visited-state check (§4.4) for a node about to start at state st
// with budget steps left, orders and sleep: if a completed node covered st with
// at least that budget and no more orders and sleepers, it returns the covered
// length (capped by budget) and cut flag, and marks the search as cut when
// executions from st exceed budget.
func (s *lazySearch) lookup(st ir.State, budget int, orders []lazyOrder, sleep []lazySleeper) (maxLen int, cut, ok bool) {
	if s.run.a.noVisited {
		return 0, false, false
	}
	e := s.run.store.lookup(st)
	if e == nil {
		return 0, false, false
	}
	r := &e.own
	r.mu.Lock()
	visits := r.visits // appended to only: the elements stay
	r.mu.Unlock()
	for _, v := range visits {
		if v.budget < budget || !within(v.orders, orders) || !sameSleep(v.sleep, sleep) || !s.coversBelow(v.partial) {
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

// A lazySteps is a sequence of steps from a node's state, with what each accessed.
type lazySteps struct {
	steps []lazyStep
	acc   []ir.Access
	vals  []int64
	final ir.State // the state after the last step
	cut   bool     // the depth bound cut the run (some thread was still enabled)
	// blocked: the run ended where every enabled step sleeps or breaks an
	// order; it is no execution of its own.
	blocked bool
	from    int // pathSteps: the depth of the first step
}

type lazyStep struct {
	thread, from, to int32
	partnerTo        int32 // a rendezvous send's receiver's location after (ir.Event.PartnerTo)
	acc0, acc1       int32 // accesses: acc[acc0:acc1]
	val0, val1       int32 // nondeterministic values drawn: vals[val0:val1]
}

func (r *lazySteps) reset() {
	r.steps, r.acc, r.vals, r.cut, r.blocked = r.steps[:0], r.acc[:0], r.vals[:0], false, false
}

func (r *lazySteps) push(ev *ir.Event) {
	st := lazyStep{thread: int32(ev.Thread), from: int32(ev.From), to: int32(ev.To), partnerTo: int32(ev.PartnerTo),
		acc0: int32(len(r.acc)), val0: int32(len(r.vals))}
	r.acc = append(r.acc, ev.Accesses...)
	for _, c := range ev.Choices {
		r.vals = append(r.vals, c.Value)
	}
	st.acc1, st.val1 = int32(len(r.acc)), int32(len(r.vals))
	r.steps = append(r.steps, st)
}

// appendSteps appends the steps [from, to) of q.
func (r *lazySteps) appendSteps(q *lazySteps, from, to int) {
	for i := from; i < to; i++ {
		st := q.steps[i]
		a, v := q.accesses(i), q.values(i)
		st.acc0, st.val0 = int32(len(r.acc)), int32(len(r.vals))
		r.acc = append(r.acc, a...)
		r.vals = append(r.vals, v...)
		st.acc1, st.val1 = int32(len(r.acc)), int32(len(r.vals))
		r.steps = append(r.steps, st)
	}
}

func (r *lazySteps) accesses(i int) []ir.Access {
	st := &r.steps[i]
	return r.acc[st.acc0:st.acc1]
}

func (r *lazySteps) values(i int) []int64 {
	st := &r.steps[i]
	return r.vals[st.val0:st.val1]
}

// suffix copies the steps from k on into a new run.
func (r *lazySteps) suffix(k int) *lazySteps {
	out := &lazySteps{final: r.final.Clone(), cut: r.cut, blocked: r.blocked, steps: make([]lazyStep, 0, len(r.steps)-k)}
	out.appendSteps(r, k, len(r.steps))
	return out
}

// A lazyOrder says that a node needs to explore no execution in which thread ta
// takes its na-th step (counted from the node's state) before thread tb has
// taken its nb-th, when that step conflicts with acc (what tb's step accessed in
// the run it was planned from): the variation that moved tb's step forward over
// ta's, and whose child the node is (or is below), covers only executions with
// that order. Such an execution is none of them: in each of them tb's step is
// matched (it accesses acc), so a step of ta conflicting with acc is dependent
// with it, and their order is that of every equivalent execution.
type lazyOrder struct {
	ta, na, tb, nb int32
	acc            []ir.Access
}

// childOrders are the orders a child inherits, whose state is reached from
// the parent's by a prefix in which each thread t took g[t] steps: those the
// prefix has not decided, counted from the child's state.
func childOrders(orders []lazyOrder, g []int32) []lazyOrder {
	var out []lazyOrder
	for _, o := range orders {
		if g[o.tb] >= o.nb || g[o.ta] >= o.na {
			continue
		}
		o.na -= g[o.ta]
		o.nb -= g[o.tb]
		out = append(out, o)
	}
	return out
}

// limited reports whether thread t's next step may break one of orders, after
// counts[u] steps of each thread u.
func limited(orders []lazyOrder, counts []int32, t int) bool {
	n := counts[t] + 1
	for i := range orders {
		o := &orders[i]
		if int(o.ta) == t && o.na == n && counts[o.tb] < o.nb {
			return true
		}
	}
	return false
}

// violates reports whether thread t's next step, which accessed acc, breaks one
// of orders, after counts[u] steps of each thread u.
func violates(orders []lazyOrder, counts []int32, t int, acc []ir.Access) bool {
	n := counts[t] + 1
	for i := range orders {
		o := &orders[i]
		if int(o.ta) == t && o.na == n && counts[o.tb] < o.nb && ir.Conflict(o.acc, acc) {
			return true
		}
	}
	return false
}

func (s *lazySearch) limited(t int) bool { return limited(s.orders, s.counts, t) }
func (s *lazySearch) violates(t int, acc []ir.Access) bool {
	return violates(s.orders, s.counts, t, acc)
}

// within reports whether every order of a is one of b: a node with orders a
// covered every execution a node with orders b must cover.
func within(a, b []lazyOrder) bool {
	for _, o := range a {
		if !slices.ContainsFunc(b, func(q lazyOrder) bool {
			return q.ta == o.ta && q.na == o.na && q.tb == o.tb && q.nb == o.nb && slices.Equal(q.acc, o.acc)
		}) {
			return false
		}
	}
	return true
}

// A lazySleeper is a thread's next step, with the values it draws and what it
// accesses, that sleeps at a node's state (Godefroid's sleep sets): every
// execution from the state in which it comes before any step dependent with it
// has been covered by a search that explored it first (along and expand explore
// a state's steps in turn, each sleeping in the later ones' children). The step
// reads and writes the same in every such execution, since no step before it
// writes what it reads; a step dependent with it wakes it.
type lazySleeper struct {
	thread int32
	vals   []int64
	acc    []ir.Access
}

// asleep reports whether thread t's step with values vals sleeps in sleep.
func asleep(sleep []lazySleeper, t int, vals []int64) bool {
	for i := range sleep {
		if int(sleep[i].thread) == t && slices.Equal(sleep[i].vals, vals) {
			return true
		}
	}
	return false
}

// sleepsThread reports whether some step of thread t sleeps in sleep.
func sleepsThread(sleep []lazySleeper, t int) bool {
	for i := range sleep {
		if int(sleep[i].thread) == t {
			return true
		}
	}
	return false
}

// wake returns sleep after thread t's step that accessed acc (which must not
// sleep itself): without t's steps and those dependent with it. It reuses
// sleep's array when own says it may.
func wake(sleep []lazySleeper, t int, acc []ir.Access, own bool) []lazySleeper {
	var out []lazySleeper
	if own {
		out = sleep[:0]
	}
	for _, z := range sleep {
		if int(z.thread) != t && !ir.Conflict(z.acc, acc) {
			out = append(out, z)
		}
	}
	return out
}

// sameSleep reports whether every sleeper of a is one of b: a node that slept
// on a covered every execution a node sleeping on b must cover.
func sameSleep(a, b []lazySleeper) bool {
	for _, z := range a {
		if !slices.ContainsFunc(b, func(y lazySleeper) bool {
			return y.thread == z.thread && slices.Equal(y.vals, z.vals) && slices.Equal(y.acc, z.acc)
		}) {
			return false
		}
	}
	return true
}

// lazyAlong is what a node whose run was cut or blocked explores along the
// run: the state before each step, what sleeps there, and each thread's steps
// from the node's state to there.
type lazyAlong struct {
	states []ir.State
	sleep  [][]lazySleeper
	counts [][]int32
}

// prepareAlong prepares node n, whose run the depth bound cut or which ended
// blocked, to be explored like a depth-first search along the run (alongAt):
// it executes the run again to record the states along it. It reports false when
// the run is over.
func (s *lazySearch) prepareAlong(n *lazyNode) bool {
	x, p := s.x, s.p
	a := &lazyAlong{}
	st := n.state.Clone()
	sleep := slices.Clone(n.sleep)
	counts := make([]int32, len(p.Threads))
	s.path(n.depth)
	for i := range n.run.steps {
		a.states = append(a.states, st.Clone())
		a.sleep = append(a.sleep, slices.Clone(sleep))
		a.counts = append(a.counts, slices.Clone(counts))
		step := &n.run.steps[i]
		if !s.step(st, n.depth+i, int(step.thread), n.run.values(i)) || x.done() {
			return false
		}
		counts[step.thread]++
		sleep = wake(sleep, int(step.thread), n.run.accesses(i), true)
	}
	n.along, n.stage = a, stageAlong
	return true
}

// alongAt explores, at the i-th state of the run of node n (cut or blocked),
// every other step of every enabled thread with every value, each in a child: a
// depth-first search along the run, whose own step is explored by the run and the
// states after it. The run's step sleeps in its siblings' children, as each
// sibling does in the later ones'. A cut run says nothing about which steps
// commute with the ones the bound kept out, so no variation of it is sound
// without the plain search along it (and variations that moved a cut thread
// forward explored far more executions than the plain search: racy increments,
// N = 6, depth 6, 690,104 against dfs's 29,520).
func (s *lazySearch) alongAt(n *lazyNode, i int) (maxLen int, cut bool) {
	x, p := s.x, s.p
	run := n.run
	a := n.along
	st, counts := a.states[i], a.counts[i]
	pos := n.depth + i
	s.path(pos)
	for j := range i {
		s.moves[n.depth+j] = ir.Move{Thread: int(run.steps[j].thread), Choices: slices.Clone(run.values(j))}
	}
	explored := append(slices.Clone(a.sleep[i]), lazySleeper{thread: run.steps[i].thread,
		vals: slices.Clone(run.values(i)), acc: slices.Clone(run.accesses(i))})
	succ := make(ir.State, len(st))
	var it successors
	for th := range p.Threads {
		if x.done() || s.run.failed() {
			return maxLen, cut
		}
		if !p.Enabled(st, th) {
			continue
		}
		s.start(&it, st, succ, th, pos+1)
		for !x.done() && x.next(&it) {
			vals := s.moves[pos].Choices
			if th == int(run.steps[i].thread) && slices.Equal(vals, run.values(i)) {
				continue // the run itself
			}
			if violates(n.orders, counts, th, s.ev.Accesses) || asleep(a.sleep[i], th, vals) {
				continue
			}
			acc := slices.Clone(s.ev.Accesses)
			counts[th]++
			orders := childOrders(n.orders, counts)
			counts[th]--
			l, c := s.child(succ, pos+1, nil, 0, orders, wake(explored, th, acc, false))
			explored = append(explored, lazySleeper{thread: int32(th), vals: slices.Clone(vals), acc: acc})
			maxLen = max(maxLen, i+1+l)
			cut = cut || c
		}
		if it.failed {
			return maxLen, cut
		}
	}
	return maxLen, cut
}

// expand explores the node's state like a depth-first search: a child after every
// step of every enabled thread, with every combination of nondeterministic values,
// each step sleeping in its later siblings' children. Those children cover every
// execution from the state.
func (s *lazySearch) expand(n *lazyNode) (maxLen int, cut bool) {
	x, p := s.x, s.p
	// A child keeps a copy of its state, so one successor buffer will do.
	st := make(ir.State, len(n.state))
	counts := make([]int32, len(p.Threads))
	explored := slices.Clone(n.sleep)
	var it successors
	for th := range p.Threads {
		if !p.Enabled(n.state, th) {
			continue
		}
		s.start(&it, n.state, st, th, n.depth+1)
		for !x.done() && x.next(&it) {
			vals := s.moves[n.depth].Choices
			if violates(n.orders, counts, th, s.ev.Accesses) || asleep(n.sleep, th, vals) {
				continue
			}
			acc := slices.Clone(s.ev.Accesses)
			counts[th]++
			orders := childOrders(n.orders, counts)
			counts[th]--
			l, c := s.child(st, n.depth+1, nil, 0, orders, wake(explored, th, acc, false))
			explored = append(explored, lazySleeper{thread: int32(th), vals: slices.Clone(vals), acc: acc})
			maxLen = max(maxLen, 1+l)
			cut = cut || c
		}
		if it.failed {
			return maxLen, cut
		}
	}
	return maxLen, cut
}

// subsumed reports whether an earlier child covers every execution that has the
// first k steps of run (from n's state) as a prefix of its trace: a child of n,
// or a child of an ancestor a of n created before the child of a that n is
// below. Such a child covers every execution a must cover through its prefix p
// (cover), so it covers the execution if p can be moved to the front of the
// steps from a's state (the path to n, then run's): each of p's steps being the
// same thread's same step with the same values, and independent of the steps it
// is moved over (then the steps moved behave as in p). Every execution n must
// cover, after the path from a, is one a must cover.
//
// A variation of n that an ancestor's earlier child covers is one whose trace
// has two orders of the ancestor's run reversed: the children of both swaps
// would explore it (indexer, where two pairs of threads race on different
// cells of the table, twice as many executions as dpor otherwise). n then no
// longer covers every execution from its state by itself, and neither does any
// node up to a: they are not stored for the visited-state check.
func (s *lazySearch) subsumed(n *lazyNode, run *lazySteps, k int) bool {
	s.run.mu.Lock()
	var chain []lazyCovered
	below := -1 // the whole list for n itself
	for a := n; a != nil; below, a = a.before, a.parent {
		limit := len(a.covered)
		if below >= 0 {
			limit = below
		}
		if limit > 0 {
			chain = append(chain, lazyCovered{a, a.covered[:limit]})
		}
	}
	s.run.mu.Unlock()
	if len(chain) == 0 {
		return false
	}
	var path *lazySteps
	for _, c := range chain {
		seq, kk := run, k
		if c.node != n {
			if path == nil {
				path = s.pathSteps(n, chain[len(chain)-1].node)
			}
			seq = &s.seq
			seq.reset()
			seq.appendSteps(path, c.node.depth-path.from, n.depth-path.from)
			seq.appendSteps(run, 0, k)
			kk = len(seq.steps)
		}
		if s.movable(c.prefixes, seq, kk) {
			if c.node != n {
				s.run.mu.Lock()
				var before int
				for m := n; m != c.node; m = m.parent {
					before = m.before
				}
				dep := lazyPartial{ancestor: c.node.id, before: before}
				for m := n; m != c.node; m = m.parent {
					if !slices.Contains(m.partial, dep) {
						m.partial = append(m.partial, dep)
					}
				}
				s.run.mu.Unlock()
			}
			return true
		}
	}
	return false
}

// A lazyPartial says that a node's subtree skipped executions that children of
// an ancestor cover, the ones among its first before children (covered
// prefixes): the node covered everything from its state that a node below the
// ancestor, after at least as many of its children, must cover.
type lazyPartial struct {
	ancestor uint64
	before   int
}

// coversBelow reports whether a record with partial answers for a node about
// to start below the node whose iteration is under way: whether that node is
// below each ancestor named, after at least as many of its children.
func (s *lazySearch) coversBelow(partial []lazyPartial) bool {
	if len(partial) == 0 {
		return true
	}
	s.run.mu.Lock()
	defer s.run.mu.Unlock()
	for _, d := range partial {
		before, found := len(s.node.covered), false
		for m := s.node; m != nil; before, m = m.before, m.parent {
			if m.id == d.ancestor {
				found = before >= d.before
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// lazyCovered is an ancestor's covered prefixes that a node below it may use.
type lazyCovered struct {
	node     *lazyNode
	prefixes [][]ir.Move
}

// pathSteps returns the steps of n's path from ancestor a's state on, with
// what each accessed, executing them again (once per node: the search keeps
// the last node's).
func (s *lazySearch) pathSteps(n, a *lazyNode) *lazySteps {
	c := &s.chain
	if s.chainOf == n && c.from <= a.depth {
		return c
	}
	s.chainOf = n
	c.reset()
	c.from = a.depth
	st := append(s.chainState[:0], a.state...)
	for _, mv := range n.path[a.depth:] {
		ch := ir.Choices{Fixed: mv.Choices}
		s.p.Step(st, mv.Thread, &ch, &s.chainEv) // Step resets the event's lists
		c.push(&s.chainEv)
	}
	s.chainState = st
	return c
}

// movable reports whether one of prefixes can be moved to the front of the
// first k steps of seq (see subsumed).
func (s *lazySearch) movable(prefixes [][]ir.Move, seq *lazySteps, k int) bool {
	used := slices.Grow(s.used[:0], k)[:k]
	ord := slices.Grow(s.ord[:0], len(s.p.Threads))[:len(s.p.Threads)]
	s.used, s.ord = used, ord
	for _, p := range prefixes {
		if len(p) > k {
			continue
		}
		clear(used)
		clear(ord)
		ok := true
		for _, mv := range p {
			ord[mv.Thread]++
			// The same thread's ord-th step of seq.
			j, seen := -1, int32(0)
			for i := range k {
				if int(seq.steps[i].thread) == mv.Thread {
					if seen++; seen == ord[mv.Thread] {
						j = i
						break
					}
				}
			}
			if j < 0 || !slices.Equal(seq.values(j), mv.Choices) {
				ok = false
				break
			}
			for i := 0; i < j && ok; i++ {
				if !used[i] && ir.Conflict(seq.accesses(i), seq.accesses(j)) {
					ok = false
				}
			}
			if !ok {
				break
			}
			used[j] = true
		}
		if ok {
			return true
		}
	}
	return false
}

// cover records that the child after the first k steps of run covers every
// execution n must cover through them, when the prefix decided every order the
// child's variation added (added, with g[t] steps of each thread t in it): then
// the child's orders are n's own, and its sleepers n's after the prefix.
// (Claimed, not completed: n completes only once the child has.)
func (s *lazySearch) cover(n *lazyNode, run *lazySteps, k int, added []lazyOrder, g []int32) {
	if len(childOrders(added, g)) > 0 {
		return
	}
	p := make([]ir.Move, k)
	for i := range k {
		p[i] = ir.Move{Thread: int(run.steps[i].thread), Choices: slices.Clone(run.values(i))}
	}
	s.run.mu.Lock()
	n.covered = append(n.covered, p)
	s.run.mu.Unlock()
}
