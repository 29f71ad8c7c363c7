package explicit

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kbmc/ir"
	"kbmc/verify"
)

// Parallel and sharded exploration (--workers, --shard).
//
// A run is split into subtrees at the top of the search: the frontier is every
// schedule prefix of some depth d from the initial state (all enabled threads, all
// nondeterministic values: a plain search, so no execution is missed), deep enough
// to hold several subtrees per worker or per part. Each subtree is then explored
// by the chosen algorithm from the state its prefix leads to, with the depth left
// below it. Executions that end within the frontier (terminal states, failing
// steps, a bound) are handled by the frontier itself.
//
//   - --workers W: W goroutines take subtrees from a shared queue, each with an
//     executor of its own (scratch, statistics) and one outcome for the run: the
//     first violation any of them finds stops them all, and the time limit covers
//     them all. Many more subtrees than workers keep the load balanced.
//   - --shard I/N: the frontier is the same in every part (a deterministic
//     function of the program and the flags); part I explores subtrees I, I+N,
//     I+2N, …, and part 0 also owns the executions that end within the frontier.
//     kbmc merge combines the parts' results.
//
// Why this is sound for the reducing algorithms: each subtree is explored by the
// algorithm from a state, which covers every execution from that state within the
// remaining depth (up to its equivalence), and the frontier covers every prefix.
// No sleep set or backtrack set crosses subtrees; the price is that the frontier
// itself is not reduced by the algorithm. Visited states cross subtrees where the
// algorithm's own argument covers a record another worker wrote: dfs --stateful's
// completed heights, persistent's (checkPhases). For the reducing algorithms
// prefixes that lead to the same state are explored once, and the frontier keeps
// sleep sets (Godefroid): a thread whose step commutes with an earlier sibling's
// is not started again below it, which keeps the frontier from exploring one
// trace in several subtrees; each subtree starts with its prefix's sleep set
// (dpor and persistent's bounded phase use it; the others may explore more). For
// dfs neither is done, so that the parts' execution counts add up exactly to the
// sequential count, nor for BPOR, whose bound may forbid the representative a
// sleep set relies on. BPOR's bounds carry over: a prefix knows its preemptions,
// its last thread and the yields so far, and a prefix beyond the bound is cut like
// a step would be.
//
// Two algorithms are split differently. lazypor along its own tree of explore
// calls (checkLazy). dpor and BPOR on several workers share one search and steal
// work from each other (checkStealing, steal.go), and a sharded dpor run splits
// the search itself into pieces (splitSearch): a frontier reduced only by sleep
// sets explores many interleavings that DPOR never would.

// A Shard names one of Count parts of a run (Index from 0); Count 0 is no sharding.
type Shard struct{ Index, Count int }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

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

// DefaultWorkers is how many workers a run of algo uses when none are asked for,
// on a machine where kbmc may use cpus CPUs: all of them, for every algorithm
// that has a parallel search (each does about the work of the sequential one:
// dfs, whose stateful workers share one store, dpor, bpor-preempt, bpor-fair,
// lazypor, which shares out its own loop, and persistent and process-local,
// whose workers share each phase's table).
func DefaultWorkers(algo string, cpus int) int {
	switch algo {
	case "dfs", "dpor", "bpor-preempt", "bpor-fair", "lazypor", "persistent", "process-local":
		return max(cpus, 1)
	}
	return 1
}

// parallelSearch runs the algorithm algo on several workers, or as one part of a
// sharded run.
type parallelSearch struct {
	algo string
	opts Options
}

// subtreesPer is how many subtrees the frontier aims at per worker or part.
const subtreesPer = 16

func (ps parallelSearch) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	opts := ps.opts
	x, err := newExecutor(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	workers := max(opts.Workers, 1)
	target := subtreesPer * workers
	if opts.Shard.Count > 1 {
		target = subtreesPer * opts.Shard.Count
	}
	if ps.algo == "lazypor" {
		return ps.checkLazy(ctx, p, x, workers, target)
	}
	if ps.algo == "persistent" || ps.algo == "process-local" {
		return ps.checkPhases(ctx, p, x, workers, target)
	}
	if ps.algo == "dpor" || strings.HasPrefix(ps.algo, "bpor") {
		return ps.checkStealing(ctx, p, x, workers, target)
	}
	f := newFrontier(x, ps.algo, opts)
	// dfs --stateful's searches share their visited states, and the frontier
	// stores its states there too: an owner of records per worker, and one for
	// the frontier. (--local-deadlock never gets here: New runs it on one
	// worker.)
	var shared *sharedVisited[struct{}]
	if ps.algo == "dfs" && opts.Stateful {
		shared = newSharedVisited[struct{}](workers + 1)
		f.store, f.owner = shared, workers
	}
	subtrees, n, total := ps.part(x, f, target, verify.Stats{})
	t := ps.subtrees(ctx, p, x, subtrees, workers, total, func(o *Options) { o.visited = shared })
	return ps.result(x, t, f.bound, workers, n)
}

