package explicit

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// TestWorkersAndShardsOnTestdata runs every algorithm on every testdata program three ways —
// sequentially, on two workers, and split into three shards combined as kbmc merge
// combines them — and requires one verdict from all three, and for the stateless
// dfs the very same executions (its subtrees are disjoint: their number and the
// longest); the bounded
// algorithms may say bounded-safe where the sequential run says safe. dfs
// --stateful on two workers shares one visited store: when no violation ends the
// run early, it must store the sequential run's states and say why it is bounded
// as that run does (the cut's note, a cycle). The differential test does the same
// on generated programs, with terminal states.
func TestWorkersAndShardsOnTestdata(t *testing.T) {
	type way struct {
		name string
		mk   func(algo string, o Options) (verify.Engine, error)
	}
	ways := []way{
		{"workers=2", func(algo string, o Options) (verify.Engine, error) { o.Workers = 2; return New(algo, o) }},
		{"shards=3", func(algo string, o Options) (verify.Engine, error) { return shardedMaker(algo, 3, false)(o) }},
	}
	bounded := map[string]bool{"bpor-preempt": true, "bpor-fair": true}
	for _, td := range readTestdata(t) {
		p, err := lang.Compile(td.path, td.src, td.cfg)
		if err != nil {
			t.Fatalf("%s: %v", td.path, err)
		}
		for _, algo := range []string{"dfs", "dfs-stateful", "dpor", "lazypor", "persistent", "process-local", "bpor-preempt", "bpor-fair"} {
			name := filepath.Base(td.path) + "/" + algo
			opts := td.opts
			stateful := algo == "dfs-stateful"
			if stateful {
				algo, opts.Stateful = "dfs", true
			}
			// The sequential run gets 20 s, which only picks the programs
			// compared; the others run until they end (untilHang).
			check := func(eng verify.Engine, ref bool) *verify.Result {
				var r *verify.Result
				var err error
				if ref {
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					r, err = eng.Check(ctx, p)
					cancel()
				} else {
					r, err = untilHang(t, name, eng, p)
				}
				if err != nil {
					if _, unsupported := err.(*verify.UnsupportedError); !unsupported {
						t.Errorf("%s: %v", name, err)
					}
					return nil
				}
				return r
			}
			seq, err := New(algo, opts)
			if err != nil {
				t.Fatal(err)
			}
			ref := check(seq, true)
			if ref == nil || ref.Verdict == verify.Unknown {
				continue
			}
			for _, w := range ways {
				eng, err := w.mk(algo, opts)
				if err != nil {
					t.Fatal(err)
				}
				got := check(eng, false)
				switch {
				case got == nil:
				case bounded[algo] && got.Verdict == verify.BoundedSafe && ref.Verdict == verify.Safe:
					// The frontier cuts every prefix past the preemption bound;
					// the sequential search knows when the cut one was redundant.
					// Weaker, never wrong.
				case got.Verdict != ref.Verdict:
					t.Errorf("%s %s: %s; sequential: %s", name, w.name, verdictString(got), verdictString(ref))
				case algo == "dfs" && !stateful && got.Verdict != verify.Unsafe && got.Stats.Executions != ref.Stats.Executions:
					t.Errorf("%s %s: %d executions; sequential: %d", name, w.name, got.Stats.Executions, ref.Stats.Executions)
				case algo == "dfs" && !stateful && got.Verdict != verify.Unsafe && got.Stats.Longest != ref.Stats.Longest:
					t.Errorf("%s %s: the longest execution has %d steps; sequential: %d", name, w.name, got.Stats.Longest, ref.Stats.Longest)
				case stateful && w.name == "workers=2" && got.Verdict != verify.Unsafe:
					if d := sharedDiff(got, ref); d != "" {
						t.Errorf("%s %s: %s", name, w.name, d)
					}
				}
			}
		}
	}
}

// sharedDiff says how a run of dfs --stateful on workers sharing one visited
// store (got) differs from the sequential run (ref) where it must not: the
// states stored, the note of a bounded verdict and whether a cycle was met.
func sharedDiff(got, ref *verify.Result) string {
	switch {
	case got.Stats.States != ref.Stats.States:
		return fmt.Sprintf("%d states; sequential: %d", got.Stats.States, ref.Stats.States)
	case got.Note != ref.Note:
		return fmt.Sprintf("note %q; sequential: %q", got.Note, ref.Note)
	case got.Cycle != ref.Cycle:
		return fmt.Sprintf("cycle %v; sequential: %v", got.Cycle, ref.Cycle)
	}
	return ""
}

