package explicit

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// bfsAt checks p with bfs at depth (no deadlocks when noDeadlock).
func bfsAt(t *testing.T, p *ir.Program, depth int, noDeadlock bool) *verify.Result {
	t.Helper()
	var o Options
	o.Depth, o.NoDeadlock = depth, noDeadlock
	return porCheck(t, BFS{Options: o}, p)
}

// dfsAt checks p with the stateless reference dfs (stateful: with its visited
// set) at depth.
func dfsAt(t *testing.T, p *ir.Program, depth int, noDeadlock, stateful bool) *verify.Result {
	t.Helper()
	var o Options
	o.Depth, o.NoDeadlock, o.Stateful = depth, noDeadlock, stateful
	return porCheck(t, DFS{Options: o}, p)
}

// checkShortest checks that bfs's counterexample r for p is a shortest one: it
// replays, and no execution of fewer steps has a violation (dfs at one step
// less, the brute force of iterative deepening, finds none), while dfs at its
// length finds one.
func checkShortest(t *testing.T, p *ir.Program, r *verify.Result, noDeadlock, stateful bool) {
	t.Helper()
	if _, _, err := p.Confirm(r.Trace, r.Violation.Kind); err != nil {
		t.Fatalf("bfs's counterexample does not replay: %v", err)
	}
	n := len(r.Trace)
	if n > 0 {
		if below := dfsAt(t, p, n, noDeadlock, stateful); below.Verdict == verify.Unsafe && len(below.Trace) < n {
			t.Errorf("dfs at depth %d finds a counterexample of %d steps, shorter than bfs's %d", n, len(below.Trace), n)
		}
	}
	if n > 1 {
		if below := dfsAt(t, p, n-1, noDeadlock, stateful); below.Verdict == verify.Unsafe {
			t.Errorf("dfs at depth %d finds a %s in %d steps: bfs's counterexample of %d steps is not the shortest",
				n-1, below.Violation.Kind, len(below.Trace), n)
		}
	}
	if at := dfsAt(t, p, max(n, 1), noDeadlock, stateful); at.Verdict != verify.Unsafe {
		t.Errorf("dfs at depth %d, bfs's length, says %s", n, at.Verdict)
	}
}

func TestBFSShortest(t *testing.T) {
	tests := []struct {
		name string
		src  string
		kind ir.ViolationKind
		// longer: dfs's first counterexample is longer than the shortest
		// (the case --shortest is for).
		longer bool
	}{
		{"counter reaches 3 while the other thread looks",
			"shared int x;\nthread a { int i = 0; while (i < 6) { x = x + 1; i = i + 1; } }\nthread b { assert(x != 3); }\n",
			ir.Assertion, true},
		{"abba beside a busy thread",
			"mutex a; mutex b; shared int w;\nthread busy { int i = 0; while (i < 4) { w = w + 1; i = i + 1; } }\n" +
				"thread one { lock(a); lock(b); unlock(b); unlock(a); }\nthread two { lock(b); lock(a); unlock(a); unlock(b); }\n",
			ir.Deadlock, false}, // a deadlock waits for busy to end
		{"nondet value far down",
			"shared int x;\nthread a { int i = 0; while (i < 3) { x = x + nondet(0, 2); i = i + 1; } }\nthread b { assert(x != 1); }\n",
			ir.Assertion, true},
		{"bounds", "shared int a[3]; shared int i;\nthread s { i = 1; i = 2; i = 3; }\nthread r { int v = a[i]; }\n",
			ir.Bounds, false},
		{"message overtaken",
			"chan (int) c capacity 2;\nprocess p { thread s { send(c, 1); send(c, 2); } }\n" +
				"process q { thread r { int a; int b; recv(c, a); recv(c, b); assert(a < b); assert(false); } }\n",
			ir.Assertion, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := porCompile(t, "bfs", tc.src, lang.Config{})
			r := bfsAt(t, p, 100, false)
			if r.Verdict != verify.Unsafe || r.Violation.Kind != tc.kind {
				t.Fatalf("bfs says %s %s, want unsafe %s", r.Verdict, porKind(r), tc.kind)
			}
			checkShortest(t, p, r, false, false)
			ref := dfsAt(t, p, 100, false, false)
			if ref.Verdict != verify.Unsafe {
				t.Fatalf("dfs says %s", ref.Verdict)
			}
			if tc.longer && len(ref.Trace) <= len(r.Trace) {
				t.Errorf("dfs's first counterexample has %d steps, bfs's %d: the program does not show a shorter one", len(ref.Trace), len(r.Trace))
			}
			// A deadlock is found in a state of the trace's level, which
			// may come after states of that level that were expanded.
			if d := r.Stats.Depth; d != int64(len(r.Trace)) && d != int64(len(r.Trace))+1 {
				t.Errorf("depth reached %d, want the trace's %d steps (or one more)", d, len(r.Trace))
			}
		})
	}
}

