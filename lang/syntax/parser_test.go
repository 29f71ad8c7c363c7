package syntax

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sexpr renders an expression fully bracketed, to test how the parser groups.
func sexpr(x Expr) string {
	switch x := x.(type) {
	case *Ident:
		return x.Name
	case *IntLit:
		return x.Lit
	case *BoolLit:
		return fmt.Sprint(x.Value)
	case *TidExpr:
		return "tid"
	case *ParenExpr:
		return sexpr(x.X)
	case *IndexExpr:
		return "(index " + x.X.Name + " " + sexpr(x.Index) + ")"
	case *CallExpr:
		return "(call " + x.Fun.Name + sexprs(x.Args) + ")"
	case *NondetExpr:
		return "(nondet" + sexprs(x.Args) + ")"
	case *CasExpr:
		return "(cas" + sexprs(x.Args) + ")"
	case *UnaryExpr:
		return "(" + x.Op.String() + " " + sexpr(x.X) + ")"
	case *BinaryExpr:
		return "(" + x.Op.String() + " " + sexpr(x.X) + " " + sexpr(x.Y) + ")"
	case *CondExpr:
		return "(? " + sexpr(x.Cond) + " " + sexpr(x.X) + " " + sexpr(x.Y) + ")"
	case *MemberExpr:
		s := "(member " + x.Proc.Name
		if x.Index != nil {
			s += " " + sexpr(x.Index)
		}
		s += " " + x.Member.Name
		if x.MIndex != nil {
			s += " " + sexpr(x.MIndex)
		}
		return s + ")"
	case *QuantExpr:
		q := "forall"
		if x.Exists {
			q = "exists"
		}
		return "(" + q + " " + x.Var.Name + " " + sexpr(x.Lo) + " " + sexpr(x.Hi) + " " + sexpr(x.Body) + ")"
	}
	return fmt.Sprintf("<%T>", x)
}

func sexprs(list []Expr) string {
	var s string
	for _, x := range list {
		s += " " + sexpr(x)
	}
	return s
}

