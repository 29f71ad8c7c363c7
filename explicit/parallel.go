package explicit

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"kbmc/ir"
	"kbmc/verify"
)

// The parallel driver: how one run is shared among workers (--workers) and cut
// into parts (--shard), for every algorithm. The algorithm's descriptor (algo.go)
// says which way (splitting); its search explores the tasks the driver gives it
// (search.explore), on one worker, and knows nothing of the others but the
// stores and the pool the driver shares (sharing). All workers run one loop
// (pool.work): take a task, explore it, take the next, until the run ends.
//
// A frontier of prefixes splits a run at its top: every schedule prefix of some
// depth from the initial state (all enabled threads, all nondeterministic values:
// a plain search, reduced by the algorithm's own sets where it has them, so that
// no execution is missed), deep enough for several subtrees per worker or part.
// Each subtree is explored by the algorithm from the state its prefix leads to,
// with the depth left below it; executions that end within the frontier are the
// frontier's. Why this is sound for the reducing algorithms: each subtree is
// explored by the algorithm from a state, which covers every execution from that
// state within the remaining depth (up to its equivalence), and the frontier
// covers every prefix. The frontier keeps sleep sets (Godefroid) where the
// algorithm has them: a thread whose step commutes with an earlier sibling's is
// not started again below it, and each subtree starts with its prefix's sleep
// set. BPOR's bounds carry over: a prefix knows its preemptions, its last thread
// and the yields so far, and a prefix beyond the bound is cut as a step would be.
//
//   - --workers W: W goroutines take the subtrees from one queue, each with a
//     worker of its own (scratch, statistics) and the run's one executor: the
//     first violation any of them finds stops them all, and the time limit
//     covers them all. Many more subtrees than workers keep the load balanced.
//   - --shard I/N: the frontier is the same in every part (a deterministic
//     function of the program and the flags); part I explores subtrees I, I+N,
//     I+2N, …, and part 0 also owns the executions that end within the
//     frontier. kbmc merge combines the parts' results.
//
// The other ways, for the algorithms a frontier serves badly, are described at
// their splitting constant.

// splitting is how a run is shared out.
type splitting uint8

const (
	// atFrontier: the subtrees of a frontier, from one queue (dfs; a sharded
	// BPOR run, whose part's workers then steal within it).
	atFrontier splitting = iota + 1
	// inPhases: persistent's two phases one after the other, each over a
	// frontier of its own and one table its searches share; a sharded run has
	// one frontier for both (runPhasesSharded says why).
	inPhases
	// byStealing: one search that the workers share as it grows, stealing work
	// from each other (dpor and BPOR, steal.go): a frontier reduced only by
	// sleep sets explores many interleavings DPOR never would.
	byStealing
	// intoPieces: the algorithm's own search split into pieces before the
	// workers start (a sharded dpor run, splitSearch).
	intoPieces
	// byNodes: lazypor's tree of explore calls, whose nodes' iterations every
	// worker takes from one queue (lazypor.go).
	byNodes
)

// subtreesPer is how many subtrees the frontier aims at per worker or part.
const subtreesPer = 16

// sharing is what the driver shares among the searches of one run.
type sharing struct {
	workers int
	shard   Shard
	// pool, when the searches may give work away (byStealing, byNodes), is
	// where they give it.
	pool *pool
	// visited, for dfs --stateful split at a frontier, is the one store the
	// run's searches and its frontier share.
	visited *sharedVisited[struct{}]
	// tables, for persistent and process-local in phases, is the current
	// phase's table.
	tables *persistentTables
	// eager (tests) makes the searches of a run that steal work give it away
	// whenever fewer than two tasks wait, whether or not a worker does, and a
	// sharded run split its search every 64 transitions.
	eager bool
}

// task is work for one worker: a search from root (nil: the initial state), or
// work another search gave away (stolen), or a piece of a split search.
type task struct {
	root   *prefix
	phase  int       // inPhases: 0 the exhaustive phase, 1 the bounded one
	stolen any       // *porTask (dpor, BPOR), *lazyNode (lazypor)
	split  *porSplit // the search gives all its work away at a budget (intoPieces)
}

