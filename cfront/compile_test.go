package cfront

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kbmc/internal/annotation"
	"kbmc/ir"
)

// TestUnsupported: every construct cfront does not model is an input error at
// its position that names it.
func TestUnsupported(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"float", "float f; int main(void) { f = 1; return 0; }", "1:7: global f: type float is not supported"},
		{"double local", "int main(void) { double d = 2; return (int)d; }", "type double is not supported"},
		{"union", "union u { int a; char b; } v; int main(void) { v.a = 1; return 0; }", "a union"},
		{"bit field", "struct s { int a : 3; } v; int main(void) { v.a = 1; return 0; }", "a bit field"},
		{"recursion", "int f(int n) { return n ? f(n - 1) : 0; }\nint main(void) { return f(2); }", "1:27: recursive call of f"},
		{"function pointer call", "int g(void) { return 1; }\nint main(void) { int (*h)(void) = g; return h(); }", "function pointers are not supported"},
		{"unknown function", "int ext(int);\nint main(void) { return ext(1); }", "2:25: call of ext, which has no definition"},
		{"no main", "int x;", "no function main"},
		{"loop in atomic", "extern void __VERIFIER_atomic_begin(void); extern void __VERIFIER_atomic_end(void);\nint x;\nint main(void) { __VERIFIER_atomic_begin(); while (x < 3) x++; __VERIFIER_atomic_end(); return 0; }",
			"3:45: a loop inside an atomic section"},
		{"start routine not a function", "#include <pthread.h>\nvoid *(*r)(void *);\nint main(void) { pthread_t t; pthread_create(&t, 0, r, 0); return 0; }",
			"the start routine must name a function"},
		{"untyped malloc", "#include <stdlib.h>\nint main(void) { void *p = malloc(4); return p != 0; }", "malloc whose element type is not known"},
		{"goto into nowhere", "int main(void) { goto out; return 0; }", "1:23: label undefined: out"},
		{"pthread rwlock", "#include <pthread.h>\npthread_rwlock_t l;\nint main(void) { pthread_rwlock_rdlock(&l); return 0; }", "pthread_rwlock_rdlock is not supported"},
		{"syntax", "int main(void) { return 0 }", "1:27:"},
		{"atomic pointer", "_Atomic int *p;\nint main(void) { return p != 0; }", "1:13: p: _Atomic on a pointer"},
		{"atomic member", "struct s { _Atomic int n; } v;\nint main(void) { return v.n; }", "n: an _Atomic struct member"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(filepath.Join(t.TempDir(), "p.c"), []byte(tc.src), Config{})
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("got %v, want an ErrorList mentioning %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not mention %q:\n%v", tc.want, err)
			}
		})
	}
}

// TestParserLoops: inputs on which cc's parser would never return (it skips
// tokens after a '*' until one that may end a declarator's qualifiers) are
// reported at the token after the '*', well before the time limit; valid C
// with keywords after a '*' still compiles.
func TestParserLoops(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"star at the end", "A(*", "1:4: syntax error"},
		{"statement keyword", "A(*return", "1:4: syntax error"},
		{"later lines", "A(A A\nif!\nreturn 0\nA!*return    ", "4:4: syntax error"},
		{"keyword then a dot", "A(A A\nif!\nreturn 0\nA!*return.   ", "4:4: syntax error"},
		{"type keyword", "int x; *struct", "1:9: syntax error"},
		{"empty builtin macro", "*__extension__", "1:15: syntax error"},
		{"keyword from a macro", "#define R return\nA(*R", "1:1: after macro expansion: syntax error"},
		{"empty macro", "#define E\nA(*E", "after macro expansion: syntax error"},
		{"struct of itself", "struct A { int x; struct A a; } v; int main(void) { v.n = 1; }", "1:19: struct A has a member of its own type"},
		{"union of itself, nested", "union A { struct B { union A a; } b; } v; int main(void) { return v.x; }", "1:22: union A has a member"},
		{"not a directive", "int x;\n##(*   ", "2:1: invalid preprocessing directive"},
		{"fuzzed", "struct A{A;struct A A}v{v.n=v;v.n-v;}", "1:12: struct A has a member"},
		{"valid self pointer", "struct A { int x; struct A *next; int (*f)(struct A a); } v; int main(void) { return v.x; }", ""},
		{"valid", "int x, *p; int main(void) { p = &x; return 2 * sizeof(int *) * *p + (int) sizeof x; }", ""},
		{"valid qualifiers", "int *const volatile q; char *__restrict r; int main(void) { return q == 0; }", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(filepath.Join(t.TempDir(), "p.i"), []byte(tc.src), Config{parseLimit: 20 * time.Second})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid C refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error mentioning %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "did not finish"):
				t.Fatalf("reached the time limit: %v", err)
			}
		})
	}
}

