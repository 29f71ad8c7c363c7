package explicit

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"kbmc/solver/z3"
)

// tcsOf builds a TCS from the threads of its events and its dependency list.
func tcsOf(threads []int, deps [][2]int32) *TCS {
	c := &TCS{}
	for _, t := range threads {
		c.Events = append(c.Events, TCSEvent{Thread: t})
		c.NumThreads = max(c.NumThreads, t+1)
	}
	for _, d := range deps {
		c.Deps = append(c.Deps, TCSDep{d[0], d[1]})
	}
	c.Swapped = make([]bool, len(c.Deps))
	return c
}

func TestTopoSolver(t *testing.T) {
	tests := []struct {
		name    string
		threads []int
		deps    [][2]int32
		swapped []bool
		want    []int // nil: unsatisfiable
	}{
		// Listing 1.1 of the thesis: independent writers, round-robin order.
		{"independent", []int{0, 1, 2}, nil, nil, []int{0, 1, 2}},
		// Readers-writers: w, r1, r2 with (w, r1), (w, r2).
		{"rw-identity", []int{0, 1, 2}, [][2]int32{{0, 1}, {0, 2}}, []bool{false, false}, []int{0, 1, 2}},
		{"rw-swap-one", []int{0, 1, 2}, [][2]int32{{0, 1}, {0, 2}}, []bool{true, false}, []int{1, 0, 2}},
		{"rw-swap-both", []int{0, 1, 2}, [][2]int32{{0, 1}, {0, 2}}, []bool{true, true}, []int{1, 2, 0}},
		// Listing 4.3: w; r1 r2 (one thread). Swapping (w, r2) but not (w, r1)
		// contradicts program order.
		{"listing-4.3-unsat", []int{0, 1, 1}, [][2]int32{{0, 1}, {0, 2}}, []bool{false, true}, nil},
		{"listing-4.3-swap-both", []int{0, 1, 1}, [][2]int32{{0, 1}, {0, 2}}, []bool{true, true}, []int{1, 2, 0}},
		// Program order alone: the round-robin visits thread 0, 1, 0, 1.
		{"round-robin", []int{0, 0, 1, 1}, nil, nil, []int{0, 2, 1, 3}},
		// A cycle through two threads.
		{"cycle", []int{0, 0, 1, 1}, [][2]int32{{0, 3}, {1, 2}}, []bool{true, false}, nil},
	}
	var s TopoSolver
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tcsOf(tc.threads, tc.deps)
			if tc.swapped != nil {
				copy(c.Swapped, tc.swapped)
			}
			order, ok, err := s.Solve(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tc.want != nil) {
				t.Fatalf("satisfiable = %v, want %v (order %v)", ok, tc.want != nil, order)
			}
			if !ok {
				return
			}
			if !slices.Equal(order, tc.want) {
				t.Errorf("order %v, want %v", order, tc.want)
			}
			if err := c.Satisfies(order); err != nil {
				t.Errorf("its own solution: %v", err)
			}
		})
	}
}

func TestTCSSatisfies(t *testing.T) {
	c := tcsOf([]int{0, 1, 1}, [][2]int32{{0, 1}, {0, 2}})
	c.Swapped[0] = true
	for _, tc := range []struct {
		order []int
		ok    bool
	}{
		{[]int{1, 0, 2}, true},
		{[]int{1, 2, 0}, false}, // violates the unswapped constraint (0, 2)
		{[]int{0, 1, 2}, false}, // violates the swapped constraint
		{[]int{2, 1, 0}, false}, // violates program order
		{[]int{1, 0}, false},    // not every event
		{[]int{1, 1, 0}, false}, // not a permutation
	} {
		if err := c.Satisfies(tc.order); (err == nil) != tc.ok {
			t.Errorf("Satisfies(%v) = %v, want ok %v", tc.order, err, tc.ok)
		}
	}
}

// enumerate returns the swap vectors tcsEnum produces, and its unsat count.
func enumerate(c *TCS, keep []bool, requires []int32) ([][]bool, int64) {
	var en tcsEnum
	en.keep, en.requires = keep, requires
	en.init(c)
	var out [][]bool
	for en.next() {
		out = append(out, slices.Clone(c.Swapped))
	}
	return out, en.unsat
}

