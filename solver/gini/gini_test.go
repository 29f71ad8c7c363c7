package gini_test

import (
	"context"
	"testing"

	"kbmc/solver"
	"kbmc/solver/gini"
	"kbmc/solver/internal/solvertest"
)

func TestConformance(t *testing.T) {
	solvertest.Conformance(t, gini.New)
}

// TestCancelledCheckForgetsAssumptions: a check whose context has ended before
// the solve starts must not leave its assumptions queued in gini for the next
// solve. The portfolio cancels the loser of every race, often before it starts,
// and a stale x = 23 here once made the next check unsat.
func TestCancelledCheckForgetsAssumptions(t *testing.T) {
	b := solver.NewBuilder()
	s, err := gini.New(b)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := b.BVVar("x", 8)
	if err := s.Assert(b.Eq(x, b.BV(17, 8))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if st, err := s.Check(ctx, b.Eq(x, b.BV(23, 8))); err != nil || st != solver.Unknown {
		t.Fatalf("cancelled check = %v, %v; want unknown", st, err)
	}
	for _, ctx := range []context.Context{context.Background(), t.Context()} {
		if st, err := s.Check(ctx); err != nil || st != solver.Sat {
			t.Fatalf("check after a cancelled one = %v, %v; want sat", st, err)
		}
	}
}