// TestBFSTestdata runs bfs on every program of ../testdata meant for every
// engine: its verdict is dfs --stateful's, and its counterexamples are
// shortest.
func TestBFSTestdata(t *testing.T) {
	checked := 0
	for _, td := range readTestdata(t) {
		t.Run(filepath.Base(td.path), func(t *testing.T) {
			p, err := lang.Compile(td.path, td.src, td.cfg)
			if err != nil {
				t.Fatal(err)
			}
			ref := dfsAt(t, p, td.opts.Depth, td.opts.NoDeadlock, true)
			r := bfsAt(t, p, td.opts.Depth, td.opts.NoDeadlock)
			if r.Verdict != ref.Verdict {
				t.Fatalf("bfs says %s (%s), dfs --stateful %s (%s)", r.Verdict, r.Note, ref.Verdict, ref.Note)
			}
			if r.Verdict == verify.Unsafe {
				if len(r.Trace) > len(ref.Trace) {
					t.Errorf("bfs's counterexample has %d steps, dfs's %d", len(r.Trace), len(ref.Trace))
				}
				checkShortest(t, p, r, td.opts.NoDeadlock, true)
			}
			checked++
		})
	}
	if checked == 0 {
		t.Fatal("no testdata program checked")
	}
}

// TestBFSBeyondTheBound checks the verdicts that depend on executions longer
// than the shortest paths bfs follows: a cycle of states, and a long path to a
// state bfs reached by a short one.
func TestBFSBeyondTheBound(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		depth   int
		verdict verify.Verdict
		cycle   bool
		closed  bool // every reachable state expanded before the bound
	}{
		{"spin: a cycle", "shared int f;\nthread a { while (f == 0) { } }\nthread b { f = 1; }\n", 50, verify.BoundedSafe, true, true},
		{"spin: a cycle past a small bound", "shared int f;\nthread a { while (f == 0) { } }\nthread b { f = 1; }\n", 1, verify.BoundedSafe, true, false},
		{"straight line within the bound", "shared int x;\nthread a { x = 1; x = 2; }\nthread b { x = 3; }\n", 3, verify.Safe, false, false},
		// Every state is within 3 steps of the start, but the execution that
		// runs a's five steps first takes 6: dfs cuts it at depth 5.
		{"long path to a near state", "shared int x; shared int y;\nthread a { x = 1; x = 2; x = 3; x = 4; y = 1; }\nthread b { y = 2; }\n",
			5, verify.BoundedSafe, false, false},
		{"the same at depth 6", "shared int x; shared int y;\nthread a { x = 1; x = 2; x = 3; x = 4; y = 1; }\nthread b { y = 2; }\n",
			6, verify.Safe, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := porCompile(t, "beyond", tc.src, lang.Config{})
			r := bfsAt(t, p, tc.depth, false)
			ref := dfsAt(t, p, tc.depth, false, false)
			if r.Verdict != tc.verdict || ref.Verdict != tc.verdict {
				t.Fatalf("bfs says %s (%s), dfs %s: want %s", r.Verdict, r.Note, ref.Verdict, tc.verdict)
			}
			if r.Cycle != tc.cycle || r.Closed != tc.closed {
				t.Errorf("cycle %v, closed %v; want %v, %v", r.Cycle, r.Closed, tc.cycle, tc.closed)
			}
			if r.Cycle {
				run, err := p.Replay(r.CycleTrace)
				if err != nil {
					t.Fatalf("cycle trace: %v", err)
				}
				last, repeats := run.Final(), false
				for _, s := range run.States[:len(run.States)-1] {
					repeats = repeats || s.Equal(last)
				}
				if !repeats {
					t.Error("the cycle trace's last state does not repeat an earlier one")
				}
			}
			if r.Verdict == verify.BoundedSafe && !r.Cycle {
				if len(r.CutTrace) != tc.depth {
					t.Errorf("cut trace of %d steps, want the depth %d", len(r.CutTrace), tc.depth)
				}
				if _, err := p.Replay(r.CutTrace); err != nil {
					t.Errorf("cut trace: %v", err)
				}
			}
		})
	}
}

