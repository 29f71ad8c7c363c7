package explicit

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"kbmc/ir"
	"kbmc/verify"
)

// Persistent is the selective search of Godefroid and Wolper, "Using partial orders
// for the efficient verification of deadlock freedom and safety properties" (CAV
// 1991; docs/explicit.md, persistent): a stateful depth-first search that
// executes, in each state, only a persistent set of the enabled transitions
// (Figure 2) and prunes further with sleep sets (Figure 1); it finds deadlocks, and
// assertion violations and run-time errors through the reduction of safety
// properties to deadlock detection of §4.
//
// Transitions are threads: a thread's next step with every value its nondet draws
// may take. Persistent sets are stubborn sets over the threads' current and future
// transitions, computed from static footprints (see selectPersistent).
//
// kbmc bounds the depth, and a persistent-set search may postpone a step that leads
// to a violation behind independent steps, past the bound, although the violation
// is within it. The search therefore runs in two phases:
//
//  1. The exhaustive phase (exhaust) explores every state once with persistent sets
//     that preserve deadlocks, without sleep sets, and computes the length of the
//     longest execution from every state. When no execution is longer than the
//     bound, postponing costs nothing: a postponed violation stays ahead, behind
//     ever shorter executions, until it is reached, so every violation and every
//     terminal state is found and "safe" is exact. (§4's δ transitions exist to stop
//     processes that could stay active forever; here none can.) As soon as the
//     phase sees an execution longer than the bound (a state at depth k with an
//     enabled thread, a cycle, or a state reached again too deep for its longest
//     execution), the verdict can no longer be "safe" and the phase stops.
//  2. The bounded phase (visit) is Figure 1 with sleep sets, with the remaining
//     depth stored in H, and with persistent sets that contain every thread whose
//     code from its current location may fail: §4's δ transitions put at every
//     control location instead of at one per cycle. Then no violation is ever
//     postponed, so none is pushed past the bound and none is ignored on a cycle.
//     Its verdict is "unsafe" or "bounded-safe".
type Persistent struct {
	Options

	// For tests: execute explored steps again instead of reusing probed
	// successors; run the bounded phase only; probe every thread in every
	// state instead of keeping the parent's probe of a thread the last step
	// is independent of.
	noCache, boundedOnly, noReuse bool
	// For tests: probe every kept probe again and panic if it differs.
	verifyReuse bool
}

// Check runs the search.
func (a Persistent) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	return check(ctx, p, "persistent", a)
}

func (a Persistent) options() Options { return a.Options }

func (a Persistent) start(x *executor, sh *sharing) (runner, error) {
	return persistentRun{opts: a.Options, sh: sh, noCache: a.noCache, boundedOnly: a.boundedOnly, noReuse: a.noReuse, verifyReuse: a.verifyReuse}, nil
}

// persistentRun is one run of persistent or process-local: on several workers
// its searches share the table of the phase the driver runs (sharing.tables).
type persistentRun struct {
	opts                 Options
	sh                   *sharing
	local                bool // process-local's Branch(s, p) instead of persistent sets
	noCache, boundedOnly bool
	noReuse, verifyReuse bool
}

func (r persistentRun) finish() error { return nil }

func (r persistentRun) search(w *worker) search {
	s := newPersistentSearch(w, r.opts.NoSleep, r.noCache)
	if r.local {
		s.choose = newProcessLocal(s).choose
	}
	s.boundedOnly = r.boundedOnly
	s.noReuse, s.verifyReuse = r.noReuse, r.verifyReuse
	s.sh = r.sh
	return s
}

// persistentSets makes the persistent sets a frontier of persistent (or, local,
// process-local) is expanded through.
func persistentSets(o Options, local bool) func(w *worker) *persistentSearch {
	return func(w *worker) *persistentSearch {
		s := newPersistentSearch(w, o.NoSleep, true)
		if local {
			s.choose = newProcessLocal(s).choose
		}
		return s
	}
}

// explore explores a task: both phases from the initial state, or, on several
// workers, one phase below a subtree's root on the phase's shared table.
func (s *persistentSearch) explore(t *task) {
	x := s.x
	s.k = x.budget
	s.long = false
	s.tables = nil
	if s.sh.tables != nil {
		s.tables, s.owner, s.path = s.sh.tables, x.id, newSharedPath[struct{}](x.id)
	} else {
		s.table = s.newTable()
	}
	copy(s.states[0], x.initial())
	s.frames[0].sleepIn.clear()
	s.search(s.boundedOnly || t.phase == 1)
}

// search runs the two phases (see Persistent); on shared tables, the one they
// are for.
func (s *persistentSearch) search(boundedOnly bool) {
	x := s.x
	if boundedOnly || s.tables != nil && s.tables.sleeps != nil {
		s.tooLong()
	} else {
		s.phase1 = true
		s.exhaust(0)
		s.phase1 = false
		if s.tables != nil {
			return
		}
	}
	if s.long && !x.halted() {
		if s.tables == nil {
			s.table = s.newTable() // stored states, counted again, as Figure 1 stores them
			x.storedTwice.Store(true)
		}
		if x.from != nil && x.from.sleep != nil {
			s.frames[0].sleepIn.copyFrom(x.from.sleep)
		}
		s.visit(0)
	}
}

// persistentSearch is one search of the algorithm.
type persistentSearch struct {
	x       *worker
	p       *ir.Program
	k       int
	n       int // threads
	noSleep bool
	noCache bool
	noReuse bool // probe every thread in every state (tests)
	// verifyReuse (tests) probes a thread whose probe was kept again and
	// panics if the two differ.
	verifyReuse bool
	// boundedOnly (tests) runs the bounded phase alone; sh is what the driver
	// shares between the run's searches.
	boundedOnly bool
	sh          *sharing
	info        *staticInfo
	table       *visitedStore[setsRef] // H of Figure 1
	sets        setArena               // the sets of the states in table
	// On several workers, the tables the run's searches share instead of table
	// (see persistentTables), this search's records there, and its path through
	// the exhaustive phase's.
	tables *persistentTables
	owner  int
	path   sharedPath[struct{}]
	// choose computes the set of threads to explore in the state at depth d
	// into frames[d].pset: selectPersistent, or process-local's Branch(s, p).
	choose func(d int, safety bool)
	states []ir.State // states[d]: the state after d steps on the current path
	moves  []ir.Move
	frames []*persistentFrame
	// later holds, per depth, the successors the exhaustive phase put off
	// because another worker was exploring them (see postponed); retry tells
	// exhaustShared that it is called for one of them.
	later  []postponed
	retry  bool
	long   bool  // the exhaustive phase met an execution longer than the bound
	phase1 bool  // the exhaustive phase is running
	values []int // enablers' scratch: the cells and channels a guard reads
	// scratch takes a probe's successor at a depth without a cache: the probe
	// wants its accesses, not the state (one for all depths: a protocol's
	// executions are thousands of steps long).
	scratch ir.State
	// probed holds the successor of every thread the probe of the current
	// depth executed (n states, one for all depths), or is nil (see keep).
	probed []int64
	graph  stubbornGraph
	// The frames of the current path keep their probes' accesses and their
	// cached successors in two arenas, as a stack: frame d's part follows
	// frame d-1's, and probing the state at depth d drops the parts of d and
	// deeper, which belonged to states no longer on the path. A frame per
	// depth of executions thousands of steps long, each with arrays of its
	// own, made these most of a search's allocations. An arena that grows
	// moves; the parts of the frames above stay where they were, unchanged.
	accArena   []ir.Access
	cacheArena []int64
}

