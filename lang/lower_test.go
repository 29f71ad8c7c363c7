package lang

import (
	"fmt"
	"strings"
	"testing"

	"kbmc/ir"
)

// irExpr renders an ir expression, fully bracketed.
func irExpr(e *ir.Expr) string {
	if e == nil {
		return "<nil>"
	}
	switch e.Op {
	case ir.EConst:
		if e.Type == ir.Bool {
			return fmt.Sprint(e.Val != 0)
		}
		return fmt.Sprint(e.Val)
	case ir.EVar:
		return e.Var.Name
	case ir.EIndex:
		return e.Var.Name + "[" + irExpr(e.X) + "]"
	case ir.ETid:
		return "tid"
	case ir.ENondet:
		if e.Unbounded {
			return "nondet()"
		}
		return fmt.Sprintf("nondet(%d, %d)", e.Lo, e.Hi)
	case ir.ENeg, ir.ENot, ir.ECompl:
		return e.Op.String() + irExpr(e.X)
	case ir.ECond:
		return "(" + irExpr(e.X) + " ? " + irExpr(e.Y) + " : " + irExpr(e.Z) + ")"
	}
	return "(" + irExpr(e.X) + " " + e.Op.String() + " " + irExpr(e.Y) + ")"
}

func irLValue(lv *ir.LValue) string {
	if lv.Index == nil {
		return lv.Var.Name
	}
	return lv.Var.Name + "[" + irExpr(lv.Index) + "]"
}

func irSucc(n int) string {
	if n == ir.Exit {
		return "end"
	}
	return fmt.Sprint(n)
}

// dumpNodes renders a template's nodes, one per line: index, "*" for a cut
// point, "A" for a node inside an atomic block, the operation and successors.
func dumpNodes(tm *ir.Template) string {
	var b strings.Builder
	for i, n := range tm.Nodes {
		mark := " "
		if n.Cut {
			mark = "*"
		}
		if n.Atomic {
			mark += "A"
		}
		var op string
		switch n.Op {
		case ir.OpNop:
			op = "nop"
		case ir.OpAssign:
			op = irLValue(n.LHS) + " = " + irExpr(n.X)
		case ir.OpBranch:
			op = "if " + irExpr(n.X) + " else " + irSucc(n.Else)
		case ir.OpAssert, ir.OpAssume, ir.OpAwait:
			op = n.Op.String() + " " + irExpr(n.X)
			if n.Msg != "" {
				op += fmt.Sprintf(" %q", n.Msg)
			}
		case ir.OpLock, ir.OpUnlock:
			op = n.Op.String() + " " + n.Mutex.Name
			if n.MIndex != nil {
				op += "[" + irExpr(n.MIndex) + "]"
			}
		case ir.OpJoin:
			op = "join " + n.Join.Name
			if n.JIndex != nil {
				op += "[" + irExpr(n.JIndex) + "]"
			}
		case ir.OpYield:
			op = "yield"
		case ir.OpCas:
			op = "cas(" + irLValue(n.LHS) + ", " + irExpr(n.X) + ", " + irExpr(n.Y) + ")"
			if n.Result != nil {
				op = irLValue(n.Result) + " = " + op
			}
		}
		fmt.Fprintf(&b, "%d%s %s -> %s\n", i, mark, op, irSucc(n.Next))
	}
	return b.String()
}

func compileOK(t *testing.T, src string, cfg Config) *ir.Program {
	t.Helper()
	p, err := Compile("t.kb", []byte(src), cfg)
	if err != nil {
		t.Fatalf("%s\n%v", src, err)
	}
	return p
}