func TestTCSVariations(t *testing.T) {
	var s TopoSolver
	check := func(t *testing.T, c *TCS, vs [][]bool) {
		t.Helper()
		seen := map[string]bool{}
		for _, v := range vs {
			copy(c.Swapped, v)
			order, ok, err := s.Solve(context.Background(), c)
			if err != nil || !ok {
				t.Errorf("variation %v is not satisfiable", v)
			}
			if err := c.Satisfies(order); err != nil {
				t.Errorf("variation %v: %v", v, err)
			}
			key := string(boolsKey(v))
			if seen[key] {
				t.Errorf("variation %v twice", v)
			}
			seen[key] = true
		}
	}
	t.Run("readers-writers", func(t *testing.T) {
		// One writer and n readers: every one of the 2^n combinations.
		for n := 1; n <= 10; n++ {
			threads := []int{0}
			var deps [][2]int32
			for r := 1; r <= n; r++ {
				threads = append(threads, r)
				deps = append(deps, [2]int32{0, int32(r)})
			}
			c := tcsOf(threads, deps)
			vs, unsat := enumerate(c, nil, nil)
			if len(vs) != 1<<n || unsat != 0 {
				t.Errorf("n=%d: %d variations, %d unsat; want %d, 0", n, len(vs), unsat, 1<<n)
			}
			if n <= 4 {
				check(t, c, vs)
			}
		}
	})
	t.Run("listing-4.3", func(t *testing.T) {
		// 3 of the 4 combinations are satisfiable (§4.3).
		c := tcsOf([]int{0, 1, 1}, [][2]int32{{0, 1}, {0, 2}})
		vs, unsat := enumerate(c, nil, nil)
		if len(vs) != 3 || unsat != 1 {
			t.Errorf("%d variations, %d unsat; want 3, 1: %v", len(vs), unsat, vs)
		}
		check(t, c, vs)
		if slices.Contains(vs[0], true) {
			t.Errorf("the first variation %v is not the run's own order", vs[0])
		}
	})
	t.Run("two-chains", func(t *testing.T) {
		// Two threads of three events, every cross pair dependent: the
		// satisfiable variations are the C(6,3) = 20 interleavings.
		var deps [][2]int32
		for a := int32(0); a < 3; a++ {
			for b := int32(3); b < 6; b++ {
				deps = append(deps, [2]int32{a, b})
			}
		}
		c := tcsOf([]int{0, 0, 0, 1, 1, 1}, deps)
		vs, _ := enumerate(c, nil, nil)
		if len(vs) != 20 {
			t.Errorf("%d variations, want 20", len(vs))
		}
		check(t, c, vs)
	})
	t.Run("keep-and-requires", func(t *testing.T) {
		// Writer w and readers r1, r2. With (w, r1) kept and (w, r2) requiring
		// (w, r1), nothing can be swapped; with the requirement alone, (w, r2) is
		// swapped only together with (w, r1).
		c := tcsOf([]int{0, 1, 2}, [][2]int32{{0, 1}, {0, 2}})
		vs, _ := enumerate(c, []bool{true, false}, []int32{-1, 0})
		if len(vs) != 1 || slices.Contains(vs[0], true) {
			t.Errorf("variations %v, want only the original", vs)
		}
		vs, _ = enumerate(c, nil, []int32{-1, 0})
		if len(vs) != 3 {
			t.Errorf("variations %v, want 3 ((w, r2) swapped only with (w, r1))", vs)
		}
		for _, v := range vs {
			if v[1] && !v[0] {
				t.Errorf("variation %v swaps (w, r2) without (w, r1)", v)
			}
		}
	})
}

func boolsKey(v []bool) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		if x {
			b[i] = 1
		}
	}
	return b
}