// stubbornGraph is selectPersistent's scratch, one for all depths: a set is
// chosen at one depth at a time, and only the set is kept.
type stubbornGraph struct {
	adj   []bitSet // thread -> threads it requires
	seen  bitSet   // closure scratch
	best  bitSet
	queue []int
	scc   sccScratch
	// moved: the threads whose control location differs from the parent
	// state's (see selectPersistent); check: verifyReuse's row.
	moved, check bitSet
}

func newStubbornGraph(n int) stubbornGraph {
	g := stubbornGraph{adj: make([]bitSet, n), seen: newBitSet(n), best: newBitSet(n), moved: newBitSet(n), check: newBitSet(n)}
	for t := range g.adj {
		g.adj[t] = newBitSet(n)
	}
	return g
}

// persistentFrame holds what the search knows about the state at one depth.
type persistentFrame struct {
	probes  []threadProbe
	enabled bitSet
	pset    bitSet // the persistent set (enabled threads)
	sleepIn bitSet // the sleep set the state is reached with
	sleep   bitSet // the working sleep set (Figure 1's s.Sleep)
	old     bitSet // H(s).Sleep before a visit of a state already in H
	todo    bitSet
	succ    successors // the alternatives of the step being explored
	ev      ir.Event
	// cache holds the probed successors of the threads the frame explores
	// (cachedFor, in order; see keep), in cacheArena; cacheOK says that it
	// holds them all.
	cache     []int64
	cachedFor []int
	cacheOK   bool
	// ready is the thread whose probed successor states[d+1] holds (see
	// keep) until run takes it, or -1.
	ready int
	// fresh holds the threads whose steps the probe of this frame executed,
	// their successors in s.probed; kept, the threads that kept the parent's
	// probe.
	fresh, kept bitSet
	// rows is a copy of the stubborn-set graph of the state (one word per
	// thread: only for at most 64 threads), valid while rowsOK: a child
	// state's selectPersistent starts from the rows of the threads whose
	// probes it kept.
	rows   []uint64
	rowsOK bool
	// stepped is the thread whose step made states[d+1] while run explores
	// it, else -1: the child's probe reuses this frame's probes then.
	stepped int
	// accEnd and cacheEnd are where the frame's parts of the arenas end.
	accEnd, cacheEnd int
	// fromProbe says that the step run is taking is the probed one, its
	// successor copied from cache (frames[d].ev is then stale).
	fromProbe bool
}

// threadProbe is a thread's next transition as seen from one state.
type threadProbe struct {
	status ir.Status
	// Enabled: the accesses of the step with every draw at its low end; blocked:
	// the accesses of its guard (ir.Exact).
	acc  []ir.Access
	made []ir.Choice // the draws of that step
	// If the step draws values, other values may access other cells: what its
	// transition may access at all.
	static *footprint
}

func newPersistentSearch(x *worker, noSleep, noCache bool) *persistentSearch {
	p := x.p
	k := x.budget
	n := len(p.Threads)
	s := &persistentSearch{x: x, p: p, k: k, n: n, noSleep: noSleep, noCache: noCache, info: analyze(p), graph: newStubbornGraph(n)}
	s.choose = s.selectPersistent
	s.table = s.newTable()
	s.frame(0)
	copy(s.states[0], x.initial())
	return s
}

// frame returns the frame of depth d, allocating it (and states[d]) on first use.
// Frames, states and moves grow with the depth the search reaches, never with the
// bound. They are allocated frameChunk depths at a time, the states and the
// sets of a chunk in one array each: on a protocol whose executions are
// thousands of steps long nearly every state is a new depth.
func (s *persistentSearch) frame(d int) *persistentFrame {
	for d >= len(s.frames) {
		s.allocFrames()
	}
	return s.frames[d]
}

const frameChunk = 16

func (s *persistentSearch) allocFrames() {
	n, size := s.n, s.p.StateSize
	words := (n + 63) / 64
	const sets = 8 // a frame's bit sets
	cells := make([]int64, frameChunk*size)
	var rows []uint64
	if n <= 64 {
		rows = make([]uint64, frameChunk*n)
	}
	probes := make([]threadProbe, frameChunk*n)
	bits := make([]uint64, frameChunk*sets*words)
	frames := make([]persistentFrame, frameChunk)
	set := func(i int) bitSet { return bitSet(bits[i*words : (i+1)*words : (i+1)*words]) }
	for i := range frames {
		f := &frames[i]
		f.probes = probes[i*n : (i+1)*n : (i+1)*n]
		f.enabled, f.pset, f.sleepIn = set(i*sets), set(i*sets+1), set(i*sets+2)
		f.sleep, f.old, f.todo = set(i*sets+3), set(i*sets+4), set(i*sets+5)
		f.fresh, f.kept = set(i*sets+6), set(i*sets+7)
		if rows != nil {
			f.rows = rows[i*n : (i+1)*n : (i+1)*n]
		}
		f.ready, f.stepped = -1, -1
		s.states = append(s.states, ir.State(cells[i*size:(i+1)*size:(i+1)*size]))
		s.moves = append(s.moves, ir.Move{})
		s.frames = append(s.frames, f)
	}
}

// cacheCells bounds the cells the frames' successor caches hold together, 4M
// (32 MiB): a protocol's executions are thousands of steps long.
const cacheCells = 1 << 22

// keep saves the successors that the probe of depth d left in s.probed for
// the threads of set, the ones the frame will explore, so that run need not
// execute their steps again: first's, the thread explored first, in
// states[d+1], where run wants it, and the others' in the frame's cache. A
// probe executes every enabled thread's step but the search explores few of
// them (one, mostly): keeping every successor per depth made the caches of a
// search of a few thousand states hundreds of MiB, allocated and cleared
// (ring-election N = 40). Without room in the bound the frame has no cache and
// run executes those steps again.
func (s *persistentSearch) keep(d int, set bitSet, first int) {
	s.frame(d + 1)
	f := s.frames[d]
	f.ready = -1
	f.cacheOK = false
	f.cachedFor = f.cachedFor[:0]
	from := 0
	if d > 0 {
		from = s.frames[d-1].cacheEnd
	}
	f.cacheEnd = from
	if s.probed == nil {
		return
	}
	size := s.p.StateSize
	if first >= 0 && f.fresh.has(first) {
		copy(s.states[d+1], s.probed[first*size:(first+1)*size])
		f.ready = first
	}
	need := 0
	for t := set.next(0); t >= 0; t = set.next(t + 1) {
		if t != f.ready && f.fresh.has(t) {
			need += size
		}
	}
	if from+need > cacheCells {
		return
	}
	if from+need > cap(s.cacheArena) {
		s.cacheArena = slices.Grow(s.cacheArena[:from], max(need, from))
	}
	s.cacheArena = s.cacheArena[:from+need]
	f.cache = s.cacheArena[from : from+need : from+need]
	f.cacheEnd = from + need
	for t := set.next(0); t >= 0; t = set.next(t + 1) {
		if t == f.ready || !f.fresh.has(t) {
			continue // run executes a step the probe did not
		}
		at := len(f.cachedFor) * size
		copy(f.cache[at:at+size], s.probed[t*size:(t+1)*size])
		f.cachedFor = append(f.cachedFor, t)
	}
	f.cacheOK = true
}