func TestLowerShapes(t *testing.T) {
	tests := []struct {
		name string
		src  string
		cfg  Config
		want string // dumpNodes of every template, "-- name" before each
	}{
		// Process memory one thread alone accesses is private: its
		// statements fold like a local's (ir.Program.PrivateVars).
		{"process memory one thread alone accesses folds", "process p { shared int x; thread a { int l = x; l = l + 1; x = l; } }", Config{}, `-- p.a
0* l = p.x -> 1
1  l = (l + 1) -> 2
2  p.x = l -> end
`},
		{"local statements fold", "shared int x; thread a { int l = x; l = l + 1; x = l; }", Config{}, `-- a
0* l = x -> 1
1  l = (l + 1) -> 2
2* x = l -> end
`},
		{"no-fold cuts every statement", "shared int x; thread a { int l = x; l = l + 1; x = l; }", Config{NoFold: true}, `-- a
0* l = x -> 1
1* l = (l + 1) -> 2
2* x = l -> end
`},
		{"loop head is always cut", "thread a { int i = 0; while (i < 3) { i++; } }", Config{}, `-- a
0* i = 0 -> 1
1* if (i < 3) else end -> 2
2  i = (i + 1) -> 1
`},
		{"hoisted cas is not cut and only runs when y == 0",
			"shared int x; shared int y; thread a { if (y == 0 && cas(x, 0, 1)) { y = 1; } }", Config{}, `-- a
0* if (y == 0) else 3 -> 1
1  $cas = cas(x, 0, 1) -> 2
2  $cond = $cas -> 4
3  $cond = false -> 4
4  if $cond else end -> 5
5* y = 1 -> end
`},
		{"no-fold keeps one statement together",
			"shared int x; shared int y; thread a { if (y == 0 && cas(x, 0, 1)) { y = 1; } }", Config{NoFold: true}, `-- a
0* if (y == 0) else 3 -> 1
1  $cas = cas(x, 0, 1) -> 2
2  $cond = $cas -> 4
3  $cond = false -> 4
4  if $cond else end -> 5
5* y = 1 -> end
`},
		{"or evaluates its right side only when the left is false",
			"shared int x; thread a { bool b = x == 1 || cas(x, 0, 1); }", Config{}, `-- a
0* if (x == 1) else 2 -> 1
1  $cond = true -> 4
2  $cas = cas(x, 0, 1) -> 3
3  $cond = $cas -> 4
4  b = $cond -> end
`},
		{"cas loop condition is the loop head", "shared int x; thread a { while (!cas(x, 0, 1)) { } x = 0; }", Config{}, `-- a
0* $cas = cas(x, 0, 1) -> 1
1  if !$cas else 2 -> 0
2* x = 0 -> end
`},
		{"for loop: continue runs the step, declarations in loops re-initialise",
			"shared int x; thread a { for (int i = 0; i < 3; i++) { int z; if (i == 1) { continue; } if (i == 2) { break; } x = z; } }", Config{}, `-- a
0* i = 0 -> 1
1* if (i < 3) else end -> 2
2  z = 0 -> 3
3  if (i == 1) else 4 -> 6
4  if (i == 2) else 5 -> end
5* x = z -> 6
6  i = (i + 1) -> 1
`},
		{"for without condition, array initialiser in a loop",
			"thread t { for (;;) { int a[2] = {1}; break; } }", Config{}, `-- t
0* nop -> 1
1  a[0] = 1 -> 2
2  a[1] = 0 -> end
`},
		{"atomic blocks: first node cut, nothing else", "shared int x; thread a { atomic { await(x == 0); x = 1; } atomic { } atomic { int l = x; l++; if (l > 1) { x = l; } } }", Config{NoFold: true}, `-- a
0*A await (x == 0) -> 1
1 A x = 1 -> 2
2*A nop -> 3
3*A l = x -> 4
4 A l = (l + 1) -> 5
5 A if (l > 1) else end -> 6
6 A x = l -> end
`},
		{"atomic block of local code is still a cut point", "thread a { int l = 1; atomic { l = 2; } l = 3; }", Config{}, `-- a
0* l = 1 -> 1
1*A l = 2 -> 2
2  l = 3 -> end
`},
		{"statement function inlined per call", "shared int x; func add(int a, int b) int { int s = a + b; return s; } thread a { int l = add(x, 1); x = add(l, 2); }", Config{}, `-- a
0* add::a = x -> 1
1  add::b = 1 -> 2
2  add::s = (add::a + add::b) -> 3
3  add::result = add::s -> 4
4  l = add::result -> 5
5  add::a#2 = l -> 6
6  add::b#2 = 2 -> 7
7  add::s#2 = (add::a#2 + add::b#2) -> 8
8  add::result#2 = add::s#2 -> 9
9* x = add::result#2 -> end
`},
		{"statement function with early return and a loop", "shared bool done; func wait(int n) int { if (n == 0) { return 0; } while (!done) { } return n; } thread t { int r = wait(2); r += wait(3); }", Config{}, `-- t
0* wait::n = 2 -> 1
1  if (wait::n == 0) else 3 -> 2
2  wait::result = 0 -> 5
3* if !done else 4 -> 3
4  wait::result = wait::n -> 5
5  r = wait::result -> 6
6  wait::n#2 = 3 -> 7
7  if (wait::n#2 == 0) else 9 -> 8
8  wait::result#2 = 0 -> 11
9* if !done else 10 -> 9
10  wait::result#2 = wait::n#2 -> 11
11  r = (r + wait::result#2) -> end
`},
		{"expression functions are substituted, nondet arguments evaluated once",
			"shared int x; func sq(int v) int { return v * v; } func pick(int v) int { return v > 0 ? v : 0; } func k(int v) int { return 7; } thread a { int l = sq(x + 1); l = sq(nondet(0, 3)); l = pick(tid); l = k(x); }", Config{}, `-- a
0* l = ((x + 1) * (x + 1)) -> 1
1  sq::v = nondet(0, 3) -> 2
2  l = (sq::v * sq::v) -> 3
3  l = ((tid > 0) ? tid : 0) -> 4
4  l = 7 -> end
`},
		{"C evaluation order around a cas",
			"shared int x; shared int a[4]; thread t { a[x] = cas(x, 0, 1) ? 1 : 2; a[nondet(0, 3)] += 1; int l = x + (cas(x, 1, 2) ? 1 : 0); }", Config{}, `-- t
0* $tmp = x -> 1
1  $cas = cas(x, 0, 1) -> 2
2  a[$tmp] = ($cas ? 1 : 2) -> 3
3* $tmp#2 = nondet(0, 3) -> 4
4  a[$tmp#2] = (a[$tmp#2] + 1) -> 5
5* $tmp#3 = x -> 6
6  $cas#2 = cas(x, 1, 2) -> 7
7  l = ($tmp#3 + ($cas#2 ? 1 : 0)) -> end
`},
		{"expression function with a cas", "shared int x; func tryLock() bool { return cas(x, 0, 1); } thread t { tryLock(); if (tryLock() || x == 5) { x = 0; } }", Config{}, `-- t
0* $cas = cas(x, 0, 1) -> 1
1* $cas#2 = cas(x, 0, 1) -> 2
2  if ($cas#2 || (x == 5)) else end -> 3
3* x = 0 -> end
`},
		{"cas statement", "shared int x; thread t { cas(x, 0, 1); }", Config{}, `-- t
0* cas(x, 0, 1) -> end
`},
		{"empty thread and return", "thread t { return; } thread u { int l = 0; if (l == 0) { return; } l = 1; } thread v { }", Config{}, `-- t
0* nop -> end
-- u
0* l = 0 -> 1
1  if (l == 0) else 2 -> end
2  l = 1 -> end
-- v
0* nop -> end
`},
		{"locks, joins, yield", "mutex m; mutex f[2]; thread w[2] { lock(m); lock(f[tid]); unlock(f[tid]); unlock(m); yield; } thread main { join(w); join(w[1]); }", Config{}, `-- w
0* lock m -> 1
1* lock f[tid] -> 2
2* unlock f[tid] -> 3
3* unlock m -> 4
4* yield -> end
-- main
0* join w -> 1
1* join w[1] -> end
`},
		{"local assert and assume", "shared int x; thread t { int l = 1; assert(l == 1, \"one\"); assume(l == 1); assert(x == 0); }", Config{}, `-- t
0* l = 1 -> 1
1  assert (l == 1) "one" -> 2
2* assume (l == 1) -> 3
3* assert (x == 0) -> end
`},
		{"dead code is dropped", "shared int x; thread t { while (true) { break; x = 1; } return; x = 2; }", Config{}, `-- t
0* if true else end -> end
`},
	}
	for _, tt := range tests {
		p := compileOK(t, tt.src, tt.cfg)
		var got strings.Builder
		for _, tm := range p.Templates {
			fmt.Fprintf(&got, "-- %s\n%s", tm.Name, dumpNodes(tm))
			if tm.Entry != 0 {
				t.Errorf("%s: template %s enters at %d", tt.name, tm.Name, tm.Entry)
			}
		}
		if got.String() != tt.want {
			t.Errorf("%s:\n%s\ngot:\n%swant:\n%s", tt.name, tt.src, got.String(), tt.want)
		}
	}
}

