package explicit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"kbmc/ir"
	"kbmc/verify"
)

// Hunt is the explicit engine's bug finder: random executions, one after
// another, until one ends in a violation. It is not a search — it proves
// nothing when it finds nothing, and its answer is then Unknown — but it draws
// every nondeterministic value from the value's whole range, where the
// searches refuse a range wider than MaxNondet, and it costs one execution's
// steps per try whatever the program's state space. kbmc svcomp runs it beside
// the engine it plans, so that a task whose bug lies behind a full-range
// __VERIFIER_nondet_int, or in a state space too large to search, is still
// answered false.
//
// Half the executions pick the next thread uniformly among the enabled ones;
// the other half follow PCT ("A Randomized Scheduler with Probabilistic
// Guarantees of Finding Bugs", Burckhardt et al., ASPLOS 2010, §3): random
// thread priorities, the highest-priority enabled thread runs, and at a few
// random steps the running thread drops below every other — a bug that needs
// d ordering constraints is found with probability at least 1/(n·k^(d−1)).
//
// On a program lowered with phantom threads, executions may also delay a
// pool's slots (ir.Choices.Delay; three in four once the pool has run out):
// the first spawns start phantoms, so that the threads that run are the last
// ones a loop creates — still running when the loop ends, where a bug between
// them and the creator needs them.

// HuntOptions configures Hunt.
type HuntOptions struct {
	// Depth is the steps per execution; 0 means DefaultHuntDepth for half
	// the executions, and for the other half a length that doubles (up to
	// MaxHuntDepth) whenever such an execution reaches it, so that the code
	// after a loop of ten thousand pthread_creates is reached too.
	Depth int
	Seed  uint64 // the random source's seed: the same seed gives the same executions
	// Want says which violations end the hunt (nil: every one); an execution
	// that ends in another is counted and the hunt goes on.
	Want func(*ir.Violation) bool
}

// DefaultHuntDepth is the length of Hunt's executions when none is given: long
// enough for loops of a few hundred iterations, short enough for hundreds of
// executions a second.
const DefaultHuntDepth = 5000

// MaxHuntDepth is how far Hunt grows its executions' length.
const MaxHuntDepth = 1 << 20

// Hunt runs random executions of p until one ends in a violation opts.Want
// accepts (Unsafe, its trace replayed by verify.Validate) or ctx ends (Unknown,
// with the number of executions tried).
func Hunt(ctx context.Context, p *ir.Program, opts HuntOptions) (*verify.Result, error) {
	start := time.Now()
	short, long := opts.Depth, opts.Depth
	if opts.Depth <= 0 {
		short, long = DefaultHuntDepth, DefaultHuntDepth
	}
	h := &hunter{p: p, rng: newHuntRand(opts.Seed), spawned: make([]int64, len(p.Pools))}
	h.ch.Draw = h.draw
	if p.HasPhantoms() {
		h.ch.Delay = h.delay
	}
	res := &verify.Result{Engine: "explicit", Algo: "random", Bound: verify.Bound{Preemptions: -1, Fair: -1},
		StatKeys: []string{"executions", "transitions", "failed", "longest"}}
	st := &res.Stats
	var sim Simulation
	for ctx.Err() == nil {
		depth := short
		if st.Executions/2%2 == 1 {
			depth = long
		}
		var sched Scheduler = randomScheduler{h.rng}
		if st.Executions%2 == 1 {
			sched = h.pct(depth)
		}
		if err := simulate(ctx, p, depth, sched, &h.ch, &sim); err != nil {
			return nil, err
		}
		if ctx.Err() != nil && sim.Violation == nil {
			break // a cut-short execution is not one
		}
		st.Executions++
		st.Transitions += int64(len(sim.Trace))
		h.lastLen = len(sim.Trace)
		for i, pool := range p.Pools {
			h.spawned[i] = max(h.spawned[i], p.Spawned(sim.Final, pool))
		}
		if sim.Violation == nil {
			if opts.Depth <= 0 && len(sim.Trace) == long && long < MaxHuntDepth {
				long *= 2
			}
			continue
		}
		st.Failed++
		if opts.Want != nil && !opts.Want(sim.Violation) {
			continue
		}
		st.Longest = int64(len(sim.Trace))
		res.Bound.Depth = depth
		res.Verdict, res.Violation = verify.Unsafe, sim.Violation
		res.Trace = append([]ir.Move(nil), sim.Trace...)
		st.Time = time.Since(start)
		if err := verify.Validate(p, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	st.Time = time.Since(start)
	res.Verdict = verify.Unknown
	res.Stopped = verify.StopReason(context.Cause(ctx))
	res.Bound.Depth = long
	res.Note = fmt.Sprintf("no violation in %d random executions of up to %d steps", st.Executions, long)
	return res, nil
}

// newHuntRand is Hunt's random source for a seed.
func newHuntRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6b626d63)) }

