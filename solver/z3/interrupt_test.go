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

// TestInterruptAtStart cancels checks of a problem Z3 cannot finish in
// minutes (13 pigeons in 12 holes) within 200 microseconds of their start,
// ten thousand times (one to ten of them are lost without the escalation).
// Z3 4.8.12 forgets an interrupt that arrives while a check is starting and
// ignores the ones after it; the portfolio, whose gini often answers at once,
// interrupts Z3 just then, and a losing check ran on for ten minutes. Every
// check must stop (one that has not after a minute fails the test), and the
// backend must answer the next check.
func TestInterruptAtStart(t *testing.T) {
	skipUnavailable(t)
	b := solver.NewBuilder()
	s, err := z3.New(b)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, f := range pigeonhole(b, 12) {
		if err := s.Assert(f); err != nil {
			t.Fatal(err)
		}
	}
	absent := b.BoolVar("pigeon 12 absent")
	present := b.Not(absent)
	r := rand.New(rand.NewPCG(3, 3))
	const checks = 10000
	for i := range checks {
		ctx, cancel := context.WithCancel(context.Background())
		delay := time.Duration(r.IntN(200)) * time.Microsecond
		go func() {
			for start := time.Now(); time.Since(start) < delay; {
			}
			cancel()
		}()
		ended := make(chan solver.Status, 1)
		go func() {
			st, err := s.Check(ctx, present)
			if err != nil {
				t.Error(err)
			}
			ended <- st
		}()
		select {
		case st := <-ended:
			if st != solver.Unknown {
				t.Fatalf("check %d, cancelled after %v: %v, want unknown", i, delay, st)
			}
		case <-time.After(time.Minute):
			t.Fatalf("check %d, cancelled after %v, still running a minute later", i, delay)
		}
		cancel()
	}
	t.Logf("%d interrupted checks, %v of them by the context's interrupt", checks, s.Stats().Counters["kbmc context interrupts"])
	// Still usable: with one pigeon fewer the holes suffice.
	if st, err := s.Check(context.Background(), absent); err != nil || st != solver.Sat {
		t.Fatalf("check after the interrupted ones: %v, %v; want sat", st, err)
	}
	// The model reads too: no cancellation is left in the context.
	if v, err := s.BoolValue(absent); err != nil || !v {
		t.Fatalf("absent = %v, %v in the model; want true", v, err)
	}
}

// pigeonhole returns clauses saying that n+1 pigeons sit in n holes, at most
// one in each, unless pigeon n is absent: under the assumption that it is
// not, unsatisfiable and hard for a CDCL solver.
func pigeonhole(b *solver.Builder, n int) []*solver.Term {
	in := func(p, h int) *solver.Term { return b.BoolVar(fmt.Sprintf("pigeon %d in hole %d", p, h)) }
	var fs []*solver.Term
	for p := 0; p <= n; p++ {
		var holes []*solver.Term
		for h := range n {
			holes = append(holes, in(p, h))
		}
		if p == n {
			holes = append(holes, b.BoolVar(fmt.Sprintf("pigeon %d absent", n)))
		}
		fs = append(fs, b.Or(holes...))
	}
	for h := range n {
		for p := 0; p <= n; p++ {
			for q := p + 1; q <= n; q++ {
				fs = append(fs, b.Or(b.Not(in(p, h)), b.Not(in(q, h))))
			}
		}
	}
	return fs
}
