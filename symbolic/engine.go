package symbolic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"kbmc/encode"
	"kbmc/ir"
	"kbmc/solver"
	"kbmc/solver/portfolio"
	"kbmc/solver/solvers"
	"kbmc/solver/z3"
	"kbmc/verify"
)

// Solvers lists the names Engine.Solver accepts, the default first.
func Solvers() []string { return solvers.Names() }

// PORs lists the names Engine.POR accepts, the default first.
func PORs() []string { return []string{"none", "peephole", "monotonic"} }

// Encodings lists the names Engine.Encoding accepts, the default first:
// "partial-order", per-thread unrollings with a read-from relation and an
// order of conflicting events, which needs no reduction, and "step", the
// step-based unrolling with a scheduler, whose partial-order reductions are
// Engine.POR (docs/symbolic.md; docs/bench-symbolic.md for the choice).
func Encodings() []string { return []string{"partial-order", "step"} }

// Engine is the symbolic engine. The zero value checks with gini on the
// partial-order encoding to verify.DefaultDepth.
type Engine struct {
	verify.Options
	Solver        string // "gini" (default), "z3" or "portfolio" (both racing)
	Encoding      string // "partial-order" (default) or "step"
	POR           string // step encoding: "none" (default), "peephole" or "monotonic"
	NoIncremental bool   // step encoding: check depth K only, instead of 1, 2, …, K

	// Set by tests only. corrupt rewrites a counterexample before it is
	// validated, to show that one that does not replay is an internal error;
	// kinds restricts the search to violations of these kinds, to check that a
	// violation the reference engine reported is found too.
	corrupt func([]ir.Move) []ir.Move
	kinds   []ir.ViolationKind
	// trace, when set, is told about every solver call: the bounds (the
	// partial-order encoding) and the statistics after it, for measuring
	// where a run's time goes (TestProbe, docs/bench-symbolic.md).
	trace func(call string)
}

var _ verify.Engine = Engine{}

// New returns the engine for the given solver, encoding and reduction names,
// checking them.
func New(opts verify.Options, solverName, encoding, por string, noIncremental bool) (Engine, error) {
	e := Engine{Options: opts, Solver: solverName, Encoding: encoding, POR: por, NoIncremental: noIncremental}
	if _, err := e.solverName(); err != nil {
		return Engine{}, err
	}
	if _, err := e.encodingName(); err != nil {
		return Engine{}, err
	}
	if _, err := encode.NewReduction(e.porName()); err != nil {
		return Engine{}, err
	}
	return e, nil
}

// encodingName is the encoding's name, the default filled in.
func (e Engine) encodingName() (string, error) {
	names := Encodings()
	switch {
	case e.Encoding == "":
		return names[0], nil
	case slices.Contains(names, e.Encoding):
		return e.Encoding, nil
	}
	return "", fmt.Errorf("unknown encoding %q (%s)", e.Encoding, strings.Join(names, ", "))
}

// solverName is the backend's name, the default filled in.
func (e Engine) solverName() (string, error) {
	names := solvers.Names()
	switch {
	case e.Solver == "":
		return names[0], nil
	case slices.Contains(names, e.Solver):
		return e.Solver, nil
	}
	return "", fmt.Errorf("unknown solver %q (%s)", e.Solver, strings.Join(names, ", "))
}

// porName is the reduction's name, the default filled in.
func (e Engine) porName() string {
	if e.POR == "" {
		return "none"
	}
	return e.POR
}

// statKeys are the statistics the engine reports, in output order (docs/output.md).
var statKeys = []string{"depth", "solver_calls", "variables", "clauses", "conflicts", "encode_ms", "solve_ms", "time_ms"}

// portfolioStatKeys follow solver_calls with the portfolio solver: how many of
// the calls each of its solvers answered first.
var portfolioStatKeys = []string{"gini_answers", "z3_answers"}

