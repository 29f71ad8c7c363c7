package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kbmc/ir"
)

// Verdict is the answer to "can a violation be reached?" (docs/output.md).
type Verdict uint8

const (
	Safe        Verdict = iota // exhaustive, no violation
	BoundedSafe                // no violation, but some execution was cut by a bound
	Unsafe                     // a violation is reachable; Result.Trace shows how
	Unknown                    // stopped by a time or memory limit
)

var verdictNames = [...]string{Safe: "safe", BoundedSafe: "bounded-safe", Unsafe: "unsafe", Unknown: "unknown"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", v)
}

// ParseVerdict is the inverse of String.
func ParseVerdict(s string) (Verdict, bool) {
	for v, n := range verdictNames {
		if n == s {
			return Verdict(v), true
		}
	}
	return 0, false
}

// Options are the bounds and switches common to every engine.
type Options struct {
	Depth      int  // maximum steps of an execution
	NoDeadlock bool // do not report deadlocks
	// Memory is the memory limit in bytes (0: none). The caller watches it
	// (WatchMemory); an engine whose memory the Go runtime does not see (Z3's)
	// passes it on to the library.
	Memory int64
	// Progress, if set, is called now and then during long runs with the statistics
	// so far. It must be cheap and must not retain the Stats.
	Progress func(*Stats)
}

// DefaultDepth is the depth bound when none is given.
const DefaultDepth = 100

// Stats are an engine's counters. Engines report the keys they use in Result.StatKeys.
type Stats struct {
	Executions int64 // maximal executions explored
	// How the executions ended (explicit engine): every thread terminated
	// (Complete), some thread on a false assume (AssumeBlocked), no thread able
	// to move (Deadlocked, counted also under --no-deadlock), cut by the depth
	// bound (Cut), or in a violation (Failed). Longest is the number of steps of
	// the longest execution that ended within the bound.
	Complete      int64
	AssumeBlocked int64
	Deadlocked    int64
	Cut           int64
	Failed        int64
	Longest       int64

	Transitions  int64 // steps executed
	States       int64 // states stored (stateful search)
	SleepBlocked int64 // executions cut because every enabled thread slept
	TCSBuilt     int64 // LazyPOR trace constraint systems built
	TCSSolved    int64
	TCSUnsat     int64
	LocalStates  int64 // process-local: states where only one process's transitions were explored
	Depth        int64 // symbolic: depth reached
	SolverCalls  int64
	Variables    int64
	Clauses      int64
	Conflicts    int64
	EncodeTime   time.Duration
	SolveTime    time.Duration
	Time         time.Duration

	// The symbolic engine's portfolio solver: the solver calls that gini and
	// that Z3 answered first.
	GiniAnswers int64
	Z3Answers   int64
}

// Values maps the JSON names of the statistics to their values.
func (s *Stats) Values() map[string]any {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return map[string]any{
		"executions": s.Executions, "transitions": s.Transitions, "states": s.States,
		"complete": s.Complete, "assume_blocked": s.AssumeBlocked, "deadlocked": s.Deadlocked,
		"cut": s.Cut, "failed": s.Failed, "longest": s.Longest,
		"sleep_blocked": s.SleepBlocked, "tcs_built": s.TCSBuilt, "tcs_solved": s.TCSSolved,
		"tcs_unsat": s.TCSUnsat, "local_states": s.LocalStates, "depth": s.Depth, "solver_calls": s.SolverCalls,
		"gini_answers": s.GiniAnswers, "z3_answers": s.Z3Answers,
		"variables": s.Variables, "clauses": s.Clauses, "conflicts": s.Conflicts,
		"encode_ms": ms(s.EncodeTime), "solve_ms": ms(s.SolveTime), "time_ms": ms(s.Time),
	}
}

// Bound is what limited the search: the depth, and for BPOR its reduction bound.
type Bound struct {
	Depth       int
	Preemptions int // -1 when not used
	Fair        int // -1 when not used
}

// ThreadSteps is a number of steps of one thread, named as traces name it.
type ThreadSteps struct {
	Thread string `json:"thread"`
	Steps  int    `json:"steps"`
}