// successor returns the cached successor of thread t (see keep), or nil.
func (f *persistentFrame) successor(t, size int) ir.State {
	if !f.cacheOK {
		return nil
	}
	for i, u := range f.cachedFor {
		if u == t {
			return ir.State(f.cache[i*size : (i+1)*size])
		}
	}
	return nil
}

// exhaust is the exhaustive phase at depth d: it explores the state unless it was
// explored before, and returns the length of the longest execution from it. It
// sets s.long and gives up as soon as some execution is longer than the bound.
//
// Persistent sets preserve the longest execution from every state they reach: if u
// is an execution from s and p a thread of the persistent set, either some step of
// u by a thread of the set can be moved to the front (it is independent of the
// steps before it), or p·u is an execution too. So when the phase ends without
// s.long, no execution is longer than k. Then the same argument, by induction on
// the longest execution, shows that every violation is reached: a violation that
// p postpones is still ahead in s·p, whose longest execution is shorter, and the
// bound is never in the way. Deadlocks and other terminal states are preserved by
// persistent sets in any case (the paper's Lemma A.2).
func (s *persistentSearch) exhaust(d int) int {
	x := s.x
	if x.done() {
		return 0
	}
	if s.tables != nil {
		if s.tables.long.Load() {
			s.long = true // another search met one: the bounded phase follows
			return 0
		}
		return s.exhaustShared(d)
	}
	e, fresh := s.store(s.states[d])
	if !fresh {
		if e.active > 0 || d+int(e.height) > s.k {
			// A cycle, or a state explored before closer to the root whose
			// longest execution does not fit here.
			s.tooLong()
		}
		return int(e.height)
	}
	e.active++
	h := s.exhaustFrom(d, false)
	e.active--
	e.height = int32(h)
	return h
}

// exhaustShared is exhaust with the heights the workers of a parallel run share.
// A record is trusted once an exploration of its state has completed without
// meeting an execution longer than the bound: its height is then the exact
// length of the longest execution from the state (which persistent sets
// preserve, whoever chose them), whatever depth it was reached at. A state on
// the search's own path closes a cycle, as in the sequential search; one that
// only other workers are exploring is explored here again. The graph that the
// phase explores has the same executions whichever worker explores a state, so
// the phase finds what the sequential one does.
func (s *persistentSearch) exhaustShared(d int) int {
	x := s.x
	retry := s.retry
	s.retry = false
	e, fresh := s.tables.heights.visit(s.p.IdentityCells(s.states[d]), s.owner)
	if fresh {
		x.stats.States++
	} else if b, h := e.completed(); b >= 0 {
		if d+h > s.k {
			s.tooLong()
		}
		return h
	} else if s.path.onStack(e, d) {
		s.tooLong()
		return 0
	} else if s.path.putsOff(e, d, retry) {
		return putOff // explored after its siblings (see postponed)
	}
	// A state another worker is exploring is taken in the other order, so that
	// the two meet in the middle instead of doing the same work side by side.
	reverse := !fresh && s.path.elsewhere(e)
	s.path.enter(e, d)
	h := s.exhaustFrom(d, reverse)
	s.path.leave(e)
	if !s.long && !x.halted() {
		e.publish(s.k-d, h)
	}
	return h
}

// exhaustFrom explores the state at depth d, just stored, for exhaust, taking the
// threads of its persistent set in order or in reverse.
func (s *persistentSearch) exhaustFrom(d int, reverse bool) int {
	x := s.x
	f := s.frame(d)
	cur := s.states[d]
	if d == s.k {
		// At the bound: probing would execute steps beyond it.
		if _, cut := x.leaf(cur, s.anyEnabled(cur), s.moves[:d]); cut {
			s.markLong()
		}
		return 0
	}
	if s.probeFailed(d) {
		return 0
	}
	if leaf, _ := x.leaf(cur, !f.enabled.empty(), s.moves[:d]); leaf {
		return 0
	}
	s.choose(d, false)
	h := 0
	t := f.pset.next(0)
	if reverse {
		t = f.pset.prev(s.n - 1)
	}
	if !x.halted() {
		s.keep(d, f.pset, t)
	}
	var later *postponed // only on several workers
	if s.tables != nil {
		for len(s.later) <= d {
			s.later = append(s.later, postponed{})
		}
		later = &s.later[d]
		later.clear() // a search stopped part way may have left some
	}
	for ; t >= 0 && !s.long && !x.done(); t = f.pset.step(t, reverse) {
		s.run(d, t, func() {
			if g := s.exhaust(d + 1); g != putOff {
				h = max(h, 1+g)
			} else {
				later.add(s.states[d+1], s.moves[d])
			}
		})
	}
	if later != nil && later.len() > 0 && !s.long && !x.done() {
		later.drain(s.states[d+1], &s.moves[d], func() bool {
			s.retry = true
			h = max(h, 1+s.exhaust(d+1))
			return !s.long && !x.done()
		})
	}
	return h
}

// persistentRecord is what H remembers of a state besides a visit's common
// record: the sleep set it was explored with and its persistent set. The
// bounded phase keeps them in a setArena, which the state's record names
// (setsRef); the exhaustive phase keeps none.
type persistentRecord struct {
	sleep, pset bitSet
}

// setsRef names a state's sets in a setArena: their number plus one, so that
// the zero value names none.
type setsRef uint32

// setArena holds persistentRecords, the two sets of threads words words each,
// in chunks that never move, so that a record's sets are slices that stay
// valid while the arena grows, and a state's record costs its words and no
// pointer. Only its owner adds; in a shared table others read, under the
// state's lock, the sets it added, through the directory of chunks, replaced
// atomically when a chunk is added.
type setArena struct {
	words int // per set
	dir   atomic.Pointer[[][]uint64]
	n     int
}

const setChunk = 256 // records per chunk

func newSetArena(threads int) setArena { return setArena{words: (threads + 63) / 64} }

// add adds an empty record and returns it.
func (a *setArena) add() setsRef {
	var d [][]uint64
	if p := a.dir.Load(); p != nil {
		d = *p
	}
	if a.n == len(d)*setChunk {
		d = append(d, make([]uint64, setChunk*2*a.words))
		a.dir.Store(&d)
	}
	a.n++
	return setsRef(a.n)
}

