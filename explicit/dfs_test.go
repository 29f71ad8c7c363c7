package explicit_test

import (
	"context"
	"os"
	"testing"
	"time"

	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

func compileSrc(t testing.TB, src string, defines map[string]int64) *ir.Program {
	t.Helper()
	p, err := lang.Compile("test.kb", []byte(src), lang.Config{Defines: defines})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

func TestDFS(t *testing.T) {
	tests := []struct {
		name       string
		src        string
		depth      int
		verdict    verify.Verdict
		kind       ir.ViolationKind
		executions int64 // checked when > 0 (stateless)
	}{
		{"two independent writers", "shared int x; shared int y;\nthread a { x = 1; x = 2; }\nthread b { y = 1; y = 2; }\n",
			100, verify.Safe, 0, 6},
		{"lost update", "shared int x;\nthread w[2] { int t = x; x = t + 1; }\nthread m { join(w); assert(x == 2); }\n",
			100, verify.Unsafe, ir.Assertion, 0},
		{"atomic increment", "shared int x;\nthread w[2] { x++; }\nthread m { join(w); assert(x == 2); }\n",
			100, verify.Safe, 0, 2},
		{"nondet values", "shared int x;\nthread a { x = nondet(0, 4); }\n", 100, verify.Safe, 0, 5},
		{"nondet bug", "shared int x;\nthread a { int v = nondet(0, 9); assert(v != 7); }\n", 100, verify.Unsafe, ir.Assertion, 0},
		{"abba", "mutex a; mutex b;\nthread one { lock(a); lock(b); unlock(b); unlock(a); }\nthread two { lock(b); lock(a); unlock(a); unlock(b); }\n",
			100, verify.Unsafe, ir.Deadlock, 0},
		{"assume cuts", "shared int x;\nthread a { assume(x == 1); }\nthread b { await(x == 2); }\n", 100, verify.Safe, 0, 1},
		{"spin is bounded", "shared int f;\nthread a { while (f == 0) { } }\nthread b { f = 1; }\n", 10, verify.BoundedSafe, 0, 0},
		{"bug beyond depth", "shared int x;\nthread a { x = 1; x = 2; x = 3; assert(x != 3); }\n", 2, verify.BoundedSafe, 0, 1},
		{"bug within depth", "shared int x;\nthread a { x = 1; x = 2; x = 3; assert(x != 3); }\n", 4, verify.Unsafe, ir.Assertion, 0},
		{"bad unlock", "mutex m;\nthread a { unlock(m); }\n", 100, verify.Unsafe, ir.BadUnlock, 0},
	}
	for _, tc := range tests {
		for _, stateful := range []bool{false, true} {
			name := tc.name
			if stateful {
				name += "/stateful"
			}
			t.Run(name, func(t *testing.T) {
				p := compileSrc(t, tc.src, nil)
				d := explicit.DFS{Options: explicit.Options{Options: verify.Options{Depth: tc.depth}, Stateful: stateful}}
				res, err := d.Check(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict != tc.verdict {
					t.Fatalf("verdict %s (%s), want %s", res.Verdict, res.Note, tc.verdict)
				}
				if tc.verdict == verify.Unsafe {
					if res.Violation.Kind != tc.kind {
						t.Errorf("violation %s, want %s", res.Violation.Kind, tc.kind)
					}
					if _, _, err := p.Confirm(res.Trace, res.Violation.Kind); err != nil {
						t.Errorf("counterexample does not replay: %v", err)
					}
				}
				if !stateful && tc.executions > 0 && res.Stats.Executions != tc.executions {
					t.Errorf("executions %d, want %d", res.Stats.Executions, tc.executions)
				}
			})
		}
	}
}

func TestDFSStopsOnCancelledContext(t *testing.T) {
	p := compileSrc(t, "shared int f;\nthread s[3] { while (f == 0) { yield; } }\n", nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := explicit.DFS{Options: explicit.Options{Options: verify.Options{Depth: 60}}}.Check(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verify.Unknown {
		t.Errorf("verdict %s, want unknown", res.Verdict)
	}
}

func TestDFSRejectsUnboundedNondet(t *testing.T) {
	p := compileSrc(t, "shared int x;\nthread a {\n  x = nondet();\n}\n", nil)
	_, err := explicit.DFS{}.Check(context.Background(), p)
	ue, ok := err.(*verify.UnsupportedError)
	if !ok || ue.Pos.Line != 3 {
		t.Fatalf("err = %v, want an UnsupportedError at line 3", err)
	}
	p = compileSrc(t, "shared int x;\nthread a { x = nondet(0, 1000); }\n", nil)
	if _, err := (explicit.DFS{}).Check(context.Background(), p); err == nil {
		t.Error("a range of 1001 values was accepted with the default --max-nondet 256")
	}
}

// TestDFSTerminalStates checks the Terminal hook sees every final state once per
// execution.
func TestDFSTerminalStates(t *testing.T) {
	p := compileSrc(t, "shared int x;\nthread a { x = 1; }\nthread b { x = 2; }\n", nil)
	finals := map[int64]int{}
	opts := explicit.Options{Terminal: func(s ir.State, dl bool) { finals[s[0]]++ }}
	if _, err := (explicit.DFS{Options: opts}).Check(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if finals[1] != 1 || finals[2] != 1 || len(finals) != 2 {
		t.Errorf("terminal states %v, want x=1 once and x=2 once", finals)
	}
}

// benchFamily measures throughput: each op is a search of the family at N, stopped
// after budget if it has not finished (readers-writers N = 6 alone has 13!/2^6 ≈ 10^8
// interleavings), so the rates are comparable whatever the size.
func benchFamily(b *testing.B, family string, n int64, d explicit.DFS, budget time.Duration) {
	src, err := os.ReadFile("../bench/programs/" + family + ".kb")
	if err != nil {
		b.Fatal(err)
	}
	p := compileSrc(b, string(src), map[string]int64{"N": n})
	var execs, steps int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		res, err := d.Check(ctx, p)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		execs += res.Stats.Executions
		steps += res.Stats.Transitions
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(execs)/float64(b.N), "executions/op")
	b.ReportMetric(float64(execs)/secs, "executions/s")
	b.ReportMetric(float64(steps)/secs, "steps/s")
}

func BenchmarkDFSReadersWriters6(b *testing.B) {
	benchFamily(b, "readers-writers", 6, explicit.DFS{}, 2*time.Second)
}

func BenchmarkDFSIndexerSmall4(b *testing.B) {
	benchFamily(b, "indexer-small", 4, explicit.DFS{}, 2*time.Second)
}