// Check implements verify.Engine.
func (e Engine) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	start := time.Now()
	solverName, err := e.solverName()
	if err != nil {
		return nil, err
	}
	encoding, err := e.encodingName()
	if err != nil {
		return nil, err
	}
	if e.Encoding == "" && (len(p.Invariants) > 0 || p.ChecksRaces()) {
		// The partial-order encoding refuses invariants and data races (it
		// has no global states between its events); the step encoding
		// checks them after every step.
		encoding = "step"
	}
	if e.Encoding == "" && slices.ContainsFunc(p.Channels, func(c *ir.Channel) bool { return c.Unordered || c.Closable || c.Rendezvous() }) {
		// Nor does it express unordered channels (its messages are
		// numbered in order), closed ones (a receive of no message) or
		// rendezvous (a step of two threads); the step encoding does.
		encoding = "step"
	}
	red, err := encode.NewReduction(e.porName())
	if err != nil {
		return nil, err
	}
	// Before a backend is built: an unsupported program is an input error.
	if err := encode.Supported(p); err != nil {
		return nil, err
	}
	k := e.Depth
	if k <= 0 {
		k = verify.DefaultDepth
	}
	b := solver.NewBuilder()
	// Z3's allocations are outside the Go heap: Z3 gets the run's memory limit
	// itself, and its out-of-memory error ends the run as a stop (stopError).
	z3.LimitMemory(e.Memory)
	be, err := solvers.New(solverName, b)
	if err != nil {
		return nil, fmt.Errorf("symbolic: %w", err)
	}
	defer be.Close()
	r := &run{e: e, p: p, be: be, ctx: ctx, start: start, names: verify.Result{
		Engine: "symbolic", Solver: solverName, POR: e.porName(),
		Bound: verify.Bound{Depth: k, Preemptions: -1, Fair: -1},
	}}
	if encoding == "partial-order" {
		// No interleavings, nothing for a reduction to prune: the result
		// names the encoding where the step encoding names its reduction.
		r.names.POR = ""
		r.names.Algo = encoding
		t0 := time.Now()
		po, err := encode.NewPartialOrder(p, b, be, encode.Options{NoDeadlock: e.NoDeadlock, Kinds: e.kinds, Steps: k + 1}, k)
		r.stats.EncodeTime += time.Since(t0)
		if err != nil {
			return nil, err
		}
		r.po = po
		return r.finish(r.deepenPartialOrder(po, k))
	}
	t0 := time.Now()
	r.u, err = encode.New(p, b, be, encode.Options{Reduction: red, NoDeadlock: e.NoDeadlock, Kinds: e.kinds, Steps: k + 1})
	r.stats.EncodeTime += time.Since(t0)
	if err != nil {
		return nil, err
	}
	return r.finish(r.deepen(k))
}

// run is one Check: the unrolling, the backend, and what the run has
// established so far, from which finish decides the verdict.
type run struct {
	e     Engine
	p     *ir.Program
	u     *encode.Unrolling    // the step encoding
	po    *encode.PartialOrder // the partial-order encoding
	be    solver.Backend
	ctx   context.Context
	start time.Time
	stats verify.Stats
	out   verify.Outcome
	names verify.Result // what the result says about the engine: its names and bound
	// decided is how deep the run has shown that no violation exists so far:
	// what a stop in the middle of encoding or solving reports as reached.
	// decidedBounds (partial-order encoding) are the per-thread bounds under
	// which it was shown.
	decided       int
	decidedBounds []int
}

// deepen runs the depths 1..K (or only K), stopping at the first violation, when
// the completeness query shows that every execution has ended, or when the
// context ends.
func (r *run) deepen(bound int) error {
	first := 1
	if r.e.NoIncremental {
		first = bound
	}
	// With every thread's transition graph acyclic, no execution is longer
	// than the sum of the longest paths: at that depth the program is
	// complete without a completeness query.
	static := encode.SumBounds(encode.StaticBounds(r.p))
	blocking := canBlock(r.p)
	for k := first; k <= bound; k++ {
		if r.ctx.Err() != nil {
			r.stop(r.reachedSteps(k - 1))
			return nil
		}
		t0 := time.Now()
		err := r.u.ExtendTo(r.ctx, k)
		var bad *solver.Term
		if err == nil {
			bad, err = r.u.Bad(k)
		}
		r.stats.EncodeTime += time.Since(t0)
		if err != nil {
			return fmt.Errorf("symbolic: depth %d: %w", k, err)
		}
		st, err := r.check(bad)
		if err != nil {
			return fmt.Errorf("symbolic: depth %d: %w", k, err)
		}
		switch st {
		case solver.Unknown:
			r.stop(r.reachedSteps(k - 1))
			return nil
		case solver.Sat:
			r.stats.Depth = int64(k)
			return r.counterexample(k)
		}
		r.decided = r.reachedSteps(k)
		if err := r.u.AssertSafe(k); err != nil {
			return fmt.Errorf("symbolic: depth %d: %w", k, err)
		}
		if static != encode.Unbounded && (k >= static || !blocking) {
			// No execution is longer than the static bound: no pigeonhole-hard
			// unsatisfiable Live query at the bound. Below it, the satisfiable
			// Live queries are skipped too when no thread can block (on
			// readers-writers N = 16 they cost more than a minute), and kept
			// otherwise (what the solver learns from them speeds up the next
			// Bad: philosophers-fixed N = 4 took z3 16,665 conflicts with them,
			// more than 195,513 without). docs/symbolic.md has the figures.
			r.stats.Depth = int64(k)
			if k >= static {
				return r.modelCut(k) // safe, unless a pool cut an execution
			}
			continue
		}
		// Completeness (docs/symbolic.md, "Properties and queries"): can an execution take
		// k steps and still have an enabled thread? If not, every execution ends within k
		// steps.
		live, err := r.u.Live(k)
		if err != nil {
			return fmt.Errorf("symbolic: depth %d: %w", k, err)
		}
		st, err = r.check(live)
		if err != nil {
			return fmt.Errorf("symbolic: depth %d: %w", k, err)
		}
		switch st {
		case solver.Unknown:
			r.stop(r.reachedSteps(k))
			return nil
		case solver.Unsat:
			r.stats.Depth = int64(k)
			// Safe: every execution ends within k steps, unless a pool cut one.
			return r.modelCut(k)
		}
		r.stats.Depth = int64(k)
		if r.e.Progress != nil {
			r.fillStats()
			r.e.Progress(&r.stats)
		}
	}
	if err := r.modelCut(bound); err != nil {
		return err
	}
	r.out.CutBy(fmt.Sprintf("some execution is longer than the depth bound %d", bound))
	return nil
}

