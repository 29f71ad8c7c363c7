package kb2go_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kbmc/gofront"
	"kbmc/internal/kb2go"
	"kbmc/internal/oracle"
	"kbmc/ir"
	"kbmc/lang"
)

// TestTranslateText checks the Go text of a few constructs, and that what
// has no faithful Go form is refused at its position.
func TestTranslateText(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // fragments of the Go form
		err  string   // a fragment of the refusal ("" : none)
	}{
		{"rendezvous and buffered", `chan (int) r capacity 0; chan (bool) b capacity 2;
process p { thread t { send(r, 1); send(b, true); } }
process q { thread t { int x; bool y; recv(r, x); recv(b, y); } }`,
			[]string{"kbc_r := make(chan int32)\n", "kbc_b := make(chan bool, 2)\n", "kbc_r <- 1\n", "kbm1 := <-kbc_r\n", "x = kbm1\n"}, ""},
		{"a message of two fields is packed", `chan (int, bool) c capacity 1;
process p { thread t { int x; bool f; send(c, 7, true); recv(c, x, f); } }`,
			[]string{"make(chan int64, 1)", "kbc_c <- kbPackIB(7, true)", "x = int32(kbm1 >> 0)", "f = kbm1>>32&1 != 0"}, ""},
		{"ok receive and close", `chan (int) c capacity 1;
process p { thread t { int x; bool ok; close(c); recv(c, x) ok(ok); } }`,
			[]string{"close(kbc_c)", "kbm1, kbok2 := <-kbc_c", "ok = kbok2"}, ""},
		{"select with a when guard and a default", `chan (int) c capacity 1;
process p { thread t { int x; select { case recv(c, x) when (x > 0): x = 1; case send(c, x + 1): default: x = 2; } } }`,
			[]string{"var kbs1 int32 = (x + 1)", "if (x > 0) {\n\t\t\t\tkbch2 = kbc_c", "case kbm3 := <-kbch2:", "case kbc_c <- kbs1:", "default:"}, ""},
		{"a channel array and pid", `chan (int) c[2] capacity 1;
process p[2] { thread t { send(c[(pid + 1) % 2], pid); } }`,
			[]string{"kbChanint32_2(((pid + 1) % 2), kbc_c_0, kbc_c_1) <- pid", "go kbp_p(1, 0, kbc_c_0, kbc_c_1)"}, ""},
		{"process arrays are scalars", `process p { shared int a[2] = {1, 2}; thread t { int i = nondet(0, 2); a[i] = a[1 - i]; } }`,
			[]string{"var kba_a_0 int32 = 1", "int32(rand.Intn(3))", "case 1:\n\t\t\t\tkba_a_1 = kbv1", "panic(\"kb2go: index out of range\")"}, ""},
		{"break inside a select leaves the loop", `chan (int) c capacity 1;
process p { thread t { int x; while (true) { select { case recv(c, x): break; default: x = 1; } } } }`,
			[]string{"kbL1:\n", "break kbL1"}, ""},
		{"operators", `process p { thread t { int x = nondet(0, 3); int y = x << x; bool b = (x & 1) == 1; bool c = b & (x > 1); int z = x / (x - 1); } }`,
			[]string{"kbShl(x, x)", "((x & 1) == 1)", "kbAnd(b, (x > 1))", "kbDiv(x, (x - 1))"}, ""},
		{"constants fold at width 32", `const N = 2147483647; process p { thread t { int x = N + 1; int y = x * (N + N); } }`,
			[]string{"var x int32 = (-2147483648)", "(x * (-2))"}, ""},
		{"await on the goroutine's memory waits for ever", `process p { shared int x; thread t { await(x == 1); } }`,
			[]string{"if !((x == 1)) {", "select {}"}, ""},

		{"threads over shared memory", `shared int x; thread t { x = 1; }`, nil, "threads over shared memory do not translate"},
		{"mutex", `process p { mutex m; thread t { lock(m); } }`, nil, "mutex m"},
		{"two threads in a process", `process p { thread t { } thread u { } }`, nil, "has a second thread"},
		{"lossy", `chan (int) c capacity 1 lossy; process p { thread t { send(c, 1); } }`, nil, "never loses"},
		{"unordered", `chan (int) c capacity 1 unordered; process p { thread t { send(c, 1); } }`, nil, "FIFO"},
		{"assume", `process p { shared int x; thread t { assume(x == 0); } }`, nil, "assume"},
		{"await on a channel's length", `chan (int) c capacity 1; process p { thread t { await(len(c) > 0); } }`, nil, "await on a channel's length"},
		{"len in a guard", `chan (int) c capacity 1; process p { thread t { int x; select { case recv(c, x) when (len(c) > 0): } } }`, nil, "len of a channel"},
		{"len in a message", `chan (int) c capacity 1; process p { thread t { send(c, len(c)); } }`, nil, "len of a channel"},
		{"two lens", `chan (int) c capacity 1; chan (int) d capacity 1; process p { thread t { int x = len(c) + len(d); } }`, nil, "2 reads of channel lengths"},
		{"end label", `chan (int) c capacity 1; process p { thread t { int x; end: recv(c, x); } }`, nil, "end label"},
		{"nondet without bounds", `process p { thread t { int x = nondet(); } }`, nil, "nondet() without bounds"},
		{"a conditional that may fail, in statements", `process p { shared int a[2]; thread t { int i = nondet(0, 2); int x = (i > 0 ? a[i] : 0) + 1; } }`,
			[]string{"var kbt1 int32\n", "if (i > 0) {\n\t\t\tkbt1 = kbGetI2(i, kba_a_0, kba_a_1)", "var x int32 = (kbt1 + 1)"}, ""},
		{"a conditional that may fail, in a loop's condition", `process p { shared int a[2]; thread t { int i = nondet(0, 2); while ((i > 0 ? a[i] : 0) > 0) { i--; } } }`,
			[]string{"for {\n\t\t\t\tvar kbt2 int32\n", "if (i > 0) {", "if !((kbt2 > 0)) {\n\t\t\t\t\tbreak"}, ""},
		{"a conditional that may fail, in a loop's post statement", `process p { shared int a[2]; thread t { int i; for (i = 0; i < 2; i = i > 0 ? a[i] : 2) { } } }`, nil, "a conditional whose branches may fail"},
		{"a message that may fail", `chan (int) c capacity 0; process p { shared int a[2]; thread t { int i = nondet(1, 2); send(c, a[i]); } }`, nil, "a message that may fail"},
		{"a select's message that may fail", `chan (int) c capacity 0; process p { shared int a[2]; thread t { int i = nondet(1, 2); int x; select { case send(c, a[i]): case recv(c, x): } } }`, nil, "a message that may fail"},
		{"a select with a default and a rendezvous send", `chan (int) c capacity 0; process p { thread t { select { case send(c, 1): default: } } }`, nil, "a rendezvous channel"},
		{"function", `process p { func f(int x) int { return x; } thread t { } }`, nil, "function f"},
		{"messages over 64 bits", `chan (int, int, bool) c capacity 1; process p { thread t { } }`, nil, "65 bits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog, err := kb2go.Translate("t.kb", []byte(tc.src))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				if !strings.Contains(err.Error(), "t.kb:") {
					t.Errorf("error %v has no position", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(prog.Go), w) {
					t.Errorf("the Go form lacks %q:\n%s", w, prog.Go)
				}
			}
		})
	}
}

