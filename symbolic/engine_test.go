package symbolic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/solver/z3"
	"kbmc/verify"
)

const lostUpdate = `
shared int x = 0;
thread inc[2] {
    int t = x;
    x = t + 1;
}
thread check {
    join(inc);
    assert(x == 2, "an increment was lost");
}
`

func compileSrc(t *testing.T, src string, cfg lang.Config) *ir.Program {
	t.Helper()
	p, err := lang.Compile("test.kb", []byte(src), cfg)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

// TestCounterexample checks the shape of an unsafe result: the shortest
// violating execution, replayed, with the replayed violation and the statistics.
func TestCounterexample(t *testing.T) {
	p := compileSrc(t, lostUpdate, lang.Config{})
	for _, c := range combos(t) {
		r, err := Engine{Solver: c.solver, Encoding: c.encoding, POR: c.por}.Check(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if r.Verdict != verify.Unsafe || r.Violation.Kind != ir.Assertion || r.Violation.Msg != "an increment was lost" {
			t.Fatalf("%s: %s %+v", c, r.Verdict, r.Violation)
		}
		// inc[0] and inc[1] read, both write, check joins and fails: 6 steps.
		if len(r.Trace) != 6 || r.Stats.Depth != 6 {
			t.Errorf("%s: trace of %d steps at depth %d, want 6", c, len(r.Trace), r.Stats.Depth)
		}
		if _, _, err := p.Confirm(r.Trace, ir.Assertion); err != nil {
			t.Errorf("%s: trace does not replay: %v", c, err)
		}
		// The step encoding names its reduction; another encoding names
		// itself where the explicit engine names its algorithm.
		wantPOR, wantAlgo := c.por, ""
		if c.encoding != "step" {
			wantPOR, wantAlgo = "", c.encoding
		}
		if r.Engine != "symbolic" || r.Solver != c.solver || r.POR != wantPOR || r.Algo != wantAlgo || r.Bound.Depth != verify.DefaultDepth {
			t.Errorf("%s: result names %q %q %q %q, bound %+v", c, r.Engine, r.Solver, r.POR, r.Algo, r.Bound)
		}
		want := []string{"depth", "solver_calls", "variables", "clauses", "conflicts", "encode_ms", "solve_ms", "time_ms"}
		if c.solver == "portfolio" {
			// Which member answered each call.
			want = slices.Insert(want, 2, "gini_answers", "z3_answers")
		}
		if !slices.Equal(r.StatKeys, want) {
			t.Errorf("%s: stat keys %v", c, r.StatKeys)
		}
		if r.Stats.SolverCalls == 0 || r.Stats.Variables == 0 || r.Stats.Clauses == 0 || r.Stats.Time == 0 {
			t.Errorf("%s: stats %+v", c, r.Stats)
		}
	}
}

// TestNondet checks that the values drawn by nondet are read back from the
// model in draw order, also for ranges drawn as W-bit variables and unbounded
// nondet(), which the explicit engine cannot explore.
func TestNondet(t *testing.T) {
	src := `
shared int x;
thread a {
    int u = nondet(-3, 3);
    int v = nondet(0, 1000);
    int w = nondet();
    x = w;
    assert(!(u == -2 && v == 7 && w == 123456789), "magic");
}
`
	p := compileSrc(t, src, lang.Config{})
	for _, c := range combos(t) {
		r, err := Engine{Solver: c.solver, Encoding: c.encoding, POR: c.por}.Check(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if r.Verdict != verify.Unsafe {
			t.Fatalf("%s: %s", c, r.Verdict)
		}
		var got []int64
		for _, m := range r.Trace {
			got = append(got, m.Choices...)
		}
		if !slices.Equal(got, []int64{-2, 7, 123456789}) {
			t.Errorf("%s: drew %v", c, got)
		}
	}
}

// TestReplayFailure checks that a counterexample that does not replay is an
// internal error wrapping verify.ErrReplay, never a result.
func TestReplayFailure(t *testing.T) {
	p := compileSrc(t, lostUpdate, lang.Config{})
	corruptions := map[string]func([]ir.Move) []ir.Move{
		"drop the last step": func(m []ir.Move) []ir.Move { return m[:len(m)-1] },
		"blocked thread":     func(m []ir.Move) []ir.Move { return append([]ir.Move{{Thread: 2}}, m...) },
		"extra choice": func(m []ir.Move) []ir.Move {
			m[0].Choices = append(m[0].Choices, 1)
			return m
		},
	}
	for name, f := range corruptions {
		r, err := Engine{corrupt: f}.Check(context.Background(), p)
		if !errors.Is(err, verify.ErrReplay) || r != nil {
			t.Errorf("%s: result %v, error %v", name, r, err)
		}
	}
}

// TestSafeAndBounded checks the completeness query (docs/symbolic.md,
// "Properties and queries"): a program
// whose executions all end is safe at the depth where the last one ends; one
// that can spin forever is bounded-safe.
func TestSafeAndBounded(t *testing.T) {
	tests := []struct {
		src   string
		depth int
		want  verify.Verdict
		at    int64
	}{
		{`shared int x; thread a { x = 1; x = 2; } thread b { int r = x; }`, 0, verify.Safe, 3},
		{`shared int f; thread a { while (f == 0) { yield; } } thread b { f = 1; }`, 7, verify.BoundedSafe, 7},
	}
	for _, tt := range tests {
		p := compileSrc(t, tt.src, lang.Config{})
		for _, c := range combos(t) {
			for _, noInc := range []bool{false, true} {
				r, err := Engine{Options: verify.Options{Depth: tt.depth}, Solver: c.solver, Encoding: c.encoding, POR: c.por, NoIncremental: noInc}.Check(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				at := tt.at
				if noInc && tt.depth == 0 && c.encoding == "step" {
					at = verify.DefaultDepth
				}
				if r.Verdict != tt.want || r.Stats.Depth != at {
					t.Errorf("%s, no-incremental %v: %s at depth %d, want %s at %d\n%s", c, noInc, r.Verdict, r.Stats.Depth, tt.want, at, tt.src)
				}
			}
		}
	}
}

// TestTimeLimit checks that an expired context gives unknown, not an error.
func TestTimeLimit(t *testing.T) {
	p := compileSrc(t, lostUpdate, lang.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	r, err := Engine{}.Check(ctx, p)
	if err != nil || r.Verdict != verify.Unknown || r.Note == "" {
		t.Fatalf("result %+v, error %v", r, err)
	}
}

// TestStoppedReached checks that a run stopped after it has shown that no
// violation exists up to some depth says so (verify.Outcome.Reached): here
// the context is cancelled once progress reports depth 3.
func TestStoppedReached(t *testing.T) {
	p := compileSrc(t, `shared int f; thread a { while (f == 0) { yield; } } thread b { f = 1; }`, lang.Config{})
	for _, c := range combos(t) {
		ctx, cancel := context.WithCancel(context.Background())
		opts := verify.Options{Depth: 50, Progress: func(s *verify.Stats) {
			if s.Depth >= 3 {
				cancel()
			}
		}}
		r, err := Engine{Options: opts, Solver: c.solver, Encoding: c.encoding, POR: c.por}.Check(ctx, p)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if r.Verdict != verify.Unknown || r.Reached <= 0 ||
			!strings.HasPrefix(r.Note, fmt.Sprintf("stopped: context canceled; no violation in executions of up to %d steps", r.Reached)) {
			t.Errorf("%s: %s (%s)", c, r.Verdict, r.Note)
		}
		// The partial-order encoding also says how far each thread was
		// unrolled: a, whose loop has no static bound, at least Reached
		// steps; b all of its one step.
		if c.encoding == "partial-order" && r.Reached < 50 {
			if len(r.Unrolling) != 2 || r.Unrolling[0].Thread != "a" || r.Unrolling[0].Steps < r.Reached ||
				r.Unrolling[1].Thread != "b" || r.Unrolling[1].Steps != 1 {
				t.Errorf("%s: unrolling %v, want a at least %d steps, b 1", c, r.Unrolling, r.Reached)
			}
		} else if len(r.Unrolling) > 0 {
			t.Errorf("%s: unrolling %v from the step encoding", c, r.Unrolling)
		}
	}
}

// TestOptionsErrors checks the names New accepts and the unsupported construct.
func TestOptionsErrors(t *testing.T) {
	if _, err := New(verify.Options{}, "minisat", "", "none", false); err == nil {
		t.Error("unknown solver accepted")
	}
	if _, err := New(verify.Options{}, "gini", "", "sleep", false); err == nil {
		t.Error("unknown reduction accepted")
	}
	if _, err := New(verify.Options{}, "gini", "interleaving", "none", false); err == nil {
		t.Error("unknown encoding accepted")
	}
	for _, s := range Solvers() {
		for _, enc := range Encodings() {
			for _, por := range PORs() {
				if _, err := New(verify.Options{}, s, enc, por, false); err != nil {
					t.Errorf("New(%s, %s, %s): %v", s, enc, por, err)
				}
			}
		}
	}
	// Without the Z3 binding (a build without cgo) asking for it is an error
	// that says why; with it, z3 works like gini.
	p := compileSrc(t, lostUpdate, lang.Config{})
	r, err := Engine{Solver: "z3"}.Check(context.Background(), p)
	if z3.Available() != (err == nil) {
		t.Errorf("z3 available %v: result %v, error %v", z3.Available(), r, err)
	}
	if err != nil && !strings.Contains(err.Error(), "gini") {
		t.Errorf("z3 unavailable: %v", err)
	}
}

// TestNames checks that a program's names cannot clash with the encoding's own
// variables (a shared h or sel, held as bit-vectors after an unbounded nondet)
// or with each other (two locals of one name in sibling blocks hold different
// values in one state).
func TestNames(t *testing.T) {
	src := `
shared int h;
shared int sel;
thread a {
    h = nondet();
    sel = nondet();
    int r = 0;
    { int i = sel - h + 1; r = r + i; }
    { int i = sel - h + 2; r = r + i; }
    h = r;
    assert(h != 3 || sel != 0, "reached");
}
`
	p := compileSrc(t, src, lang.Config{})
	for _, c := range combos(t) {
		r, err := Engine{Solver: c.solver, Encoding: c.encoding, POR: c.por}.Check(context.Background(), p)
		if err != nil || r.Verdict != verify.Unsafe || len(r.Trace) != 6 {
			t.Errorf("%s: %v %v", c, r, err)
		}
	}
}

// TestCellsOfOneName: two shared variables of one name (the Go front end
// names every object of one allocation site after the site) are two cells,
// on every combination; they once shared their solver variables, so that a
// step could write one only if another wrote the other.
func TestCellsOfOneName(t *testing.T) {
	p, err := lang.Compile("test.kb", []byte(`
shared int x; shared int y;
thread a { x = 1; }
thread b { y = 1; }
thread c { int v = x; assert(v == 0 || y == 1, "x before y"); }`), lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p.Shared[1].Name = p.Shared[0].Name
	if p.LocationName(0) != p.LocationName(1) {
		t.Fatalf("cells named %s and %s", p.LocationName(0), p.LocationName(1))
	}
	for _, c := range combos(t) {
		r, err := symbolicRun(p, verify.Options{}, c, time.Minute)
		if err != nil || outcomeOf(r) != (outcome{verify.Unsafe, ir.Assertion}) {
			t.Errorf("%s: %v, %v; want an assertion violation", c, r, err)
		}
	}
}
