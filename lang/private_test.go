package lang_test

import (
	"context"
	"fmt"
	"testing"

	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/symbolic"
	"kbmc/verify"
)

// Process memory that one thread alone accesses (a single-threaded process's,
// a variable one thread of its process uses) is marked Private and folded like a local: the
// counterexample is as short as with the memory moved into locals (or one step
// shorter per thread, whose first declaration is then no step), shorter
// than with every access a step (--no-fold, and kbmc before the change), and
// every engine gives the same verdict on the folded, the unfolded and the
// locals form.
func TestPrivateMemoryFolds(t *testing.T) {
	tests := []struct {
		name            string
		private, locals string
		marked          []string // the variables marked Private
		verdict         verify.Verdict
	}{
		{
			name: "single-threaded processes",
			private: `chan (int) c capacity 2;
process prod { shared int sent; thread main { while (sent < 3) { send(c, sent); sent = sent + 1; } } }
process cons { shared int got; shared int sum;
  thread main { while (got < 3) { int v; recv(c, v); sum = sum + v; got = got + 1; } assert(sum == 2, "sum"); } }
`,
			locals: `chan (int) c capacity 2;
process prod { thread main { int sent = 0; while (sent < 3) { send(c, sent); sent = sent + 1; } } }
process cons {
  thread main { int got = 0; int sum = 0; while (got < 3) { int v; recv(c, v); sum = sum + v; got = got + 1; } assert(sum == 2, "sum"); } }
`,
			marked:  []string{"prod.sent", "cons.got", "cons.sum"},
			verdict: verify.Unsafe,
		},
		{
			name: "a thread's own counter beside a race in its process",
			private: `process p { shared int x; shared int mine;
  thread w[2] { int t = x; x = t + 1; }
  thread m { mine = 1; mine = mine + 1; join(w); mine = mine + x; assert(mine == 4, "lost update"); } }
`,
			locals: `process p { shared int x;
  thread w[2] { int t = x; x = t + 1; }
  thread m { int mine = 1; mine = mine + 1; join(w); mine = mine + x; assert(mine == 4, "lost update"); } }
`,
			marked:  []string{"p.mine"},
			verdict: verify.Unsafe,
		},
		{
			name: "process instances each with their own memory",
			private: `chan (int) c[2] capacity 1;
process node[2] { shared int n; thread main { n = pid; n = n + 1; send(c[pid], n); } }
process sink { shared int total; thread main { int v; recv(c[0], v); total = total + v; recv(c[1], v); total = total + v; assert(total == 3); } }
`,
			locals: `chan (int) c[2] capacity 1;
process node[2] { thread main { int n = pid; n = n + 1; send(c[pid], n); } }
process sink { thread main { int total = 0; int v; recv(c[0], v); total = total + v; recv(c[1], v); total = total + v; assert(total == 3); } }
`,
			marked:  []string{"node[0].n", "node[1].n", "sink.total"},
			verdict: verify.Safe,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			folded := compile(t, tc.private, false)
			unfolded := compile(t, tc.private, true)
			locals := compile(t, tc.locals, false)
			var marked []string
			for _, v := range folded.Shared {
				if v.Private {
					marked = append(marked, v.Name)
				}
			}
			if fmt.Sprint(marked) != fmt.Sprint(tc.marked) {
				t.Errorf("marked private: %v, want %v", marked, tc.marked)
			}
			for _, v := range unfolded.Shared {
				if v.Private {
					t.Errorf("--no-fold marks %s private", v.Name)
				}
			}
			ref := check(t, "dfs", folded)
			if ref.Verdict != tc.verdict {
				t.Fatalf("dfs: %s, want %s", ref.Verdict, tc.verdict)
			}
			if tc.verdict == verify.Unsafe {
				f, u, l := len(ref.Trace), len(check(t, "dfs", unfolded).Trace), len(check(t, "dfs", locals).Trace)
				// (The locals form may take a step more per thread: a
				// declaration at a thread's entry is a step of its own.)
				if f > l || f >= u {
					t.Errorf("counterexample steps: %d with private memory, %d with locals, %d unfolded; want at most the second and less than the third", f, l, u)
				}
			}
			for _, p := range []struct {
				form string
				prog *ir.Program
			}{{"folded", folded}, {"unfolded", unfolded}, {"locals", locals}} {
				for _, algo := range append(explicit.Algorithms(), "symbolic/partial-order", "symbolic/step") {
					res := check(t, algo, p.prog)
					if res.Verdict != ref.Verdict || res.Verdict == verify.Unsafe && res.Violation.Kind != ref.Violation.Kind {
						t.Errorf("%s on the %s form: %s, the reference dfs on the folded form: %s", algo, p.form, res.Verdict, ref.Verdict)
					}
				}
			}
		})
	}
}

