package explicit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"kbmc/ir"
	"kbmc/verify"
)

// executor is what every explicit algorithm shares: it executes ir transitions,
// enumerates a step's nondeterministic successors, probes next transitions,
// decides where an execution ends (leaf), enforces the depth bound and the time
// limit, and turns what the search found into a validated verify.Result.
//
// What a run has established (the outcome: the first violation, cuts, a stop) is
// kept apart from what one search works with (its statistics, the probe, the
// polling counters): the parallel searches of one run (parallel.go) each have an
// executor of their own and share one outcome.
type executor struct {
	p     *ir.Program
	opts  Options
	ctx   context.Context
	out   *outcome
	stats verify.Stats
	depth int // the depth bound of the whole run (opts.Depth is what is left below from)

	// from is where this search starts: the initial state, or the end of a
	// schedule prefix when it explores one subtree of a parallel or sharded run.
	from *prefix

	release func() bool // unregisters the stop on the context's end (the run's owner only)

	// Scratch of one search.
	probe *ir.Probe // looks at next transitions (accesses)
	start time.Time
	polls int
	last  time.Time // last progress report

	// cutTraced and cutNoted are set once this search has recorded a cut
	// execution's schedule and a bound's note: the outcome keeps the first of
	// each, so later ones need not take its lock (once per cut execution).
	cutTraced, cutNoted bool
}

// outcome is what a run has found so far. The searches of a parallel run share
// one: the first violation any of them finds stops them all.
type outcome struct {
	mu    sync.Mutex
	facts verify.Outcome
	end   atomic.Bool // a violation was found or the run was stopped: every search ends
	// progress, if set, receives each search's statistics now and then (see done).
	progress func(id int, st *verify.Stats)
}

// A prefix is a schedule from the initial state and the state it leads to, with
// what BPOR's bounds need to know about it.
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

func newExecutor(ctx context.Context, p *ir.Program, opts Options) (*executor, error) {
	if err := Supported(p, opts); err != nil {
		return nil, err
	}
	if opts.Depth <= 0 {
		opts.Depth = verify.DefaultDepth
	}
	now := time.Now()
	x := &executor{p: p, opts: opts, ctx: ctx, out: opts.shared, depth: opts.Depth, from: opts.from,
		start: now, last: now, probe: p.NewProbe()}
	if x.out == nil {
		x.out = new(outcome)
		// The run ends the moment its context does: every search polls an atomic
		// flag, cheaply, also inside long computations (a persistent set over a
		// thousand threads, a trace constraint system), not only between steps.
		out := x.out
		x.release = context.AfterFunc(ctx, func() { out.stop(ctx) })
	}
	if x.from != nil {
		x.opts.Depth = max(opts.Depth-len(x.from.moves), 0)
	}
	return x, nil
}

// initial is the state the search starts from.
func (x *executor) initial() ir.State {
	if x.from != nil {
		return x.from.state.Clone()
	}
	return x.p.Initial()
}

// lastThread is the thread that moved last before depth d of the search's own
// path moves (d > 0: moves[d-1]; d == 0: the prefix's last move), or -1.
func (x *executor) lastThread(moves []ir.Move, d int) int {
	switch {
	case d > 0:
		return moves[d-1].Thread
	case x.from != nil:
		return x.from.last
	}
	return -1
}

// prefixLen is the length of the schedule prefix the search starts after.
func (x *executor) prefixLen() int {
	if x.from == nil {
		return 0
	}
	return len(x.from.moves)
}

// halted reports whether the run is over: a violation was found (by any search of
// the run) or the context ended.
func (x *executor) halted() bool { return x.out.end.Load() }

// violated reports whether some search of the run found a violation.
func (x *executor) violated() bool {
	x.out.mu.Lock()
	defer x.out.mu.Unlock()
	return x.out.facts.Violation != nil
}