// drive runs e, an engine of the executor's algorithm, and returns the run's
// result: sequentially, or shared out as the descriptor says.
func (x *executor) drive(e engine) (*verify.Result, error) {
	o := x.opts
	sh := &sharing{workers: max(o.Workers, 1), shard: o.Shard}
	if o.lossy() != "" {
		// A lossy visited set is one search's (visitedStore), not shared.
		sh.workers = 1
	}
	if o.Shard.Count <= 1 {
		sh.shard = Shard{}
	}
	if d, ok := e.(interface{ eagerSteal() bool }); ok {
		sh.eager = d.eagerSteal()
	}
	r, err := e.start(x, sh)
	if err != nil {
		x.release()
		return nil, err
	}
	split := x.algo.workers
	if sh.shard.Count > 1 {
		split = x.algo.shards
	}
	var total verify.Stats
	subtrees := 0
	switch {
	case sh.workers == 1 && sh.shard.Count <= 1 && !sh.eager || split == 0:
		total = x.sequential(r)
	case split == atFrontier:
		total, subtrees = x.runFrontier(r, sh)
	case split == inPhases && sh.shard.Count > 1:
		total, subtrees = x.runPhasesSharded(r, sh)
	case split == inPhases:
		total, subtrees = x.runPhases(r, sh)
	case split == intoPieces:
		total, subtrees, err = x.runPieces(r, sh)
	case split == byNodes:
		// Every worker takes the iterations of open nodes from the run's
		// one queue (lazypor.go).
		tasks := make([]*task, sh.workers)
		for i := range tasks {
			tasks[i] = &task{}
		}
		total = x.work(r, sh, newPool(tasks, x.halted, false))
	default: // byStealing
		total, subtrees = x.runShared(r, sh, []*task{{}})
	}
	if ferr := r.finish(); err == nil {
		err = ferr
	}
	if err != nil {
		x.release()
		return nil, err
	}
	res, err := x.result(total)
	if err != nil {
		return nil, err
	}
	if sh.workers > 1 || sh.shard.Count > 1 || sh.eager {
		res.Workers, res.Subtrees = sh.workers, subtrees
		if sh.shard.Count > 1 {
			res.Shard = sh.shard.String()
		}
	}
	return res, nil
}

// sequential runs the algorithm's search on one worker, from the initial state.
func (x *executor) sequential(r runner) verify.Stats {
	w := x.newWorker(0)
	r.search(w).explore(&task{})
	return w.stats
}

// runFrontier explores the subtrees of a frontier of the algorithm's: every
// subtree in a sharded part (the part's share of them), and on several workers
// from one queue, or, for an algorithm whose workers steal, as their first tasks.
func (x *executor) runFrontier(r runner, sh *sharing) (verify.Stats, int) {
	f := x.newFrontier()
	if f.rule.store {
		// dfs --stateful: the searches share their visited states, and the
		// frontier stores its states there too: an owner of records per
		// worker, and one for the frontier.
		sh.visited = newSharedVisited[struct{}](sh.workers + 1)
		f.store, f.owner = sh.visited, sh.workers
	}
	subtrees, n := f.part(sh.shard, subtreesPer*max(sh.workers, sh.shard.Count))
	tasks := make([]*task, len(subtrees))
	for i, pre := range subtrees {
		tasks[i] = &task{root: pre}
	}
	if x.algo.workers == byStealing {
		stats, handed := x.runShared(r, sh, tasks)
		addStats(&stats, &f.w.stats)
		return stats, handed
	}
	stats := x.work(r, sh, newPool(tasks, x.halted, false))
	addStats(&stats, &f.w.stats)
	return stats, n
}

