package explicit

import (
	"flag"
	"fmt"
	"kbmc/internal/progen"
	"slices"
	"strings"
	"testing"
	"time"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// coverageRun runs algo with coverage on p and returns its result.
func coverageRun(t *testing.T, algo string, opts Options, p *ir.Program) *verify.Result {
	t.Helper()
	opts.Coverage = true
	e, err := New(algo, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := porRun(t, e, p)
	if r.Coverage == nil {
		t.Fatalf("%s: no coverage in the result", algo)
	}
	return r
}

// unexecuted lists the statements a result's coverage never executed, as
// "template line:col text".
func unexecuted(p *ir.Program, c *verify.Coverage) []string {
	var out []string
	for _, st := range c.Statements(p) {
		if !st.Executed {
			out = append(out, fmt.Sprintf("%s %s %s", st.Template, st.Pos, st.Text))
		}
	}
	return out
}

// TestCoverageDeadCode: a statement behind a condition no execution meets is
// listed, the live ones are not, by every algorithm, sequential and parallel;
// a depth bound that cuts the loop leaves the code after it unexecuted too.
func TestCoverageDeadCode(t *testing.T) {
	const src = `process node[2] {
    shared int x = 0;
    thread a {
        int i = 0;
        while (i < 2) {
            x = x + 1;
            i = i + 1;
        }
        if (x > 10) {
            x = 0;
        }
    }
}
`
	p := porCompile(t, "dead", src, lang.Config{})
	full := []string{"node.a 10:13 x = 0"}
	for _, algo := range Algorithms() {
		for _, workers := range []int{1, 2} {
			for _, tc := range []struct {
				depth int
				want  []string
			}{
				{100, full},
				{3, []string{"node.a 9:9 if (x > 10)", "node.a 10:13 x = 0"}},
			} {
				t.Run(fmt.Sprintf("%s/workers=%d/depth=%d", algo, workers, tc.depth), func(t *testing.T) {
					opts := Options{Workers: workers, Stateful: algo == "dfs", Preemptions: 2, Fair: 2}
					opts.Depth = tc.depth
					r := coverageRun(t, algo, opts, p)
					if got := unexecuted(p, r.Coverage); !slices.Equal(got, tc.want) {
						t.Errorf("never executed: %q, want %q", got, tc.want)
					}
				})
			}
		}
	}
}

// TestCoverageCounts: three threads that each write their own variable once
// make a cube of 8 states and 12 steps. dfs --stateful takes every step once
// (13 states generated with the initial one, 8 distinct); stateless dfs
// explores the tree of the 3! executions, whose nodes are 1 + 3 + 3·2 + 3·2·1
// (16 generated, distinct not known); both reach depth 3, the diameter.
func TestCoverageCounts(t *testing.T) {
	const src = `shared int x = 0; shared int y = 0; shared int z = 0;
thread a { x = 1; }
thread b { y = 1; }
thread c { z = 1; }
`
	p := porCompile(t, "cube", src, lang.Config{})
	for _, tc := range []struct {
		name                string
		stateful            bool
		generated, distinct int64
	}{
		{"stateful", true, 13, 8},
		{"stateless", false, 16, -1},
	} {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				r := coverageRun(t, "dfs", Options{Stateful: tc.stateful, Workers: workers}, p)
				c := r.Coverage
				if c.Generated != tc.generated || c.Distinct != tc.distinct || c.Diameter != 3 {
					t.Errorf("generated %d, distinct %d, diameter %d; want %d, %d, 3",
						c.Generated, c.Distinct, c.Diameter, tc.generated, tc.distinct)
				}
				if got := unexecuted(p, c); len(got) != 0 {
					t.Errorf("never executed: %q", got)
				}
			})
		}
	}
}