// at returns the sets r names; none (empty sets) for 0.
func (a *setArena) at(r setsRef) persistentRecord {
	if r == 0 {
		return persistentRecord{}
	}
	i := int(r - 1)
	c := (*a.dir.Load())[i/setChunk]
	at := i % setChunk * 2 * a.words
	return persistentRecord{sleep: bitSet(c[at : at+a.words : at+a.words]), pset: bitSet(c[at+a.words : at+2*a.words : at+2*a.words])}
}

func (s *persistentSearch) newTable() *visitedStore[setsRef] {
	s.sets = newSetArena(s.n)
	return newVisitedStore[setsRef](s.x.opts.storeMode())
}

// store returns the record of cur in H, storing cur first if it is new (fresh;
// the state is hashed once either way). The statistic counts the states
// stored by both phases.
func (s *persistentSearch) store(cur ir.State) (e *visit[setsRef], fresh bool) {
	if e, fresh = s.table.visit(s.p.IdentityCells(cur)); fresh {
		s.x.stats.States++
		// The exhaustive phase keeps no sets. A bitstate store's new states
		// share one record, whose sets nothing reads once its visit has
		// chosen them (see visitedStore), so they are added once.
		if !s.phase1 && e.own == 0 {
			e.own = s.sets.add()
		}
	}
	return e, fresh
}

// persistentTables is the table that the searches of one phase of a parallel run
// share (see executor.runPhases): the exhaustive phase's heights (exhaustShared), or
// the bounded phase's H (enterShared). The searches then run that phase alone.
type persistentTables struct {
	heights *sharedVisited[struct{}]
	sleeps  *sharedVisited[sharedH]
	sets    []setArena // the bounded phase's sets, per owner
	// long says that some search of the exhaustive phase met an execution
	// longer than the bound: the others stop, and the bounded phase follows.
	long atomic.Bool
}

// sharedH is H(s) of the bounded phase in a shared table: guarded by mu,
// budget -1 and no sets until the first visit. Its sets are in the arena of
// the owner that first visited it (persistentTables.sets): owner<<32 | setsRef.
type sharedH struct {
	mu     sync.Mutex
	budget int32
	sets   uint64
}

// newPersistentTables returns the table of the bounded phase, or of the
// exhaustive one, for owners searches of a program of threads threads.
func newPersistentTables(owners, threads int, bounded bool) *persistentTables {
	if bounded {
		t := &persistentTables{sleeps: newSharedVisited[sharedH](owners), sets: make([]setArena, owners)}
		for i := range t.sets {
			t.sets[i] = newSetArena(threads)
		}
		return t
	}
	return &persistentTables{heights: newSharedVisited[struct{}](owners)}
}

func (s *persistentSearch) anyEnabled(cur ir.State) bool {
	for t := range s.n {
		if s.p.Enabled(cur, t) {
			return true
		}
	}
	return false
}

// tooLong records that some execution is longer than the bound.
func (s *persistentSearch) tooLong() {
	if !s.long {
		s.markLong()
		s.x.bounded("depth bound reached")
	}
}

// markLong records that some execution is longer than the bound, once the
// execution has been counted as cut.
func (s *persistentSearch) markLong() {
	s.long = true
	if s.tables != nil && s.tables.heights != nil {
		s.tables.long.Store(true)
	}
}

// visit is the bounded phase at depth d: Figure 1's loop body for the state reached
// with the sleep set frames[d].sleepIn. H remembers, besides the sleep set, the
// remaining depth k-d the state was explored with (see enter).
func (s *persistentSearch) visit(d int) {
	x := s.x
	if x.done() {
		return
	}
	f := s.frame(d)
	budget := s.k - d
	if s.noSleep {
		f.sleepIn.clear()
	}
	var h hVisit
	if s.tables != nil {
		h = s.enterShared(d, budget)
	} else {
		e, _ := s.store(s.states[d])
		h = f.enter(&e.budget, s.sets.at(e.own), budget)
	}
	switch h.kind {
	case hSkip:
		return
	case hAgain:
		// Figure 1, s already in H: T = H(s).Sleep \ s.Sleep. Only threads of the
		// persistent set need exploring: the one the first visit chose, which
		// enter copied into f.pset.
		if budget == 0 || s.probeFailed(d) {
			return
		}
		f.todo.copyFrom(f.pset)
		f.todo.and(f.old)
		f.todo.andNot(f.sleepIn)
		f.sleep.copyFrom(f.sleepIn)
		f.sleep.and(f.old)
		s.keep(d, f.todo, f.todo.next(0))
	case hFirst:
		if !s.first(d, budget, h) {
			return
		}
	}
	child := s.frame(d + 1)
	for t := f.todo.next(0); t >= 0 && !x.done(); t = f.todo.next(t + 1) {
		s.run(d, t, func() {
			// Figure 1: s'.Sleep = {t' in s.Sleep | t' independent of t}.
			s.sleepAfter(d, t, child.sleepIn)
			s.visit(d + 1)
		})
		f.sleep.add(t)
	}
}

// hVisit is what a visit of the bounded phase does, having looked at H(s): stop
// (the state was explored with at least this depth and a sleep set it may
// skip), explore the threads H(s).Sleep holds that the visit's sleep set does
// not, or explore the state as new. For a first visit it holds the record,
// whose persistent set the visit stores once chosen, and in a shared table the
// record's lock, held until then.
type hVisit struct {
	kind int
	rec  persistentRecord
	mu   *sync.Mutex
}

const (
	hSkip = iota
	hAgain
	hFirst
)

// enter is Figure 1's look at H(s), whose remaining depth is *budget (-1: never
// visited) and sleep and persistent sets rec, for a visit of the state of frame
// f with budget steps left; it updates H(s) as the figure does. A state reached
// again with more depth is explored again as new. One reached with at most as
// much is skipped if its stored sleep set is a subset of the current one; else
// the threads asleep then and awake now are explored, and the stored sleep set
// becomes the intersection (not at the bound, where nothing is explored). A
// later visit thus only ever lowers the stored depth: every visit the entry
// summarizes had at least that much, which is what the paper's proof of
// Theorem A.3 needs for each of its cases.
func (f *persistentFrame) enter(budget *int32, rec persistentRecord, b int) hVisit {
	if int(*budget) >= b {
		if rec.sleep.subsetOf(f.sleepIn) {
			return hVisit{kind: hSkip}
		}
		if b > 0 {
			f.old.copyFrom(rec.sleep)
			f.pset.copyFrom(rec.pset)
			rec.sleep.and(f.sleepIn)
			*budget = int32(b)
		}
		return hVisit{kind: hAgain}
	}
	*budget = int32(b)
	rec.sleep.copyFrom(f.sleepIn)
	return hVisit{kind: hFirst, rec: rec}
}