// runPhases runs persistent or process-local in parallel phase by phase, as the
// sequential search runs (see Persistent): the exhaustive phase over the subtrees
// of a frontier reduced with its persistent sets, and, if some search of it met
// an execution longer than the bound, the bounded phase over those of a
// frontier reduced with the bounded phase's. The searches of each phase share
// its table (persistentTables). A frontier of the bounded phase's sets for both
// would put into the exhaustive phase states that its own sets never reach
// (they expand every state where a thread may fail): half as many states again
// on token-ring.
func (x *executor) runPhases(r runner, sh *sharing) (verify.Stats, int) {
	exhaustive := newPersistentTables(sh.workers, len(x.p.Threads), false)
	f := x.newFrontier()
	f.safety = false
	subtrees, n := f.part(sh.shard, subtreesPer*sh.workers)
	total := x.phase(r, sh, exhaustive, 0, subtrees)
	addStats(&total, &f.w.stats)
	if x.halted() || !exhaustive.long.Load() {
		return total, n
	}
	x.storedTwice.Store(true)
	f = x.newFrontier()
	subtrees, n2 := f.part(sh.shard, subtreesPer*sh.workers)
	stats := x.phase(r, sh, newPersistentTables(sh.workers, len(x.p.Threads), true), 1, subtrees)
	addStats(&total, &stats)
	addStats(&total, &f.w.stats)
	return total, n + n2
}

// runPhasesSharded runs one part of a sharded persistent or process-local run.
// Whether the bounded phase runs is decided by what the exhaustive phase met,
// and a part sees only its own subtrees: if each phase had a frontier of its own,
// a part whose exhaustive subtrees were all short would end there, and its share
// of the other parts' bounded-phase frontier would be explored by nobody (a
// violation at the bound then went unseen). So both phases run over the same
// subtrees, of one frontier reduced with the bounded phase's sets, and each part
// decides for its own subtrees alone: those whose exhaustive search met nothing
// longer than the bound are covered by it (see Persistent), the others by the
// bounded phase. The bounded phase's frontier, which never postpones a step that
// may fail, is the one both phases can start below; the exhaustive phase's could
// push a violation past the bound before the bounded phase begins.
func (x *executor) runPhasesSharded(r runner, sh *sharing) (verify.Stats, int) {
	f := x.newFrontier()
	subtrees, n := f.part(sh.shard, subtreesPer*sh.shard.Count)
	exhaustive := newPersistentTables(sh.workers, len(x.p.Threads), false)
	total := x.phase(r, sh, exhaustive, 0, subtrees)
	addStats(&total, &f.w.stats)
	if x.halted() || !exhaustive.long.Load() {
		return total, n
	}
	x.storedTwice.Store(true)
	stats := x.phase(r, sh, newPersistentTables(sh.workers, len(x.p.Threads), true), 1, subtrees)
	addStats(&total, &stats)
	return total, n
}

// phase explores the subtrees of one phase, its searches sharing tables.
func (x *executor) phase(r runner, sh *sharing, tables *persistentTables, phase int, subtrees []*prefix) verify.Stats {
	sh.tables = tables
	tasks := make([]*task, len(subtrees))
	for i, pre := range subtrees {
		tasks[i] = &task{root: pre, phase: phase}
	}
	return x.work(r, sh, newPool(tasks, x.halted, false))
}

// runShared runs a search the workers share as it grows (byStealing, byNodes):
// they start from tasks (the initial state, or a part's subtrees or pieces),
// and a busy search gives work to the pool when a worker waits there. The
// second result is the number of tasks the workers took.
func (x *executor) runShared(r runner, sh *sharing, tasks []*task) (verify.Stats, int) {
	sh.pool = newPool(tasks, x.halted, sh.eager)
	stats := x.work(r, sh, sh.pool)
	return stats, sh.pool.handed
}

// splitBudget is how many transitions a search of runPieces runs before it
// gives its work away, and maxSplits how many such searches one split runs at
// most, per task it aims at.
const (
	splitBudget = 1 << 10
	maxSplits   = 4
)

