package explicit

import (
	"context"
	"io"
	"math/rand/v2"
	"testing"

	"kbmc/solver/z3"
)

// backendTCSSolver returns the named backend solver, skipping z3 in a build
// without it (the pure-Go build of make test).
func backendTCSSolver(t *testing.T, name string) *BackendTCSSolver {
	t.Helper()
	s, err := NewBackendTCSSolver(name)
	if name == "z3" && !z3.Available() {
		if err == nil {
			t.Fatal("z3 is not compiled in, but the solver was made")
		}
		t.Skipf("z3 is not compiled in: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// randomTCS draws a system whose constraints go either way between events of
// different threads, so that many are cyclic.
func randomTCS(r *rand.Rand) *TCS {
	threads := make([]int, 2+r.IntN(11))
	nt := 1 + r.IntN(4)
	for e := range threads {
		threads[e] = r.IntN(nt)
	}
	var deps [][2]int32
	for range r.IntN(3 * len(threads)) {
		a, b := r.IntN(len(threads)), r.IntN(len(threads))
		if threads[a] != threads[b] {
			deps = append(deps, [2]int32{int32(a), int32(b)})
		}
	}
	c := tcsOf(threads, deps)
	c.NumThreads = nt
	for i := range c.Swapped {
		c.Swapped[i] = r.IntN(2) == 0
	}
	return c
}

// maxPrefix finds the maximal satisfiable prefix by asking TopoSolver about
// every prefix, longest first.
func maxPrefix(c *TCS) int {
	var topo TopoSolver
	for k := len(c.Deps); ; k-- {
		p := *c
		p.Deps, p.Swapped = c.Deps[:k], c.Swapped[:k]
		if _, ok, _ := topo.Solve(context.Background(), &p); ok {
			return k
		}
	}
}

// TestBackendTCSSolverPrefix checks the z3 and gini solvers on random systems: the
// prefix they solve is the maximal satisfiable one, and their order solves it.
func TestBackendTCSSolverPrefix(t *testing.T) {
	for _, name := range []string{"gini", "z3"} {
		t.Run(name, func(t *testing.T) {
			s := backendTCSSolver(t, name)
			r := rand.New(rand.NewPCG(5, 0))
			unsat := 0
			for i := range 400 {
				c := randomTCS(r)
				order, ok, err := s.Solve(context.Background(), c)
				if err != nil {
					t.Fatalf("system %d: %v", i, err)
				}
				want := maxPrefix(c)
				if s.Prefix != want || ok != (want == len(c.Deps)) {
					t.Fatalf("system %d %+v: prefix %d (ok %v), want %d of %d", i, c, s.Prefix, ok, want, len(c.Deps))
				}
				p := *c
				p.Deps, p.Swapped = c.Deps[:want], c.Swapped[:want]
				if err := p.Satisfies(order); err != nil {
					t.Fatalf("system %d %+v: order %v: %v", i, c, order, err)
				}
				if !ok {
					unsat++
				}
			}
			if unsat < 50 {
				t.Errorf("only %d of 400 systems were unsatisfiable: the test hardly exercises the prefix search", unsat)
			}
			t.Logf("400 systems, %d unsatisfiable, %d checks", unsat, s.Checks)
		})
	}
}

// TestBackendTCSSolverStops checks that a cancelled context ends LazyPOR with the
// verdict unknown, not an error, when the solver is the one that notices.
func TestBackendTCSSolverStops(t *testing.T) {
	s := backendTCSSolver(t, "gini")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.Solve(ctx, tcsOf([]int{0, 1}, [][2]int32{{0, 1}})); err == nil {
		t.Fatal("Solve under a cancelled context succeeds")
	}
	p := lazyCompile(t, "rw", `
shared int x;
thread w { x = 1; }
thread r1 { int a = x; }
thread r2 { int b = x; }
`, lazyTestConfig("rw", false))
	var o Options
	res, err := LazyPOR{Options: o, Solver: s}.Check(ctx, p)
	if err != nil || res.Verdict.String() != "unknown" {
		t.Errorf("LazyPOR under a cancelled context = %v, %v; want unknown", res, err)
	}
}

var _ io.Closer = (*BackendTCSSolver)(nil)
