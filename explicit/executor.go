package explicit

import (
	"context"
	"fmt"
	"time"

	"kbmc/ir"
	"kbmc/verify"
)

// executor is what every explicit algorithm shares: it executes ir transitions,
// counts, enforces the depth bound and the time limit, and turns what the search
// found into a validated verify.Result.
type executor struct {
	p     *ir.Program
	opts  Options
	ctx   context.Context
	stats verify.Stats
	start time.Time
	polls int
	last  time.Time // last progress report

	probe *ir.Probe // looks at next transitions (accesses)

	stopped bool // the context ended the search
	cut     bool // some execution was cut by a bound
	cutNote string
	found   *verify.Result
}

func newExecutor(ctx context.Context, p *ir.Program, opts Options) (*executor, error) {
	if err := Supported(p, opts); err != nil {
		return nil, err
	}
	if opts.Depth <= 0 {
		opts.Depth = verify.DefaultDepth
	}
	now := time.Now()
	return &executor{p: p, opts: opts, ctx: ctx, start: now, last: now, probe: p.NewProbe()}, nil
}

// done reports whether the search must stop: a violation was found or the context
// ended. It looks at the context only every 1024 calls, to stay off the hot path.
func (x *executor) done() bool {
	if x.found != nil || x.stopped {
		return true
	}
	x.polls++
	if x.polls&1023 != 0 {
		return false
	}
	if x.ctx.Err() != nil {
		x.stopped = true
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
	if x.ctx.Err() != nil {
		x.stopped = true
	}
	return x.stopped
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

// failed records a step that failed at the end of trace (the moves so far,
// copied): one execution, ending in a violation.
func (x *executor) failed(v *ir.Violation, trace []ir.Move) {
	x.stats.Executions++
	x.report(v, trace)
}

// report records the violation the search found, unless it found one before.
func (x *executor) report(v *ir.Violation, trace []ir.Move) {
	if x.found != nil {
		return
	}
	x.found = &verify.Result{Verdict: verify.Unsafe, Violation: v, Trace: copyMoves(trace)}
}

// terminal handles a state in which no thread is enabled: one maximal execution
// ends here, and it may be a deadlock.
func (x *executor) terminal(s ir.State, trace []ir.Move) {
	x.stats.Executions++
	v := x.p.Deadlock(s)
	if x.opts.Terminal != nil {
		x.opts.Terminal(s, v != nil)
	}
	if v != nil && !x.opts.NoDeadlock {
		x.report(v, trace)
	}
}

// bounded records an execution cut by the depth bound (or another bound).
func (x *executor) bounded(note string) {
	x.stats.Executions++
	x.cutOff(note)
}

// cutOff records that a bound kept the search from something (note says which),
// so that the verdict can no longer be safe; it counts no execution.
func (x *executor) cutOff(note string) {
	if !x.cut {
		x.cut, x.cutNote = true, note
	}
}

// result builds the verdict, replays any counterexample and fills in the statistics.
func (x *executor) result(algo string, keys ...string) (*verify.Result, error) {
	r := x.found
	switch {
	case r != nil:
	case x.stopped:
		r = &verify.Result{Verdict: verify.Unknown, Note: fmt.Sprintf("stopped: %v", context.Cause(x.ctx))}
	case x.cut:
		r = &verify.Result{Verdict: verify.BoundedSafe, Note: x.cutNote}
	default:
		r = &verify.Result{Verdict: verify.Safe}
	}
	x.stats.Time = time.Since(x.start)
	r.Stats = x.stats
	r.StatKeys = append([]string{"executions", "transitions"}, keys...)
	r.StatKeys = append(r.StatKeys, "time_ms")
	r.Engine, r.Algo = "explicit", algo
	r.Bound = verify.Bound{Depth: x.opts.Depth, Preemptions: -1, Fair: -1}
	if _, err := verify.Validate(x.p, r); err != nil {
		return nil, fmt.Errorf("explicit %s: %w", algo, err)
	}
	return r, nil
}

func copyMoves(trace []ir.Move) []ir.Move {
	out := make([]ir.Move, len(trace))
	for i, m := range trace {
		out[i] = ir.Move{Thread: m.Thread, Choices: append([]int64(nil), m.Choices...)}
	}
	return out
}

// values copies the values of drawn choices into buf.
func values(buf []int64, cs []ir.Choice) []int64 {
	buf = buf[:0]
	for _, c := range cs {
		buf = append(buf, c.Value)
	}
	return buf
}