// hunter holds Hunt's random source and the buffers its executions reuse.
type hunter struct {
	p       *ir.Program
	rng     *rand.Rand
	ch      ir.Choices
	sched   pctScheduler
	lastLen int
	spawned []int64 // per pool, the most spawns an execution made
}

// delay picks a pool's delay for the next execution. Where the pool has run
// out of slots before (its spawns outnumber them), three executions in four
// give the slots to the last spawns of the longest execution so far (half of
// them), to its last few, or from a random spawn on; otherwise one in four
// gives them from a random spawn on. The rest take the slots first.
func (h *hunter) delay(pool int) int64 {
	n, slots := h.spawned[pool], int64(len(h.p.Pools[pool].Slots))
	switch {
	case n == 0:
		return 0
	case n <= slots:
		if h.rng.IntN(4) == 0 {
			return h.rng.Int64N(n)
		}
		return 0
	}
	switch h.rng.IntN(8) {
	case 0, 1, 2:
		return n - slots
	case 3:
		return n - 1 - h.rng.Int64N(min(n, 4))
	case 4, 5:
		return h.rng.Int64N(n)
	}
	return 0
}

// draw picks a nondeterministic value from lo to hi (modulo 2^64, as
// ir.Choices reads a range): narrow ranges uniformly; wide ones a quarter of
// the time from the values programs test for (0, ±1, 2, the ends; 0 for half
// of those, about one draw in seven in all), a quarter from small numbers,
// and the rest uniformly.
func (h *hunter) draw(lo, hi int64) int64 {
	n := uint64(hi - lo) // the range holds n+1 values
	in := func(v int64) bool { return uint64(v-lo) <= n }
	uniform := func() int64 {
		if n == 1<<64-1 {
			return int64(h.rng.Uint64())
		}
		return lo + int64(h.rng.Uint64N(n+1))
	}
	if n < 64 {
		return uniform()
	}
	switch h.rng.IntN(4) {
	case 0:
		// Zero half the time: a nondet tested as a condition
		// (if (__VERIFIER_nondet_int())) takes its else branch only then.
		special := [...]int64{0, 1, -1, 2, lo, hi, lo + 1, hi - 1}
		v := int64(0)
		if h.rng.IntN(2) == 0 {
			v = special[h.rng.IntN(len(special))]
		}
		if in(v) {
			return v
		}
	case 1:
		if v := h.rng.Int64N(33) - 16; in(v) {
			return v
		}
	}
	return uniform()
}

// pct returns a PCT scheduler for the next execution: a random priority per
// thread, and up to three steps (within the last execution's length) at which
// the running thread's priority drops below every other.
func (h *hunter) pct(depth int) Scheduler {
	s := &h.sched
	s.shuffle(h.rng, len(h.p.Threads))
	span := min(max(h.lastLen, 1), depth)
	s.drops = s.drops[:0]
	s.drop(h.rng, h.rng.IntN(4), span)
	return s
}

// PCTScheduler is PCT's scheduler for one execution of a program of n
// threads: random distinct thread priorities, the highest-priority enabled
// thread moves, and at changes random steps below span the thread that moved
// last drops below every other. A bug of depth d (d ordering constraints)
// needs d-1 changes.
func PCTScheduler(rng *rand.Rand, n, changes, span int) Scheduler {
	s := &pctScheduler{}
	s.shuffle(rng, n)
	s.drop(rng, changes, max(span, 1))
	return s
}

// pctScheduler is PCT's: the threads' priorities and the steps at which the
// running thread's drops.
type pctScheduler struct{ prio, drops []int }

// shuffle gives n threads random distinct priorities.
func (s *pctScheduler) shuffle(rng *rand.Rand, n int) {
	s.prio = s.prio[:0]
	for i := range n {
		s.prio = append(s.prio, i+1)
	}
	rng.Shuffle(n, func(i, j int) { s.prio[i], s.prio[j] = s.prio[j], s.prio[i] })
}

// drop adds k priority change points below span.
func (s *pctScheduler) drop(rng *rand.Rand, k, span int) {
	for range k {
		s.drops = append(s.drops, rng.IntN(span))
	}
}

func (s *pctScheduler) Pick(step int, enabled []int, last int) (int, error) {
	for _, d := range s.drops {
		if d == step && last >= 0 {
			s.prio[last] = -step - 1 // below every priority given so far
		}
	}
	best := enabled[0]
	for _, t := range enabled[1:] {
		if s.prio[t] > s.prio[best] {
			best = t
		}
	}
	return best, nil
}