// done reports whether the search must stop: a violation was found or the context
// ended (halted). Now and then it also reports progress.
func (x *executor) done() bool {
	if x.halted() {
		return true
	}
	if x.polls++; x.polls&1023 == 0 {
		x.report()
	}
	return false
}

// report reports progress if half a second has passed since the last report.
func (x *executor) report() {
	if now := time.Now(); now.Sub(x.last) >= 500*time.Millisecond {
		x.last = now
		x.stats.Time = now.Sub(x.start)
		switch {
		case x.out.progress != nil:
			id := 0
			if x.from != nil {
				id = x.from.id
			}
			x.out.progress(id, &x.stats)
		case x.opts.Progress != nil:
			x.opts.Progress(&x.stats)
		}
	}
}

// stop records that ctx ended the run, unless a violation was found first.
func (o *outcome) stop(ctx context.Context) {
	o.mu.Lock()
	if o.facts.Stopped == nil && o.facts.Violation == nil {
		o.facts.Stopped = context.Cause(ctx)
	}
	o.mu.Unlock()
	o.end.Store(true)
}

// cancelled reports whether the context has ended; the search then stops with
// verdict unknown. It looks at the context at once (for a caller that has just
// seen an operation fail, which may be the context's doing).
func (x *executor) cancelled() bool {
	if x.ctx.Err() != nil {
		x.out.stop(x.ctx)
		return true
	}
	return false
}

// found records a violation reached by trace (the search's own path, below its
// prefix): the run's first one wins, and every search of the run stops.
func (x *executor) found(v *ir.Violation, trace []ir.Move) {
	trace = x.fromRoot(trace)
	x.out.mu.Lock()
	x.out.facts.Found(v, trace)
	x.out.mu.Unlock()
	x.out.end.Store(true)
}

// cutAt records the schedule of an execution the depth bound cut, and cycleAt
// one whose last state repeats an earlier state of it (verify.Outcome keeps
// the first of each); like found, a subtree's trace starts at the root.
func (x *executor) cutAt(trace []ir.Move) {
	if x.cutTraced {
		return
	}
	x.cutTraced = true
	trace = x.fromRoot(trace)
	x.out.mu.Lock()
	x.out.facts.CutAt(trace)
	x.out.mu.Unlock()
}

func (x *executor) cycleAt(trace []ir.Move) {
	trace = x.fromRoot(trace)
	x.out.mu.Lock()
	x.out.facts.CycleAt(trace)
	x.out.mu.Unlock()
}

// fromRoot is trace, a schedule from the root of this worker's subtree, as a
// schedule from the initial state.
func (x *executor) fromRoot(trace []ir.Move) []ir.Move {
	if x.from == nil {
		return trace
	}
	return append(append([]ir.Move(nil), x.from.moves...), trace...)
}

// cutOff records that a bound kept the search from some execution (note says
// which), so that the verdict can no longer be safe; it counts no execution.
func (x *executor) cutOff(note string) {
	if x.cutNoted {
		return
	}
	x.cutNoted = true
	x.out.mu.Lock()
	x.out.facts.CutBy(note)
	x.out.mu.Unlock()
}

// livelock records a possible livelock (bpor-fair past --max-steps); the run
// stops with verdict unknown.
func (x *executor) livelock(msg string) {
	x.out.mu.Lock()
	if x.out.facts.Livelock == "" {
		x.out.facts.Livelock = msg
	}
	x.out.mu.Unlock()
	x.out.end.Store(true)
}

// step executes thread t in s (in place) and counts it.
func (x *executor) step(s ir.State, t int, ch *ir.Choices, ev *ir.Event) {
	x.stats.Transitions++
	x.p.Step(s, t, ch, ev)
}