// modelCutNote is the explicit engine's note for an execution a pool cut.
const modelCutNote = "a thread pool or heap pool of the model ran out (raise --pool)"

// modelCut asks, once the run has shown that no violation exists in
// executions of at most k steps (the step encoding) or within the final
// bounds (the partial-order encoding), whether one of those executions ends
// with a thread waiting at a full thread or heap pool (ir.CutByLimit). Such
// an execution was cut by a bound of the model, as the explicit engine
// records it: the verdict is at most bounded-safe, and the outcome says that
// the model cut it. Completeness (Live, Exceed, Long) counts only enabled
// threads, so it cannot see these executions.
func (r *run) modelCut(k int) error {
	if !encode.CanLimit(r.p) {
		return nil
	}
	var lit, gen *solver.Term
	var err error
	if r.po != nil {
		if gen, err = r.po.Seal(r.ctx); err == nil {
			lit, err = r.po.LimitCut()
		}
	} else {
		lit, err = r.u.LimitCut(k)
	}
	if err != nil {
		return fmt.Errorf("symbolic: depth %d: %w", k, err)
	}
	lits := []*solver.Term{lit}
	if gen != nil {
		lits = append(lits, gen)
	}
	st, err := r.check(lits...)
	switch {
	case err != nil:
		return fmt.Errorf("symbolic: depth %d: %w", k, err)
	case st == solver.Unknown:
		r.stop(r.decided)
	case st == solver.Sat:
		r.out.ModelCut = true
		r.out.CutBy(modelCutNote)
	}
	return nil
}

func (r *run) check(assumptions ...*solver.Term) (solver.Status, error) {
	r.stats.SolverCalls++
	t0 := time.Now()
	st, err := r.be.Check(r.ctx, assumptions...)
	d := time.Since(t0)
	r.stats.SolveTime += d
	if r.e.trace != nil {
		bs := r.be.Stats()
		where := fmt.Sprintf("after depth %d", r.decided)
		if r.po != nil {
			where = fmt.Sprintf("bounds %v (Σ %d)", r.po.Bounds(), sum(r.po.Bounds()))
		}
		r.e.trace(fmt.Sprintf("call %d %s: %s in %v; vars %d clauses %d; encode total %v",
			r.stats.SolverCalls, where, st, d.Round(time.Millisecond), bs.Vars, bs.Clauses, r.stats.EncodeTime.Round(time.Millisecond)))
	}
	return st, err
}

// reachedSteps is how deep the step encoding has shown that no violation
// exists once depth done is decided: done, or nothing when only depth K is
// checked.
func (r *run) reachedSteps(done int) int {
	if r.e.NoIncremental {
		return 0
	}
	return max(done, 0)
}

// stop records that the run ended before a verdict, when no violation exists
// up to depth reached: the context's cause (a time limit, an interrupt).
func (r *run) stop(reached int) {
	r.stats.Depth = int64(reached)
	r.out.Stopped = context.Cause(r.ctx)
	if r.out.Stopped == nil {
		// Backends answer Unknown only when the context ends.
		r.out.Stopped = errors.New("the solver stopped without an answer")
	}
	r.out.Reached = reached
	r.out.Unrolling = nil
	if r.po != nil && reached > 0 && reached == r.decided && reached < r.names.Bound.Depth {
		for t, b := range r.decidedBounds {
			r.out.Unrolling = append(r.out.Unrolling, verify.ThreadSteps{Thread: r.p.Threads[t].Name, Steps: b})
		}
	}
}

