package symbolic

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// TestInvariants checks global invariants in the step encoding, on every
// solver and reduction, against the reference DFS: a violation only one order
// of two independent writes shows (which a reduction without the visibility
// condition misses), safe invariants over processes, an invariant the initial
// state breaks (the empty trace), and one whose evaluation fails. The
// partial-order encoding refuses them.
func TestInvariants(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want verify.Verdict
	}{
		{name: "independent writes", want: verify.Unsafe, src: `
shared int x; shared int y;
thread a { x = 1; } thread b { y = 1; }
invariant x_first: !(x == 0 && y == 1);`},
		{name: "atomic pair", want: verify.Safe, src: `
const N = 3; shared int count; shared int done[N];
thread w[N] { atomic { count = count + 1; done[tid] = 1; } }
invariant consistent: count == done[0] + done[1] + done[2];`},
		{name: "split pair", want: verify.Unsafe, src: `
const N = 2; shared int count; shared int done[N]; mutex m;
thread w[N] { lock(m); count = count + 1; done[tid] = 1; unlock(m); }
invariant consistent: count == done[0] + done[1];`},
		{name: "processes and channels", want: verify.Safe, src: `
const N = 2; chan (int) c capacity 2;
process node[N] { shared int sent; thread t { send(c, pid); sent = 1; } }
process sink { shared int got; thread t { int v; recv(c, v); got = got + 1; recv(c, v); got = got + 1; } }
invariant flow: sink.got + len(c) <= node[0].sent + node[1].sent + 2 && len(c) <= 2;
invariant some: sink.got == 0 || (exists i in 0..N-1: node[i].sent >= 0);`},
		{name: "leader", want: verify.Unsafe, src: `
const N = 3;
process node[N] { shared int leader = -1; thread t { leader = pid; } }
invariant one: forall i in 0..N-1: forall j in 0..N-1: node[i].leader < 0 || node[j].leader < 0 || node[i].leader == node[j].leader;`},
		{name: "initial state", want: verify.Unsafe, src: `
shared int x = 5; thread a { x = 1; }
invariant small: x < 3;`},
		{name: "evaluation fails", want: verify.Unsafe, src: `
process p { shared int i; shared int a[2]; thread t { i = 1; i = 2; } }
invariant ok: p.a[p.i] == 0;`},
	}
	cs := combos(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := compileSrc(t, tt.src, lang.Config{})
			opts := verify.Options{}
			ref, err := dfs(context.Background(), p, opts)
			if err != nil {
				t.Fatalf("dfs: %v", err)
			}
			if ref.Verdict != tt.want || tt.want == verify.Unsafe && ref.Violation.Kind != ir.InvariantViolation {
				t.Fatalf("dfs says %s %+v, the program was written to be %s", ref.Verdict, ref.Violation, tt.want)
			}
			for _, c := range cs {
				if c.encoding != "step" {
					_, err := symbolicRun(p, opts, c, time.Minute)
					var unsup *verify.UnsupportedError
					if !errors.As(err, &unsup) || !strings.Contains(err.Error(), "does not check invariants") {
						t.Errorf("%s: %v, want a refusal", c, err)
					}
					continue
				}
				r, err := symbolicRun(p, opts, c, 2*time.Minute)
				if err != nil {
					t.Errorf("%s: %v", c, err)
					continue
				}
				if err := agree(p, opts, c, ref, r, 2*time.Minute); err != nil {
					t.Errorf("%s: %v", c, err)
				}
			}
			// Without an encoding named, a program with invariants runs the step encoding.
			r, err := Engine{}.Check(context.Background(), p)
			if err != nil || r.Verdict != tt.want || r.Algo != "step" && r.POR == "" {
				t.Errorf("default encoding: %v %+v", err, r)
			}
		})
	}
}