// checkPhases runs persistent or process-local in parallel phase by phase, as the
// sequential search runs (see Persistent): the exhaustive phase over the subtrees
// of a frontier reduced with its persistent sets, and, if some search of it met
// an execution longer than the bound, the bounded phase over those of a
// frontier reduced with the bounded phase's. The searches of each phase share
// its table (persistentTables). A frontier of the bounded phase's sets for both
// would put into the exhaustive phase states that its own sets never reach
// (they expand every state where a thread may fail): half as many states again
// on token-ring.
func (ps parallelSearch) checkPhases(ctx context.Context, p *ir.Program, x *executor, workers, target int) (*verify.Result, error) {
	if ps.opts.Shard.Count > 1 {
		return ps.checkPhasesSharded(ctx, p, x, workers, target)
	}
	exhaustive := newPersistentTables(workers, false)
	f := newFrontier(x, ps.algo, ps.opts)
	f.safety = false
	subtrees, n, total := ps.part(x, f, target, verify.Stats{})
	t := ps.subtrees(ctx, p, x, subtrees, workers, total, func(o *Options) { o.tables = exhaustive })
	if t.err != nil || x.halted() || !exhaustive.long.Load() {
		return ps.result(x, t, f.bound, workers, n)
	}
	bounded := newPersistentTables(workers, true)
	x.stats = verify.Stats{} // the second frontier's
	f = newFrontier(x, ps.algo, ps.opts)
	subtrees, n2, total := ps.part(x, f, target, t.total)
	t = ps.subtrees(ctx, p, x, subtrees, workers, total, func(o *Options) { o.tables = bounded })
	return ps.result(x, t, f.bound, workers, n+n2)
}

// checkPhasesSharded runs one part of a sharded persistent or process-local run.
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
func (ps parallelSearch) checkPhasesSharded(ctx context.Context, p *ir.Program, x *executor, workers, target int) (*verify.Result, error) {
	f := newFrontier(x, ps.algo, ps.opts)
	subtrees, n, total := ps.part(x, f, target, verify.Stats{})
	exhaustive := newPersistentTables(workers, false)
	t := ps.subtrees(ctx, p, x, subtrees, workers, total, func(o *Options) { o.tables = exhaustive })
	if t.err != nil || x.halted() || !exhaustive.long.Load() {
		return ps.result(x, t, f.bound, workers, n)
	}
	bounded := newPersistentTables(workers, true)
	t = ps.subtrees(ctx, p, x, subtrees, workers, t.total, func(o *Options) { o.tables = bounded })
	return ps.result(x, t, f.bound, workers, n)
}

// subtrees explores the given subtrees on workers goroutines, each search with
// the options set sets, and returns their tally, started at total.
func (ps parallelSearch) subtrees(ctx context.Context, p *ir.Program, x *executor, subtrees []*prefix, workers int, total verify.Stats, set func(*Options)) *tally {
	opts := ps.opts
	tally := newTally(x, opts, total)
	queue := make(chan *prefix)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for pre := range queue {
				o := opts
				o.Workers, o.Shard = 0, Shard{}
				o.shared, o.from, o.worker = x.out, pre, w
				set(&o)
				eng, err := New(ps.algo, o)
				var r *verify.Result
				if err == nil {
					r, err = eng.Check(ctx, p)
				}
				tally.add(pre.id, r, err)
			}
		})
	}
	for _, pre := range subtrees {
		if x.halted() {
			break
		}
		queue <- pre
	}
	close(queue)
	wg.Wait()
	return tally
}