// enterShared is enter on the table the workers of a parallel run share. Each
// look at H(s) and its update is one step under the record's lock, and a first
// visit keeps the lock until it has stored its persistent set, which is quick
// (it probes the state; it explores nothing), so that whoever visits the state
// next finds the set the first visit explores.
//
// Why sharing H(s) keeps the search sound: the proof of Theorem A.3 is an
// induction over the visits of each state, each summarized by H(s) when it
// begins and each exploring, in its own order, the threads it chose then; it
// never asks whether an earlier visit has finished (in the sequential search it
// may still be on the stack). A visit under way on another worker is such a
// visit: it chose its threads when it updated H(s), under the lock, and
// explores them all unless the run ends. The visits of one state are ordered by
// their turns at the lock, so H(s) evolves as in some sequential order of them.
func (s *persistentSearch) enterShared(d, budget int) hVisit {
	e, fresh := s.tables.sleeps.visit(s.p.IdentityCells(s.states[d]), s.owner)
	if fresh {
		s.x.stats.States++
	}
	r := &e.own
	r.mu.Lock()
	if r.sets == 0 {
		r.sets = uint64(s.owner)<<32 | uint64(s.tables.sets[s.owner].add())
		r.budget = -1
	}
	h := s.frames[d].enter(&r.budget, s.tables.sets[r.sets>>32].at(setsRef(uint32(r.sets))), budget)
	if h.kind == hFirst {
		h.mu = &r.mu
	} else {
		r.mu.Unlock()
	}
	return h
}

// first starts a first visit (hFirst) of the state at depth d, with budget steps
// left: it handles a leaf, chooses the persistent set, stores it in H(s) and
// reports whether threads are left to explore (in frames[d].todo).
func (s *persistentSearch) first(d, budget int, h hVisit) bool {
	if h.mu != nil {
		defer h.mu.Unlock()
	}
	x := s.x
	f := s.frames[d]
	cur := s.states[d]
	if budget == 0 {
		x.leaf(cur, s.anyEnabled(cur), s.moves[:d])
		return false
	}
	if s.probeFailed(d) {
		return false
	}
	if leaf, _ := x.leaf(cur, !f.enabled.empty(), s.moves[:d]); leaf {
		return false
	}
	s.choose(d, true)
	if x.halted() {
		return false // choose stopped: f.pset is an earlier state's
	}
	h.rec.pset.copyFrom(f.pset)
	f.sleep.copyFrom(f.sleepIn)
	f.todo.copyFrom(f.pset)
	f.todo.andNot(f.sleep)
	if f.todo.empty() {
		x.stats.SleepBlocked++
		return false
	}
	s.keep(d, f.todo, f.todo.next(0))
	return true
}

// sleepAfter sets into to the threads of frame d's working sleep set that are
// independent of the step thread t just took (frames[d].ev, or its probe).
func (s *persistentSearch) sleepAfter(d, t int, into bitSet) {
	f := s.frames[d]
	into.clear()
	if f.sleep.empty() {
		return
	}
	acc := f.probes[t].acc
	if !f.fromProbe {
		acc = f.ev.Accesses
	}
	for z := f.sleep.next(0); z >= 0; z = f.sleep.next(z + 1) {
		zp := &f.probes[z]
		if z == t || zp.status != ir.Enabled {
			continue // a thread asleep is enabled; waking one is always safe
		}
		var dep bool
		if zp.static != nil {
			dep = s.info.accessesConflict(acc, t, zp.static, z)
		} else {
			dep = ir.Conflict(zp.acc, acc)
		}
		if !dep {
			into.add(z)
		}
	}
}

// run executes thread t from the state at depth d with every combination of its
// nondeterministic values; for each successor, in states[d+1], it calls next.
// A failing step is reported and ends the search.
func (s *persistentSearch) run(d, t int, next func()) {
	x := s.x
	s.frame(d + 1)
	f := s.frames[d]
	cur := s.states[d]
	succ := s.states[d+1]
	it := &f.succ
	it.start(cur, succ, t, &f.ev, &s.moves, d+1)
	ready := f.ready == t
	f.ready = -1 // run writes states[d+1]
	var cached ir.State
	if !ready {
		cached = f.successor(t, s.p.StateSize)
	}
	f.fromProbe = ready || cached != nil
	if f.fromProbe {
		pr := &f.probes[t]
		if !ready {
			copy(succ, cached)
		}
		it.resume(pr.made)
		mv := &s.moves[d]
		mv.Thread = t
		mv.Choices = values(mv.Choices, pr.made)
		x.coverProbed(cur, t, pr.made, d+1)
	} else if !x.next(it) {
		return
	}
	defer func() { f.stepped = -1 }()
	for {
		f.stepped = t
		next()
		f.stepped = -1
		if x.done() || s.phase1 && s.long {
			return
		}
		f.fromProbe = false
		if !x.next(it) {
			return
		}
	}
}

// probeFailed probes every thread in the state at depth d (see probe) and reports
// a step that fails as the violation it is, reachable in d+1 steps.
func (s *persistentSearch) probeFailed(d int) bool {
	v, t := s.probe(d)
	if v == nil {
		return false
	}
	s.moves[d].Thread = t
	s.moves[d].Choices = values(s.moves[d].Choices, s.frames[d].probes[t].made)
	s.x.failed(v, s.moves[:d+1])
	return true
}

// probe looks at every thread in the state at depth d: whether it is enabled, and
// what its next step accesses (executing it once, every draw at its low end, on
// the frame's successor cache or scratch state) or, for a blocked thread, what its
// guard reads. It returns the first step that fails, with its thread.
func (s *persistentSearch) probe(d int) (*ir.Violation, int) {
	x := s.x
	p := s.p
	f := s.frames[d]
	cur := s.states[d]
	f.enabled.clear()
	f.fresh.clear()
	f.kept.clear()
	f.rowsOK = false // the probes change: selectPersistent makes the rows again
	f.accEnd = 0
	// The state's parent on the path, and the step from it, when the search
	// took that step (run): a thread other than the one that moved, whose
	// next step (an enabled one, or a blocked one's guard) the step is
	// independent of, keeps the parent's probe. The step wrote nothing that
	// the thread's step or guard read, so it evaluates as before, to the
	// same status, accesses and draws (the dependency relation's promise,
	// which dpor's probes rely on too: porStack.observe). Only the
	// successor differs, which run computes if the thread is explored.
	var par *persistentFrame
	var last []ir.Access
	q := -1
	if d > 0 {
		pf := s.frames[d-1]
		f.accEnd = pf.accEnd
		if pf.stepped >= 0 && !s.noReuse {
			par, q = pf, pf.stepped
			last = pf.ev.Accesses
			if pf.fromProbe {
				last = pf.probes[q].acc
			}
		}
	}
	for t := range s.n {
		pr := &f.probes[t]
		if par != nil && t != q {
			pp := &par.probes[t]
			switch pp.status {
			case ir.Enabled, ir.Blocked, ir.BlockedAssume:
				if !ir.Conflict(pp.acc, last) {
					pr.status, pr.acc, pr.static = pp.status, pp.acc, pp.static
					pr.made = append(pr.made[:0], pp.made...)
					f.kept.add(t)
					if pr.status == ir.Enabled {
						f.enabled.add(t)
					}
					if s.verifyReuse {
						s.reprobe(cur, t, pr)
					}
					continue
				}
			}
		}
		pr.status = p.Status(cur, t)
		pr.acc = nil
		pr.made = pr.made[:0]
		pr.static = nil
		switch pr.status {
		case ir.Enabled:
			f.enabled.add(t)
			f.fresh.add(t)
			if s.scratch == nil {
				s.scratch = make(ir.State, p.StateSize)
				if !s.noCache && int64(s.n)*int64(p.StateSize) <= cacheCells {
					s.probed = make([]int64, s.n*p.StateSize)
				}
			}
			x.probe.Succ = s.scratch
			if s.probed != nil {
				x.probe.Succ = s.probed[t*p.StateSize : (t+1)*p.StateSize]
			}
			pr.acc = s.probeAccesses(f, cur, t, ir.Enabled)
			pr.made = append(pr.made, x.probe.Choices()...)
			if v := x.probe.Event.Violation; v != nil {
				return v, t
			}
			if len(pr.made) > 0 {
				// Other values may access other cells: use what the transition
				// may access at all.
				pr.static = &s.info.own[t][p.Location(cur, t)]
			}
		case ir.Blocked, ir.BlockedAssume, ir.BlockedLimit, ir.Dormant:
			pr.acc = s.probeAccesses(f, cur, t, pr.status)
		}
	}
	return nil, -1
}