// TestTestdata compiles the project's C programs: those annotated as errors
// must fail with their message, the others compile.
func TestTestdata(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*.c")
	if len(files) < 20 {
		t.Fatalf("%d C programs in testdata", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ann, err := annotation.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		_, err = Compile(f, src, Config{})
		switch {
		case ann.Expect == "error" && (err == nil || !strings.Contains(err.Error(), ann.Error)):
			t.Errorf("%s: want an error mentioning %q, got %v", f, ann.Error, err)
		case ann.Expect != "error" && err != nil:
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestModel checks how constructs are lowered: what a step is, what is an
// object, how pools are sized.
func TestModel(t *testing.T) {
	compile := func(t *testing.T, src string) *ir.Program {
		t.Helper()
		p, err := Compile(filepath.Join(t.TempDir(), "p.c"), []byte(src), Config{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("a statement's shared accesses are steps of their own", func(t *testing.T) {
		p := compile(t, "int x, y;\nint main(void) { x = y + 1; int l = 3; l++; return 0; }")
		// the read of y, then the write of x (the locals fold into it)
		if n := len(p.Templates[0].Transitions); n != 2 {
			t.Errorf("main has %d transitions, want 2", n)
		}
	})
	t.Run("an atomic section is one step", func(t *testing.T) {
		p := compile(t, "extern void __VERIFIER_atomic_begin(void); extern void __VERIFIER_atomic_end(void);\nint x, y;\n"+
			"int main(void) { __VERIFIER_atomic_begin(); x = y + 1; y = x; __VERIFIER_atomic_end(); return 0; }")
		if n := len(p.Templates[0].Transitions); n != 1 {
			t.Errorf("main has %d transitions, want 1", n)
		}
	})
	t.Run("pools follow constant loops", func(t *testing.T) {
		p := compile(t, "#include <pthread.h>\nvoid *f(void *a) { return 0; }\nvoid *g(void *a) { return 0; }\n"+
			"int main(void) { pthread_t t; for (int i = 0; i < 5; i++) pthread_create(&t, 0, f, 0);\n"+
			"while (t) pthread_create(&t, 0, g, 0); pthread_create(&t, 0, g, 0); return 0; }")
		want := map[string]int{"f": 5, "g": DefaultLoopThreads + 1}
		for _, pool := range p.Pools {
			if len(pool.Slots) != want[pool.Name] {
				t.Errorf("pool %s has %d slots, want %d", pool.Name, len(pool.Slots), want[pool.Name])
			}
		}
	})
	t.Run("only variables whose address is taken are objects", func(t *testing.T) {
		p := compile(t, "#include <pthread.h>\nint a, b, c[2];\nvoid *f(void *p) { return 0; }\n"+
			"int main(void) { int l; int *q = &b; pthread_t t; pthread_create(&t, 0, f, c); return a + *q + l; }")
		var names []string
		for _, o := range p.Objects {
			names = append(names, o.Name)
		}
		if got := strings.Join(names, " "); got != "b c" {
			t.Errorf("objects %q, want \"b c\"", got)
		}
	})
}

// FuzzCompile: no input makes cfront panic or hang; a program it accepts
// passes ir's own checks (Finish).
func FuzzCompile(f *testing.F) {
	files, _ := filepath.Glob("../testdata/*.c")
	for _, file := range files {
		if src, err := os.ReadFile(file); err == nil && !strings.Contains(string(src), "#include") {
			f.Add(string(src))
		}
	}
	for _, s := range []string{
		"int x; int main(void) { x++; return x; }",
		"struct s { int a; struct s *n; } v; int main(void) { v.n = &v; v.n->a = 2; return v.a; }",
		"int x, y; void f(void) { y++; } int main(void) { x ?: f(); x ? f() : 0; (x, y) ?: y++; return 0; }",
		"int a[3]; int main(void) { int *p = a; p[2] = 1; return *(p + 2) - (p + 2 - a); }",
		"extern void __VERIFIER_atomic_begin(void); extern void __VERIFIER_atomic_end(void); int x;\n" +
			"void *t(void *a) { __VERIFIER_atomic_begin(); x = x + 1; __VERIFIER_atomic_end(); return a; }\n" +
			"int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);\n" +
			"int main(void) { unsigned long id; pthread_create(&id, 0, t, 0); return 0; }",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		// A .i file: no preprocessor to run.
		p, err := Compile(filepath.Join(dir, "fuzz.i"), []byte(src), Config{parseLimit: 8 * time.Second})
		if err == nil && p == nil {
			t.Fatal("no program and no error")
		}
		if err != nil && strings.Contains(err.Error(), "did not finish") {
			t.Fatalf("the parse did not end: %v", err)
		}
	})
}

// TestFolding: thread-local computation folds into the steps around it. A
// loop whose every iteration creates or joins a thread needs no step of its
// own for its condition, and a created thread's start joins its first step
// (if that cannot block); --no-fold keeps them apart.
func TestFolding(t *testing.T) {
	src := `int pthread_create(unsigned long *, void *, void *(*)(void *), void *);
int pthread_join(unsigned long, void **);
int x;
void *w(void *a) { int i = (int)(long)a; x = i; return 0; }
int main(void) {
    unsigned long h[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&h[i], 0, w, (void *)(long)i);
    for (int i = 0; i < 3; i++)
        pthread_join(h[i], 0);
    while (x < 2) { }
    return 0;
}
`
	for _, noFold := range []bool{false, true} {
		p, err := Compile(filepath.Join(t.TempDir(), "p.i"), []byte(src), Config{NoFold: noFold})
		if err != nil {
			t.Fatal(err)
		}
		var branchSteps, startAlone int
		for _, th := range p.Threads {
			for _, tr := range th.Template.Transitions {
				entry := th.Template.Nodes[tr.Entry]
				if entry.Op == ir.OpBranch {
					branchSteps++
				}
				if entry.Op == ir.OpStart {
					alone := true
					for _, n := range tr.Nodes[1:] {
						if th.Template.Nodes[n].Visible() {
							alone = false
						}
					}
					if alone {
						startAlone++
					}
				}
			}
		}
		// The spin loop's head reads x: a step of its own in either case.
		if !noFold && (branchSteps != 0 || startAlone != 0) {
			t.Errorf("folded: %d loop conditions and %d thread starts are steps of their own, want 0", branchSteps, startAlone)
		}
		if noFold && (branchSteps == 0 || startAlone == 0) {
			t.Errorf("--no-fold: %d loop conditions and %d thread starts are steps of their own, want some of each", branchSteps, startAlone)
		}
	}
}

// A thread-local variable only a header declares, or that the program never
// uses, is no state; one the program uses is a variable per thread that
// uses it (threadCopy), named after the thread.
func TestThreadLocal(t *testing.T) {
	src := "#include <pthread.h>\n__thread int errno_like;\n_Thread_local int mine = 3;\nint x;\n" +
		"void *w(void *a) { mine++; return 0; }\nint main(void) { pthread_t t; pthread_create(&t, 0, w, 0); x = mine; return 0; }\n"
	p, err := Compile(filepath.Join(t.TempDir(), "p.c"), []byte(src), Config{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range p.Shared {
		if strings.Contains(v.Name, "mine") || strings.Contains(v.Name, "errno_like") {
			names = append(names, v.Name)
			if len(v.Init) != 1 || v.Init[0] != 3 {
				t.Errorf("%s starts as %v, want 3", v.Name, v.Init)
			}
		}
	}
	if got := strings.Join(names, " "); got != "mine@main mine@w[0]" && got != "mine@w[0] mine@main" {
		t.Errorf("thread-local variables %q, want mine@main and mine@w[0]", got)
	}
}
