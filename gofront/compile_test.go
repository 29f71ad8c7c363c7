package gofront

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kbmc/explicit"
	"kbmc/internal/annotation"
	"kbmc/ir"
	"kbmc/verify"
)

// compileSrc writes src as a Go file of its own and compiles it.
func compileSrc(t testing.TB, src string, cfg Config) (*Result, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p_test.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Compile(path, cfg)
}

// TestUnsupported: every construct gofront does not model is an input error
// at its position that names it.
func TestUnsupported(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"type error", "package p\nfunc main() { x := 1 }\n", "2:15: declared and not used: x"},
		{"float", "package p\nvar f float64\nfunc main() { f = 1 }\n", "floating-point"},
		{"recursion", "package p\nfunc f(n int) int { if n == 0 { return 0 }; return f(n - 1) }\nfunc main() { _ = f(2) }\n",
			"2:53: recursive call of f"},
		{"unmodelled call", "package p\nimport \"os\"\nfunc main() { os.Getpid() }\n", "3:24: call of os.Getpid: not supported"},
		{"time.Since compared", "package p\nimport \"time\"\nfunc main() { t := time.Now(); if time.Since(t) > time.Second { panic(\"slow\") } }\n",
			"3:45: time.Since where its value matters is not supported"},
		{"Lockers of several kinds", "package p\nimport \"sync\"\nfunc main() { var a sync.Mutex; var b sync.RWMutex; ls := []sync.Locker{&a, &b}; ls[0].Lock() }\n",
			"a sync.Locker that may hold values of different kinds ((*sync.Mutex), (*sync.RWMutex)) is not supported"},
		{"string operator", "package p\nfunc main() { a, b := \"x\", \"y\"; _ = a < b }\n", "string operator < is not supported"},
		{"variable capacity", "package p\nvar n = 2\nfunc main() { _ = make(chan int, n) }\n", "3:23: make of a channel whose capacity is not a constant"},
		{"no entry", "package p\nfunc helper() {}\n", "no entry point"},
		{"two entries", "package p\nimport \"testing\"\nfunc TestA(t *testing.T) {}\nfunc TestB(t *testing.T) {}\n", "2 entry points (TestA, TestB): choose one with --entry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileSrc(t, tc.src, Config{})
			if err == nil {
				t.Fatalf("compiled; want an error mentioning %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not mention %q:\n%v", tc.want, err)
			}
			var list ErrorList
			if line, _, ok := strings.Cut(tc.want, ":"); ok && strings.Trim(line, "0123456789") == "" && !errors.As(err, &list) {
				t.Errorf("%v is no positioned error list", err)
			}
		})
	}
}

// TestEntry: --entry picks the function; main is the default next to no
// test; the entry's template is the program's Entry (leaks are judged by it).
func TestEntry(t *testing.T) {
	src := "package p\nimport \"testing\"\nfunc main() {}\nfunc TestA(t *testing.T) {}\nfunc other() {}\n"
	for _, tc := range []struct{ entry, want string }{{"TestA", "TestA"}, {"other", "other"}, {"main", "main"}} {
		res, err := compileSrc(t, src, Config{Entry: tc.entry})
		if err != nil {
			t.Fatal(err)
		}
		if res.Entry != tc.want || res.Program.Entry != res.Program.Templates[0] {
			t.Errorf("entry %s: got %s (program entry %v)", tc.entry, res.Entry, res.Program.Entry)
		}
	}
	if _, err := compileSrc(t, src, Config{Entry: "missing"}); err == nil || !strings.Contains(err.Error(), "no function missing") {
		t.Errorf("a missing entry: %v", err)
	}
}

