package explicit

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kbmc/ir"
	"kbmc/verify"
)

// executor is one run of one algorithm: what every search of the run shares. It
// owns the run's outcome (the first violation, cuts, a stop: what the run has
// established), the depth bound and the time limit, and it turns the outcome into
// the run's one validated verify.Result. The searches themselves run on workers
// (worker), one executor per run however many workers it has.
type executor struct {
	p     *ir.Program
	opts  Options
	ctx   context.Context
	algo  *algorithm
	depth int // the depth bound of the whole run
	start time.Time

	mu    sync.Mutex
	facts verify.Outcome
	end   atomic.Bool // a violation was found or the run was stopped: every search ends

	release  func() bool    // unregisters the stop on the context's end
	progress *progressBoard // sums the workers' statistics for progress reports
	covers   []*coverage    // the workers' coverage (Options.Coverage), under mu
	// storedTwice: a second phase stored states again (persistent's bounded
	// phase), so that Stats.States is no count of distinct states.
	storedTwice atomic.Bool
}

// newExecutor starts a run of algo on p: it checks that the engine can explore
// p (Supported) once for the run.
func newExecutor(ctx context.Context, p *ir.Program, algo *algorithm, opts Options) (*executor, error) {
	if err := Supported(p, opts); err != nil {
		return nil, err
	}
	if p.ChecksRaces() && !algo.races {
		return nil, &verify.UnsupportedError{Engine: "explicit engine",
			Msg: fmt.Sprintf("--algo %s does not check the property no-data-race: its reduction does not visit every state, and a racing state may be among those it skips; use --algo %s",
				algo.name, strings.Join(RaceAlgorithms(), " or "))}
	}
	if n := p.RendezvousChoice(); n != nil && algo.noRendezvousChoice {
		return nil, &verify.UnsupportedError{Pos: n.Pos, Engine: "explicit engine",
			Msg: fmt.Sprintf("--algo %s does not support a select that waits to receive on a rendezvous channel and has another case: use --algo dpor or dfs", algo.name)}
	}
	if opts.Depth <= 0 {
		opts.Depth = verify.DefaultDepth
	}
	x := &executor{p: p, opts: opts, ctx: ctx, algo: algo, depth: opts.Depth, start: time.Now()}
	x.facts.Incomplete = opts.lossy()
	if v := p.InitialViolation(); v != nil {
		// The initial state breaks an invariant: the empty schedule is the
		// counterexample, and no search needs to run (Step checks every
		// later state).
		x.facts.Found(v, []ir.Move{})
		x.end.Store(true)
	}
	x.progress = newProgressBoard(opts.Progress, x.start)
	// The run ends the moment its context does: every search polls an atomic
	// flag, cheaply, also inside long computations (a persistent set over a
	// thousand threads, a trace constraint system), not only between steps.
	x.release = context.AfterFunc(ctx, func() { x.stop(ctx) })
	return x, nil
}

// A prefix is a schedule from the initial state and the state it leads to, with
// what BPOR's bounds need to know about it: where a search starts.
type prefix struct {
	moves  []ir.Move
	state  ir.State
	last   int     // the thread of the last move, -1 for none
	cost   int     // bpor-preempt: the preemptions in the prefix
	yields []int   // bpor-fair: yields per thread in the prefix
	sleep  bitSet  // the threads asleep at its state (nil: none), for algorithms with sleep sets
	id     int     // its number in the run, for progress
	parent *prefix // the prefix one step shorter (dfs --stateful: cycles within the frontier)
}

// worker is what one search works with on one goroutine: its statistics, the
// probe that looks at next transitions, the polling of the run's end, and where
// its current task starts. Every explicit algorithm executes steps, counts them,
// and ends executions through it (next, leaf, accesses, done); the run's outcome
// is its executor's.
type worker struct {
	*executor
	id    int // the worker's number in the run
	stats verify.Stats

	// from is where the current task starts: nil (the initial state) or the end
	// of a schedule prefix; budget is the depth left below it.
	from   *prefix
	budget int

	probe *ir.Probe
	polls int
	last  time.Time // last progress report

	cover *coverage // what its steps executed, when the run counts coverage

	// cutTraced and cutNoted are set once the run has recorded a cut
	// execution's schedule and a bound's note as far as this worker knows: the
	// outcome keeps the first of each, so later ones need not take its lock
	// (once per cut execution).
	cutTraced, cutNoted bool
}