// part expands the frontier f to about target subtrees and returns this part's
// (all of them, unless the run is sharded), how many the frontier has, and the
// statistics the part starts with: carry, plus the frontier's own executions in
// part 0, which owns them.
func (ps parallelSearch) part(x *executor, f *frontier, target int, carry verify.Stats) ([]*prefix, int, verify.Stats) {
	shard := ps.opts.Shard
	subtrees := f.expand(target)
	n := len(subtrees)
	subtrees = deal(shard, subtrees)
	total := carry
	if shard.Count <= 1 || shard.Index == 0 {
		addStats(&total, &x.stats)
	}
	return subtrees, n, total
}

// checkStealing runs DPOR or BPOR on workers that share one search, stealing
// work from each other (steal.go): from the initial state, or, in a part of a
// sharded run, from each of the part's pieces of a split search (dpor,
// splitSearch) or subtrees of a frontier (BPOR).
// The result's subtree count is the number of tasks the workers took.
func (ps parallelSearch) checkStealing(ctx context.Context, p *ir.Program, x *executor, workers, target int) (*verify.Result, error) {
	opts := ps.opts
	f := newFrontier(x, ps.algo, opts)
	tasks := []*porTask{{root: ps.root(p), depth: -1}}
	var total verify.Stats
	switch {
	case opts.Shard.Count > 1 && ps.algo == "dpor":
		var err error
		if tasks, total, err = ps.splitSearch(ctx, p, x, target); err != nil {
			return nil, err
		}
		if opts.Shard.Index != 0 {
			total = verify.Stats{} // the split's own executions are part 0's
		}
	case opts.Shard.Count > 1:
		// BPOR: a frontier carrying the bound. Split as dpor is, BPOR's parts
		// would add the same backtracking points above their pieces often
		// enough to do twice to three times the sequential work (docs/decisions.md).
		var roots []*prefix
		roots, _, total = ps.part(x, f, target, total)
		tasks = tasks[:0]
		for _, r := range roots {
			tasks = append(tasks, &porTask{root: r, depth: -1})
		}
	}
	tally := newTally(x, opts, total)
	pool := newPORPool(tasks, x.halted, opts.eagerSteal)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for t := pool.take(); t != nil; t = pool.take() {
				o := ps.taskOptions(x, t)
				root := *t.root
				root.id = w + 1 // progress is per worker
				o.from, o.worker, o.pool = &root, w, pool
				eng, err := New(ps.algo, o)
				var r *verify.Result
				if err == nil {
					r, err = eng.Check(ctx, p)
				}
				tally.add(w+1, r, err)
				pool.finished()
			}
		})
	}
	wg.Wait()
	return ps.result(x, tally, f.bound, workers, pool.handed)
}

// root is where a DPOR or BPOR run on several workers starts: the initial state.
func (ps parallelSearch) root(p *ir.Program) *prefix {
	root := &prefix{state: p.Initial(), last: -1}
	if ps.algo == "bpor-fair" {
		root.yields = make([]int, len(p.Threads))
	}
	return root
}

// taskOptions are the options of the search that explores task t of the run
// whose executor is x.
func (ps parallelSearch) taskOptions(x *executor, t *porTask) Options {
	o := ps.opts
	o.Workers, o.Shard = 0, Shard{}
	o.shared, o.from, o.task = x.out, t.root, t
	return o
}

// splitBudget is how many transitions a search of splitSearch runs before it
// gives its work away, and maxSplits how many such searches one split runs at
// most, per task it aims at.
const (
	splitBudget = 1 << 10
	maxSplits   = 4
)

// splitSearch splits the DPOR search of a sharded run into about target
// tasks and returns this part's, and the statistics of the searches that split
// it. It runs the search for a while and gives all its work away (porSplit: the
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
func (ps parallelSearch) splitSearch(ctx context.Context, p *ir.Program, x *executor, target int) ([]*porTask, verify.Stats, error) {
	var stats verify.Stats
	tasks := []*porTask{{root: ps.root(p), depth: -1}}
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
		o := ps.taskOptions(x, t)
		o.split = &porSplit{budget: splitBudget}
		if ps.opts.eagerSteal {
			o.split.budget = 64 // tests: split small programs too, and deep
		}
		eng, err := New(ps.algo, o)
		if err != nil {
			return nil, stats, err
		}
		r, err := eng.Check(ctx, p)
		if err != nil {
			return nil, stats, err
		}
		addStats(&stats, &r.Stats)
		tasks = append(tasks, o.split.tasks...)
	}
	slices.SortStableFunc(tasks, func(a, b *porTask) int { return a.depth - b.depth })
	return deal(ps.opts.Shard, tasks), stats, nil
}

