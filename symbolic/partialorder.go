package symbolic

import (
	"fmt"
	"time"

	"kbmc/encode"
	"kbmc/solver"
)

// firstUnrolling is how many events a thread without a static bound starts
// with; grow is how its bound grows when the solver shows an execution that
// needs more: by 2 events, a loop head and a body. (Growing by half overshot:
// the events beyond the last one any execution takes are not free, since each
// may read any cell its possible indices name.)
const firstUnrolling = 4

func grow(b int) int { return b + 2 }

// deepenPartialOrder decides the program on the partial-order encoding
// (docs/symbolic.md): per-thread bounds start at the static bound (capped at
// the depth) or small, and grow while some thread can take more steps than its
// bound in an execution of at most K steps. Under each set of bounds it asks
// for a violation; once the bounds cover every execution of at most K steps
// it asks whether any execution is longer than K.
func (r *run) deepenPartialOrder(po *encode.PartialOrder, k int) error {
	static := encode.StaticBounds(r.p)
	caps := make([]int, len(static))
	for t, s := range static {
		caps[t] = k
		if s != encode.Unbounded {
			caps[t] = min(s, k)
		}
	}
	grown := func(t, n int) error {
		t0 := time.Now()
		err := po.Grow(r.ctx, t, n)
		r.stats.EncodeTime += time.Since(t0)
		return err
	}
	for t, c := range caps {
		n := c
		if static[t] == encode.Unbounded {
			n = min(c, firstUnrolling)
		}
		if err := grown(t, n); err != nil {
			return fmt.Errorf("symbolic: %w", err)
		}
	}
	reached := 0 // no violation in executions of at most this many steps
	stop := func() error {
		r.stop(reached)
		r.stats.Depth = int64(sum(po.Bounds()))
		return nil
	}
	// exceed asks whether a thread below its cap can take more steps than
	// its bound, and grows the threads that do in the model: it reports
	// whether the bounds grew. A stop leaves stopped set.
	stopped := false
	exceed := func(gen *solver.Term, bounds []int) (bool, error) {
		var open []int
		for t, b := range bounds {
			if b < caps[t] {
				open = append(open, t)
			}
		}
		if len(open) == 0 {
			return false, nil
		}
		ex, err := po.Exceed(open)
		if err != nil {
			return false, err
		}
		st, err := r.check(gen, ex)
		switch {
		case err != nil:
			return false, err
		case st == solver.Unknown:
			stopped = true
			return false, nil
		case st == solver.Unsat:
			return false, nil
		}
		more, err := po.Exceeding(r.be, open)
		if err != nil {
			return false, err
		}
		if len(more) == 0 {
			return false, fmt.Errorf("internal error: no thread exceeds its bound in a model of Exceed")
		}
		for _, t := range more {
			if err := grown(t, min(caps[t], grow(bounds[t]))); err != nil {
				return false, err
			}
		}
		return true, nil
	}
	lastBad := 0 // Σ_t b_t at the last Bad query
	for {
		bounds := po.Bounds()
		r.stats.Depth = int64(sum(bounds))
		if r.ctx.Err() != nil {
			return stop()
		}
		t0 := time.Now()
		gen, err := po.Seal(r.ctx)
		r.stats.EncodeTime += time.Since(t0)
		if err != nil {
			return fmt.Errorf("symbolic: bounds %v: %w", bounds, err)
		}
		// Bad is asked under the first bounds, then each time Σ_t b_t has
		// doubled, and under the bounds that cover every execution; in
		// between, the bounds only grow. Every Bad query of a program
		// without violation is unsatisfiable, and asking one at every
		// growth by 2 events made them most of the run (peterson at depth
		// 20: 15 Bad queries; docs/symbolic.md). Doubling keeps a
		// violation found under bounds at most twice those it needs.
		exceeded := false // Exceed has been asked under these bounds
		if lastBad > 0 && sum(bounds) < 2*lastBad {
			more, err := exceed(gen, bounds)
			switch {
			case err != nil:
				return fmt.Errorf("symbolic: bounds %v: %w", bounds, err)
			case stopped:
				return stop()
			case more:
				continue
			}
			exceeded = true
		}
		lastBad = sum(bounds)
		bad, err := po.Bad()
		if err != nil {
			return fmt.Errorf("symbolic: bounds %v: %w", bounds, err)
		}
		st, err := r.check(gen, bad)
		if err != nil {
			return fmt.Errorf("symbolic: bounds %v: %w", bounds, err)
		}
		switch st {
		case solver.Unknown:
			return stop()
		case solver.Sat:
			moves, v, err := po.Counterexample(r.be)
			if err != nil {
				return fmt.Errorf("symbolic: bounds %v: %w", bounds, err)
			}
			r.stats.Depth = int64(len(moves))
			r.out.Found(v, moves)
			return nil
		}
		// An execution of at most min_t b_t steps (over the threads a bound
		// does not cover) gives no thread more steps than its bound.
		reached = k
		for t, b := range bounds {
			if b < caps[t] {
				reached = min(reached, b)
			}
		}
		r.decided, r.decidedBounds = reached, bounds
		if r.e.Progress != nil {
			r.fillStats()
			r.e.Progress(&r.stats)
		}

		// Can a thread take more steps than its bound?
		if !exceeded {
			more, err := exceed(gen, bounds)
			switch {
			case err != nil:
				return fmt.Errorf("symbolic: bounds %v: %w", bounds, err)
			case stopped:
				return stop()
			case more:
				continue
			}
		}

		// Every execution of at most K steps is within the bounds and has no
		// violation. Is any execution longer than K?
		if sum(bounds) < k {
			return r.modelCut(k) // safe, unless a pool cut an execution
		}
		long, err := po.Long()
		if err != nil {
			return fmt.Errorf("symbolic: bounds %v: %w", bounds, err)
		}
		st, err = r.check(gen, long)
		if err != nil {
			return fmt.Errorf("symbolic: bounds %v: %w", bounds, err)
		}
		switch st {
		case solver.Unknown:
			reached = k
			return stop()
		case solver.Sat:
			r.stats.Depth = int64(k)
			if err := r.modelCut(k); err != nil {
				return err
			}
			r.out.CutBy(fmt.Sprintf("some execution is longer than the depth bound %d", k))
			return nil
		}
		return r.modelCut(k) // safe when Long is unsatisfiable, unless a pool cut an execution
	}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}