// TestNoFoldCutsEveryStatement checks the --no-fold rule on a program with every
// kind of statement: the first node of each statement outside atomic blocks is a
// cut point, other nodes are not.
func TestNoFoldCutsEveryStatement(t *testing.T) {
	src := `shared int x; shared int a[3];
thread t {
	int l = 1;
	l++;
	for (int i = 0; i < 2; i++) { l += i; }
	if (l > 0) { l = 0; } else { l = 1; }
	bool b = l == 0 && cas(x, 0, 1);
	assert(l == 0);
}`
	p := compileOK(t, src, Config{NoFold: true})
	var texts []string
	for _, n := range p.Templates[0].Nodes {
		if n.Cut {
			texts = append(texts, n.Text)
		}
	}
	want := []string{"int l = 1", "l++", "int i = 0", "for (int i = 0; i < 2; i++)", "l += i", "i++",
		"if (l > 0)", "l = 0", "l = 1", "bool b = l == 0 && cas(x, 0, 1)", "assert(l == 0)"}
	if strings.Join(texts, " | ") != strings.Join(want, " | ") {
		t.Errorf("cut points:\n got %q\nwant %q", texts, want)
	}
}

func TestLowerProgram(t *testing.T) {
	src := `const N = 2;
shared int x = -1;
shared bool flags[3] = {true};
shared int table[4] = {1, 2, 3};
mutex m;
mutex fork[N];
thread writer { x = nondet(); }
thread reader[N] {
	int l = x;
	assert(l == 0 || l == 42, "reader saw a value nobody wrote");
}`
	p := compileOK(t, src, Config{Width: 16})
	if p.File != "t.kb" || p.Width != 16 || p.NoFold {
		t.Errorf("program header: %q %d %v", p.File, p.Width, p.NoFold)
	}
	var shared []string
	for _, v := range p.Shared {
		shared = append(shared, fmt.Sprintf("%s %s len %d init %v at %s", v.Type, v.Name, v.Len, v.Init, v.Pos))
	}
	want := []string{
		"int x len 0 init [-1] at 2:12",
		"bool flags len 3 init [1 0 0] at 3:13",
		"int table len 4 init [1 2 3 0] at 4:12",
	}
	if strings.Join(shared, "\n") != strings.Join(want, "\n") {
		t.Errorf("shared:\n%s", strings.Join(shared, "\n"))
	}
	if len(p.Mutexes) != 2 || p.Mutexes[0].Name != "m" || p.Mutexes[0].Len != 0 || p.Mutexes[1].Len != 2 {
		t.Errorf("mutexes: %+v %+v", p.Mutexes[0], p.Mutexes[1])
	}
	if len(p.Templates) != 2 || p.Templates[0].Count != 0 || p.Templates[1].Count != 2 || len(p.Threads) != 3 {
		t.Fatalf("templates or threads wrong: %d templates, %d threads", len(p.Templates), len(p.Threads))
	}
	w := p.Templates[0].Nodes[0]
	if w.X.Op != ir.ENondet || !w.X.Unbounded || w.X.Lo != -32768 || w.X.Hi != 32767 || w.X.Pos != (ir.Pos{Line: 7, Col: 21}) {
		t.Errorf("nondet(): %+v", w.X)
	}
	r := p.Templates[1]
	if len(r.Locals) != 1 || r.Locals[0].Name != "l" || r.Locals[0].Shared || r.Pos != (ir.Pos{Line: 8, Col: 1}) {
		t.Errorf("reader locals or position: %+v %v", r.Locals, r.Pos)
	}
	a := r.Nodes[1]
	if a.Op != ir.OpAssert || a.Msg != "reader saw a value nobody wrote" || a.Pos != (ir.Pos{Line: 10, Col: 2}) ||
		a.Text != `assert(l == 0 || l == 42, "reader saw a value nobody wrote")` {
		t.Errorf("assert node: %+v", a)
	}
	if e := a.X; e.Op != ir.ELOr || e.Type != ir.Bool || e.Pos != (ir.Pos{Line: 10, Col: 16}) || e.X.Pos != (ir.Pos{Line: 10, Col: 11}) {
		t.Errorf("assert condition: %+v", e)
	}
	if r.Nodes[0].Text != "int l = x" || !r.Nodes[0].Cut || r.Nodes[1].Cut {
		t.Errorf("reader cuts or texts: %+v", r.Nodes[0])
	}
}