// newWorker returns worker id of the run, starting at the initial state.
func (x *executor) newWorker(id int) *worker {
	w := &worker{executor: x, id: id, budget: x.depth, probe: x.p.NewProbe(), last: x.start}
	if x.opts.Coverage {
		w.cover = newCoverage(x.p)
		x.mu.Lock()
		x.covers = append(x.covers, w.cover)
		x.mu.Unlock()
	}
	return w
}

// at makes the worker's next search start at from (nil: the initial state).
func (w *worker) at(from *prefix) {
	w.from = from
	w.budget = w.depth
	if from != nil {
		w.budget = max(w.depth-len(from.moves), 0)
	}
}

// initial is the state the search starts from.
func (w *worker) initial() ir.State {
	if w.from != nil {
		return w.from.state.Clone()
	}
	return w.p.Initial()
}

// lastThread is the thread that moved last before depth d of the search's own
// path moves (d > 0: moves[d-1]; d == 0: the prefix's last move), or -1.
func (w *worker) lastThread(moves []ir.Move, d int) int {
	switch {
	case d > 0:
		return moves[d-1].Thread
	case w.from != nil:
		return w.from.last
	}
	return -1
}

// prefixLen is the length of the schedule prefix the search starts after.
func (w *worker) prefixLen() int {
	if w.from == nil {
		return 0
	}
	return len(w.from.moves)
}

// halted reports whether the run is over: a violation was found (by any search of
// the run) or the context ended.
func (x *executor) halted() bool { return x.end.Load() }

// done reports whether the search must stop: a violation was found or the context
// ended (halted). Now and then it also reports progress.
func (w *worker) done() bool {
	if w.halted() {
		return true
	}
	if w.polls++; w.polls&1023 == 0 {
		w.report()
	}
	return false
}

// report reports progress if half a second has passed since the last report.
func (w *worker) report() {
	if now := time.Now(); now.Sub(w.last) >= 500*time.Millisecond {
		w.last = now
		w.stats.Time = now.Sub(w.start)
		w.progress.report(w.id, &w.stats)
	}
}

// stop records that ctx ended the run, unless a violation was found first.
func (x *executor) stop(ctx context.Context) {
	x.mu.Lock()
	if x.facts.Stopped == nil && x.facts.Violation == nil {
		x.facts.Stopped = context.Cause(ctx)
	}
	x.mu.Unlock()
	x.end.Store(true)
}

// cancelled reports whether the context has ended; the search then stops with
// verdict unknown. It looks at the context at once (for a caller that has just
// seen an operation fail, which may be the context's doing).
func (x *executor) cancelled() bool {
	if x.ctx.Err() != nil {
		x.stop(x.ctx)
		return true
	}
	return false
}

// abort ends the run because a search failed (err is returned instead of a
// verdict): the other searches stop.
func (x *executor) abort() { x.end.Store(true) }

// found records a violation reached by trace (the search's own path, below its
// prefix): the run's first one wins, and every search of the run stops.
func (w *worker) found(v *ir.Violation, trace []ir.Move) {
	trace = w.fromRoot(trace)
	w.mu.Lock()
	w.facts.Found(v, trace)
	w.mu.Unlock()
	w.end.Store(true)
}

// cutAt records the schedule of an execution the depth bound cut, and cycleAt
// one whose last state repeats an earlier state of it (verify.Outcome keeps
// the first of each); like found, a subtree's trace starts at the root.
func (w *worker) cutAt(trace []ir.Move) {
	if w.cutTraced {
		return
	}
	w.cutTraced = true
	trace = w.fromRoot(trace)
	w.mu.Lock()
	w.facts.CutAt(trace)
	w.mu.Unlock()
}

func (w *worker) cycleAt(trace []ir.Move) {
	trace = w.fromRoot(trace)
	w.mu.Lock()
	w.facts.CycleAt(trace)
	w.mu.Unlock()
}

// fromRoot is trace, a schedule from the start of this worker's task, as a
// schedule from the initial state.
func (w *worker) fromRoot(trace []ir.Move) []ir.Move {
	if w.from == nil {
		return trace
	}
	return append(append([]ir.Move(nil), w.from.moves...), trace...)
}

// cutOff records that a bound kept the search from some execution (note says
// which), so that the verdict can no longer be safe; it counts no execution.
func (w *worker) cutOff(note string) {
	if w.cutNoted {
		return
	}
	w.cutNoted = true
	w.mu.Lock()
	w.facts.CutBy(note)
	w.mu.Unlock()
}