func TestParseExprShapes(t *testing.T) {
	tests := []struct{ src, want string }{
		{"1 + 2 * 3", "(+ 1 (* 2 3))"},
		{"1 - 2 - 3", "(- (- 1 2) 3)"},
		{"(1 - 2) - 3", "(- (- 1 2) 3)"},
		{"1 - (2 - 3)", "(- 1 (- 2 3))"},
		{"a || b && c", "(|| a (&& b c))"},
		{"a && b || c && d", "(|| (&& a b) (&& c d))"},
		{"a | b ^ c & d", "(| a (^ b (& c d)))"},
		{"a == b < c", "(== a (< b c))"},
		{"a < b << c", "(< a (<< b c))"},
		{"a << b + c", "(<< a (+ b c))"},
		{"-a * ~b % !c", "(% (* (- a) (~ b)) (! c))"},
		{"- -1", "(- (- 1))"},
		{"a ? b : c ? d : e", "(? a b (? c d e))"},
		{"a || b ? c + 1 : d", "(? (|| a b) (+ c 1) d)"},
		{"a ? b ? c : d : e", "(? a (? b c d) e)"},
		{"x[i + 1] * f(a, b[2])", "(* (index x (+ i 1)) (call f a (index b 2)))"},
		{"cas(x, 0, 1) && nondet() > nondet(0, 3)", "(&& (cas x 0 1) (> (nondet) (nondet 0 3)))"},
		{"tid == 0 != true", "(!= (== tid 0) true)"},
		{"g()", "(call g)"},
		// Invariants' expressions: process members and quantifiers (the checker
		// allows them only in an invariant).
		{"node[1].leader", "(member node 1 leader)"},
		{"coord.x + node[i + 1].votes[j] * 2", "(+ (member coord x) (* (member node (+ i 1) votes j) 2))"},
		{"forall i in 0..N - 1: a[i] > 0 && b", "(forall i 0 (- N 1) (&& (> (index a i) 0) b))"},
		{"x || exists i in 0..2: forall j in i..3: n[i].v[j] == 0", "(|| x (exists i 0 2 (forall j i 3 (== (member n i v j) 0))))"},
		{"(forall i in 0..1: p) || q", "(|| (forall i 0 1 p) q)"},
		{"forall i in 0..1: c ? d : e", "(forall i 0 1 (? c d e))"},
		{"forall + exists", "(+ forall exists)"},
	}
	for _, tt := range tests {
		f, err := Parse("t.kb", []byte("const C = "+tt.src+";"))
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		got := sexpr(f.Decls[0].(*ConstDecl).Value)
		if got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestParseDeclShapes(t *testing.T) {
	src := `
const N = 3;
shared int x = 0;
shared bool done;
shared int a[N] = {1, 2, 3,};
mutex m;
mutex fork[5];
func hash(int w, bool b) int { return w; }
func nothing() {}
thread writer { x = 42; }
thread reader[N] { int l = x; }
`
	f, err := Parse("t.kb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ConstDecl:
			got = append(got, "const "+d.Name.Name)
		case *VarDecl:
			s := "shared " + d.Type.Kind.String() + " " + d.Name.Name
			if d.Size != nil {
				s += "[" + sexpr(d.Size) + "]"
			}
			if l, ok := d.Init.(*InitList); ok {
				s += fmt.Sprintf(" = list of %d", len(l.Elems))
			} else if d.Init != nil {
				s += " = " + sexpr(d.Init)
			}
			got = append(got, s)
		case *MutexDecl:
			s := "mutex " + d.Name.Name
			if d.Size != nil {
				s += "[" + sexpr(d.Size) + "]"
			}
			got = append(got, s)
		case *FuncDecl:
			s := fmt.Sprintf("func %s/%d", d.Name.Name, len(d.Params))
			if d.Result != nil {
				s += " " + d.Result.Kind.String()
			}
			got = append(got, s)
		case *ThreadDecl:
			s := "thread " + d.Name.Name
			if d.Count != nil {
				s += "[" + sexpr(d.Count) + "]"
			}
			got = append(got, s)
		}
	}
	want := []string{
		"const N", "shared int x = 0", "shared bool done", "shared int a[N] = list of 3",
		"mutex m", "mutex fork[5]", "func hash/2 int", "func nothing/0",
		"thread writer", "thread reader[N]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseStmtShapes(t *testing.T) {
	src := `thread t {
	int i = 0;
	i = 1; i += 2; i -= 3; i++; i--; a[i] = 4;
	if (c) { } else if (d) { x = 1; } else { }
	while (c) {}
	for (int j = 0; j < 3; j++) { break; continue; }
	for (;;) {}
	return; return 1;
	assert(c); assert(c, "m\"sg");
	assume(c); await(c); lock(m); unlock(m[1]); join(r); join(r[0]); yield;
	atomic { await(c); x = 1; }
	f(1); cas(x, 0, 1);
	;
}`
	f, err := Parse("t.kb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range f.Decls[0].(*ThreadDecl).Body.List {
		got = append(got, fmt.Sprintf("%T", s)[len("*syntax."):])
	}
	want := "VarDecl AssignStmt AssignStmt AssignStmt IncDecStmt IncDecStmt AssignStmt IfStmt WhileStmt ForStmt ForStmt " +
		"ReturnStmt ReturnStmt AssertStmt AssertStmt GuardStmt GuardStmt LockStmt LockStmt JoinStmt JoinStmt YieldStmt " +
		"AtomicStmt ExprStmt ExprStmt EmptyStmt"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
	body := f.Decls[0].(*ThreadDecl).Body.List
	if msg := body[14].(*AssertStmt).Msg; msg == nil || msg.Value != `m"sg` {
		t.Errorf("assert message: got %+v", msg)
	}
	ifs := body[7].(*IfStmt)
	if _, ok := ifs.Else.(*IfStmt); !ok {
		t.Errorf("else if: got %T", ifs.Else)
	}
	fs := body[9].(*ForStmt)
	if _, ok := fs.Init.(*VarDecl); !ok || fs.Cond == nil || fs.Post == nil {
		t.Errorf("for clauses: %+v", fs)
	}
	if fs := body[10].(*ForStmt); fs.Init != nil || fs.Cond != nil || fs.Post != nil {
		t.Errorf("for (;;) clauses: %+v", fs)
	}
}

// roundTrip parses src, prints it, parses and prints again: the two printings
// must agree, so printing loses nothing the parser reads.
func roundTrip(t *testing.T, name string, src []byte) {
	t.Helper()
	f, err := Parse(name, src)
	if err != nil {
		return // only well-formed files round-trip
	}
	out1 := Print(f)
	f2, err := Parse(name, []byte(out1))
	if err != nil {
		t.Fatalf("%s: printed form does not parse: %v\n%s", name, err, out1)
	}
	if out2 := Print(f2); out1 != out2 {
		t.Fatalf("%s: printing is not stable:\n%s\n----\n%s", name, out1, out2)
	}
}

var roundTripSources = []string{
	`const N = 2; chan (int) c[N] capacity 1;
process node[N] { shared int leader = -1; shared bool votes[N]; thread t { leader = pid; } }
process coord { shared int round; thread t { round = 1; } }
invariant one_leader: forall i in 0..N - 1: forall j in 0..N - 1: node[i].leader == node[j].leader || node[i].leader < 0;
invariant quorum: coord.round == 0 || (exists i in 0..N - 1: node[i].votes[i]) && len(c[0]) <= 1;
`,
	`const N = 3; shared int x = -1; shared int a[N] = {1, 2}; mutex m[2];
func f(int a, bool b) int { return b ? a : -a; }
thread t[N] {
	int l = x; if (l > 0) { l = 1; } else if (l < 0) { l = -(-l); } else { l = - -l; }
	while (!cas(x, 0, 1)) {}
	for (int i = 0; i < N; i++) { a[i] += f(i, true); if (i == 2) { break; } else { continue; } }
	atomic { await(x == 0); x = 1; }
	assert(l == 0 || l == 42, "msg with  two spaces");
	lock(m[tid]); unlock(m[tid]); join(t[0]); yield; return;
}`,
	"thread t { if (a) { if (b) { x = 1; } else { y = 2; } } }",
	"thread t { x = (a ? b : c) ? d : e; y = ((1)); }",
	`const N = 2;
chan (int, bool) to[N] capacity 2;
chan (int) done capacity 1;
process node[N] {
	shared int leader = -1;
	mutex m;
	func next() int { return (pid + 1) % N; }
	thread listener {
		int from; bool b;
		recv(to[pid], from, b);
		lock(m); if (from > leader) { leader = from; } unlock(m);
		if (len(to[pid]) == 0) { send(done, pid); }
	}
	thread announcer[2] { send(to[next()], pid * 10 + tid, true); }
}
process observer { thread main { int who; recv(done, who); } }`,
	`chan (int) c[2] capacity 0;
thread t {
	int x; bool ok; bool on = true;
	recv(c[0], x) ok(ok);
	select {
	case recv(c[1], x) ok(ok) when (on && x > 0):
		close(c[1]);
	case send(c[0], 1) when (!on):
	default:
	}
	close(c[0]);
}`,
}

func TestRoundTrip(t *testing.T) {
	for i, src := range roundTripSources {
		if _, err := Parse("t.kb", []byte(src)); err != nil {
			t.Fatalf("source %d: %v", i, err)
		}
		roundTrip(t, fmt.Sprintf("source %d", i), []byte(src))
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*.kb"))
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, file, src)
	}
}

func TestPrintCanonical(t *testing.T) {
	src := "thread t{if(a){x=1;}else{x=2;} while(c){y++;}}"
	want := "thread t {\n\tif (a) {\n\t\tx = 1;\n\t} else {\n\t\tx = 2;\n\t}\n\twhile (c) {\n\t\ty++;\n\t}\n}\n"
	f, err := Parse("t.kb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := Print(f); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		src  string
		want []string // every error, "line:col: message"
	}{
		{"thread t { x = 1 }", []string{`1:18: expected ";", found "}"`}},
		{"thread t { send(c, 1) ok(b); }", []string{`1:23: ok(…) follows a recv only: it says whether a message was taken`}},
		{"thread t { recv(c, x) ok b; }", []string{`1:26: expected "(", found identifier b`}},
		{"thread t { select { case recv(c, x) when on: } }", []string{`1:42: expected "(", found identifier on`}},
		{"thread t { close c; }", []string{`1:18: expected "(", found identifier c`}},
		{"thread t {\n  x = 1\n  y = 2;\n}", []string{`2:8: expected ";", found identifier y`}},
		{"thread t { x = ; }", []string{`1:16: expected expression, found ";"`}},
		{"thread t { if x { } }", []string{`1:15: expected "(", found identifier x`}},
		{"thread t {\n if (x = 1) { y = 2; }\n z = ;\n}", []string{
			`2:8: "=" assigns and is not an expression here; to compare, write "=="`,
			`3:6: expected expression, found ";"`,
		}},
		{"int x;", []string{`1:1: expected declaration, found "int" (a variable outside a body is declared with "shared"; a function with "func name(params) int { … }")`}},
		{"void f() { }", []string{`1:1: expected declaration, found identifier void (kbmc has no void: a function without a result is declared "func name(params) { … }")`}},
		{"thread t { assert(x = 1); }", []string{`1:21: "=" assigns and is not an expression here; to compare, write "=="`}},
		{"thread t { if (c) x = 1; }", []string{`1:19: the body of if must be a block in braces: write if (…) { … }`}},
		{"thread t { if (c) { } else x = 1; }", []string{`1:28: the body of else must be a block in braces: write else { … } (or else if (…) { … })`}},
		{"thread t {\n while (c);\n x = 1;\n}", []string{`2:11: the body of while must be a block in braces: an empty loop (a busy-wait) is written while (…) {}`}},
		{"thread t { for (;;) x++; }", []string{`1:21: the body of for must be a block in braces: write for (…) { … }`}},
		{"thread { }", []string{`1:8: expected name, found "{"`}},
		{"shared x;", []string{`1:8: expected type ("int" or "bool"), found identifier x`}},
		{"thread t { x = 1;\nthread u { }", []string{`2:1: expected "}", found "thread"`}},
		{"thread t { else x = 1; }", []string{`1:12: expected statement, found "else"`}},
		{"thread t { assert(x, y); }", []string{`1:22: expected message string, found identifier y`}},
		{"thread t { atomic x = 1; }", []string{`1:19: expected "{", found identifier x`}},
		{"func f(int) { }", []string{`1:11: expected name, found ")"`}},
		{"thread t { x = 1 +; }\nthread u { y = ); }\nconst = 3;", []string{
			`1:19: expected expression, found ";"`,
			`2:16: expected expression, found ")"`,
			`3:7: expected name, found "="`,
		}},
		{"thread t { x = a[1; }", []string{`1:19: expected "]", found ";"`}},
		{"thread t { x = f(1, 2; }", []string{`1:22: expected ")", found ";"`}},
		{"thread t { x = 1; } }", []string{`1:21: expected declaration, found "}"`}},
		{"thread t {", []string{`1:11: expected "}", found end of file`}},
		{"thread t { x = 0x; }", []string{`1:16: invalid integer literal 0x: no hexadecimal digits`}},
		// Invariants.
		{"invariant i x;", []string{`1:13: expected ":", found identifier x`}},
		{"invariant i: ;", []string{`1:14: expected expression, found ";"`}},
		{"invariant i: x == 1", []string{`1:20: expected ";", found end of file`}},
		{"invariant i: forall k 0..2: x;", []string{`1:23: expected "in" (forall NAME in LOW..HIGH: condition), found literal 0`}},
		{"invariant i: forall k in 0...2: x;", []string{`1:29: expected expression, found "."`}},
		{"invariant i: forall k in 0..2 x;", []string{`1:31: expected ":", found identifier x`}},
		{"invariant i: exists k in 0, 2: x;", []string{`1:27: expected "..", found ","`}},
		{"invariant i: node[0]. == 1;", []string{`1:23: expected name, found "=="`}},
		{"invariant i: node[0].v[ == 1;", []string{`1:25: expected expression, found "=="`}},
		{"invariant len: true;", []string{`1:11: expected name, found "len"`}},
		{"invariant: true;", []string{`1:10: expected name, found ":"`}},
	}
	for _, tt := range tests {
		_, err := Parse("t.kb", []byte(tt.src))
		var list ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%q: got %v, want errors", tt.src, err)
			continue
		}
		var got []string
		for _, e := range list {
			got = append(got, fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg))
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, strings.Join(got, "\n     "), strings.Join(tt.want, "\n     "))
		}
	}
}