// check runs engine e on a compiled program with the given depth.
func check(t *testing.T, p *ir.Program, algo string, depth int) *verify.Result {
	t.Helper()
	eng, err := explicit.New(algo, explicit.Options{Options: verify.Options{Depth: depth}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Check(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestModel checks the semantics of the constructs by verdicts, each under
// the reference search and dpor.
func TestModel(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      ir.ViolationKind // NoViolation: safe
	}{
		{"leak of a sender", "package p\nfunc main() { c := make(chan int); go func() { c <- 1 }() }\n", ir.Leak},
		{"buffered send does not leak", "package p\nfunc main() { c := make(chan int, 1); go func() { c <- 1 }() }\n", ir.NoViolation},
		{"global deadlock", "package p\nfunc main() { c := make(chan int); <-c }\n", ir.Deadlock},
		{"nil channel blocks", "package p\nfunc main() { var c chan int; go func() { c <- 1 }() }\n", ir.Leak},
		{"close then receive zero", "package p\nfunc main() { c := make(chan int, 1); c <- 5; close(c); a := <-c; b, ok := <-c; if a != 5 || b != 0 || ok { panic(\"bad\") } }\n", ir.NoViolation},
		{"send on closed channel", "package p\nfunc main() { c := make(chan int, 1); close(c); c <- 1 }\n", ir.Panic},
		{"close of nil channel", "package p\nfunc main() { var c chan int; close(c) }\n", ir.Panic},
		{"select default", "package p\nfunc main() { c := make(chan int); select { case c <- 1: panic(\"no receiver\") ; default: } }\n", ir.NoViolation},
		{"select on nil case", "package p\nfunc main() { var n chan int; c := make(chan int, 1); c <- 1; select { case <-n: panic(\"nil\"); case <-c: } }\n", ir.NoViolation},
		{"mutex protects", "package p\nimport \"sync\"\nfunc main() { var mu sync.Mutex; var wg sync.WaitGroup; n := 0\n" +
			"for i := 0; i < 2; i++ { wg.Add(1); go func() { defer wg.Done(); mu.Lock(); n++; mu.Unlock() }() }\nwg.Wait(); if n != 2 { panic(\"lost\") } }\n", ir.NoViolation},
		{"lost update", "package p\nimport \"sync\"\nfunc main() { var wg sync.WaitGroup; n := 0\n" +
			"for i := 0; i < 2; i++ { wg.Add(1); go func() { defer wg.Done(); n++ }() }\nwg.Wait(); if n != 2 { panic(\"lost\") } }\n", ir.Panic},
		{"lock twice", "package p\nimport \"sync\"\nfunc main() { var mu sync.Mutex; mu.Lock(); mu.Lock() }\n", ir.Deadlock},
		{"unlock by another goroutine", "package p\nimport \"sync\"\nfunc main() { var mu sync.Mutex; mu.Lock(); d := make(chan bool); go func() { mu.Unlock(); d <- true }(); <-d; mu.Lock() }\n", ir.NoViolation},
		{"unlock of unlocked", "package p\nimport \"sync\"\nfunc main() { var mu sync.Mutex; mu.Unlock() }\n", ir.Panic},
		{"negative waitgroup", "package p\nimport \"sync\"\nfunc main() { var wg sync.WaitGroup; wg.Done() }\n", ir.Panic},
		{"rwmutex writer preference", "package p\nimport \"sync\"\nfunc main() { var m sync.RWMutex; d := make(chan bool); m.RLock()\n" +
			"go func() { m.Lock(); m.Unlock(); d <- true }(); m.RLock(); m.RUnlock(); m.RUnlock(); <-d }\n", ir.Deadlock},
		{"once", "package p\nimport \"sync\"\nfunc main() { var o sync.Once; n := 0; f := func() { n++ }; o.Do(f); o.Do(f); if n != 1 { panic(\"twice\") } }\n", ir.NoViolation},
		{"cond signal", "package p\nimport \"sync\"\nfunc main() { var mu sync.Mutex; c := sync.NewCond(&mu); ready := false\n" +
			"go func() { mu.Lock(); ready = true; c.Signal(); mu.Unlock() }()\nmu.Lock(); for !ready { c.Wait() }; mu.Unlock() }\n", ir.NoViolation},
		{"cond lost wakeup", "package p\nimport \"sync\"\nfunc main() { var mu sync.Mutex; c := sync.NewCond(&mu)\n" +
			"go func() { mu.Lock(); c.Signal(); mu.Unlock() }()\nmu.Lock(); c.Wait(); mu.Unlock() }\n", ir.Deadlock},
		{"context cancel wakes", "package p\nimport \"context\"\nfunc main() { ctx, cancel := context.WithCancel(context.Background()); d := make(chan bool)\n" +
			"go func() { <-ctx.Done(); if ctx.Err() != context.Canceled { panic(\"err\") }; d <- true }(); cancel(); <-d }\n", ir.NoViolation},
		{"child context cancelled by parent", "package p\nimport \"context\"\nfunc main() { p, cancel := context.WithCancel(context.Background()); c, cc := context.WithCancel(p); defer cc(); cancel(); <-c.Done() }\n", ir.NoViolation},
		{"timer may fire first", "package p\nimport \"time\"\nfunc main() { c := make(chan int); go func() { c <- 1 }(); select { case <-c: case <-time.After(time.Second): } }\n", ir.Leak},
		{"map", "package p\nfunc main() { m := map[int]int{}; m[1] = 2; m[3] = 4; delete(m, 1); v, ok := m[1]; s := 0; for k, x := range m { s += k + x }; if len(m) != 1 || ok || v != 0 || s != 7 { panic(\"map\") } }\n", ir.NoViolation},
		{"append", "package p\nfunc main() { var s []int; s = append(s, 1); s = append(s, 2, 3); if len(s) != 3 || s[0]+s[1]+s[2] != 6 { panic(\"append\") } }\n", ir.NoViolation},
		{"append in place past the block", "package p\nfunc main() { s := make([]int, 0, 10); for i := 0; i < 9; i++ { s = append(s, i) }; if len(s) != 9 || s[8] != 8 { panic(\"append\") } }\n", ir.NoViolation},
		{"index out of range", "package p\nfunc main() { s := make([]int, 2); i := 2; s[i] = 1 }\n", ir.Panic},
		{"interface dispatch", "package p\ntype N interface{ n() int }\ntype A struct{}\ntype B struct{ v int }\nfunc (*A) n() int { return 1 }\nfunc (b *B) n() int { return b.v }\n" +
			"func main() { var x N = &B{v: 2}; if x.n() != 2 { panic(\"dispatch\") }; x = &A{}; if _, ok := x.(*B); ok { panic(\"assert\") } }\n", ir.NoViolation},
		{"errors compare by identity", "package p\nimport \"errors\"\nvar ErrX = errors.New(\"x\")\nfunc mk() error { return errors.New(\"y\") }\n" +
			"func main() { a, b := mk(), mk(); if a == b || ErrX != ErrX || a == ErrX || a == nil { panic(\"errors\") } }\n", ir.NoViolation},
		{"type switch", "package p\ntype A struct{ a int }\ntype B struct{ b int }\nfunc kind(x any) int { switch v := x.(type) { case *A: return v.a; case *B: return v.b }; return 0 }\n" +
			"func main() { if kind(&A{a: 1}) != 1 || kind(&B{b: 2}) != 2 || kind(3) != 0 { panic(\"switch\") } }\n", ir.NoViolation},
		{"function value through memory", "package p\ntype S struct{ f func() int }\nfunc main() { s := &S{f: func() int { return 3 }}; if s.f() != 3 { panic(\"call\") } }\n", ir.NoViolation},
		{"time.Since as a timer's duration", "package p\nimport \"time\"\nfunc main() { t := time.Now(); d := 2 * time.Second; <-time.After(d - time.Since(t)) }\n", ir.NoViolation},
		{"an RWMutex as a Locker", "package p\nimport \"sync\"\nfunc main() { var mu sync.RWMutex; var l sync.Locker = &mu; l.Lock(); mu.RLock() }\n", ir.Deadlock},
		{"a Cond on an RLocker", "package p\nimport \"sync\"\nfunc main() { var mu sync.RWMutex; c := sync.NewCond(mu.RLocker()); done := false\n" +
			"go func() { mu.Lock(); done = true; mu.Unlock(); c.Broadcast() }()\nmu.RLock(); for !done { c.Wait() }; mu.RUnlock(); mu.Lock() }\n", ir.NoViolation},
		{"a Locker of the program's type", "package p\nimport \"sync\"\ntype L struct{ n int }\nfunc (l *L) Lock() { l.n++ }\nfunc (l *L) Unlock() { l.n-- }\n" +
			"func main() { l := &L{}; var x sync.Locker = l; x.Lock(); x.Lock(); if l.n != 2 { panic(\"locker\") } }\n", ir.NoViolation},
		{"copy", "package p\nfunc main() { a := []int{1, 2, 3}; b := make([]int, 2); n := copy(b, a); if n != 2 || b[0] != 1 || b[1] != 2 { panic(\"copy\") } }\n", ir.NoViolation},
		{"copy to a later part of one array", "package p\nfunc main() { s := []int{1, 2, 3, 4}; copy(s[1:], s[:3]); if s[0] != 1 || s[1] != 1 || s[2] != 2 || s[3] != 3 { panic(\"memmove\") } }\n", ir.NoViolation},
		{"copy to an earlier part of one array", "package p\nfunc main() { s := []int{1, 2, 3, 4}; copy(s, s[1:]); if s[0] != 2 || s[1] != 3 || s[2] != 4 || s[3] != 4 { panic(\"memmove\") } }\n", ir.NoViolation},
		{"append of a slice of unknown length", "package p\nfunc main() { var xs []int; for i := 0; i < 3; i++ { xs = append(xs, i) }\n" +
			"ys := append([]int{9}, xs...); if len(ys) != 4 || ys[0] != 9 || ys[3] != 2 { panic(\"append\") } }\n", ir.NoViolation},
		{"make of a run-time length", "package p\nfunc mk(n int) []int { return make([]int, n) }\nfunc main() { k := 0; for i := 0; i < 3; i++ { k++ }; s := mk(k); s[2] = 1; if len(s) != 3 || cap(s) != 3 { panic(\"make\") } }\n", ir.NoViolation},
		{"make of a negative run-time length", "package p\nfunc main() { k := 0; for i := 0; i < 3; i++ { k-- }; _ = make([]int, k) }\n", ir.Panic},
		{"a promoted Lock through a Locker", "package p\nimport \"sync\"\ntype S struct{ n int; sync.Mutex }\nfunc main() { s := &S{}; var l sync.Locker = s; l.Lock(); s.Lock() }\n", ir.Deadlock},
		{"a promoted method through an interface", "package p\ntype G interface{ Get() int }\ntype Base struct{ v int }\nfunc (b *Base) Get() int { return b.v }\ntype D struct{ x int; Base }\n" +
			"func main() { var g G = &D{Base: Base{v: 5}}; if g.Get() != 5 { panic(\"promoted\") } }\n", ir.NoViolation},
		{"the zero string is empty", "package p\nvar g string\nfunc main() { var s string; if s != \"\" || g != \"\" || len(s) != 0 { panic(\"empty\") } }\n", ir.NoViolation},
		{"len of a string", "package p\nimport \"errors\"\nfunc name(i int) string { if i > 0 { return \"héllo\" }; return \"\" }\n" +
			"func main() { k := 0; for i := 0; i < 2; i++ { k++ }; e := errors.New(\"boom\"); if len(name(k)) != 6 || len(name(0)) != 0 || len(\"ab\") != 2 { panic(\"len\") }; _ = e }\n", ir.NoViolation},
		{"len of a string scaled", "package p\nfunc name(i int) string { if i > 0 { return \"abc\" }; return \"\" }\n" +
			"func main() { k := 0; for i := 0; i < 2; i++ { k++ }; s := make([]int, 8); s[len(name(k))*2] = 1; if len(name(k))*2 != 6 { panic(\"scaled\") } }\n", ir.NoViolation},
		{"len of a string kbmc does not know", "package p\nimport \"fmt\"\nfunc main() { s := fmt.Sprint(1); if len(s) > 5 { panic(\"len\") } }\n", ir.Unsupported},
		{"atomic.Bool", "package p\nimport \"sync/atomic\"\nfunc main() { var b atomic.Bool; b.Store(true); if !b.Load() || !b.Swap(false) || !b.CompareAndSwap(false, true) || !b.Load() { panic(\"bool\") } }\n", ir.NoViolation},
		{"recover without a panic is nil", "package p\nfunc f() (r int) { defer func() { if recover() != nil { r = 2 } }(); return 1 }\nfunc main() { if f() != 1 { panic(\"recovered\") } }\n", ir.NoViolation},
		{"a panic a deferred recover may stop", "package p\nfunc f() { defer func() { recover() }(); panic(\"boom\") }\nfunc main() { f() }\n", ir.Unsupported},
		{"a run-time panic a deferred recover may stop", "package p\nfunc g(m map[int]int) { m[1] = 1 }\nfunc f() { defer func() { recover() }(); var m map[int]int; g(m) }\nfunc main() { f() }\n", ir.Unsupported},
		{"a deferred function that does not recover", "package p\nfunc f() { defer func() {}(); panic(\"boom\") }\nfunc main() { f() }\n", ir.Panic},
		{"recover does not reach another goroutine", "package p\nfunc main() { defer func() { recover() }(); done := make(chan bool); go func() { panic(\"g\") }(); <-done }\n", ir.Panic},
		{"test failure", "package p\nimport \"testing\"\nfunc TestX(t *testing.T) { c := make(chan int, 1); go func() { c <- 1 }(); select { case <-c: default: t.Fatal(\"not yet\") } }\n", ir.Assertion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := compileSrc(t, tc.src, Config{})
			if err != nil {
				t.Fatal(err)
			}
			for _, algo := range []string{"dfs", "dpor"} {
				r := check(t, res.Program, algo, 200)
				got := ir.NoViolation
				switch {
				case r.Violation != nil:
					got = r.Violation.Kind
				case r.Verdict == verify.Unknown && strings.HasPrefix(r.Note, "unsupported at "):
					got = ir.Unsupported
				}
				if got != tc.want || r.Verdict == verify.BoundedSafe {
					t.Errorf("%s: %s (%v), want %v", algo, r.Verdict, got, tc.want)
				}
			}
		})
	}
}

// TestTestdata: every Go program of testdata/go compiles, and its expected
// verdict is dfs --stateful's (kbmc regress runs every engine on them).
func TestTestdata(t *testing.T) {
	files, _ := filepath.Glob("../testdata/go/*.go")
	if len(files) < 40 {
		t.Fatalf("%d Go programs in testdata/go", len(files))
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
		entry := ""
		for i, a := range ann.Args {
			if a == "--entry" && i+1 < len(ann.Args) {
				entry = ann.Args[i+1]
			}
		}
		res, err := Compile(f, Config{Entry: entry})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		eng, _ := explicit.New("dfs", explicit.Options{Stateful: true})
		r, err := eng.Check(context.Background(), res.Program)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Verdict.String(); got != ann.Expect {
			t.Errorf("%s: %s, want %s", f, got, ann.Expect)
		}
	}
}

// FuzzCompile: no input makes gofront panic; a program it accepts passes
// ir's own checks (Finish, inside Compile).
func FuzzCompile(f *testing.F) {
	files, _ := filepath.Glob("../testdata/go/*.go")
	for _, file := range files[:min(len(files), 8)] {
		src, _ := os.ReadFile(file)
		f.Add(string(src))
	}
	f.Add("package p\nfunc main() { select {} }\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		path := filepath.Join(dir, "p.go")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Compile(path, Config{})
		if err == nil && res.Program == nil {
			t.Fatal("no program and no error")
		}
	})
}

// TestRaces: the property no-data-race on Go memory. The library's own
// synchronization (sync's objects, channels, contexts, timers) is no data
// race; an unsynchronized counter is.
func TestRaces(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		race      bool
	}{
		{"counter", "package p\nimport \"sync\"\nfunc main() { var wg sync.WaitGroup; n := 0\n" +
			"for i := 0; i < 2; i++ { wg.Add(1); go func() { defer wg.Done(); n++ }() }\nwg.Wait() }\n", true},
		{"counter under a mutex", "package p\nimport \"sync\"\nfunc main() { var mu sync.Mutex; var wg sync.WaitGroup; n := 0\n" +
			"for i := 0; i < 2; i++ { wg.Add(1); go func() { defer wg.Done(); mu.Lock(); n++; mu.Unlock() }() }\nwg.Wait(); mu.Lock(); _ = n; mu.Unlock() }\n", false},
		{"waitgroup, cond and context", "package p\nimport (\"context\"; \"sync\")\nfunc main() { var mu sync.Mutex; c := sync.NewCond(&mu); var wg sync.WaitGroup\n" +
			"ctx, cancel := context.WithCancel(context.Background()); ready := false; wg.Add(1)\n" +
			"go func() { defer wg.Done(); <-ctx.Done(); _ = ctx.Err(); mu.Lock(); ready = true; c.Broadcast(); mu.Unlock() }()\n" +
			"cancel(); mu.Lock(); for !ready { c.Wait() }; mu.Unlock(); wg.Wait() }\n", false},
		{"atomics", "package p\nimport (\"sync\"; \"sync/atomic\")\nfunc main() { var n int32; var wg sync.WaitGroup\n" +
			"for i := 0; i < 2; i++ { wg.Add(1); go func() { defer wg.Done(); atomic.AddInt32(&n, 1); _ = atomic.LoadInt32(&n) }() }\nwg.Wait() }\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := compileSrc(t, tc.src, Config{})
			if err != nil {
				t.Fatal(err)
			}
			res.Program.SelectProperty(ir.DataRace)
			r := check(t, res.Program, "dfs", 300)
			if got := r.Violation != nil && r.Violation.Kind == ir.DataRace; got != tc.race || r.Verdict == verify.Unknown {
				t.Errorf("%s (%v), want race %v", r.Verdict, r.Violation, tc.race)
			}
		})
	}
}

