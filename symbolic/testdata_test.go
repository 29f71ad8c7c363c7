package symbolic

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kbmc/gofront"
	"kbmc/internal/annotation"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

var heavy = flag.Bool("symbolic.heavy", false, "TestTestdata: also run the combinations listed in tooBig; TestTestdata and TestRandom: the portfolio in every combination and on every seed")

// tooBig lists the testdata programs and reductions that take the symbolic
// engine longer than the default test run can afford, and why. They run with
// -symbolic.heavy.
var tooBig = map[string]map[string]string{
	"thesis-indexer.kb": {
		"none": "two indexers of 10 steps each have C(20,10) = 184,756 interleavings; without a reduction " +
			"refuting the 20 depths takes 80 s (z3) to 2 min (gini) on an idle machine, several times " +
			"that under load (peephole and monotonic take 2-6 s)",
	},
	"c-malloc-list.c": {
		"none": "two threads push a malloc'd node each, main walks the list: without a reduction each " +
			"depth refutes every interleaving of the allocations, locks and links, 20 s (gini) to 80 s (z3) " +
			"under load (peephole and monotonic take 3-5 s, the partial-order encoding under 1 s)",
	},
	"dist-2pc-invariant.kb": {
		"none": "a safe protocol whose invariants read every participant's memory, so that each write " +
			"of it is a step: without a reduction refuting every depth to the end takes 11-15 s under load " +
			"(peephole and monotonic 2-5 s; the partial-order encoding refuses invariants)",
	},
}

// TestTestdata runs every testdata program that is not expected to be rejected on
// every solver × reduction combination and compares verdict and violation kind
// with the reference DFS (the //@ annotations, docs/language.md §14).
func TestTestdata(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "*.kb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata programs: %v", err)
	}
	cs := combos(t)
	limit := 2 * time.Minute
	if *heavy {
		limit = 90 * time.Minute
	}
	programs, runs := 0, 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		a, err := annotation.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if a.Expect == "error" || !forSymbolic(a.Engines) {
			continue
		}
		flags, err := annotation.ParseArgs(a.Args)
		if err != nil {
			t.Fatalf("%s: //@ args: %v", file, err)
		}
		programs++
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			p, err := lang.Compile(name, src, flags.Config)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			opts := verify.Options{Depth: flags.Depth, NoDeadlock: flags.NoDeadlock}
			ref, err := dfs(context.Background(), p, opts)
			if err != nil {
				t.Fatalf("dfs: %v", err)
			}
			for _, c := range cs {
				t.Run(c.String(), func(t *testing.T) {
					if why, ok := tooBig[name][c.variant()]; ok && !*heavy {
						t.Skipf("too big for the default run (-symbolic.heavy runs it): %s", why)
					}
					if c.solver == "portfolio" && c.variant() == "none" && !*heavy {
						// The step encoding without a reduction is where the
						// testdata's slowest runs are (local-arrays: 15-18 s on
						// either solver), and the portfolio runs both solvers.
						// TestRandom covers it on every combination.
						t.Skip("portfolio without a reduction: in -symbolic.heavy and in TestRandom")
					}
					runs++
					r, err := symbolicRun(p, opts, c, limit)
					var unsup *verify.UnsupportedError
					if len(p.Invariants) > 0 && c.encoding == "partial-order" {
						// It refuses invariants (TestInvariants): nothing else to compare.
						if !errors.As(err, &unsup) {
							t.Fatalf("the partial-order encoding on a program with invariants: %v, %v; want a refusal", r, err)
						}
						return
					}
					if usesRendezvous(p) && c.encoding == "partial-order" {
						// A rendezvous step moves two threads, which one
						// event does not express: it must refuse it by name
						// (the default encoding falls back to the step
						// encoding, which encodes it).
						if !errors.As(err, &unsup) || !strings.Contains(unsup.Msg, "rendezvous") {
							t.Fatalf("the partial-order encoding on a rendezvous channel: %v, %v; want a refusal", r, err)
						}
						return
					}
					if hasClose(p) && c.encoding == "partial-order" {
						// Its numbered messages cannot express a receive
						// of no message: it must refuse a closed channel
						// by name (the default encoding falls back to the
						// step encoding).
						if !errors.As(err, &unsup) || !strings.Contains(unsup.Msg, "closed by a close") {
							t.Fatalf("the partial-order encoding on a closed channel: %v, %v; want a refusal", r, err)
						}
						return
					}
					if hasUnordered(p) && c.encoding == "partial-order" {
						// Its numbered messages cannot express an unordered
						// channel: it must refuse it by name.
						if !errors.As(err, &unsup) || !strings.Contains(unsup.Msg, "unordered") {
							t.Fatalf("the partial-order encoding on an unordered channel: %v, %v; want a refusal", r, err)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if err := agree(p, opts, c, ref, r, limit); err != nil {
						t.Fatal(err)
					}
					t.Logf("%s at depth %d: %d variables, %d clauses, %d solver calls, %v", outcomeOf(r), r.Stats.Depth,
						r.Stats.Variables, r.Stats.Clauses, r.Stats.SolverCalls, r.Stats.Time.Round(time.Millisecond))
				})
			}
		})
	}
	t.Logf("%d programs × %d combinations: %d runs", programs, len(cs), runs)
}