func TestNestingLimit(t *testing.T) {
	deep := func(open, mid, close string, n int) string {
		return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
	}
	for _, src := range []string{
		"const C = " + deep("(", "1", ")", 5000) + ";",
		"const C = " + deep("- ", "1", "", 5000) + ";",
		"const C = " + deep("a ? b : ", "c", "", 5000) + ";",
		"const C = " + deep("f(", "", ")", 5000) + ";",
		"const C = " + deep("a[", "0", "]", 5000) + ";",
		"thread t " + deep("{", "", "}", 5000),
		"thread t { " + deep("if (c) { ", "x = 1;", " }", 5000) + " }",
		"thread t { " + deep("while (c) { ", "", " }", 5000) + " }",
	} {
		_, err := Parse("t.kb", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "nested too deeply") {
			t.Errorf("%.30q…: got %v, want a nesting error", src, err)
		}
	}
	ok := "const C = " + deep("(", "1", ")", MaxNesting-5) + ";"
	if _, err := Parse("t.kb", []byte(ok)); err != nil {
		t.Errorf("nesting below the limit: %v", err)
	}
}

func TestErrorRendering(t *testing.T) {
	src := "thread t {\n\tif (c) {\n\t\tx = y + ;\n\t}\n}\n"
	_, err := Parse("f.kb", []byte(src))
	want := "f.kb:3:11: expected expression, found \";\"\n\t\tx = y + ;\n\t\t        ^"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 || list[0].Pos.Filename != "f.kb" || list[0].Source != "\t\tx = y + ;" {
		t.Errorf("errors.As: %#v", list)
	}

	two := ErrorList{
		{Pos: Position{"f.kb", 2, 1}, Msg: "second", Source: "b"},
		{Pos: Position{"f.kb", 1, 3}, Msg: "first", Source: "abc"},
		{Pos: Position{Filename: "f.kb"}, Msg: "whole file"},
	}
	two.Sort()
	want = "f.kb: whole file\nf.kb:1:3: first\nabc\n  ^\nf.kb:2:1: second\nb\n^"
	if got := two.Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	utf := &Error{Pos: Position{"f.kb", 1, 9}, Msg: "m", Source: "x = \"é\xff\" + y"}
	if got, want := utf.Error(), "f.kb:1:9: m\nx = \"é\xff\" + y\n       ^"; got != want {
		t.Errorf("caret after multi-byte and invalid characters:\n%q\nwant\n%q", got, want)
	}
	if (ErrorList{}).Err() != nil {
		t.Error("empty list is an error")
	}
}

func TestText(t *testing.T) {
	src := "thread t {\n  x = a +  /* plus */\n      b; // end\n  assert(c, \"two  spaces\");\n}"
	f, err := Parse("t.kb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	body := f.Decls[0].(*ThreadDecl).Body.List
	if got := f.Text(body[0].Pos(), body[0].End()); got != "x = a + b" {
		t.Errorf("got %q", got)
	}
	if got := f.Text(body[1].Pos(), body[1].End()); got != `assert(c, "two  spaces")` {
		t.Errorf("got %q", got)
	}
}
