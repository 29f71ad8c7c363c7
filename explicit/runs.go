package explicit

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"time"

	"kbmc/ir"
	"kbmc/verify"
)

// Runs is kbmc run --runs: many simulations (Simulate), each from a seed of
// its own, so that the run that ends in a violation is replayed by that seed
// alone (kbmc run --seed S), and a summary of how the others ended. Like Hunt
// it proves nothing when it finds nothing; unlike Hunt, which mixes schedulers
// and grows its executions from one random stream for kbmc svcomp, each of its
// runs is exactly one kbmc run.

// RunsOptions configures Runs.
type RunsOptions struct {
	Runs  int    // how many runs
	Seed  uint64 // run i (from 0) is kbmc run --seed Seed+i
	Depth int    // steps per run
	// PCT, when positive, schedules every run by PCT for bugs of depth PCT
	// (PCTScheduler with PCT-1 changes over PCTSpan steps) instead of
	// uniformly at random.
	PCT int
	// NoDeadlock: a run that ends in a deadlock (or a goroutine leak) is
	// counted, not a violation.
	NoDeadlock bool
	// Progress, if set, is called now and then with the runs so far (as
	// executions, the steps as transitions).
	Progress func(*verify.Stats)
}

// MaxFinalStates is how many distinct final states Runs tells apart; it
// counts the runs that end in others without telling them apart.
const MaxFinalStates = 1000

// A RunsSummary is what Runs did: how many runs, how they ended, the distinct
// states they ended in, and the first violation.
type RunsSummary struct {
	Runs int // runs made (fewer than asked when a violation or ctx ended them)
	// How they ended: every thread terminated (or waits at an end: label),
	// deadlocked (counted with NoDeadlock), cut by a false assume, cut by a
	// bound of the model (a thread or heap pool), cut by the depth bound.
	Complete, Deadlocked, CutByAssume, CutByLimit, CutByDepth int
	Steps                                                     int64
	Longest                                                   int
	// Finals are the distinct states the runs that ended (not cut by the
	// depth bound, not in a violation) ended in, most frequent first; at
	// most MaxFinalStates, and MoreFinals runs ended in states beyond those.
	Finals     []FinalState
	MoreFinals int
	// Violation is the run that ended in one, its number (from 0) and seed;
	// nil when none did.
	Violation *Simulation
	Run       int
	RunSeed   uint64
	// Stopped is why ctx ended the runs before all were made, or nil.
	Stopped error
	Time    time.Duration
}

// A FinalState is a state some runs ended in, and how many.
type FinalState struct {
	State ir.State
	Count int
}

// SeedRand is the random source of kbmc run --seed: its schedule's and its
// nondeterministic values'.
func SeedRand(seed uint64) *rand.Rand { return newHuntRand(seed) }

// PCTSpan is the number of steps within which PCT places its priority
// changes: the length of p's round-robin run within depth, a length that
// depends on the program alone, so that a PCT run is replayed by its seed.
func PCTSpan(ctx context.Context, p *ir.Program, depth int) (int, error) {
	var sim Simulation
	if err := simulate(ctx, p, depth, RoundRobin(), &ir.Choices{}, &sim); err != nil {
		return 0, err
	}
	return max(len(sim.Trace), 1), nil
}

// RunScheduler is the scheduler of the run of seed rng: uniform at random, or
// PCT for bugs of depth pct (pct > 0) over span steps.
func RunScheduler(p *ir.Program, rng *rand.Rand, pct, span int) Scheduler {
	if pct > 0 {
		return PCTScheduler(rng, len(p.Threads), pct-1, span)
	}
	return RandomScheduler(rng)
}

// Runs makes opts.Runs simulations of p, run i from seed opts.Seed+i with
// SeedRand's source for its schedule and its values, until one ends in a
// violation or ctx ends.
func Runs(ctx context.Context, p *ir.Program, opts RunsOptions) (*RunsSummary, error) {
	start := time.Now()
	sum := &RunsSummary{}
	span := 0
	if opts.PCT > 0 {
		var err error
		if span, err = PCTSpan(ctx, p, opts.Depth); err != nil {
			return nil, err
		}
	}
	finals := map[string]int{} // a final state's identity cells -> its index in sum.Finals
	var key []byte
	var sim Simulation
	lastReport := start
	for i := range opts.Runs {
		seed := opts.Seed + uint64(i)
		rng := SeedRand(seed)
		if err := simulate(ctx, p, opts.Depth, RunScheduler(p, rng, opts.PCT, span), &ir.Choices{Rand: rng}, &sim); err != nil {
			return nil, err
		}
		if ctx.Err() != nil && sim.Violation == nil {
			sum.Stopped = context.Cause(ctx) // a run cut short is no run
			break
		}
		sum.Runs++
		sum.Steps += int64(len(sim.Trace))
		sum.Longest = max(sum.Longest, len(sim.Trace))
		if v := sim.Violation; v != nil && !(opts.NoDeadlock && v.Kind.Deadlocks()) {
			found := sim
			found.Trace = slices.Clone(sim.Trace)
			found.Final = nil
			sum.Violation, sum.Run, sum.RunSeed = &found, i, seed
			break
		}
		switch {
		case sim.DepthCut:
			sum.CutByDepth++
			continue
		case sim.Ending == ir.Complete:
			sum.Complete++
		case sim.Ending == ir.Deadlocked:
			sum.Deadlocked++
		case sim.Ending == ir.CutByAssume:
			sum.CutByAssume++
		case sim.Ending == ir.CutByLimit:
			sum.CutByLimit++
		}
		key = key[:0]
		for _, c := range p.IdentityCells(sim.Final) {
			key = binary.AppendVarint(key, c)
		}
		if j, ok := finals[string(key)]; ok {
			sum.Finals[j].Count++
		} else if len(sum.Finals) < MaxFinalStates {
			finals[string(key)] = len(sum.Finals)
			sum.Finals = append(sum.Finals, FinalState{State: sim.Final.Clone(), Count: 1})
		} else {
			sum.MoreFinals++
		}
		if opts.Progress != nil {
			if now := time.Now(); now.Sub(lastReport) >= 500*time.Millisecond {
				lastReport = now
				opts.Progress(&verify.Stats{Executions: int64(sum.Runs), Cut: int64(sum.CutByDepth),
					Transitions: sum.Steps, Time: now.Sub(start)})
			}
		}
	}
	slices.SortStableFunc(sum.Finals, func(a, b FinalState) int { return b.Count - a.Count })
	sum.Time = time.Since(start)
	return sum, nil
}