// livelock records a possible livelock (bpor-fair past --max-steps); the run
// stops with verdict unknown.
func (x *executor) livelock(msg string) {
	x.mu.Lock()
	if x.facts.Livelock == "" {
		x.facts.Livelock = msg
	}
	x.mu.Unlock()
	x.end.Store(true)
}

// step executes thread t in s (in place) and counts it.
func (w *worker) step(s ir.State, t int, ch *ir.Choices, ev *ir.Event) {
	w.stats.Transitions++
	w.p.Step(s, t, ch, ev)
}

// accesses is what thread t, whose status in s is status, may access in its next
// transition, at precision prec (ir.Probe.Accesses). The transitions a probe
// executes count like every other, so the statistic means the same in every
// algorithm.
func (w *worker) accesses(s ir.State, t int, status ir.Status, prec ir.Precision, buf []ir.Access) []ir.Access {
	before := w.probe.Steps
	buf = w.probe.Accesses(s, t, status, prec, buf)
	w.stats.Transitions += w.probe.Steps - before
	return buf
}

// successors enumerates the successors of one thread's step from a state: one per
// combination of the values its nondeterministic draws may take, in the order of
// ir.Choices.Next. Each search keeps one per depth, so that the alternatives of a
// step survive the exploration below it. The step being enumerated is held here
// rather than passed to every next: the iterator is the hottest loop of every
// explicit search, and a call with a dozen words of arguments costs more than it.
type successors struct {
	ch      ir.Choices
	fixed   []int64
	started bool
	failed  bool // the last step failed: its violation is recorded

	from, to ir.State   // the step runs thread from from into to (one state: in place)
	thread   int        // the thread that moves
	ev       *ir.Event  // receives the step
	moves    *[]ir.Move // the search's move buffer, which may be reallocated as it grows
	n        int        // (*moves)[:n] is the path to the successor, the step last
}

// path is the path to the current successor.
func (it *successors) path() []ir.Move { return (*it.moves)[:it.n] }

// start prepares the enumeration of the successors of thread t's step from
// state from into to, recorded in ev and as move n-1 of *moves (whose first n-1
// moves are the path to from).
func (it *successors) start(from, to ir.State, t int, ev *ir.Event, moves *[]ir.Move, n int) {
	it.fixed, it.started = it.fixed[:0], false
	it.from, it.to, it.thread, it.ev, it.moves, it.n = from, to, t, ev, moves, n
}

// once makes a started iterator execute a single successor: the step with its
// leading draws fixed (later draws take their first values).
func (it *successors) once(fixed []int64) {
	if len(fixed) > 0 { // most steps draw nothing
		it.fixed = append(it.fixed, fixed...)
	}
}

// resume makes a started iterator continue an enumeration whose first successor
// the caller already has (a probe executed the step with the draws made).
func (it *successors) resume(made []ir.Choice) {
	it.ch.Made = append(it.ch.Made[:0], made...)
	it.started = true
}

// next executes the step with the next combination of nondeterministic values
// (into it.to, recorded as the last move of it.path()). It returns false when
// every combination has been executed, and when the step failed: the executor
// has then recorded the violation, one execution ending in it.
func (w *worker) next(it *successors) bool {
	if it.started && len(it.ch.Made) == 0 {
		return false // most steps draw nothing: one successor, without a call
	}
	return w.draw(it)
}

// draw is next beyond its shortcut.
func (w *worker) draw(it *successors) bool {
	if it.started {
		var more bool
		if it.fixed, more = it.ch.Next(it.fixed); !more {
			return false
		}
	}
	it.started = true
	copy(it.to, it.from)
	it.ch.Reset(it.fixed)
	ev := it.ev
	w.coverStart(ev)
	w.step(it.to, it.thread, &it.ch, ev)
	w.covered(ev, it.n)
	path := it.path()
	mv := &path[len(path)-1]
	mv.Thread = it.thread
	mv.Choices = values(mv.Choices, it.ch.Made)
	if it.failed = ev.Violation != nil; it.failed {
		w.failed(ev.Violation, path)
		return false
	}
	return true
}

// leaf decides whether the state s, reached by path, ends an execution: when no
// thread is enabled (a terminal state, which may be a deadlock) or when the depth
// bound is reached with a thread enabled (the execution is cut). Either counts one
// execution. It reports whether s is a leaf, and whether the bound cut it. (The
// test stays small enough to be inlined into every search's loop; ending the
// execution is endAt's.)
func (w *worker) leaf(s ir.State, anyEnabled bool, path []ir.Move) (leaf, cut bool) {
	if anyEnabled && len(path) < w.budget {
		return false, false
	}
	return true, w.endAt(s, anyEnabled, path)
}