// accesses is what thread t, whose status in s is status, may access in its next
// transition, at precision prec (ir.Probe.Accesses). The transitions a probe
// executes count like every other, so the statistic means the same in every
// algorithm.
func (x *executor) accesses(s ir.State, t int, status ir.Status, prec ir.Precision, buf []ir.Access) []ir.Access {
	before := x.probe.Steps
	buf = x.probe.Accesses(s, t, status, prec, buf)
	x.stats.Transitions += x.probe.Steps - before
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
func (x *executor) next(it *successors) bool {
	if it.started && len(it.ch.Made) == 0 {
		return false // most steps draw nothing: one successor, without a call
	}
	return x.draw(it)
}

// draw is next beyond its shortcut.
func (x *executor) draw(it *successors) bool {
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
	x.step(it.to, it.thread, &it.ch, ev)
	path := it.path()
	mv := &path[len(path)-1]
	mv.Thread = it.thread
	mv.Choices = values(mv.Choices, it.ch.Made)
	if it.failed = ev.Violation != nil; it.failed {
		x.failed(ev.Violation, path)
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
func (x *executor) leaf(s ir.State, anyEnabled bool, path []ir.Move) (leaf, cut bool) {
	if anyEnabled && len(path) < x.opts.Depth {
		return false, false
	}
	return true, x.endAt(s, anyEnabled, path)
}

// endAt ends an execution at the leaf s (see leaf) and reports whether the
// depth bound cut it.
func (x *executor) endAt(s ir.State, anyEnabled bool, path []ir.Move) (cut bool) {
	if !anyEnabled {
		x.terminal(s, path)
		return false
	}
	x.cutAt(path)
	x.bounded("depth bound reached")
	return true
}

// failed records a step that failed at the end of trace (the moves so far):
// one execution, ending in a violation.
func (x *executor) failed(v *ir.Violation, trace []ir.Move) {
	x.stats.Executions++
	x.stats.Failed++
	x.found(v, trace)
}

// terminal handles a state in which no thread is enabled: one maximal execution
// ends here, and it may be a deadlock.
func (x *executor) terminal(s ir.State, trace []ir.Move) {
	x.stats.Executions++
	steps := len(trace)
	if x.from != nil {
		steps += len(x.from.moves) // a subtree's trace starts below its prefix
	}
	x.stats.Longest = max(x.stats.Longest, int64(steps))
	end, v := x.p.End(s)
	switch end {
	case ir.Deadlocked:
		x.stats.Deadlocked++
	case ir.Complete:
		x.stats.Complete++
	case ir.CutByLimit:
		// A thread waits at a bound of the model (a full thread or heap
		// pool): the execution is cut, as by the depth bound.
		x.stats.Executions--
		x.cutAt(trace)
		x.out.mu.Lock()
		x.out.facts.ModelCut = true
		x.out.mu.Unlock()
		x.bounded("a thread pool or heap pool of the model ran out (raise --pool)")
		return
	default:
		x.stats.AssumeBlocked++
	}
	if x.opts.Terminal != nil {
		x.opts.Terminal(s, v != nil)
	}
	if v != nil && !x.opts.NoDeadlock {
		x.found(v, trace)
	}
}

// bounded records an execution cut by the depth bound (or another bound).
func (x *executor) bounded(note string) {
	x.stats.Executions++
	x.stats.Cut++
	x.cutOff(note)
}

// result decides the verdict from the outcome (verify.Outcome.Decide), replays any
// counterexample and fills in the statistics; bound is what limited the search
// besides the depth.
func (x *executor) result(algo string, bound verify.Bound, keys ...string) (*verify.Result, error) {
	if x.release != nil {
		x.release()
	}
	x.out.mu.Lock()
	r := x.out.facts.Decide()
	x.out.mu.Unlock()
	x.stats.Time = time.Since(x.start)
	r.Stats = x.stats
	r.StatKeys = append([]string{"executions", "transitions"}, keys...)
	r.StatKeys = append(r.StatKeys, "time_ms")
	r.Engine, r.Algo = "explicit", algo
	bound.Depth = x.depth
	r.Bound = bound
	if _, err := verify.Validate(x.p, r); err != nil {
		return nil, fmt.Errorf("explicit %s: %w", algo, err)
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