func TestNewTCSSolver(t *testing.T) {
	for _, name := range []string{"", "topo", "gini", "z3"} {
		s, err := NewTCSSolver(name)
		if name == "z3" && !z3.Available() {
			if err == nil {
				t.Errorf("NewTCSSolver(z3) succeeds in a build without z3")
			}
			continue
		}
		if err != nil || s == nil {
			t.Errorf("NewTCSSolver(%q) = %v, %v", name, s, err)
		}
		if c, ok := s.(io.Closer); ok {
			c.Close()
		}
	}
	if _, err := NewTCSSolver("minisat"); err == nil || !strings.Contains(err.Error(), "topo, gini, z3") {
		t.Errorf("NewTCSSolver(minisat) = %v, want an error listing the solvers", err)
	}
}

// lateSolver is a correct solver that finds a different solution than Listing 5.1:
// Kahn's algorithm taking the highest-numbered ready event first.
type lateSolver struct{ calls int }

func (l *lateSolver) Solve(_ context.Context, c *TCS) ([]int, bool, error) {
	l.calls++
	n := len(c.Events)
	pred := make([][]int, n)
	last := map[int]int{}
	for e, ev := range c.Events {
		if p, ok := last[ev.Thread]; ok {
			pred[e] = append(pred[e], p)
		}
		last[ev.Thread] = e
	}
	for i := range c.Deps {
		b, a := c.Constraint(i)
		pred[a] = append(pred[a], b)
	}
	done := make([]bool, n)
	var order []int
	for len(order) < n {
		next := -1
		for e := n - 1; e >= 0 && next < 0; e-- {
			if done[e] {
				continue
			}
			ready := true
			for _, b := range pred[e] {
				ready = ready && done[b]
			}
			if ready {
				next = e
			}
		}
		if next < 0 {
			return order, false, nil
		}
		done[next] = true
		order = append(order, next)
	}
	return order, true, nil
}

// TestLazyPORSolverIndependent checks that the executions do not depend on which
// solver solves the trace constraint systems, nor on which solution it returns:
// lateSolver (another linear extension than topo's) and the gini and z3 solvers
// give exactly topo's statistics, on the LazyPOR test programs and on generated
// ones.
func TestLazyPORSolverIndependent(t *testing.T) {
	var progs []namedProgram
	for _, tc := range lazyPrograms {
		p, depth := tc.compile(t, false)
		progs = append(progs, namedProgram{tc.name, p, depth})
	}
	for seed := range uint64(200) {
		cfg, depth := lazyGenConfig(seed)
		_, p := compileGenerated(t, seed, cfg)
		progs = append(progs, namedProgram{fmt.Sprintf("seed%d.kb", seed), p, depth})
	}
	solvers := map[string]func(t *testing.T) TCSSolver{
		"late": func(*testing.T) TCSSolver { return &lateSolver{} },
		"gini": func(t *testing.T) TCSSolver { return backendTCSSolver(t, "gini") },
		"z3":   func(t *testing.T) TCSSolver { return backendTCSSolver(t, "z3") },
	}
	for _, name := range []string{"late", "gini", "z3"} {
		t.Run(name, func(t *testing.T) {
			solver := solvers[name](t)
			var systems int64
			for _, tc := range progs {
				var o Options
				o.Depth = tc.depth
				topo, err := LazyPOR{Options: o}.Check(context.Background(), tc.p)
				if err != nil {
					t.Fatal(err)
				}
				other, err := LazyPOR{Options: o, Solver: solver}.Check(context.Background(), tc.p)
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				a, b := topo.Stats, other.Stats
				if topo.Verdict != other.Verdict || a.Executions != b.Executions || a.Transitions != b.Transitions ||
					a.TCSBuilt != b.TCSBuilt || a.TCSSolved != b.TCSSolved || a.TCSUnsat != b.TCSUnsat {
					t.Errorf("%s: topo %s %+v, %s %s %+v", tc.name, topo.Verdict, a, name, other.Verdict, b)
				}
				systems += b.TCSSolved
			}
			if late, ok := solver.(*lateSolver); ok && int64(late.calls) != systems {
				t.Errorf("%d solver calls, %d systems solved", late.calls, systems)
			}
			if systems < 1000 {
				t.Errorf("only %d systems solved: the programs hardly exercise the solver", systems)
			}
			t.Logf("%d programs, %d systems solved", len(progs), systems)
		})
	}
}