// stopError reports whether err is the encoding or a backend giving up
// because a limit ended the run, and if so records the stop: the encoding
// returns the context's error when the context ends in the middle of a step,
// and Z3 fails with solver.ErrOutOfMemory when it passes its memory limit.
func (r *run) stopError(err error) bool {
	switch {
	case errors.Is(err, solver.ErrOutOfMemory):
		r.stop(r.decided)
		if r.e.Memory > 0 {
			r.out.Stopped = fmt.Errorf("%w of %s (reached in %s)", verify.ErrMemoryLimit, verify.FormatBytes(r.e.Memory), r.names.Solver)
		} else {
			r.out.Stopped = fmt.Errorf("%w: %s ran out of memory", verify.ErrMemoryLimit, r.names.Solver)
		}
		return true
	case r.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		r.stop(r.decided)
		return true
	}
	return false
}

// counterexample reads the violating execution of a model of Bad(k).
func (r *run) counterexample(k int) error {
	moves, v, err := r.u.Counterexample(r.be, k)
	if err != nil {
		return fmt.Errorf("symbolic: depth %d: %w", k, err)
	}
	r.out.Found(v, moves)
	return nil
}

// validate replays an unsafe result through ir (verify.Validate), which also
// replaces the violation by the replayed one. A trace that does not replay is an
// internal error wrapping verify.ErrReplay, never a result.
func (r *run) validate(res *verify.Result) error {
	if r.e.corrupt != nil {
		res.Trace = r.e.corrupt(res.Trace)
	}
	if err := verify.Validate(r.p, res); err != nil {
		if !errors.Is(err, verify.ErrReplay) {
			err = fmt.Errorf("%w: %v", verify.ErrReplay, err)
		}
		return fmt.Errorf("symbolic %s/%s: internal error: %w", res.Solver, res.POR, err)
	}
	return nil
}

func (r *run) fillStats() {
	bs := r.be.Stats()
	r.stats.Variables = bs.Vars
	if r.stats.Variables == 0 {
		if r.u != nil {
			r.stats.Variables = int64(r.u.Variables())
		} else if r.po != nil {
			r.stats.Variables = int64(r.po.Variables())
		}
	}
	r.stats.Clauses = bs.Clauses
	r.stats.Conflicts = bs.Conflicts
	if r.names.Solver == "portfolio" {
		r.stats.GiniAnswers = int64(bs.Counters[portfolio.AnsweredCounter("gini")])
		r.stats.Z3Answers = int64(bs.Counters[portfolio.AnsweredCounter("z3")])
	}
	r.stats.Time = time.Since(r.start)
}

// finish turns what the run established into its result: the verdict is
// verify.Outcome.Decide's, an unsafe one validated by replay. err is the
// deepening's error, returned as it is unless a limit caused it (stopError).
func (r *run) finish(err error) (*verify.Result, error) {
	if err != nil && !r.stopError(err) {
		return nil, err
	}
	if v := r.out.Violation; v != nil && v.Kind == ir.Unsupported {
		// Unknown, but the step the model cannot express must be reached
		// concretely too; the replayed violation (with ir's message) is
		// the one reported.
		got, err := r.confirmUnsupported(v)
		if err != nil {
			return nil, fmt.Errorf("symbolic %s/%s: internal error: %w", r.names.Solver, r.names.POR, err)
		}
		r.out.Violation = got
	}
	res := r.out.Decide()
	res.Engine, res.Solver, res.POR, res.Algo = r.names.Engine, r.names.Solver, r.names.POR, r.names.Algo
	res.Bound = r.names.Bound
	r.fillStats()
	res.Stats = r.stats
	res.StatKeys = append([]string(nil), statKeys...)
	if res.Solver == "portfolio" {
		calls := slices.Index(res.StatKeys, "solver_calls") + 1
		res.StatKeys = slices.Insert(res.StatKeys, calls, portfolioStatKeys...)
	}
	if res.Verdict == verify.Unsafe {
		if err := r.validate(res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// confirmUnsupported replays the trace of a step the model cannot express,
// as verify.Validate replays a violation's.
func (r *run) confirmUnsupported(v *ir.Violation) (*ir.Violation, error) {
	trace := r.out.Trace
	if r.e.corrupt != nil {
		trace = r.e.corrupt(trace)
	}
	_, got, err := r.p.Confirm(trace, ir.Unsupported)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %v", verify.ErrReplay, err)
	case got.Pos != v.Pos || got.Thread != v.Thread:
		return nil, fmt.Errorf("%w: replay fails at %s in thread %d, engine reported %s in thread %d",
			verify.ErrReplay, got.Pos, got.Thread, v.Pos, v.Thread)
	}
	return got, nil
}

// canBlock reports whether some transition of p starts with an operation that
// can block (lock, await, assume, join, send, recv: ir.OpProps.Blocks).
func canBlock(p *ir.Program) bool {
	for _, tm := range p.Templates {
		for _, tr := range tm.Transitions {
			if tr.EntryNode().Op.Props().Blocks {
				return true
			}
		}
	}
	return false
}
