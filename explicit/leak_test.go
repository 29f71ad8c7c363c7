package explicit

import (
	"fmt"
	"testing"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// TestLeakEveryAlgorithm: on a program with an entry goroutine (ir.Program.Entry,
// as the Go front end sets it), every algorithm classifies the deadlocked end
// states as dfs does, a goroutine leak where main has returned and a deadlock
// where it waits too, and --no-deadlock leaves out both. The programs close
// channels, receive with ok and guard select cases, so that Go's constructs
// meet every reduction.
func TestLeakEveryAlgorithm(t *testing.T) {
	programs := []struct {
		name, src string
		want      ir.ViolationKind
	}{
		{"main returns, a receiver waits", `chan (int) c capacity 1;
chan (int) done capacity 1;
shared int n = 0;
thread main {
    int k = nondet(0, 1);
    if (k == 1) { send(c, 1); }
    n = 1;
}
thread worker { int x = 0; bool ok = false; recv(c, x) ok(ok); send(done, x); }
thread other { await(n == 1); int y = 0; select { case recv(done, y) when (n == 2): case recv(c, y): } }
`, ir.Leak},
		{"main waits too", `chan (int) c capacity 0;
chan (int) d capacity 1;
thread main { int x = 0; recv(d, x); }
thread worker { int x = 0; bool ok = false; recv(c, x) ok(ok); }
thread closer { int k = nondet(0, 1); if (k == 1) { close(c); } }
`, ir.Deadlock},
		{"closing releases every receiver", `chan (int) c capacity 0;
thread main { close(c); }
thread worker[2] { int x = 0; bool ok = true; recv(c, x) ok(ok); assert(!ok); }
`, ir.NoViolation},
	}
	for _, prog := range programs {
		p, err := lang.Compile("leak.kb", []byte(prog.src), lang.Config{})
		if err != nil {
			t.Fatal(err)
		}
		p.Entry = p.Templates[0] // main
		for _, noDeadlock := range []bool{false, true} {
			want := prog.want
			if noDeadlock && want.Deadlocks() {
				want = ir.NoViolation
			}
			for _, algo := range append([]string{"dfs"}, Algorithms()...) {
				t.Run(fmt.Sprintf("%s/%s/no-deadlock=%v", prog.name, algo, noDeadlock), func(t *testing.T) {
					var o Options
					o.Depth, o.NoDeadlock = 60, noDeadlock
					eng, err := New(algo, o)
					if err != nil {
						t.Fatal(err)
					}
					r, err := untilHang(t, algo, eng, p)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case want == ir.NoViolation && r.Verdict != verify.Safe && (algo == "dfs" || r.Verdict != verify.BoundedSafe):
						// A bounded algorithm (bpor-preempt) may say bounded-safe.
						t.Fatalf("verdict %s (%v), want safe", r.Verdict, r.Violation)
					case want != ir.NoViolation && (r.Verdict != verify.Unsafe || r.Violation.Kind != want):
						t.Fatalf("verdict %s (%v), want a %v", r.Verdict, r.Violation, want)
					}
				})
			}
		}
	}
}