// tally gathers what the searches of one parallel run return: their statistics,
// added up, for progress and the result, and the first error, which ends the run.
type tally struct {
	mu       sync.Mutex
	total    verify.Stats
	err      error
	out      *outcome
	progress *progressBoard
}

// newTally starts a tally at total, and reports the run's progress through it.
func newTally(x *executor, opts Options, total verify.Stats) *tally {
	t := &tally{total: total, out: x.out, progress: newProgressBoard(opts.Progress, x.start)}
	x.out.progress = t.progress.report
	return t
}

// add records what search id returned.
func (t *tally) add(id int, r *verify.Result, err error) {
	t.mu.Lock()
	if err != nil && t.err == nil {
		t.err = err
		t.out.end.Store(true) // the run ends with the error: stop the others
	}
	var st *verify.Stats
	if r != nil {
		addStats(&t.total, &r.Stats)
		st = &r.Stats
	}
	t.mu.Unlock()
	t.progress.finish(id, st)
}

// result is the run's result, once its searches have ended.
func (ps parallelSearch) result(x *executor, t *tally, bound verify.Bound, workers, subtrees int) (*verify.Result, error) {
	if t.err != nil {
		return nil, t.err
	}
	x.stats = t.total
	r, err := x.result(ps.algo, bound, ps.statKeys()...)
	if err != nil {
		return nil, err
	}
	return ps.label(r, workers, subtrees), nil
}

// label records in r how the run was split.
func (ps parallelSearch) label(r *verify.Result, workers, subtrees int) *verify.Result {
	r.Workers, r.Shard, r.Subtrees = workers, ps.opts.Shard.String(), subtrees
	if ps.opts.Shard.Count <= 1 {
		r.Shard = ""
	}
	return r
}

// maxDealLevel is the deepest level of lazypor's tree of nodes that a parallel run
// deals out.
const maxDealLevel = 8

// checkLazy runs lazypor in parallel the way its thesis proposes (§4.5: the
// iterations of explore's loop are independent), not over a frontier of
// prefixes: a frontier's prefixes are every interleaving of its first steps,
// which lazypor itself would mostly not explore (on readers-writers N = 6, 2,267
// executions in the subtrees against 64 sequentially). Instead every worker runs
// lazypor from the initial state, explores the calls above one level of its tree
// alike, and of the iterations of the calls at that level explores its own
// (lazyDeal). The level is the first whose calls have target iterations, found by
// first passes that enumerate a level's iterations without exploring them (they
// depend on the program and the number of parts only, so every part deals
// alike). The workers share one store of completed calls for lazypor's
// visited-state check; a call at or above the dealt level, of which each worker
// explores only its share, is never stored.
func (ps parallelSearch) checkLazy(ctx context.Context, p *ir.Program, x *executor, workers, target int) (*verify.Result, error) {
	opts := ps.opts
	searchOpts := func() Options {
		o := opts
		o.Workers, o.Shard = 0, Shard{}
		o.shared = x.out
		return o
	}
	deal := lazyDeal{parts: max(opts.Shard.Count, 1), part: opts.Shard.Index}
	total := verify.Stats{}
	dealt := 0
	for c := 1; c <= maxDealLevel+1 && !deal.on; c++ {
		levels, paths := make([]int, c), map[uint64]int{}
		r, err := LazyPOR{Options: searchOpts(), noVisited: true, levels: levels, paths: paths}.Check(ctx, p)
		if err != nil {
			return nil, err
		}
		if levels[c-1] == 0 || x.halted() {
			// No node of the last level had an iteration, so the pass
			// explored the whole tree (or the run is over): its result is
			// the run's.
			return ps.label(r, workers, 0), nil
		}
		addStats(&total, &r.Stats)
		if levels[c-1] >= target || c == maxDealLevel+1 {
			deal.on, deal.level, deal.index, dealt = true, c-1, paths, levels[c-1]
		}
	}
	tally := newTally(x, opts, total)
	store := newSharedVisited[struct{}](workers)
	if workers > 1 && len(deal.index) > 0 {
		// About subtreesPer chunks per worker in this part's range.
		size := max(len(deal.index)/deal.parts/(subtreesPer*workers), 1)
		deal.claims = &lazyClaims{size: size, chunk: make([]atomic.Int32, len(deal.index)/size+1)}
	}
	var wg sync.WaitGroup
	for w := range workers {
		if x.halted() {
			break
		}
		wg.Go(func() {
			o := searchOpts()
			o.from = &prefix{state: p.Initial(), last: -1, id: w + 1} // for progress
			o.visited, o.worker = store, w
			d := deal
			d.worker = w
			r, err := LazyPOR{Options: o, deal: d}.Check(ctx, p)
			tally.add(w+1, r, err)
		})
	}
	wg.Wait()
	return ps.result(x, tally, depthOnly(), workers, dealt)
}

