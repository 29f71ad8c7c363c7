package explicit

import (
	"context"
	"fmt"
	"time"

	"kbmc/ir"
	"kbmc/verify"
)

// executor is what every explicit algorithm shares: it executes ir transitions,
// enumerates a step's nondeterministic successors, probes next transitions,
// decides where an execution ends (leaf), enforces the depth bound and the time
// limit, and turns what the search found into a validated verify.Result.
//
// What a run has established (the outcome: the first violation, cuts, the
// statistics) is kept apart from the scratch a search works with (the probe, the
// polling counters), so that parallel workers can each have their own scratch
// and share one outcome.
type executor struct {
	p    *ir.Program
	opts Options
	ctx  context.Context

	*outcome

	// Scratch of one search.
	probe *ir.Probe // looks at next transitions (accesses)
	start time.Time
	polls int
	last  time.Time // last progress report
}

// outcome is what a run has found so far, and its statistics.
type outcome struct {
	verify.Outcome
	stats verify.Stats
}

func newExecutor(ctx context.Context, p *ir.Program, opts Options) (*executor, error) {
	if err := Supported(p, opts); err != nil {
		return nil, err
	}
	if opts.Depth <= 0 {
		opts.Depth = verify.DefaultDepth
	}
	now := time.Now()
	return &executor{p: p, opts: opts, ctx: ctx, outcome: new(outcome), start: now, last: now,
		probe: p.NewProbe()}, nil
}

// done reports whether the search must stop: a violation was found or the context
// ended. It looks at the context only every 1024 calls, to stay off the hot path.
func (x *executor) done() bool {
	if x.Violation != nil || x.Stopped != nil {
		return true
	}
	x.polls++
	if x.polls&1023 != 0 {
		return false
	}
	if x.ctx.Err() != nil {
		x.Stopped = context.Cause(x.ctx)
		return true
	}
	if x.opts.Progress != nil {
		if now := time.Now(); now.Sub(x.last) >= 500*time.Millisecond {
			x.last = now
			x.stats.Time = now.Sub(x.start)
			x.opts.Progress(&x.stats)
		}
	}
	return false
}

// cancelled reports whether the context has ended; the search then stops with
// verdict unknown. Unlike done, it looks at the context at once (for a caller
// that has just seen an operation fail, which may be the context's doing).
func (x *executor) cancelled() bool {
	if x.ctx.Err() != nil && x.Stopped == nil {
		x.Stopped = context.Cause(x.ctx)
	}
	return x.Stopped != nil
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

// move executes thread t in s (in place), its draws starting with fixed, and
// records the step as the last move of path. A step that fails ends one execution
// with its violation (see failed); move then returns false.
func (x *executor) move(s ir.State, t int, ch *ir.Choices, fixed []int64, ev *ir.Event, path []ir.Move) bool {
	ch.Reset(fixed)
	x.step(s, t, ch, ev)
	mv := &path[len(path)-1]
	mv.Thread = t
	mv.Choices = values(mv.Choices, ch.Made)
	if ev.Violation != nil {
		x.failed(ev.Violation, path)
		return false
	}
	return true
}

// successors enumerates the successors of one thread's step from a state: one per
// combination of the values its nondeterministic draws may take, in the order of
// ir.Choices.Next. Each search keeps one per depth, so that the alternatives of a
// step survive the exploration below it.
type successors struct {
	ch      ir.Choices
	fixed   []int64
	started bool
	failed  bool // the last step failed: its violation is recorded
}

// start prepares the enumeration of a new step's successors.
func (it *successors) start() { it.fixed, it.started = it.fixed[:0], false }

// resume continues an enumeration whose first successor the caller already has
// (a probe executed the step with the draws made).
func (it *successors) resume(made []ir.Choice) {
	it.ch.Made = append(it.ch.Made[:0], made...)
	it.fixed, it.started = it.fixed[:0], true
}

// next executes thread t from cur into next with the next combination of
// nondeterministic values, recording the step as the last move of path. It
// returns false when every combination has been executed, and when the step
// failed: the executor has then recorded the violation.
func (x *executor) next(it *successors, cur, next ir.State, t int, ev *ir.Event, path []ir.Move) bool {
	if it.started {
		var more bool
		if it.fixed, more = it.ch.Next(it.fixed); !more {
			return false
		}
	}
	it.started = true
	copy(next, cur)
	it.failed = !x.move(next, t, &it.ch, it.fixed, ev, path)
	return !it.failed
}

// leaf decides whether the state s, reached by path, ends an execution: when no
// thread is enabled (a terminal state, which may be a deadlock) or when the depth
// bound is reached with a thread enabled (the execution is cut). Either counts one
// execution. It reports whether s is a leaf, and whether the bound cut it.
func (x *executor) leaf(s ir.State, anyEnabled bool, path []ir.Move) (leaf, cut bool) {
	switch {
	case !anyEnabled:
		x.terminal(s, path)
		return true, false
	case len(path) >= x.opts.Depth:
		x.CutAt(path)
		x.bounded("depth bound reached")
		return true, true
	}
	return false, false
}

// failed records a step that failed at the end of trace (the moves so far,
// copied): one execution, ending in a violation.
func (x *executor) failed(v *ir.Violation, trace []ir.Move) {
	x.stats.Executions++
	x.stats.Failed++
	x.Found(v, trace)
}

// terminal handles a state in which no thread is enabled: one maximal execution
// ends here, and it may be a deadlock.
func (x *executor) terminal(s ir.State, trace []ir.Move) {
	x.stats.Executions++
	x.stats.Longest = max(x.stats.Longest, int64(len(trace)))
	v := x.p.Deadlock(s)
	switch {
	case v != nil:
		x.stats.Deadlocked++
	case x.allDone(s):
		x.stats.Complete++
	default:
		x.stats.AssumeBlocked++
	}
	if x.opts.Terminal != nil {
		x.opts.Terminal(s, v != nil)
	}
	if v != nil && !x.opts.NoDeadlock {
		x.Found(v, trace)
	}
}

// bounded records an execution cut by the depth bound (or another bound).
func (x *executor) bounded(note string) {
	x.stats.Executions++
	x.stats.Cut++
	x.CutBy(note)
}

// result decides the verdict from the outcome (verify.Outcome.Decide), replays any
// counterexample and fills in the statistics; bound is what limited the search
// besides the depth.
func (x *executor) result(algo string, bound verify.Bound, keys ...string) (*verify.Result, error) {
	r := x.Decide()
	x.stats.Time = time.Since(x.start)
	r.Stats = x.stats
	r.StatKeys = append([]string{"executions", "transitions"}, keys...)
	r.StatKeys = append(r.StatKeys, "time_ms")
	r.Engine, r.Algo = "explicit", algo
	bound.Depth = x.opts.Depth
	r.Bound = bound
	if _, err := verify.Validate(x.p, r); err != nil {
		return nil, fmt.Errorf("explicit %s: %w", algo, err)
	}
	return r, nil
}

// allDone reports whether every thread has terminated in s.
func (x *executor) allDone(s ir.State) bool {
	for t := range x.p.Threads {
		if !x.p.Done(s, t) {
			return false
		}
	}
	return true
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
