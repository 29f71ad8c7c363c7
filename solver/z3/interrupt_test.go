package z3_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"kbmc/solver"
	"kbmc/solver/gini"
	"kbmc/solver/internal/solvertest"
	"kbmc/solver/z3"
)

// TestInterruptedChecksStaySound asserts random guarded constraints one by one,
// checks after each under a time limit of a few hundred microseconds (so that
// most checks are interrupted, at varying points), asserts the next without an
// uninterrupted check in between, and every fifth step compares an
// uninterrupted check with gini's. Z3 4.8.12's simple solver, reused after an
// interrupted check, answered sat here for unsatisfiable assertions within the
// first five steps; the portfolio interrupts the losing solver on nearly every
// check. Any answer an interrupted check gives must be right too. A correct
// backend passes whatever the timing.
func TestInterruptedChecksStaySound(t *testing.T) {
	skipUnavailable(t)
	r := rand.New(rand.NewPCG(7, 7))
	const rounds, steps = 3, 30
	for round := range rounds {
		b := solver.NewBuilder()
		s, err := z3.New(b)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := gini.New(b)
		if err != nil {
			t.Fatal(err)
		}
		g := solvertest.NewGen(r, b, 8+r.IntN(9))
		var guards []*solver.Term
		for i := range steps {
			guard := b.BoolVar(fmt.Sprint("g", i))
			f := b.Or(b.Not(guard), g.Constraint(4))
			if err := s.Assert(f); err != nil {
				t.Fatal(err)
			}
			if err := ref.Assert(f); err != nil {
				t.Fatal(err)
			}
			guards = append(guards, guard)
			var assumed []*solver.Term
			for _, x := range guards {
				if r.IntN(3) == 0 {
					assumed = append(assumed, x)
				}
			}
			want, err := ref.Check(context.Background(), assumed...)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.IntN(300))*time.Microsecond)
			got, err := s.Check(ctx, assumed...)
			cancel()
			if err != nil || (got != solver.Unknown && got != want) {
				t.Fatalf("round %d step %d: z3 under a time limit says %v (%v), gini %v", round, i, got, err, want)
			}
			if i%5 != 4 {
				continue
			}
			got, err = s.Check(context.Background(), assumed...)
			if err != nil || got != want {
				t.Fatalf("round %d step %d: z3 after interrupted checks says %v (%v), gini %v", round, i, got, err, want)
			}
		}
		s.Close()
		ref.Close()
	}
}