func TestNodeTexts(t *testing.T) {
	src := `shared int x;
thread t {
	int i = 0;
	while (i <
	       3) { i++; }
	if (x > 0 /* positive */) {
		x = x
		    - 1; // decrement
	}
	for (int j = 0; j < 2; j++) { }
	atomic { }
}`
	p := compileOK(t, src, Config{})
	var got []string
	for _, n := range p.Templates[0].Nodes {
		got = append(got, fmt.Sprintf("%s %s", n.Pos, n.Text))
	}
	want := []string{
		"3:2 int i = 0", "4:2 while (i < 3)", "5:14 i++", "6:2 if (x > 0)", "7:3 x = x - 1",
		"10:7 int j = 0", "10:2 for (int j = 0; j < 2; j++)", "10:25 j++", "11:2 atomic { }",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLowerLimits(t *testing.T) {
	// Every call doubles the code: 2^40 copies must be refused, not built.
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "func f%d() { f%d(); f%d(); }\n", i, i+1, i+1)
	}
	b.WriteString("func f40() { }\nthread t { f0(); }")
	_, err := Compile("t.kb", []byte(b.String()), Config{})
	if err == nil || !strings.Contains(err.Error(), "program too large") {
		t.Errorf("exponential inlining: got %v", err)
	}
	b.Reset()
	for i := range 60 {
		fmt.Fprintf(&b, "func g%d(int v) int { return g%d(v) + g%d(v); }\n", i, i+1, i+1)
	}
	b.WriteString("func g60(int v) int { return v; }\nshared int x; thread t { x = g0(x); }")
	_, err = Compile("t.kb", []byte(b.String()), Config{})
	if err == nil || !strings.Contains(err.Error(), "program too large") {
		t.Errorf("exponential expression: got %v", err)
	}
	_, err = Compile("t.kb", []byte("thread t[1000] { int a[2000]; }"), Config{})
	if err == nil || !strings.Contains(err.Error(), "program too large: its state needs more than 1048576 cells") {
		t.Errorf("state size: got %v", err)
	}
}

// TestLongChains compiles very long operator chains: every pass must stay linear
// in them (asking a left-deep BinaryExpr for its Pos walks its whole left spine).
func TestLongChains(t *testing.T) {
	for _, src := range []string{
		"shared int x; thread t { x = " + strings.Repeat("x + ", 20000) + "1; }",
		"shared int x; thread t { bool b = " + strings.Repeat("x == 1 && ", 20000) + "cas(x, 0, 1); }",
		"const C = " + strings.Repeat("1 + ", 20000) + "1; thread t { }",
	} {
		compileOK(t, src, Config{})
	}
}