// runPieces runs one part of a sharded dpor run: it splits the search into
// about subtreesPer pieces per part (splitSearch) and shares this part's among
// its workers, who steal within them.
func (x *executor) runPieces(r runner, sh *sharing) (verify.Stats, int, error) {
	tasks, split := x.splitSearch(r, sh, subtreesPer*sh.shard.Count)
	stats, handed := x.runShared(r, sh, tasks)
	if sh.shard.Index == 0 {
		addStats(&stats, &split) // the split's own executions are part 0's
	}
	return stats, handed, nil
}

// splitSearch splits the DPOR search of a sharded run into about target tasks
// and returns this part's, and the statistics of the searches that split it.
// It runs the search for a while and gives all its work away (porSplit: the
// threads still to run at every state of its path become tasks), then does the
// same with the shallowest task (likely the largest) until there are target
// tasks; a task that ends within the budget is done. This is a deterministic
// function of the program and the flags, so every part splits alike; the tasks,
// in order of depth, are dealt out round robin, part I taking tasks I, I+N,
// I+2N, … The tasks of the other parts are claimed in this part's copy of the
// states above them, so that its workers, walking back up from their own tasks,
// do not run them; a backtracking point that a part's exploration adds above its
// task, that part runs (two parts that find the same one both do: some work twice,
// none missed). Unlike a frontier of prefixes, the split follows the algorithm's
// own tree: no task holds executions the sequential search would not explore.
func (x *executor) splitSearch(r runner, sh *sharing, target int) ([]*task, verify.Stats) {
	w := x.newWorker(-1)
	s := r.search(w)
	tasks := []*porTask{{depth: -1}}
	for range maxSplits * target {
		if len(tasks) == 0 || len(tasks) >= target || x.halted() {
			break
		}
		i := 0
		for j, t := range tasks {
			if t.depth < tasks[i].depth {
				i = j
			}
		}
		t := tasks[i]
		tasks = slices.Delete(tasks, i, i+1)
		// The budget counts this search's transitions: the worker counts
		// every split search's.
		split := &porSplit{budget: w.stats.Transitions + splitBudget}
		if sh.eager {
			split.budget = w.stats.Transitions + 64 // tests: split small programs too, and deep
		}
		w.at(t.root)
		s.explore(&task{root: t.root, stolen: t, split: split})
		tasks = append(tasks, split.tasks...)
	}
	slices.SortStableFunc(tasks, func(a, b *porTask) int { return a.depth - b.depth })
	mine := deal(sh.shard, tasks)
	out := make([]*task, len(mine))
	for i, t := range mine {
		out[i] = &task{root: t.root, stolen: t}
	}
	return out, w.stats
}

// deal returns the shard's share of work dealt out round robin (part I takes
// items I, I+N, I+2N, …): all of it when the run is not sharded.
func deal[T any](s Shard, work []T) []T {
	if s.Count <= 1 {
		return work
	}
	var mine []T
	for i, w := range work {
		if i%s.Count == s.Index {
			mine = append(mine, w)
		}
	}
	return mine
}

// work runs the run's workers on the tasks of pl, each taking a task, exploring
// it with its search, and taking the next until none is left, and returns what
// they counted: the one worker loop of every parallel run.
func (x *executor) work(r runner, sh *sharing, pl *pool) verify.Stats {
	var mu sync.Mutex
	var total verify.Stats
	loop := func(id int) {
		w := x.newWorker(id)
		s := r.search(w)
		for t := pl.take(); t != nil; t = pl.take() {
			w.at(t.root)
			s.explore(t)
			pl.finished()
		}
		mu.Lock()
		addStats(&total, &w.stats)
		mu.Unlock()
	}
	if sh.workers == 1 {
		loop(0)
		return total
	}
	var wg sync.WaitGroup
	for id := range sh.workers {
		wg.Go(func() { loop(id) })
	}
	wg.Wait()
	return total
}

