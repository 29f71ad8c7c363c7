package lang

import (
	"strings"
	"testing"

	"kbmc/ir"
)

// invariantProgram is the declarations the invariant tests read: processes
// with and without a count, an array member, a mutex, a thread with a local,
// channels, and a shared variable outside processes is not allowed with
// processes, so classic programs are separate cases.
const invariantProgram = `const N = 2;
chan (int) c[N] capacity 1;
chan (int) d capacity 1;
process node[N] {
    shared int leader = -1;
    shared int votes[N];
    mutex m;
    thread t { int mine = pid; leader = mine; votes[0] = 1; send(c[pid], 1); }
}
process solo {
    shared bool up;
    thread s { up = true; send(d, 1); }
}
`

func TestInvariantErrors(t *testing.T) {
	tests := []struct {
		inv  string // one line after invariantProgram, line 14
		want []string
	}{
		{"invariant a: node[0].leader;", []string{"14:14: non-bool condition in invariant a: node[0].leader (int)"}},
		{"invariant b: leader == 1;", []string{"14:14: undefined: leader (a variable of process node: an invariant reads it as node[i].leader)"}},
		{"invariant c: node[2].leader == 1;", []string{"14:19: index 2 out of range for process node (0..1)"}},
		{"invariant c: node[-1].leader == 1;", []string{"14:19: index -1 out of range for process node (0..1)"}},
		{"invariant d: node.leader == 1;", []string{"14:18: process node has 2 instances: name one, as node[i].leader"}},
		{"invariant e: solo[0].up;", []string{"14:18: cannot index process solo (declared without a count): write solo.up"}},
		{"invariant f: node[0].votes == 1;", []string{"14:22: array used without index: node[0].votes"}},
		{"invariant g: node[0].votes[5] == 1;", []string{"14:28: index 5 out of range for votes (0..1)"}},
		{"invariant g: node[0].leader[0] == 1;", []string{"14:28: cannot index node.leader (not an array)"}},
		{"invariant h: node[0].t == 1;", []string{"14:22: t is a thread of process node: an invariant reads the process's memory, no thread's locals"}},
		{"invariant i: node[0].m == 1;", []string{"14:22: m is a mutex of process node: an invariant reads only variables"}},
		{"invariant j: mine == 1;", []string{"14:14: undefined: mine (mine is a local variable: an invariant reads shared variables and process memory, no thread's locals)"}},
		{"invariant j: node[0].mine == 1;", []string{"14:22: process node has no variable mine"}},
		{"invariant k: nobody.x == 1;", []string{"14:14: undefined: nobody (no process of that name)"}},
		{"invariant k: N.x == 1;", []string{"14:15: N is not a process: only a process's memory is read as NAME.variable"}},
		{"invariant l: forall i in 0..N-1: forall i in 0..1: true;", []string{"14:41: i redeclared: a quantified variable of an enclosing forall or exists"}},
		{"invariant l: forall i in 0..N-1: i.x;", []string{"14:35: i is not a process: only a process's memory is read as NAME.variable"}},
		{"invariant l: forall i in 0..N-1: i[0] == 0;", []string{"14:35: cannot index i (a quantified variable, not an array)"}},
		{"invariant m: tid == 0;", []string{"14:14: tid in an invariant"}},
		{"invariant m: pid == 0;", []string{"14:14: pid in an invariant"}},
		{"invariant n: nondet(0, 1) == 0;", []string{"14:14: nondet in an invariant"}},
		{"invariant p: forall i in 0..x: true;", []string{"14:29: undefined: x"}},
		{"invariant p: forall i in 0..node[0].leader: true;", []string{"14:29: upper bound of forall node[0].leader is not a constant"}},
		{"invariant p: exists i in 0..100000: true;", []string{"14:26: exists ranges over 100001 values (limit 65536)"}},
		{"invariant q: true; invariant q: false;", []string{"14:30: invariant q redeclared (previous declaration at 14:11)"}},
		{"invariant r: exists i in 0..N-1: i;", []string{"14:34: non-bool condition in exists: i (int)"}},
		{"invariant s: len(c) == 0;", []string{"14:18: channel array c used without index in len"}},
		{"invariant t: len(c[3]) == 0;", []string{"14:20: index 3 out of range for c (0..1)"}},
		// Found when the quantifiers are expanded.
		{"invariant u: forall i in 0..N: node[i].leader >= -1;", []string{"14:37: process index 2 out of range for node (0..1)"}},
		{"invariant v: forall i in 0..1: node[0].votes[i + 1] == 0;", []string{"14:46: index 2 out of range for node[0].votes (0..1)"}},
		{"invariant w: node[node[0].leader].leader == 0;", []string{"14:19: process index node[0].leader is not a constant"}},
		// Elsewhere than in an invariant.
		{"process other { thread o { int v = node[0].leader; } }", []string{"14:36: node[0].leader: another process's memory can be read only in an invariant"}},
		{"process other { thread o { bool v = forall i in 0..1: true; } }", []string{"14:37: forall and exists are allowed only in an invariant"}},
		{"process other { invariant o: true; thread o { } }", []string{"14:17: invariant o declared inside process other: invariants are declared at top level"}},
	}
	for _, tt := range tests {
		got := compileErrors(t, invariantProgram+tt.inv, Config{})
		if len(got) != len(tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.inv, got, tt.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tt.want[i]) {
				t.Errorf("%s:\n got %q\nwant %q", tt.inv, got[i], tt.want[i])
			}
		}
	}
}