// A Result is an engine's answer.
type Result struct {
	Verdict   Verdict
	Violation *ir.Violation // set when Unsafe
	Trace     []ir.Move     // the counterexample schedule when Unsafe
	Bound     Bound
	Stats     Stats
	StatKeys  []string // the Stats keys this engine uses, in output order
	Engine    string   // "explicit", "symbolic"
	Algo      string   // explicit algorithm
	Solver    string   // symbolic solver
	POR       string   // symbolic partial-order reduction
	Note      string   // why the verdict is Unknown or bounded, for people
	Stopped   string   // for Unknown: the limit that stopped the run ("time", "memory", "interrupt"; see StopReason), or ""
	// For Unknown from an engine that deepens (symbolic): no execution of at
	// most Reached steps has a violation, nor (partial-order encoding) any
	// within the depth bound whose threads stay within Unrolling
	// (verify.Outcome).
	Reached   int
	Unrolling []ThreadSteps
	// Incomplete, for Unknown: the lossy visited set ("hash-compact",
	// "bitstate") that may have made the search skip part of the state space,
	// or "" (verify.Outcome).
	Incomplete string
	// A parallel or sharded explicit run: its workers, its part ("2/8"), and the
	// subtrees it explored.
	Workers  int
	Shard    string
	Subtrees int

	// For a bounded-safe verdict, what the search saw of the executions the
	// bound cut (verify.Outcome): the first one cut, and whether (and where) a
	// cycle of states shows that an execution runs for ever.
	CutTrace   []ir.Move
	Cycle      bool
	CycleTrace []ir.Move
	// Closed: every reachable state was expanded (verify.Outcome.Closed), so
	// no execution of any length has a violation.
	Closed bool
	// ModelCut: a bound of the program's model (a thread or heap pool) cut
	// some execution (verify.Outcome).
	ModelCut bool

	// Run is the counterexample as Validate replayed it (every step's events,
	// locals included): what the output shows, without replaying it again.
	Run *ir.Run

	// Coverage is what the search executed, when asked for (explicit
	// engine, Options.Coverage), else nil.
	Coverage *Coverage
}

// ErrReplay marks a counterexample that does not replay: an internal error.
var ErrReplay = errors.New("counterexample does not replay")

// Validate replays an Unsafe result's trace through the concrete semantics and
// checks that it ends in the reported violation; the replayed run is kept in
// r.Run. Engines call it once per run, before returning; a failure is an internal
// error, never a result.
func Validate(p *ir.Program, r *Result) error {
	if r.Verdict != Unsafe {
		return nil
	}
	if r.Violation == nil {
		return fmt.Errorf("%w: unsafe result without a violation", ErrReplay)
	}
	if r.Violation.Kind == ir.LocalDeadlock {
		// The replay shows the process stuck in the final state; that it can
		// never move again is what the engine's search of the states below
		// established.
		run, err := p.Replay(r.Trace)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrReplay, err)
		}
		if run.Violation() != nil {
			return fmt.Errorf("%w: the trace of a local deadlock ends in %s", ErrReplay, run.Violation().Kind)
		}
		v := p.Stuck(run.Final(), p.ProcessOf(r.Violation.Thread))
		if v == nil {
			return fmt.Errorf("%w: %s is not stuck at the end of the trace", ErrReplay,
				p.ProcessName(p.ProcessOf(r.Violation.Thread)))
		}
		r.Violation, r.Run = v, run
		return nil
	}
	run, v, err := p.Confirm(r.Trace, r.Violation.Kind)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrReplay, err)
	}
	// A deadlock and a data race are properties of the final state, which
	// ir names the way it does (FindRace: the first racing pair in thread
	// order); an engine may have seen another racing pair of that state.
	if !v.Kind.Deadlocks() && v.Kind != ir.DataRace && (v.Pos != r.Violation.Pos || v.Thread != r.Violation.Thread) {
		return fmt.Errorf("%w: replay fails at %s in thread %d, engine reported %s in thread %d",
			ErrReplay, v.Pos, v.Thread, r.Violation.Pos, r.Violation.Thread)
	}
	r.Violation, r.Run = v, run
	return nil
}

// An Engine answers one program. Implementations live in explicit and symbolic.
type Engine interface {
	Check(ctx context.Context, p *ir.Program) (*Result, error)
}

// DurationOf returns the duration behind one of the *_ms keys of Values.
func (s *Stats) DurationOf(key string) time.Duration {
	switch key {
	case "encode_ms":
		return s.EncodeTime
	case "solve_ms":
		return s.SolveTime
	case "time_ms":
		return s.Time
	}
	return 0
}