// TestTranslateBehaviour checks that small programs mean the same in both
// forms: the violation kinds each reaches at any depth (the Go form's panics
// mapped by class), and whether some execution runs for ever.
func TestTranslateBehaviour(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		kinds []ir.ViolationKind
	}{
		{"a rendezvous handoff", `chan (int) c capacity 0;
process p { thread t { send(c, 1); } }
process q { thread t { int x; recv(c, x); assert(x == 1); } }`, nil},
		{"a failed assertion", `chan (int, bool) c capacity 1;
process p { thread t { send(c, -5, true); } }
process q { thread t { int x; bool f; recv(c, x, f); assert(x == -5 && !f, "wrong message"); } }`, []ir.ViolationKind{ir.Assertion}},
		{"a receive left waiting is a deadlock", `chan (int) c capacity 1;
process p { thread t { int x; recv(c, x); } }`, []ir.ViolationKind{ir.Deadlock}},
		{"a send on a closed channel", `chan (int) c capacity 1;
process p { thread t { close(c); } }
process q { thread t { send(c, 1); } }`, []ir.ViolationKind{ir.Panic}},
		{"closed and drained: zeros, ok false", `chan (int) c capacity 2;
process p { thread t { send(c, 4); close(c); } }
process q { thread t { int x; bool ok = true; recv(c, x) ok(ok); recv(c, x) ok(ok); assert(ok || x == 0); assert(ok, "drained"); } }`,
			[]ir.ViolationKind{ir.Assertion}},
		{"an index out of range", `process p { shared int a[2]; thread t { int i = nondet(0, 2); a[i] = 1; } }`, []ir.ViolationKind{ir.Bounds}},
		{"a shift out of range", `process p { thread t { int i = nondet(31, 32); int x = 1 << i; } }`, []ir.ViolationKind{ir.Shift}},
		{"a division by zero", `process p { thread t { int i = nondet(0, 1); int x = 4 / i; } }`, []ir.ViolationKind{ir.DivisionByZero}},
		{"a conditional evaluates the branch taken only", `chan (int, bool) c capacity 1;
process p { thread t { int i = nondet(0, 1); int y = i == 0 ? 1 : 4 / i; bool f = i == 1 && (4 / i) == 4; send(c, y, f); } }`, nil},
		{"select with default never takes from a rendezvous sender", `chan (int) c capacity 0;
process p { thread t { send(c, 1); } }
process q { thread t { int x = 0; select { case recv(c, x): default: } assert(x == 0); } }`, []ir.ViolationKind{ir.Deadlock}},
		{"local code that fails after a loop head is a step of its own", `chan (int) c capacity 1;
process p { thread t { int x; recv(c, x); for (int i = 0; i < 1 / x; i++) { } } }
process q { thread t { send(c, 0); send(c, 0); assert(false, "q ran on"); } }`, []ir.ViolationKind{ir.Assertion, ir.DivisionByZero}},
		{"an atomic block is a step of its own", `chan (int) c capacity 0;
process p { thread t { send(c, 1); close(c); } }
process q { thread t { int x; recv(c, x); atomic { assert(x == 0); } } }
process r { thread t { send(c, 2); } }`, []ir.ViolationKind{ir.Assertion, ir.Panic}},
		{"a receive whose channel index fails starts its step before the index", `chan (int) c[2] capacity 1;
process p { thread t { int x; recv(c[0], x); recv(c[x + 2], x); } }
process q { thread t { send(c[0], 0); send(c[0], 0); assert(false, "q ran on"); } }`, []ir.ViolationKind{ir.Assertion, ir.Bounds}},
		{"a channel index out of range fails though the send would wait", `chan (int) c[2] capacity 0;
process p { thread t { int i = nondet(1, 2); send(c[i], 1); } }`, []ir.ViolationKind{ir.Bounds, ir.Deadlock}},
		{"a guarded case's index is evaluated only when the guard holds", `chan (int) c[2] capacity 1;
process p { thread t { int i = 2; int x; send(c[0], 1); select { case recv(c[i], x) when (i < 2): case recv(c[0], x): } } }`, nil},
		{"a guard that is false is a nil channel", `chan (int) c capacity 1;
process p { thread t { int x = 0; send(c, 3); select { case recv(c, x) when (false): case send(c, 1) when (x > 0): } } }`, []ir.ViolationKind{ir.Deadlock}},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pk, err := lang.Compile("t.kb", []byte(tc.src), lang.Config{Width: kb2go.Width})
			if err != nil {
				t.Fatal(err)
			}
			prog, err := kb2go.Translate("t.kb", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, string(rune('a'+i)), "main.go")
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, prog.Go, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := gofront.Compile(file, gofront.Config{})
			if err != nil {
				t.Fatalf("%v\n%s", err, prog.Go)
			}
			if err := local(res.Program); err != nil {
				t.Errorf("%v\n%s", err, prog.Go)
			}
			for _, x := range []struct {
				name string
				p    *ir.Program
			}{{".kb", pk}, {"Go", res.Program}} {
				o, err := oracle.Explore(x.p, 1<<16, class)
				if err != nil {
					t.Fatalf("oracle on the %s form: %v", x.name, err)
				}
				if got := o.Kinds(1<<30, false); !slices.Equal(got, tc.kinds) || o.Longest < 0 {
					t.Errorf("%s form: %s; want violations %v and no cycle\n%s", x.name, o, tc.kinds, prog.Go)
				}
			}
		})
	}
}