// statKeys are the statistics the algorithm reports, from a run of it on nothing.
func (ps parallelSearch) statKeys() []string {
	switch ps.algo {
	case "dfs":
		if ps.opts.Stateful {
			return []string{"states"}
		}
		return nil
	case "dpor":
		if ps.opts.NoSleep {
			return nil
		}
		return []string{"sleep_blocked"}
	case "lazypor":
		return []string{"tcs_built", "tcs_solved", "tcs_unsat"}
	case "persistent":
		return []string{"states", "sleep_blocked"}
	case "process-local":
		return []string{"states", "local_states", "sleep_blocked"}
	}
	return nil
}

// addStats adds the counters of s to t (not the times: the run's time is its wall
// time).
func addStats(t, s *verify.Stats) {
	t.Executions += s.Executions
	t.Complete += s.Complete
	t.AssumeBlocked += s.AssumeBlocked
	t.Deadlocked += s.Deadlocked
	t.Cut += s.Cut
	t.Failed += s.Failed
	t.Longest = max(t.Longest, s.Longest)
	t.Transitions += s.Transitions
	t.States += s.States
	t.SleepBlocked += s.SleepBlocked
	t.TCSBuilt += s.TCSBuilt
	t.TCSSolved += s.TCSSolved
	t.TCSUnsat += s.TCSUnsat
	t.LocalStates += s.LocalStates
}

// frontier builds the subtrees of a run: the prefixes of one depth, level by level.
type frontier struct {
	x      *executor
	algo   string
	dedup  bool // one prefix per state (reducing algorithms)
	bpor   bool
	fair   bool
	limit  int  // the preemption or fair bound (bpor)
	sleepy bool // keep sleep sets
	// sel, for persistent and process-local, chooses which threads a frontier
	// state explores: the persistent sets their searches use in the phase the
	// frontier is for (the bounded phase's with safety), so that the frontier is
	// reduced as the search is.
	sel    *persistentSearch
	safety bool // sel chooses the bounded phase's sets
	// store, for dfs --stateful, is the visited store the subtrees share; the
	// frontier stores its states there too, so that the run counts every state
	// once.
	store  *sharedVisited[struct{}]
	owner  int // the frontier's records in store
	bound  verify.Bound
	ev     ir.Event
	enable bitSet
	acc    [][]ir.Access // per thread: what its next transition may access (sleep sets)
}

func newFrontier(x *executor, algo string, opts Options) *frontier {
	n := len(x.p.Threads)
	f := &frontier{x: x, algo: algo, dedup: algo != "dfs" || opts.Stateful, bound: depthOnly(),
		enable: newBitSet(n), acc: make([][]ir.Access, n), safety: true}
	f.sleepy = f.dedup && !strings.HasPrefix(algo, "bpor") && algo != "dfs"
	switch algo {
	case "persistent":
		f.sel = newPersistentSearch(x, opts.NoSleep, true)
	case "process-local":
		f.sel = newPersistentSearch(x, opts.NoSleep, true)
		f.sel.choose = newProcessLocal(f.sel).choose
	}
	switch algo {
	case "bpor-preempt":
		f.bpor, f.limit = true, opts.Preemptions
		f.bound.Preemptions = opts.Preemptions
	case "bpor-fair":
		f.bpor, f.fair, f.limit = true, true, opts.Fair
		f.bound.Fair = opts.Fair
	}
	if f.limit < 0 {
		f.limit = int(^uint(0) >> 1)
	}
	return f
}