// The classic form: shared variables at top level.
func TestInvariantErrorsClassic(t *testing.T) {
	tests := []struct{ src, want string }{
		{"shared int x; thread a { int l = 0; x = l; } invariant i: l == 0;", "1:59: undefined: l (l is a local variable"},
		{"shared int x; thread a { x = 1; } invariant i: x;", "1:48: non-bool condition in invariant i: x (int)"},
		{"shared int a[2]; thread t { a[0] = 1; } invariant i: a[2] == 0;", "1:56: index 2 out of range for a (0..1)"},
		{"shared int x; func f() int { return x; } thread t { x = 1; } invariant i: f() == 0;", "1:75: a function call in an invariant"},
		{"shared int x; mutex m; thread t { x = 1; } invariant i: m == 0;", "1:57: mutex m cannot be used in an expression"},
		{"shared int x; thread t { x = 1; } invariant i: forall k in 0..1: x / k == 1;", "1:68: x / k: division by zero"},
	}
	for _, tt := range tests {
		got := compileErrors(t, tt.src, Config{})
		if len(got) != 1 || !strings.HasPrefix(got[0], tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

// Quantifiers expand into conjunctions and disjunctions over their ranges, a
// process index becomes a constant that names one instance's variable, and
// what the quantified variables make constant is folded.
func TestInvariantLowering(t *testing.T) {
	src := invariantProgram + `const M = 3;
invariant all: forall i in 0..N-1: node[i].leader < M;
invariant some: exists i in 1..N-1: node[i].votes[i - 1] == 1 || solo.up;
invariant none: forall i in 1..0: false;
invariant nobody: exists i in 1..0: true;
invariant lengths: len(c[1]) + len(d) <= 2 * 1;
`
	p, err := Compile("t.kb", []byte(src), Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"all":     "(&& (< node[0].leader 3) (< node[1].leader 3))",
		"some":    "(|| (== (index node[1].votes 0) 1) solo.up)",
		"none":    "true",
		"nobody":  "false",
		"lengths": "(<= (+ (len c 1) (len d)) 2)",
	}
	if len(p.Invariants) != len(want) {
		t.Fatalf("%d invariants, want %d", len(p.Invariants), len(want))
	}
	for _, inv := range p.Invariants {
		if got := sexprIR(inv.Expr); got != want[inv.Name] {
			t.Errorf("invariant %s: got %s, want %s", inv.Name, got, want[inv.Name])
		}
		if inv.Text == "" || inv.Pos.Line == 0 {
			t.Errorf("invariant %s: no text or position (%q at %s)", inv.Name, inv.Text, inv.Pos)
		}
	}
}

// sexprIR renders an invariant's lowered expression fully bracketed.
func sexprIR(e *ir.Expr) string {
	switch e.Op {
	case ir.EConst:
		if e.Type == ir.Bool {
			if e.Val != 0 {
				return "true"
			}
			return "false"
		}
		return strings.TrimSpace(strings.Repeat(" ", 0) + itoa(e.Val))
	case ir.EVar:
		return e.Var.Name
	case ir.EIndex:
		return "(index " + e.Var.Name + " " + sexprIR(e.X) + ")"
	case ir.ELen:
		if e.X == nil {
			return "(len " + e.Chan.Name + ")"
		}
		return "(len " + e.Chan.Name + " " + sexprIR(e.X) + ")"
	case ir.ENot, ir.ENeg, ir.ECompl:
		return "(" + e.Op.String() + " " + sexprIR(e.X) + ")"
	case ir.ECond:
		return "(? " + sexprIR(e.X) + " " + sexprIR(e.Y) + " " + sexprIR(e.Z) + ")"
	}
	return "(" + e.Op.String() + " " + sexprIR(e.X) + " " + sexprIR(e.Y) + ")"
}

func itoa(v int64) string {
	if v < 0 {
		return "-" + itoa(-v)
	}
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

// A variable an invariant reads is never folded as private memory: a value
// written and overwritten within one folded step would be no state of the
// run, and the invariant would miss it.
func TestInvariantKeepsMemoryVisible(t *testing.T) {
	src := `process p { shared int x; shared int y; thread t { x = 1; x = 2; y = 1; } }
invariant small: p.x != 1;
`
	p, err := Compile("t.kb", []byte(src), Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range p.Shared {
		if want := v.Name == "p.y"; v.Private != want {
			t.Errorf("%s: Private = %v, want %v", v.Name, v.Private, want)
		}
	}
	// x = 1 is a step of its own, so the state x == 1 is reached.
	s := p.Initial()
	var ev ir.Event
	var found *ir.Violation
	for p.Enabled(s, 0) && found == nil {
		p.Step(s, 0, nil, &ev)
		found = ev.Violation
	}
	if found == nil || found.Kind != ir.InvariantViolation || !strings.HasPrefix(found.Msg, "small does not hold: p.x = 1") {
		t.Errorf("violation %+v, want invariant small with p.x = 1", found)
	}
}