// reprobe probes thread t in cur afresh and panics if that differs from pr,
// the probe kept from the parent (Persistent.verifyReuse: tests only).
func (s *persistentSearch) reprobe(cur ir.State, t int, pr *threadProbe) {
	status := s.p.Status(cur, t)
	if s.scratch == nil {
		s.scratch = make(ir.State, s.p.StateSize)
	}
	s.x.probe.Succ = s.scratch
	acc := s.x.accesses(cur, t, status, ir.Exact, nil)
	same := status == pr.status && len(acc) == len(pr.acc)
	if status == ir.Enabled {
		same = same && slices.Equal(s.x.probe.Choices(), pr.made)
	}
	for i := range acc {
		same = same && acc[i].Loc == pr.acc[i].Loc && acc[i].Kind == pr.acc[i].Kind
	}
	if !same {
		panic(fmt.Sprintf("persistent: thread %d's kept probe (%v %v %v) differs from its probe (%v %v %v)",
			t, pr.status, pr.acc, pr.made, status, acc, s.x.probe.Choices()))
	}
}

// probeAccesses returns what thread t's next step accesses (ir.Exact), from the
// state of frame f, in f's part of the arena (see accArena).
func (s *persistentSearch) probeAccesses(f *persistentFrame, cur ir.State, t int, status ir.Status) []ir.Access {
	at := f.accEnd
	free := s.accArena[at:cap(s.accArena)]
	acc := s.x.accesses(cur, t, status, ir.Exact, free[:0])
	if cap(acc) != cap(free) { // reallocated: free was too short
		s.accArena = slices.Grow(s.accArena[:at], max(at, 2*len(acc)))
		return acc
	}
	f.accEnd = at + len(acc)
	s.accArena = s.accArena[:f.accEnd]
	return acc[:len(acc):len(acc)]
}

// selectPersistent computes the persistent set of the state at depth d into
// frames[d].pset: Figure 2 refined to stubborn sets over threads. A set S of threads
// is persistent when
//
//  1. S holds an enabled thread;
//  2. for every enabled v in S and every u outside S, no transition u may ever
//     execute from its current location is dependent with v's next step;
//  3. for every blocked v in S, S holds a necessary enabling set of v: threads of
//     which one must move before v can (see enablers). A thread created at run
//     time and not started yet (ir.Dormant) is blocked on its start flag: its
//     creators' spawns enable it. Leaving it out let a set omit the creator of
//     a goroutine whose future step conflicts with the set's (a goroutine
//     started by a goroutine), and persistent called a reachable leak safe.
//
// By 2 and 3, steps of threads outside S never enable a blocked thread of S and are
// independent with the next steps of its enabled ones: what the proof of the
// paper's Lemma A.2 uses. Figure 2's "conflict" closure gives up (selects every
// enabled transition) when it meets a disabled transition, and reads a transition
// of another thread's future location as disabled; 2 and 3 instead add that
// thread, or the threads that may enable the disabled one.
//
// With safety set (the bounded phase), S must also hold
//
//  4. every thread whose code from its current location may fail.
//
// That is §4's construction with a δ transition at every control location: a
// thread's next transition conflicts with the disabled δ at its location, which
// needs the property automaton's δ, which needs a failing step of some thread.
//
// Among the sets reachable from one enabled seed (plus the threads of 4), the one
// with the fewest enabled threads is taken, as the text around Figure 2 suggests.
// The set depends on the state alone.
func (s *persistentSearch) selectPersistent(d int, safety bool) {
	f := s.frames[d]
	g := &s.graph
	p := s.p
	cur := s.states[d]
	par := s.rowsParent(d)
	for v := range s.n {
		if s.x.halted() {
			return // the verdict is unknown or unsafe; no set is needed any more
		}
		row := g.adj[v]
		pr := &f.probes[v]
		if par != nil && f.kept.has(v) && !g.moved.has(v) && s.localRow(cur, v, pr) {
			row[0] = par.rows[v]
			for u := g.moved.next(0); u >= 0; u = g.moved.next(u + 1) {
				if s.rowHas(cur, v, pr, u) {
					row.add(u)
				} else {
					row.remove(u)
				}
			}
			if s.verifyReuse {
				s.checkRow(cur, v, pr, row)
			}
			continue
		}
		s.row(cur, v, pr, row)
	}
	if f.rows != nil {
		for v := range s.n {
			f.rows[v] = g.adj[v][0]
		}
		f.rowsOK = true
	}
	base := f.pset // scratch until the end
	base.clear()
	if safety {
		for u := range s.n {
			if s.info.mayFail(u, p.Location(cur, u)) {
				base.add(u)
			}
		}
		if f.rows != nil {
			base[0] = closeRows(f.rows, 0, base[0])
		} else {
			s.closure(base)
		}
	}
	if base.intersects(f.enabled) {
		base.and(f.enabled)
		return
	}
	// The closure of base and e is base plus everything e reaches. On a few
	// threads, closing each seed on its own is cheapest, and stops at the first
	// seed whose set has one enabled thread. Over many, what each thread reaches
	// comes from the strongly connected components of the graph, once for all
	// seeds: closing each seed costs a graph traversal per enabled thread,
	// O(n³) over a thousand threads.
	if f.rows != nil {
		// At most 64 threads: sets are words.
		en, best, bestCount := f.enabled[0], uint64(0), -1
		for es := en; es != 0; es &= es - 1 {
			seen := closeRows(f.rows, base[0], es&-es)
			if c := bits.OnesCount64(seen & en); bestCount < 0 || c < bestCount {
				best, bestCount = seen, c
				if c == 1 {
					break
				}
			}
		}
		f.pset[0] = best & en
		return
	}
	perSeed := s.n <= 64
	if !perSeed {
		g.scc.reaches(g.adj)
	}
	bestCount := -1
	for e := f.enabled.next(0); e >= 0; e = f.enabled.next(e + 1) {
		g.seen.copyFrom(base)
		if perSeed {
			g.seen.add(e)
			s.closure(g.seen)
		} else {
			g.seen.or(g.scc.reach[g.scc.comp[e]])
		}
		if c := g.seen.countAnd(f.enabled); bestCount < 0 || c < bestCount {
			bestCount = c
			g.best.copyFrom(g.seen)
			if c == 1 {
				break
			}
		}
	}
	f.pset.copyFrom(g.best)
	f.pset.and(f.enabled)
}