// TestSharedVisitedStress runs dfs --stateful on several workers sharing one
// visited store, again and again, on programs whose subtrees converge, with and
// without cycles and cuts, and requires what the sequential run says: the
// verdict, and when no violation ends the run early the states, the note and
// the cycle (sharedDiff). Run it with -race.
func TestSharedVisitedStress(t *testing.T) {
	reps := 6
	if testing.Short() {
		reps = 2
	}
	for _, tc := range []struct {
		family string
		n      int64
		depth  int
	}{
		{"two-phase-commit", 3, 60}, // safe, converging
		{"token-ring", 3, 60},       // cut by the depth bound
		{"peterson", 2, 60},         // cycles
		{"dekker", 2, 40},
		{"spinlock", 3, 60},
		{"fib-bench", 3, 60}, // unsafe
	} {
		t.Run(fmt.Sprintf("%s/N=%d", tc.family, tc.n), func(t *testing.T) {
			p := loadFamily(t, tc.family, tc.n, false)
			o := Options{Stateful: true}
			o.Depth = tc.depth
			ref, err := DFS{Options: o}.Check(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []int{2, 3, 8} {
				for range reps {
					ow := o
					ow.Workers = w
					eng, err := New("dfs", ow)
					if err != nil {
						t.Fatal(err)
					}
					got, err := eng.Check(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case got.Verdict != ref.Verdict:
						t.Fatalf("%d workers: %s; sequential: %s", w, verdictString(got), verdictString(ref))
					case got.Verdict == verify.Unsafe:
					default:
						if d := sharedDiff(got, ref); d != "" {
							t.Fatalf("%d workers: %s", w, d)
						}
					}
				}
			}
		})
	}
}

// TestSharedVisitedUnderWayElsewhere runs a search on a store where every state
// it will reach is being explored by another worker that has not finished
// (stored, its active bit set, nothing published): the search must not skip
// any of them, nor take them for a cycle, and must say what the sequential
// search says. Every state past the first is put off once and explored when
// its siblings have been (dfsSearch.resume), so this also checks that the
// heights, verdicts and counterexamples (replayed by the engine) survive that.
func TestSharedVisitedUnderWayElsewhere(t *testing.T) {
	for _, td := range readTestdata(t) {
		p, err := lang.Compile(td.path, td.src, td.cfg)
		if err != nil {
			t.Fatalf("%s: %v", td.path, err)
		}
		name := filepath.Base(td.path)
		o := td.opts
		o.Stateful = true
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		ref, err := DFS{Options: o}.Check(ctx, p)
		cancel()
		if err != nil || ref.Verdict == verify.Unknown {
			continue
		}
		// Every state the search reaches: those a first search stores.
		first := newSharedVisited[struct{}](1)
		if _, err := runSearches(context.Background(), p, "dfs", DFS{Options: o}, &sharing{workers: 1, visited: first}, []*task{{}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		elsewhere := newSharedVisited[struct{}](1)
		first.each(func(s ir.State) {
			e, _ := elsewhere.visit(s, 0)
			e.active.Or(1 << 63) // worker 63, under way
		})
		got, err := runSearches(context.Background(), p, "dfs", DFS{Options: o}, &sharing{workers: 1, visited: elsewhere}, []*task{{}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch {
		case got.Verdict != ref.Verdict:
			t.Errorf("%s: %s; sequential: %s", name, verdictString(got), verdictString(ref))
		case got.Verdict != verify.Unsafe && (got.Note != ref.Note || got.Cycle != ref.Cycle):
			t.Errorf("%s: note %q, cycle %v; sequential: %q, %v", name, got.Note, got.Cycle, ref.Note, ref.Cycle)
		}
	}
}

// runSharded runs every part of algo's search split into parts shards and
// combines them as kbmc merge does (shardedMaker), collecting the terminal states.
func runSharded(t *testing.T, algo string, o Options, p *ir.Program, parts int, eager bool) (*verify.Result, *terminalSet) {
	t.Helper()
	terms := newTerminalSet()
	o.Terminal = terms.add
	eng, _ := shardedMaker(algo, parts, eager)(o)
	r, err := untilHang(t, fmt.Sprintf("%s in %d parts", algo, parts), eng, p)
	if err != nil {
		t.Fatalf("%s: %v", algo, err)
	}
	return r, terms
}

// TestStealing runs DPOR and BPOR on workers that share one search (steal.go) on
// every testdata program and on small bench programs, with the workers giving
// work away at every chance (eagerSteal: thousands of tasks, shared states at
// every depth), on one worker (the same code, deterministic: it takes back
// what it gave) and on three; and as three parts of a sharded run whose
// search is split every 64 transitions (splitSearch), each part on two workers. The reachable terminal states and deadlocks must
// be the sequential search's: for DPOR dfs's when both are safe (nothing
// missed, nothing invented), for BPOR the sequential BPOR's, whose bound the
// shared search keeps exactly; and the verdicts the sequential ones. -short
// leaves out the bench programs.
func TestStealing(t *testing.T) {
	type program struct {
		name string
		p    *ir.Program
		opts Options
	}
	var progs []program
	for _, td := range readTestdata(t) {
		p, err := lang.Compile(td.path, td.src, td.cfg)
		if err != nil {
			t.Fatalf("%s: %v", td.path, err)
		}
		progs = append(progs, program{filepath.Base(td.path), p, td.opts})
	}
	benches := []struct {
		file string
		n    int64
	}{{"branching", 4}, {"readers-writers", 3}, {"two-phase-commit", 2}, {"philosophers", 3}}
	if testing.Short() {
		benches = nil // testdata only (make race)
	}
	for i, src := range traceRevealing {
		o := Options{}
		o.Depth = 200
		progs = append(progs, program{fmt.Sprintf("trace-revealing-%d", i), porCompile(t, "trace-revealing", src, lang.Config{}), o})
	}
	for _, b := range benches {
		p := loadFamily(t, b.file, b.n, false)
		o := Options{}
		o.Depth = 200
		progs = append(progs, program{fmt.Sprintf("%s N=%d", b.file, b.n), p, o})
	}
	run := func(algo string, o Options, p *ir.Program) (*verify.Result, *terminalSet) {
		terms := newTerminalSet()
		o.Terminal = terms.add
		eng, err := New(algo, o)
		if o.Workers > 0 {
			eng, err = newEager(algo, o) // one worker: the parallel search all the same
		}
		if err != nil {
			t.Fatal(err)
		}
		r, err := untilHang(t, fmt.Sprintf("%s on %d workers", algo, o.Workers), eng, p)
		if err != nil {
			if _, unsupported := err.(*verify.UnsupportedError); unsupported {
				return nil, nil
			}
			t.Fatalf("%s: %v", algo, err)
		}
		return r, terms
	}
	tasks := 0
	for _, pr := range progs {
		ref, refTerms := run("dfs", pr.opts, pr.p)
		for _, algo := range []string{"dpor", "bpor-preempt", "bpor-fair"} {
			seq, seqTerms := run(algo, pr.opts, pr.p)
			if seq == nil || seq.Verdict == verify.Unknown {
				continue
			}
			for _, workers := range []int{1, 3, -3} {
				o := pr.opts
				o.Workers = workers
				name := fmt.Sprintf("%s/%s/workers=%d", pr.name, algo, workers)
				var got *verify.Result
				var gotTerms *terminalSet
				if workers < 0 {
					// Three parts of a sharded run, split every 64 transitions,
					// each on two workers.
					o.Workers = 2
					name = fmt.Sprintf("%s/%s/shards=3", pr.name, algo)
					got, gotTerms = runSharded(t, algo, o, pr.p, 3, true)
				} else {
					got, gotTerms = run(algo, o, pr.p)
				}
				tasks += got.Subtrees
				weaker := workers < 0 && algo != "dpor" && got.Verdict == verify.BoundedSafe && seq.Verdict == verify.Safe
				switch {
				case got.Verdict != seq.Verdict && !weaker:
					// (A sharded BPOR run's frontier cuts every prefix past the
					// bound, where the sequential search can tell that one it
					// cut was redundant: bounded-safe for safe, weaker, never
					// wrong.)
					t.Errorf("%s: %s; sequential: %s", name, verdictString(got), verdictString(seq))
				case got.Verdict == verify.Unsafe:
				case algo == "dpor" && ref != nil && ref.Verdict == verify.Safe:
					if d := refTerms.diff(pr.p, gotTerms, "dfs", name); d != "" {
						t.Errorf("%s: %s", name, d)
					}
				case algo != "dpor":
					if d := seqTerms.diff(pr.p, gotTerms, "sequential "+algo, name); d != "" {
						t.Errorf("%s: %s", name, d)
					}
					// BPOR has no sleep sets: which thread runs where does not
					// depend on the order the workers explore in, so one search
					// shared by workers runs exactly the sequential executions.
					// (A sharded run's frontier explores a state reached by two
					// prefixes once, so its parts may run fewer.)
					if workers > 0 && got.Stats.Executions != seq.Stats.Executions {
						t.Errorf("%s: %d executions; sequential: %d", name, got.Stats.Executions, seq.Stats.Executions)
					}
				}
			}
		}
	}
	t.Logf("%d programs, %d tasks handed out", len(progs), tasks)
	if tasks < 10*len(progs) {
		t.Errorf("only %d tasks on %d programs: the workers hardly gave work away", tasks, len(progs))
	}
}

// traceRevealing are programs whose threads write values no other write writes
// and keep every value they read, so that nearly every two executions that are
// not equivalent (that order some dependent steps differently) end in different
// states: a search that loses an execution loses a terminal state, which
// programs whose executions mostly end alike (testdata) do not show. (The
// second caught a search that gave work away from a state where it was running
// a thread with a nondet draw and put that thread to sleep below its own other
// values.)
var traceRevealing = []string{`
shared int x = 0;
shared int y = 0;
thread t[3] {
    int a = x;
    x = tid * 10 + 1;
    int b = y;
    y = tid * 10 + 2;
    int c = x + y;
}
`, `
shared int a[2];
thread t[3] {
    int r0 = a[tid % 2];
    a[tid % 2] = tid + 10;
    int r1 = a[(tid + 1) % 2];
    int r2 = nondet(0, 1);
    a[r2] = tid + 20;
}
`, `
shared int x = 0;
shared int seen = 0;
mutex m;
thread t[3] {
    lock(m);
    int a = x;
    x = tid + 1;
    unlock(m);
    int b = x;
    if (cas(seen, 0, tid + 1)) {
        b = b + 100;
    }
    int c = seen;
}
`}

// TestShardedPhasesAtTheBound runs persistent and process-local split into
// parts on programs whose violation is reachable in exactly as many steps as
// the bound allows, and at every depth beyond up to the program's longest
// execution: every split must find it. A part decides whether its bounded
// phase runs from its own exhaustive subtrees; when each phase had a frontier
// of its own, a part whose exhaustive subtrees were all short ended there, and
// its share of the bounded phase went unexplored (a wrong bounded-safe).
func TestShardedPhasesAtTheBound(t *testing.T) {
	programs := map[string]string{
		// One message, taken by a receiver whose check it breaks.
		"one-message": `chan (int) c capacity 1;
process sender { thread t { for (int i = 0; i < 1; i++) { send(c, 3); } } }
process receiver {
    shared int seen;
    thread t { int m; recv(c, m); assert(seen + m == 0, "a message arrived"); }
}`,
		// A blocking guard before the send, and an idle process beside.
		"guarded-send": `chan (int, int) c capacity 2;
process a {
    shared int n;
    thread t { atomic { await(n < 2); n++; } send(c, pid, n); }
}
process b {
    shared int last;
    thread t { int from; int v; recv(c, from, v); last = v; assert(last != 1, "first message"); }
}
process idle { shared bool f; thread t { f = true; yield; f = false; } }`,
	}
	for name, src := range programs {
		p := porCompile(t, name, src, lang.Config{})
		least := 0
		for d := 1; d <= 30 && least == 0; d++ {
			if porCheck(t, DFS{Options: Options{Options: verify.Options{Depth: d}}}, p).Verdict == verify.Unsafe {
				least = d
			}
		}
		if least == 0 {
			t.Fatalf("%s: no violation within 30 steps", name)
		}
		for d := least; d <= least+4; d++ {
			for _, algo := range []string{"persistent", "process-local"} {
				for _, parts := range []int{2, 3, 4} {
					for _, workers := range []int{1, 2} {
						o := Options{Options: verify.Options{Depth: d}, Workers: workers}
						r, _ := runSharded(t, algo, o, p, parts, false)
						if r.Verdict != verify.Unsafe {
							t.Errorf("%s at depth %d (least failing %d): %s in %d parts on %d workers says %s",
								name, d, least, algo, parts, workers, r.Verdict)
						}
					}
				}
			}
		}
	}
}