// TestCoverageAgreesWithDFS: on every program of ../testdata whose full search
// ends safe (no bound cut it, no violation stopped it), the statements dfs
// executes are the statements every exact reduction executes
// (docs/explicit.md, "Coverage"): a statement some execution runs is run by a
// maximal execution, and the reductions explore a representative of every
// maximal execution's trace, which runs the same steps. The stateless ones
// reach the same diameter.
func TestCoverageAgreesWithDFS(t *testing.T) {
	for _, td := range readTestdata(t) {
		name := strings.TrimSuffix(td.path[strings.LastIndex(td.path, "/")+1:], ".kb")
		t.Run(name, func(t *testing.T) {
			p, err := lang.Compile(td.path, td.src, td.cfg)
			if err != nil {
				t.Fatal(err)
			}
			opts := td.opts
			opts.Workers = 1
			start := time.Now()
			ref := coverageRun(t, "dfs", opts, p)
			if ref.Verdict != verify.Safe || time.Since(start) > 2*time.Second {
				t.Skipf("dfs: %s in %v: coverage is compared on safe programs dfs searches quickly", ref.Verdict, time.Since(start))
			}
			want := unexecuted(p, ref.Coverage)
			for _, algo := range coverageExact {
				if algo == "lazypor" && refusesRendezvousChoice(t, p) {
					continue
				}
				for _, workers := range []int{1, 2} {
					o := opts
					o.Workers = workers
					r := coverageRun(t, algo, o, p)
					if r.Verdict != verify.Safe {
						t.Errorf("%s: %s where dfs is safe", algo, r.Verdict)
						continue
					}
					if got := unexecuted(p, r.Coverage); !slices.Equal(got, want) {
						t.Errorf("%s on %d workers: never executed %q; dfs: %q", algo, workers, got, want)
					}
					// The stateless reductions explore an execution of every
					// maximal trace, so the longest one too.
					if (algo == "dpor" || algo == "lazypor") && r.Coverage.Diameter != ref.Coverage.Diameter {
						t.Errorf("%s on %d workers: diameter %d; dfs: %d", algo, workers, r.Coverage.Diameter, ref.Coverage.Diameter)
					}
				}
			}
		})
	}
}

// coverageExact are the algorithms whose coverage of a full safe search is
// dfs's (docs/explicit.md, "Coverage").
var coverageExact = []string{"dfs", "dpor", "lazypor", "persistent", "process-local"}

var coverageSeeds = flag.Int("coverage.seeds", 300, "TestCoverageGenerated compares coverage on the generated programs of seeds 0..N-1 of each family")

// TestCoverageGenerated is TestCoverageAgreesWithDFS on generated programs
// (the differential harness's two families), with deadlocks not reported so
// that more of them are safe.
func TestCoverageGenerated(t *testing.T) {
	compared := 0
	for _, fam := range []family{classicFamily, channelFamily} {
		for seed := range uint64(*coverageSeeds) {
			cfg, depth := diffConfig(fam, seed)
			src := progen.Generate(seed, cfg)
			p, err := lang.Compile(fmt.Sprintf("seed%d.kb", seed), []byte(src), lang.Config{Width: cfg.Width, NoFold: cfg.NoFold})
			if err != nil {
				t.Fatalf("%s seed %d: %v", fam, seed, err)
			}
			var opts Options
			opts.Depth, opts.NoDeadlock, opts.Workers = depth, true, 1
			ref := coverageRun(t, "dfs", opts, p)
			if ref.Verdict != verify.Safe {
				continue
			}
			compared++
			want := unexecuted(p, ref.Coverage)
			for _, algo := range coverageExact[1:] {
				r := coverageRun(t, algo, opts, p)
				if got := unexecuted(p, r.Coverage); r.Verdict != verify.Safe || !slices.Equal(got, want) {
					t.Errorf("%s seed %d, %s: %s, never executed %q; dfs: never executed %q\nprogram:\n%s", fam, seed, algo, r.Verdict, got, want, src)
				}
			}
		}
	}
	t.Logf("%d safe programs compared", compared)
}

// TestCoverageAllocatesNothingPerStep: a run with coverage allocates what one
// without does, and a constant more (the workers' bitsets, the merged
// result), however many steps it takes.
func TestCoverageAllocatesNothingPerStep(t *testing.T) {
	const src = `shared int x = 0;
thread w[2] {
    for (int i = 0; i < 2; i++) {
        int v = nondet(0, 1);
        if (v == 1) { x = x + 1; } else { x = x - 1; }
    }
}
`
	p := porCompile(t, "steps", src, lang.Config{})
	allocs := func(coverage bool) (float64, int64) {
		var steps int64
		a := testing.AllocsPerRun(3, func() {
			e, err := New("dfs", Options{Workers: 1, Coverage: coverage})
			if err != nil {
				t.Fatal(err)
			}
			r := porRun(t, e, p)
			steps = r.Stats.Transitions
		})
		return a, steps
	}
	without, steps := allocs(false)
	with, _ := allocs(true)
	if steps < 10000 {
		t.Fatalf("only %d steps: the test needs many more steps than allocations", steps)
	}
	t.Logf("%d steps: %.0f allocations without coverage, %.0f with it", steps, without, with)
	if with-without > 100 {
		t.Errorf("coverage costs %.0f allocations over %d steps (%.0f without it)", with-without, steps, without)
	}
}