// row makes thread v's row of the stubborn-set graph of the state cur, whose
// probe of v is pr: the threads v's next step may be dependent with (an
// enabled v), or a necessary enabling set of v (a blocked one).
func (s *persistentSearch) row(cur ir.State, v int, pr *threadProbe, row bitSet) {
	row.clear()
	switch pr.status {
	case ir.Enabled:
		s.affected(cur, v, pr, row)
	case ir.Blocked, ir.BlockedAssume, ir.BlockedLimit, ir.Dormant:
		// A thread not started yet (Dormant) waits for its start flag,
		// which its creator's spawn writes; one at a bound of the model for
		// a free slot: both guards are in pr.acc.
		s.enablers(cur, v, pr.acc, row)
	}
}

// rowsParent returns the frame of the parent of the state at depth d when the
// rows of its graph may be reused (see localRow), and sets graph.moved to the
// threads whose control location the step from it changed; else nil.
//
// Why a row may be reused: the row of a thread v is a function of v's probe
// (its status, accesses and draws), of v's location (its transition, for a
// blocked v), and, for each other thread u, of u's location alone (u's future
// footprint, staticInfo.future) — but for a blocked lock or join, whose
// enabling set reads a lock's owner or which threads have ended (localRow
// says no to those). A probe kept from the parent is the same probe (see
// probe). So the row of a thread whose probe was kept and which did not move
// is the parent's but in the columns of the threads that moved, which rowHas
// computes again; the step taken moved one thread, mostly. The parent's rows
// are the graph of the state its probes describe: rowsOK is set when
// selectPersistent has made them all and cleared when probe probes the frame
// again (the bounded phase's visit of a state in H probes it without choosing
// a set, and leaves the rows unmade).
func (s *persistentSearch) rowsParent(d int) *persistentFrame {
	f := s.frames[d]
	if d == 0 || f.rows == nil || f.kept.empty() {
		return nil
	}
	pf := s.frames[d-1]
	if !pf.rowsOK {
		return nil
	}
	g := &s.graph
	g.moved.clear()
	prev, cur := s.states[d-1], s.states[d]
	for u := range s.n {
		if s.p.Location(prev, u) != s.p.Location(cur, u) {
			g.moved.add(u)
		}
	}
	return pf
}

// localRow reports whether v's row depends on the other threads' locations
// only (see rowsParent).
func (s *persistentSearch) localRow(cur ir.State, v int, pr *threadProbe) bool {
	switch pr.status {
	case ir.Enabled:
		return true
	case ir.Blocked, ir.BlockedAssume:
		return !s.info.ownerWait[v][s.p.Location(cur, v)]
	}
	return false
}

// rowHas reports whether row would put thread u in the row of v, whose row is
// local (localRow): affected's or enablers' test for one thread.
func (s *persistentSearch) rowHas(cur ir.State, v int, pr *threadProbe, u int) bool {
	if u == v {
		return false
	}
	in := s.info
	loc := s.p.Location(cur, u)
	if pr.status == ir.Enabled {
		if pr.static == nil && in.users != nil && !s.candidate(pr.acc, u) {
			return false
		}
		return in.affects(pr, v, u, loc)
	}
	s.values = in.valueLocations(pr.acc, s.values[:0])
	return s.writesFrom(u, loc)
}

// writesFrom reports whether enablers puts thread u, at location loc, in the
// row of a blocked thread whose guard reads s.values: u's code from loc may
// write one of them (and u is among its writers, when staticInfo lists them).
func (s *persistentSearch) writesFrom(u, loc int) bool {
	in := s.info
	w := in.future[u][loc].acc[ir.Write]
	for _, l := range s.values {
		if !w.has(l) {
			continue
		}
		switch {
		case in.writerMask != nil:
			if in.writerMask[l]&(1<<u) != 0 {
				return true
			}
		case in.writers == nil || listed(in.writers[l], u):
			return true
		}
	}
	return false
}

// candidate reports whether affected asks about thread u for a step that made
// the accesses acc: u's code may access one of them, or one is u's end.
func (s *persistentSearch) candidate(acc []ir.Access, u int) bool {
	in := s.info
	if in.askUsers != nil {
		return in.asked(acc)&(1<<u) != 0
	}
	for _, a := range acc {
		if in.ordered.has(a.Loc) {
			continue
		}
		if k, t := s.p.Locate(a.Loc); k == ir.LocThread && t == u {
			return true
		}
		if listed(in.users[a.Loc], u) {
			return true
		}
	}
	return false
}

// listed reports whether thread u is in threads, a list of staticInfo's (in
// increasing order).
func listed(threads []int32, u int) bool {
	_, ok := slices.BinarySearch(threads, int32(u))
	return ok
}

// checkRow makes v's row afresh and panics if it differs from the reused one
// (Persistent.verifyReuse: tests only).
func (s *persistentSearch) checkRow(cur ir.State, v int, pr *threadProbe, row bitSet) {
	g := &s.graph
	s.row(cur, v, pr, g.check)
	if !slices.Equal(g.check, row) {
		panic(fmt.Sprintf("persistent: thread %d's reused row %b differs from its row %b", v, row, g.check))
	}
}

// sccScratch computes, for a directed graph over threads (adjacency bit sets),
// the set of nodes each node reaches, itself included: per strongly connected
// component (Tarjan), in the order Tarjan finds them, which puts every
// component after the ones it reaches.
type sccScratch struct {
	index, low, comp []int
	onStack          []bool
	stack            []int
	reach            []bitSet // per component
	next, count      int
}

func (g *sccScratch) reaches(adj []bitSet) {
	n := len(adj)
	if len(g.index) != n {
		g.index, g.low, g.comp = make([]int, n), make([]int, n), make([]int, n)
		g.onStack = make([]bool, n)
	}
	for i := range g.index {
		g.index[i] = -1
	}
	g.next, g.count, g.stack = 0, 0, g.stack[:0]
	for v := range n {
		if g.index[v] < 0 {
			g.visit(adj, v)
		}
	}
}