// forSymbolic reports whether a program's //@ engines: list (none: every engine)
// names a symbolic engine.
func forSymbolic(engines []string) bool {
	if len(engines) == 0 {
		return true
	}
	for _, e := range engines {
		if strings.HasPrefix(e, "symbolic") {
			return true
		}
	}
	return false
}

// hasUnordered reports whether p has an unordered channel, which the
// partial-order encoding refuses (encode.NewPartialOrder).
func hasUnordered(p *ir.Program) bool {
	return slices.ContainsFunc(p.Channels, func(c *ir.Channel) bool { return c.Unordered })
}

// hasClose reports whether some close names a channel of p, which the
// partial-order encoding refuses (encode.NewPartialOrder).
func hasClose(p *ir.Program) bool {
	return slices.ContainsFunc(p.Channels, func(c *ir.Channel) bool { return c.Closable })
}

// channelKinds reports which of select, lossy and unordered channels p uses.
func channelKinds(p *ir.Program) (sel, lossy, unordered bool) {
	for _, ch := range p.Channels {
		lossy = lossy || ch.Lossy
		unordered = unordered || ch.Unordered
	}
	for _, tm := range p.Templates {
		for _, n := range tm.Nodes {
			sel = sel || n.Op == ir.OpSelect
		}
	}
	return sel, lossy, unordered
}

// tooBigGo lists the Go programs TestGoTestdata runs only with
// -symbolic.heavy, and why.
var tooBigGo = map[string]string{
	"index-range-fixed.go": "three goroutines of 14 steps each over one slice: 27 s with gini alone on an idle machine, Z3 over 2 min",
	"nil-map-fixed.go":     "a map's buckets written by two goroutines: 42 s with gini on an idle machine",
	"nil-channel-select-fixed.go": "a merge loop over two rendezvous channels with closes: over 5 min with gini " +
		"(its //@ engines leave the symbolic engine out; dfs needs over 2 min too)",
	"double-close-fixed.go": "rendezvous and closes under a sync.Once: 41 s with gini under load",
	"nil-channel-select-bug.go": "the leak is 31 steps deep: 43-60 s with gini, 100 s under load " +
		"(as long with buffered channels)",
}

// TestGoTestdata runs the symbolic engine, as kbmc check runs it by default
// (gini and Z3, the default encoding), on every Go program of testdata/go
// and compares its verdict and violation kind with the program's //@
// annotations, which the explicit engine's regression run checks too
// (tooBigGo's with -symbolic.heavy, which adds Z3).
func TestGoTestdata(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "go", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go testdata programs: %v", err)
	}
	solvers := []string{"gini"}
	if *heavy {
		solvers = append(solvers, "z3")
	}
	var cs []combo
	for _, s := range solvers {
		if err := solverAvailable(s); err != nil {
			t.Logf("solver %s is not available in this build: %v", s, err)
			continue
		}
		cs = append(cs, combo{s, "", "monotonic"})
	}
	checked, rendezvous := 0, 0
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			if why, ok := tooBigGo[name]; ok && !*heavy {
				t.Skipf("too big for the default run (-symbolic.heavy runs it): %s", why)
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a, err := annotation.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			// --entry is the Go front end's, which annotation.ParseArgs
			// does not take.
			args, entry := a.Args, ""
			if i := slices.Index(args, "--entry"); i >= 0 && i+1 < len(args) {
				entry = args[i+1]
				args = slices.Delete(slices.Clone(args), i, i+2)
			}
			flags, err := annotation.ParseArgs(args)
			if err != nil {
				t.Fatalf("//@ args: %v", err)
			}
			res, err := gofront.Compile(file, gofront.Config{Entry: entry})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			p := res.Program
			opts := verify.Options{Depth: flags.Depth, NoDeadlock: flags.NoDeadlock}
			if opts.Depth == 0 {
				opts.Depth = gofront.DefaultDepth
			}
			for _, c := range cs {
				r, err := symbolicRun(p, opts, c, 2*time.Minute)
				if err != nil {
					t.Errorf("%s: %v", c.solver, err)
					continue
				}
				checked++
				if usesRendezvous(p) {
					rendezvous++
				}
				got := outcomeOf(r)
				if got.verdict.String() != a.Expect || a.Expect == "unsafe" && got.kind.String() != a.Violation {
					t.Errorf("%s: %s, the program says %s %s", c.solver, got, a.Expect, a.Violation)
				}
			}
		})
	}
	t.Logf("%d runs checked, %d with a rendezvous", checked, rendezvous)
}