// expand grows the frontier level by level from the initial state until it holds
// at least target prefixes, or cannot grow (every prefix ended, or the next level
// would reach the depth bound). Prefixes are numbered in a deterministic order.
func (f *frontier) expand(target int) []*prefix {
	x := f.x
	p := x.p
	level := []*prefix{{state: p.Initial(), last: -1}}
	if f.fair {
		level[0].yields = make([]int, len(p.Threads))
	}
	if f.sleepy {
		level[0].sleep = newBitSet(len(p.Threads))
	}
	if f.store != nil {
		f.store.visit(level[0].state, f.owner)
		x.stats.States++
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
		if f.dedup && f.store == nil {
			x.stats.States += int64(len(seen)) // stored while the level was built
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
	x := f.x
	p := x.p
	f.enable.clear()
	for t := range p.Threads {
		if p.Enabled(pre.state, t) {
			f.enable.add(t)
		}
	}
	if leaf, _ := x.leaf(pre.state, !f.enable.empty(), pre.moves); leaf {
		return next
	}
	var sleep bitSet // the working sleep set: pre's, then each explored sibling
	if f.sleepy {
		sleep = newBitSet(len(p.Threads))
		sleep.copyFrom(pre.sleep)
		for t := range p.Threads {
			if f.enable.has(t) {
				f.acc[t] = x.accesses(pre.state, t, ir.Enabled, ir.AllDraws, f.acc[t])
			}
		}
		if firstOf(f.enable, nil, sleep, nil) < 0 {
			x.stats.SleepBlocked++
			return next
		}
	}
	allowed := f.enable
	if f.sel != nil {
		copy(f.sel.states[0], pre.state)
		if v, t := f.sel.probe(0); v != nil {
			path := append(append([]ir.Move(nil), pre.moves...), ir.Move{Thread: t, Choices: values(nil, f.sel.frames[0].probes[t].made)})
			x.failed(v, path)
			return next
		}
		f.sel.choose(0, f.safety)
		allowed = f.sel.frames[0].pset
	}
	var it successors
	path := append(append([]ir.Move(nil), pre.moves...), ir.Move{})
	succ := make(ir.State, len(pre.state))
	for t := range p.Threads {
		if !allowed.has(t) || sleep != nil && sleep.has(t) {
			continue
		}
		cost := pre.cost
		if f.bpor {
			cost = boundCost(f.fair, pre.cost, pre.last, t, f.enable, pre.yields)
			if cost > f.limit {
				if f.fair {
					x.cutOff("fair bound reached")
				} else {
					x.cutOff("preemption bound reached")
				}
				continue
			}
		}
		yield := f.fair && p.Transition(pre.state, t).EntryNode().Op == ir.OpYield
		it.start(pre.state, succ, t, &f.ev, &path, len(path))
		for x.next(&it) {
			// A nondet over a huge range has that many children: building
			// them all before a worker starts ignored --timeout and --memory.
			if x.done() {
				return next
			}
			child := &prefix{last: t, cost: cost}
			if f.fair {
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
				x.cycleAt(path)
				x.bounded("a cycle of states runs past the depth bound")
				continue
			}
			k := ""
			if f.dedup {
				// BPOR's future depends on the bound so far and the last
				// thread as well as on the state.
				k = stateKey(succ)
				if f.bpor {
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
			if f.dedup {
				seen[k] = child
			}
			if f.store != nil {
				child.parent = pre
				if _, fresh := f.store.visit(child.state, f.owner); fresh {
					x.stats.States++
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

// progressBoard merges the statistics of a run's searches for progress reports:
// each search reports its own now and then; the board adds up the latest of
// every search still running and of every one finished.
type progressBoard struct {
	mu       sync.Mutex
	sink     func(*verify.Stats)
	start    time.Time
	running  map[int]verify.Stats
	finished verify.Stats
	last     time.Time
}

func newProgressBoard(f func(*verify.Stats), start time.Time) *progressBoard {
	return &progressBoard{sink: f, start: start, running: map[int]verify.Stats{}}
}

func (b *progressBoard) report(id int, st *verify.Stats) {
	if b.sink == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running[id] = *st
	if now := time.Now(); now.Sub(b.last) >= 500*time.Millisecond {
		b.last = now
		sum := b.finished
		for _, s := range b.running {
			addStats(&sum, &s)
		}
		sum.Time = now.Sub(b.start)
		b.sink(&sum)
	}
}

// finish records the final statistics of a search that has ended.
func (b *progressBoard) finish(id int, st *verify.Stats) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if st != nil {
		addStats(&b.finished, st)
	}
	delete(b.running, id)
}