func (g *sccScratch) visit(adj []bitSet, v int) {
	g.index[v], g.low[v] = g.next, g.next
	g.next++
	g.stack = append(g.stack, v)
	g.onStack[v] = true
	for u := adj[v].next(0); u >= 0; u = adj[v].next(u + 1) {
		switch {
		case g.index[u] < 0:
			g.visit(adj, u)
			g.low[v] = min(g.low[v], g.low[u])
		case g.onStack[u]:
			g.low[v] = min(g.low[v], g.index[u])
		}
	}
	if g.low[v] != g.index[v] {
		return
	}
	// v roots a component: pop it, and give it everything its members reach.
	c := g.count
	g.count++
	if c == len(g.reach) {
		g.reach = append(g.reach, newBitSet(len(adj)))
	}
	r := g.reach[c]
	r.clear()
	top := len(g.stack)
	for {
		top--
		w := g.stack[top]
		g.onStack[w] = false
		g.comp[w] = c
		r.add(w)
		if w == v {
			break
		}
	}
	members := g.stack[top:]
	g.stack = g.stack[:top]
	for _, w := range members {
		for u := adj[w].next(0); u >= 0; u = adj[w].next(u + 1) {
			if cu := g.comp[u]; cu != c && !g.onStack[u] {
				r.or(g.reach[cu]) // an earlier component: complete already
			}
		}
	}
}

// closeRows returns the closure of closed, a set closed under the graph rows
// (one word per thread), and add: closed plus what add reaches.
func closeRows(rows []uint64, closed, add uint64) uint64 {
	set := closed | add
	for front := add &^ closed; front != 0; {
		v := bits.TrailingZeros64(front)
		front &= front - 1
		nb := rows[v] &^ set
		set |= nb
		front |= nb
	}
	return set
}

// closure extends set along the stubborn-set graph.
func (s *persistentSearch) closure(set bitSet) {
	g := &s.graph
	q := g.queue[:0]
	for t := set.next(0); t >= 0; t = set.next(t + 1) {
		q = append(q, t)
	}
	for len(q) > 0 {
		v := q[len(q)-1]
		q = q[:len(q)-1]
		row := g.adj[v]
		for u := row.next(0); u >= 0; u = row.next(u + 1) {
			if !set.has(u) {
				set.add(u)
				q = append(q, u)
			}
		}
	}
	g.queue = q
}

// affected adds to row the threads u of which some transition from their
// current location on may be dependent with the next step of the enabled
// thread v, as probed (staticInfo.affects).
func (s *persistentSearch) affected(cur ir.State, v int, pr *threadProbe, row bitSet) {
	in, p := s.info, s.p
	if pr.static != nil || in.users == nil {
		for u := range s.n {
			if u != v && in.affects(pr, v, u, p.Location(cur, u)) {
				row.add(u)
			}
		}
		return
	}
	// The step conflicts with u only on a location it accessed that u's code
	// may access, or by accessing u's termination, which u's last step
	// writes (accessesConflict): those threads are the candidates.
	if in.askUsers != nil {
		for m := in.asked(pr.acc) &^ (1 << v); m != 0; m &= m - 1 {
			if u := bits.TrailingZeros64(m); in.affects(pr, v, u, p.Location(cur, u)) {
				row.add(u)
			}
		}
		return
	}
	consider := func(u int) {
		if u != v && !row.has(u) && in.affects(pr, v, u, p.Location(cur, u)) {
			row.add(u)
		}
	}
	for _, a := range pr.acc {
		if in.ordered.has(a.Loc) {
			continue
		}
		for _, u := range in.users[a.Loc] {
			consider(int(u))
		}
		if k, u := p.Locate(a.Loc); k == ir.LocThread {
			consider(u)
		}
	}
}

// enablers adds to row a necessary enabling set of the blocked thread v: threads
// of which at least one must move before v can. guard is what v's guard accesses
// (ir.Exact).
func (s *persistentSearch) enablers(cur ir.State, v int, guard []ir.Access, row bitSet) {
	p := s.p
	// Whatever the operation, v's guard reads the same shared cells and channel
	// lengths and decides the same way until someone changes one of them: an
	// await's or assume's condition (len(c) > 0 included), the index of lock(m[x])
	// or join(t[x]) — writing x makes v wait for another mutex or thread, which
	// may be free or terminated already — and the length of the channel a send
	// or recv waits on, which only a send or recv on it changes. So every thread
	// that may write a cell or use a channel the guard reads belongs to the set.
	s.values = s.info.valueLocations(guard, s.values[:0])
	if s.info.writers == nil {
		for u := range s.n {
			if u != v && s.info.writesAny(s.values, u, p.Location(cur, u)) {
				row.add(u)
			}
		}
	} else if s.info.writerMask != nil {
		// Only a thread whose code writes one of the locations at all may
		// write it from where it is.
		var m uint64
		for _, l := range s.values {
			m |= s.info.writerMask[l]
		}
		for m &^= 1 << v; m != 0; m &= m - 1 {
			if u := bits.TrailingZeros64(m); s.writesFrom(u, p.Location(cur, u)) {
				row.add(u)
			}
		}
	} else {
		for _, l := range s.values {
			for _, u := range s.info.writers[l] {
				if u := int(u); u != v && !row.has(u) && s.info.future[u][p.Location(cur, u)].acc[ir.Write].has(l) {
					row.add(u)
				}
			}
		}
	}
	tr := p.Transition(cur, v)
	if tr == nil {
		// Stuck for ever on a false inner guard (Template.Stuck): no step
		// of anyone enables it, so the empty set is a necessary enabling set.
		return
	}
	switch tr.EntryNode().Op {
	case ir.OpLock:
		// With the index unchanged, only the owner can release the mutex; an
		// unlock by anyone else fails and changes nothing.
		for _, a := range guard {
			if k, i := p.Locate(a.Loc); k == ir.LocLock {
				if p.AnyOwnerUnlocks() {
					// Go's unlock: any thread whose code may unlock it.
					for u := range s.n {
						if u != v && s.info.future[u][p.Location(cur, u)].acc[ir.Write].has(a.Loc) {
							row.add(u)
						}
					}
					continue
				}
				if o := p.LockOwner(cur, i); o >= 0 && o != v && !p.Done(cur, o) {
					row.add(o)
				}
			}
		}
	case ir.OpJoin:
		// With the index unchanged, every joined thread must terminate: any one
		// still running will do.
		for _, a := range guard {
			if k, u := p.Locate(a.Loc); k == ir.LocThread && !p.Done(cur, u) {
				row.add(u)
				return
			}
		}
	}
}

// affects reports whether the next step of thread v, as probed, may be dependent
// with some transition thread u may execute from location loc on.
func (in *staticInfo) affects(pr *threadProbe, v, u, loc int) bool {
	f := &in.future[u][loc]
	if pr.static != nil {
		return in.conflicts(pr.static, v, f, u)
	}
	return in.accessesConflict(pr.acc, v, f, u)
}