// TestAppendBound: a slice that grows past append's block stops the run as
// unsupported (verdict unknown), never as a panic of the program.
func TestAppendBound(t *testing.T) {
	res, err := compileSrc(t, "package p\nfunc main() { var s []int; for i := 0; i < 9; i++ { s = append(s, i) } }\n", Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := check(t, res.Program, "dfs", 400)
	if r.Verdict != verify.Unknown || r.Violation != nil && r.Violation.Kind != ir.Unsupported {
		t.Errorf("%s (%v), want unknown: the model's bound", r.Verdict, r.Violation)
	}
}

// writePackage writes a package's files (and a go.mod) into a new directory.
func writePackage(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/p\n\ngo 1.22\n"
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPackage: a directory is its package with its tests, as go test loads
// it; positions in another file than the entry's name that file.
func TestPackage(t *testing.T) {
	dir := writePackage(t, map[string]string{
		"worker.go": "package p\n\nfunc work(c chan int) {\n\tc <- 1\n}\n",
		"work_test.go": "package p\n\nimport \"testing\"\n\nfunc TestWork(t *testing.T) {\n\tc := make(chan int)\n\tgo work(c)\n}\n" +
			"\nfunc TestOther(t *testing.T) {}\n",
	})
	entries, err := Entries(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(entries, " ") != "TestWork TestOther" {
		t.Errorf("entries: got %v", entries)
	}
	res, err := Compile(dir, Config{Entry: "TestWork"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "work_test.go"); res.File != want || len(res.Files) != 2 || res.Program.File != want {
		t.Errorf("files: got %s %v (program %s)", res.File, res.Files, res.Program.File)
	}
	r := check(t, res.Program, "dfs", 100)
	if r.Violation == nil || r.Violation.Kind != ir.Leak {
		t.Fatalf("got %v, want a leak", r.Violation)
	}
	// The leaked goroutine waits at worker.go's send, the entry's file is
	// the program's own.
	if want := (ir.Pos{File: filepath.Join(dir, "worker.go"), Line: 4, Col: 4}); r.Violation.Pos != want {
		t.Errorf("leak at %v, want %v", r.Violation.Pos, want)
	}
	if sites := res.Program.Pools[0].Sites; len(sites) != 1 || sites[0] != (ir.Pos{Line: 7, Col: 2}) {
		t.Errorf("start sites: got %v", sites)
	}

	// Errors name the file they are in, with its line.
	bad := writePackage(t, map[string]string{
		"a.go": "package p\n\nfunc main() {}\n",
		"b.go": "package p\n\nfunc f() { x := 1 }\n",
	})
	_, err = Compile(bad, Config{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(bad, "b.go")+":3:12: declared and not used: x") ||
		!strings.Contains(err.Error(), "func f() { x := 1 }") {
		t.Errorf("a type error in another file: %v", err)
	}
	unsupported := writePackage(t, map[string]string{
		"a.go": "package p\n\nfunc main() { f() }\n",
		"b.go": "package p\n\nimport \"os\"\n\nfunc f() { os.Getpid() }\n",
	})
	_, err = Compile(unsupported, Config{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(unsupported, "b.go")+":5:") {
		t.Errorf("an unsupported call in another file: %v", err)
	}

	// Outside a module, a directory's files are named to the go tool one
	// by one, which makes them one package too.
	loose := t.TempDir()
	for name, src := range map[string]string{
		"worker.go":    "package p\n\nfunc work(c chan int) {\n\tc <- 1\n}\n",
		"work_test.go": "package p\n\nimport \"testing\"\n\nfunc TestWork(t *testing.T) {\n\tc := make(chan int)\n\tgo work(c)\n\t<-c\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(loose, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err = Compile(loose, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if r := check(t, res.Program, "dfs", 100); r.Violation != nil || len(res.Files) != 2 {
		t.Errorf("a directory outside a module: %v, files %v", r.Violation, res.Files)
	}

	// An external test package is refused by name, not skipped.
	ext := writePackage(t, map[string]string{
		"a.go":      "package p\n\nfunc F() {}\n",
		"a_test.go": "package p_test\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {}\n",
	})
	if _, err := Compile(ext, Config{}); err == nil || !strings.Contains(err.Error(), "a_test.go is an external test package (package p_test)") {
		t.Errorf("an external test package: %v", err)
	}
	// A directory of an external test package alone is that package.
	only := writePackage(t, map[string]string{
		"a_test.go": "package p_test\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { c := make(chan int); go func() { c <- 1 }() }\n",
	})
	if res, err := Compile(only, Config{}); err != nil {
		t.Errorf("a directory of an external test package alone: %v", err)
	} else if r := check(t, res.Program, "dfs", 100); r.Violation == nil || r.Violation.Kind != ir.Leak {
		t.Errorf("a directory of an external test package alone: got %v, want a leak", r.Violation)
	}
	// A file of a package of several files is a package of its own, as go
	// run reads it.
	if _, err := Compile(filepath.Join(dir, "work_test.go"), Config{Entry: "TestWork"}); err == nil || !strings.Contains(err.Error(), "undefined: work") || !strings.Contains(err.Error(), "name its directory") {
		t.Errorf("a file alone: %v", err)
	}
}