// Memory more than one thread can reach is never marked: two instances of a
// thread, two threads, a function two threads call. Nor is a program without
// processes: its shared variables stay steps, as in its C form.
func TestPrivateMemoryNotShared(t *testing.T) {
	for _, src := range []string{
		"process p { shared int x; thread w[2] { x = x + 1; } }\n",
		"process p { shared int x; thread a { x = 1; } thread b { int y = x; } }\n",
		"process p { shared int x; func bump() { x = x + 1; } thread a { bump(); } thread b { bump(); } }\n",
		"process p { shared int x; thread a { x = 1; } thread b { await(x == 1); } }\n",
		"process p[2] { shared int x; thread t[2] { x = x + 1; } }\n",
		"shared int x;\nthread a { x = 1; x = x + 1; }\nthread b { }\n",
	} {
		for _, v := range compile(t, src, false).Shared {
			if v.Private {
				t.Errorf("%s is marked private in\n%s", v.Name, src)
			}
		}
	}
}

func compile(t *testing.T, src string, noFold bool) *ir.Program {
	t.Helper()
	p, err := lang.Compile("test.kb", []byte(src), lang.Config{NoFold: noFold})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// check runs an explicit algorithm (unbounded: no preemption or fair bound),
// or the symbolic engine with gini and an encoding.
func check(t *testing.T, algo string, p *ir.Program) *verify.Result {
	t.Helper()
	var eng verify.Engine
	var err error
	switch algo {
	case "symbolic/partial-order", "symbolic/step":
		eng = symbolic.Engine{Options: verify.Options{Depth: verify.DefaultDepth}, Solver: "gini", Encoding: algo[len("symbolic/"):], POR: "monotonic"}
	default:
		eng, err = explicit.New(algo, explicit.Options{Options: verify.Options{Depth: verify.DefaultDepth}, Workers: 1, Preemptions: -1, Fair: -1})
		if err != nil {
			t.Fatal(err)
		}
	}
	res, err := eng.Check(context.Background(), p)
	if err != nil {
		t.Fatalf("%s: %v", algo, err)
	}
	return res
}

// TestKeepPrivate: with Config.KeepPrivate (kbmc run --record), no variable is
// marked Private, and every access to process memory stays a step: a global
// predicate over a recorded run sees every value it takes.
func TestKeepPrivate(t *testing.T) {
	src := `chan (int) c capacity 1;
process p { shared int n; thread main { n = 1; n = 2; send(c, n); } }
process q { thread main { int v; recv(c, v); } }
`
	steps := func(cfg lang.Config) (cuts int, private bool) {
		prog, err := lang.Compile("t.kb", []byte(src), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range prog.Shared {
			private = private || v.Private
		}
		for _, n := range prog.Templates[0].Nodes {
			if n.Cut {
				cuts++
			}
		}
		return cuts, private
	}
	folded, marked := steps(lang.Config{})
	kept, keptMarked := steps(lang.Config{KeepPrivate: true})
	if !marked || keptMarked {
		t.Errorf("Private marks: %v by default, %v with KeepPrivate; want true, false", marked, keptMarked)
	}
	if kept <= folded {
		t.Errorf("p's cut points: %d with KeepPrivate, %d folded; want more kept", kept, folded)
	}
}