// pool hands out the tasks of one run and keeps idle workers waiting while a
// busy worker may still give work away.
type pool struct {
	mu      sync.Mutex
	wake    sync.Cond
	queue   []*task // a stack: the first task first
	waiting int     // workers waiting for a task
	busy    int     // workers with a task
	over    bool    // the run has ended: every worker returns
	halted  func() bool
	handed  int  // tasks handed out, the first ones included
	eager   bool // keep two tasks queued, whether or not a worker waits (tests)

	// hungry: a worker waits and no task is queued for it. Busy workers read it
	// at every step of their search where they could give work away, so it is
	// an atomic, not the lock.
	hungry atomic.Bool
}

func newPool(tasks []*task, halted func() bool, eager bool) *pool {
	pl := &pool{halted: halted, eager: eager}
	pl.wake.L = &pl.mu
	for i := len(tasks) - 1; i >= 0; i-- {
		pl.queue = append(pl.queue, tasks[i])
	}
	pl.update()
	return pl
}

// take returns the next task for a worker, waiting for one while some worker is
// busy; nil when the run is over (no task is left and nobody can give one, or
// the run was stopped).
func (pl *pool) take() *task {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for {
		switch {
		case pl.over || pl.halted():
			pl.over = true
			pl.wake.Broadcast()
			return nil
		case len(pl.queue) > 0:
			t := pl.queue[len(pl.queue)-1]
			pl.queue = pl.queue[:len(pl.queue)-1]
			pl.busy++
			pl.handed++
			pl.update()
			return t
		case pl.busy == 0:
			pl.over = true
			pl.wake.Broadcast()
			return nil
		}
		pl.waiting++
		pl.update()
		pl.wake.Wait()
		pl.waiting--
		pl.update()
	}
}

// finished records that a worker has ended its task.
func (pl *pool) finished() {
	pl.mu.Lock()
	pl.busy--
	if pl.busy == 0 || pl.halted() {
		pl.wake.Broadcast() // perhaps the run is over: let the waiting see
	}
	pl.mu.Unlock()
}

// give queues a task for a waiting worker.
func (pl *pool) give(t *task) {
	pl.mu.Lock()
	pl.queue = append(pl.queue, t)
	pl.update()
	pl.wake.Signal()
	pl.mu.Unlock()
}

// await waits until done reports true, and returns nil then, or until a task
// that wanted accepts is queued, which it takes and returns; the caller, busy
// with a task of its own, explores it before it waits again. (A lazypor worker
// that created a node waits so for the iterations others took of it, joining
// the loops of nodes below it meanwhile.)
func (pl *pool) await(done func() bool, wanted func(*task) bool) *task {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for {
		if pl.over || pl.halted() || done() {
			return nil
		}
		for i := len(pl.queue) - 1; i >= 0; i-- {
			if t := pl.queue[i]; wanted(t) {
				pl.queue = slices.Delete(pl.queue, i, i+1)
				pl.handed++
				pl.update()
				return t
			}
		}
		pl.waiting++
		pl.update()
		pl.wake.Wait()
		pl.waiting--
		pl.update()
	}
}

// signal wakes the waiting workers, to see whether what they await has come.
func (pl *pool) signal() {
	pl.mu.Lock()
	pl.wake.Broadcast()
	pl.mu.Unlock()
}

func (pl *pool) update() {
	pl.hungry.Store(pl.waiting > len(pl.queue) || pl.eager && len(pl.queue) < 2)
}

// frontierRule is how a frontier of an algorithm's prefixes is expanded.
type frontierRule struct {
	distinct bool // one prefix per state (reducing algorithms, dfs --stateful)
	sleep    bool // keep sleep sets
	store    bool // the frontier stores its states in the run's one visited store
	// preempt and fair: BPOR's bound, limit, carried by the prefixes.
	preempt, fair bool
	limit         int
	// sets, for persistent and process-local, chooses the threads a frontier
	// state explores: the persistent sets their searches use in the phase the
	// frontier is for, so that the frontier is reduced as the search is.
	sets func(w *worker) *persistentSearch
}