// TestBFSStops checks that a stopped run says unknown, with its statistics and
// how many steps it covered.
func TestBFSStops(t *testing.T) {
	p := porCompile(t, "stop", "shared int x[4];\nthread w[4] { int i = 0; while (i < 40) { x[tid] = (x[tid] + 1) % 7; i = i + 1; } }\n", lang.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var o Options
	o.Depth = 1000
	r, err := BFS{Options: o}.Check(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != verify.Unknown {
		t.Fatalf("verdict %s, want unknown", r.Verdict)
	}
	if r.Stats.States == 0 || r.Stats.Transitions == 0 || r.Reached == 0 {
		t.Errorf("a stopped run reports states %d, transitions %d, steps covered %d", r.Stats.States, r.Stats.Transitions, r.Reached)
	}
}

// TestBFSLocalDeadlock checks --local-deadlock with bfs against dfs --stateful
// on the programs of ../testdata written for it: the same verdict and kind,
// and a trace no longer.
func TestBFSLocalDeadlock(t *testing.T) {
	found := 0
	for _, td := range readAllTestdata(t) {
		base := filepath.Base(td.path)
		if len(base) < 15 || base[:15] != "local-deadlock-" {
			continue
		}
		p, err := lang.Compile(td.path, td.src, td.cfg)
		if err != nil {
			t.Fatal(err)
		}
		o := td.opts
		o.Stateful, o.LocalDeadlock = true, true
		ref := porCheck(t, DFS{Options: o}, p)
		o.Stateful = false
		r := porCheck(t, BFS{Options: o}, p)
		if r.Verdict != ref.Verdict || porKind(r) != porKind(ref) {
			t.Errorf("%s: bfs says %s %s, dfs --stateful %s %s", base, r.Verdict, porKind(r), ref.Verdict, porKind(ref))
			continue
		}
		if r.Verdict == verify.Unsafe {
			found++
			if len(r.Trace) > len(ref.Trace) {
				t.Errorf("%s: bfs's trace has %d steps, dfs's %d", base, len(r.Trace), len(ref.Trace))
			}
		}
	}
	if found == 0 {
		t.Error("no local deadlock found: nothing was compared")
	}
}

func TestBFSRefusesShards(t *testing.T) {
	var o Options
	o.Shard = Shard{Index: 0, Count: 2}
	if _, err := New("bfs", o); err == nil {
		t.Error("bfs accepted --shard")
	}
}

// TestBFSShortestGenerated checks on generated programs, classic and with
// channels, that every counterexample of bfs is a shortest one (checkShortest,
// with dfs --stateful as the brute force at one step less).
func TestBFSShortestGenerated(t *testing.T) {
	unsafe := 0
	for _, cfg := range []progen.Config{progen.DefaultConfig(), progen.DistributedConfig()} {
		for seed := range uint64(150) {
			_, p := compileGenerated(t, seed, cfg)
			r := bfsAt(t, p, verify.DefaultDepth, false)
			if r.Verdict != verify.Unsafe {
				continue
			}
			unsafe++
			t.Run(fmt.Sprintf("channels=%v/seed=%d", cfg.Features&progen.Channels != 0, seed), func(t *testing.T) {
				checkShortest(t, p, r, false, true)
			})
		}
	}
	if unsafe == 0 {
		t.Fatal("no generated program is unsafe: nothing was checked")
	}
	t.Logf("%d unsafe programs checked", unsafe)
}