// endAt ends an execution at the leaf s (see leaf) and reports whether the
// depth bound cut it.
func (w *worker) endAt(s ir.State, anyEnabled bool, path []ir.Move) (cut bool) {
	if !anyEnabled {
		w.terminal(s, path)
		return false
	}
	w.cutAt(path)
	w.bounded("depth bound reached")
	return true
}

// failed records a step that failed at the end of trace (the moves so far):
// one execution, ending in a violation.
func (w *worker) failed(v *ir.Violation, trace []ir.Move) {
	w.stats.Executions++
	w.stats.Failed++
	w.found(v, trace)
}

// terminal handles a state in which no thread is enabled: one maximal execution
// ends here, and it may be a deadlock.
func (w *worker) terminal(s ir.State, trace []ir.Move) {
	w.stats.Executions++
	steps := len(trace) + w.prefixLen() // a subtree's trace starts below its prefix
	w.stats.Longest = max(w.stats.Longest, int64(steps))
	end, v := w.p.End(s)
	switch end {
	case ir.Deadlocked:
		w.stats.Deadlocked++
	case ir.Complete:
		w.stats.Complete++
	case ir.CutByLimit:
		// A thread waits at a bound of the model (a full thread or heap
		// pool): the execution is cut, as by the depth bound.
		w.stats.Executions--
		w.cutAt(trace)
		w.mu.Lock()
		w.facts.ModelCut = true
		w.mu.Unlock()
		w.bounded("a thread pool or heap pool of the model ran out (raise --pool)")
		return
	default:
		w.stats.AssumeBlocked++
	}
	if w.opts.Terminal != nil {
		w.opts.Terminal(w.p.IdentityCells(s), v != nil)
	}
	if v != nil && !w.opts.NoDeadlock {
		w.found(v, trace)
	}
}

// bounded records an execution cut by the depth bound (or another bound).
func (w *worker) bounded(note string) {
	w.stats.Executions++
	w.stats.Cut++
	w.cutOff(note)
}

// result decides the run's verdict from its outcome (verify.Outcome.Decide, once
// for the run), fills in stats, what the run's searches counted, and validates
// the counterexample (verify.Validate, once: the replayed run travels with the
// result).
func (x *executor) result(stats verify.Stats) (*verify.Result, error) {
	x.release()
	x.mu.Lock()
	r := x.facts.Decide()
	x.mu.Unlock()
	stats.Time = time.Since(x.start)
	r.Stats = stats
	r.StatKeys = append([]string{"executions", "transitions"}, x.algo.statKeys(x.opts)...)
	r.StatKeys = append(r.StatKeys, "time_ms")
	r.Engine, r.Algo = "explicit", x.algo.name
	r.Bound = x.algo.boundOf(x.opts)
	r.Bound.Depth = x.depth
	if x.opts.Coverage {
		r.Coverage = x.coverageOf(stats.States)
	}
	if err := verify.Validate(x.p, r); err != nil {
		return nil, fmt.Errorf("explicit %s: %w", x.algo.name, err)
	}
	return r, nil
}

// depthOnly is the Bound of an algorithm that has only the depth bound.
func depthOnly() verify.Bound { return verify.Bound{Preemptions: -1, Fair: -1} }

// values copies the values of drawn choices into buf.
func values(buf []int64, cs []ir.Choice) []int64 {
	buf = buf[:0]
	for _, c := range cs {
		buf = append(buf, c.Value)
	}
	return buf
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

// progressBoard merges the statistics of a run's workers for progress reports:
// each worker reports its own now and then; the board adds up the latest of
// every worker and reports the sum (at most twice a second).
type progressBoard struct {
	mu      sync.Mutex
	sink    func(*verify.Stats)
	start   time.Time
	workers map[int]verify.Stats
	base    verify.Stats // counted outside the workers (a frontier)
	last    time.Time
}

func newProgressBoard(f func(*verify.Stats), start time.Time) *progressBoard {
	return &progressBoard{sink: f, start: start, workers: map[int]verify.Stats{}}
}

func (b *progressBoard) report(id int, st *verify.Stats) {
	if b.sink == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.workers[id] = *st
	if now := time.Now(); now.Sub(b.last) >= 500*time.Millisecond {
		b.last = now
		sum := b.base
		for _, s := range b.workers {
			addStats(&sum, &s)
		}
		sum.Time = now.Sub(b.start)
		b.sink(&sum)
	}
}