// frontier builds the subtrees of a run: the prefixes of one depth, level by level.
type frontier struct {
	x    *executor
	w    *worker // executes the frontier's steps and counts them
	rule frontierRule
	sel  *persistentSearch
	// safety: sel chooses the bounded phase's sets.
	safety bool
	// store, for dfs --stateful, is the visited store the subtrees share; the
	// frontier stores its states there too, so that the run counts every state
	// once.
	store  *sharedVisited[struct{}]
	owner  int // the frontier's records in store
	ev     ir.Event
	enable bitSet
	acc    [][]ir.Access // per thread: what its next transition may access (sleep sets)
}

func (x *executor) newFrontier() *frontier {
	n := len(x.p.Threads)
	f := &frontier{x: x, w: x.newWorker(-1), rule: x.algo.frontier(x.opts), safety: true,
		enable: newBitSet(n), acc: make([][]ir.Access, n)}
	if f.rule.sets != nil {
		f.sel = f.rule.sets(f.w)
	}
	if f.rule.limit < 0 {
		f.rule.limit = int(^uint(0) >> 1)
	}
	return f
}

// part expands the frontier to about target subtrees and returns the shard's
// (all of them, unless the run is sharded) and how many the frontier has. The
// executions the frontier ends are part 0's: another part forgets them.
func (f *frontier) part(shard Shard, target int) ([]*prefix, int) {
	subtrees := f.expand(target)
	if shard.Count > 1 && shard.Index != 0 {
		f.w.stats = verify.Stats{}
	}
	f.x.progress.base = f.w.stats
	return deal(shard, subtrees), len(subtrees)
}

// expand grows the frontier level by level from the initial state until it holds
// at least target prefixes, or cannot grow (every prefix ended, or the next level
// would reach the depth bound). Prefixes are numbered in a deterministic order.
func (f *frontier) expand(target int) []*prefix {
	x, w := f.x, f.w
	p := x.p
	level := []*prefix{{state: p.Initial(), last: -1}}
	if f.rule.fair {
		level[0].yields = make([]int, len(p.Threads))
	}
	if f.rule.sleep {
		level[0].sleep = newBitSet(len(p.Threads))
	}
	if f.store != nil {
		f.store.visit(f.x.p.IdentityCells(level[0].state), f.owner)
		w.stats.States++
	}
	for d := 0; len(level) < target && d+1 < x.depth && len(level) > 0; d++ {
		var next []*prefix
		seen := map[string]*prefix{}
		for _, pre := range level {
			next = f.children(pre, next, seen)
			if x.halted() {
				return nil
			}
		}
		if f.rule.distinct && f.store == nil {
			w.stats.States += int64(len(seen)) // stored while the level was built
		}
		level = next
	}
	for i, pre := range level {
		pre.id = i + 1
	}
	return level
}

// children appends to next the prefixes one step longer than pre, handling the
// executions that end at pre's state.
func (f *frontier) children(pre *prefix, next []*prefix, seen map[string]*prefix) []*prefix {
	w := f.w
	p := w.p
	f.enable.clear()
	for t := range p.Threads {
		if p.Enabled(pre.state, t) {
			f.enable.add(t)
		}
	}
	if leaf, _ := w.leaf(pre.state, !f.enable.empty(), pre.moves); leaf {
		return next
	}
	var sleep bitSet // the working sleep set: pre's, then each explored sibling
	if f.rule.sleep {
		sleep = newBitSet(len(p.Threads))
		sleep.copyFrom(pre.sleep)
		for t := range p.Threads {
			if f.enable.has(t) {
				f.acc[t] = w.accesses(pre.state, t, ir.Enabled, ir.AllDraws, f.acc[t])
			}
		}
		if firstOf(f.enable, nil, sleep, nil) < 0 {
			w.stats.SleepBlocked++
			return next
		}
	}
	allowed := f.enable
	if f.sel != nil {
		copy(f.sel.states[0], pre.state)
		if v, t := f.sel.probe(0); v != nil {
			path := append(append([]ir.Move(nil), pre.moves...), ir.Move{Thread: t, Choices: values(nil, f.sel.frames[0].probes[t].made)})
			w.failed(v, path)
			return next
		}
		f.sel.choose(0, f.safety)
		if w.done() {
			// choose stops when the run halts (another search found the
			// verdict: kbmc svcomp's hunt), leaving the set of an earlier
			// state, whose threads need not be enabled here.
			return next
		}
		allowed = f.sel.frames[0].pset
	}
	bpor := f.rule.preempt || f.rule.fair
	var it successors
	path := append(append([]ir.Move(nil), pre.moves...), ir.Move{})
	succ := make(ir.State, len(pre.state))
	for t := range p.Threads {
		if !allowed.has(t) || sleep != nil && sleep.has(t) {
			continue
		}
		cost := pre.cost
		if bpor {
			cost = boundCost(f.rule.fair, pre.cost, pre.last, t, f.enable, pre.yields)
			if cost > f.rule.limit {
				if f.rule.fair {
					w.cutOff("fair bound reached")
				} else {
					w.cutOff("preemption bound reached")
				}
				continue
			}
		}
		yield := f.rule.fair && p.Transition(pre.state, t).EntryNode().Op == ir.OpYield
		it.start(pre.state, succ, t, &f.ev, &path, len(path))
		for w.next(&it) {
			// A nondet over a huge range has that many children: building
			// them all before a worker starts ignored --timeout and --memory.
			if w.done() {
				return next
			}
			child := &prefix{last: t, cost: cost}
			if f.rule.fair {
				child.yields = append([]int(nil), pre.yields...)
				if yield {
					child.yields[t]++
				}
			}
			var childSleep bitSet
			if sleep != nil {
				// Godefroid: the threads asleep here, or explored already, whose
				// next step commutes with this one.
				childSleep = newBitSet(len(p.Threads))
				for z := sleep.next(0); z >= 0; z = sleep.next(z + 1) {
					if z != t && !ir.Conflict(f.acc[z], f.ev.Accesses) {
						childSleep.add(z)
					}
				}
			}
			if f.store != nil && f.onPath(pre, succ) {
				// A cycle, as the sequential search meets it on its stack: the
				// state is explored from its first occurrence, with more depth.
				w.cycleAt(path)
				w.bounded(verify.CycleNote)
				continue
			}
			k := ""
			if f.rule.distinct {
				// BPOR's future depends on the bound so far and the last
				// thread as well as on the state.
				k = stateKey(succ)
				if bpor {
					k += fmt.Sprint(t, cost, child.yields)
				}
				if old := seen[k]; old != nil {
					if old.sleep != nil {
						old.sleep.and(childSleep) // reached again: what sleeps on both ways
					}
					continue
				}
			}
			child.moves, child.state, child.sleep = ir.CloneMoves(path), succ.Clone(), childSleep
			if f.rule.distinct {
				seen[k] = child
			}
			if f.store != nil {
				child.parent = pre
				if _, fresh := f.store.visit(f.x.p.IdentityCells(child.state), f.owner); fresh {
					w.stats.States++
				}
			}
			next = append(next, child)
		}
		if it.failed {
			return next
		}
		if sleep != nil {
			sleep.add(t) // every execution starting with t here is covered
		}
	}
	return next
}

// onPath reports whether s is the state of pre or of one of its parents.
func (f *frontier) onPath(pre *prefix, s ir.State) bool {
	for ; pre != nil; pre = pre.parent {
		if pre.state.Equal(s) {
			return true
		}
	}
	return false
}

// stateKey is a map key for a whole state.
func stateKey(s ir.State) string {
	b := make([]byte, 0, 8*len(s))
	for _, v := range s {
		for i := range 8 {
			b = append(b, byte(v>>(8*i)))
		}
	}
	return string(b)
}
