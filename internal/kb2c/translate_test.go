package kb2c_test

import (
	"slices"
	"strings"
	"testing"

	"kbmc/cfront"
	"kbmc/internal/kb2c"
	"kbmc/internal/oracle"
	"kbmc/lang"
)

// translateCases are hand-written programs for the constructs the generator
// seldom or never emits (loop heads that read shared memory, for steps that
// write it, calls and cas in conditions, jumps out of atomic blocks, names C
// gives a meaning) and for each violation kind. Each lists the violation
// kinds reachable at any depth, which both forms must reach (a failed .kb
// assert as reach-error), and whether some execution runs for ever.
var translateCases = []struct {
	name  string
	src   string
	kinds string // reachable violation kinds, comma-separated, in ir's order
	cycle bool   // some execution never ends (a spin loop)
}{
	{"lost update", `
shared int x = 0;
thread w[2] { int t = x; x = t + 1; }
thread main { join(w); assert(x == 2, "lost update"); }`, "assertion", false},
	{"atomic increment", `
shared int x = 0;
thread w[2] { x++; }
thread main { join(w); assert(x == 2); }`, "", false},
	{"compound assignment is one step", `
shared int x = 0;
thread w[2] { x += 3; x -= 1; }
thread main { join(w); assert(x == 4); }`, "", false},
	{"lock protects the update", `
shared int x = 0;
mutex m;
thread w[2] { lock(m); int t = x; x = t + 1; unlock(m); }
thread main { join(w[0]); join(w[1]); assert(x == 2); }`, "", false},
	{"lock order inversion", `
mutex a; mutex b;
thread p { lock(a); lock(b); unlock(b); unlock(a); }
thread q { lock(b); lock(a); unlock(a); unlock(b); }`, "deadlock", false},
	{"relock", `
mutex m;
shared int x;
thread p { lock(m); if (x == 0) { lock(m); } }
thread q { x = 1; }`, "relock", false},
	{"bad unlock", `
mutex m;
thread p { lock(m); unlock(m); }
thread q { unlock(m); }`, "bad-unlock", false},
	{"a lock held at the end blocks for ever", `
mutex m;
thread p { lock(m); }
thread q { lock(m); }`, "deadlock", false},
	{"a false assume cuts, it is no deadlock", `
mutex m;
shared int x = 0;
thread p { lock(m); }
thread q { assume(x == 1); lock(m); }
thread r { lock(m); }`, "", false},
	{"every blocked thread waits on an assume", `
shared int x = 0;
thread q { assume(x == 1); }
thread r { assume(x == 2); }`, "", false},
	{"atomic block guarded by an assume", `
shared int x = 0;
shared int y = 0;
thread p { atomic { assume(x > 0); y = x; } }
thread q { x = 2; }
thread main { join(p); assert(y == 2); }`, "", false},
	{"guard through an expression function", `
shared bool flag;
shared int data;
func ready(int k) bool { return flag && data == k; }
thread p { assume(ready(7)); assert(data == 7); }
thread q { data = 7; flag = true; }`, "", false},
	{"spin loop on a flag", `
shared int data = 0;
shared int flag = 0;
thread producer { data = 42; flag = 1; }
thread consumer { while (flag == 0) { yield; } assert(data == 42); }`, "", true},
	{"spin loop, flag first", `
shared int data = 0;
shared int flag = 0;
thread producer { flag = 1; data = 42; }
thread consumer { while (flag == 0) { } assert(data == 42); }`, "assertion", true},
	{"cas spin lock", `
shared int lk = 0;
shared int in = 0;
thread w[2] {
    while (!cas(lk, 0, 1)) { yield; }
    in++;
    assert(in == 1, "mutual exclusion");
    in--;
    lk = 0;
}`, "", true},
	{"loop head through an expression function", `
shared int x = 0;
func get() int { return x; }
thread p { while (get() < 2) { x++; } assert(x == 2); }
thread q { x = 5; }`, "assertion", false},
	{"for step writes shared memory", `
shared int x = 0;
shared int done = 0;
thread p { for (int i = 0; i < 2; x++) { i++; } done = 1; }
thread q { atomic { assume(x == 1); assert(done == 0); } }`, "", false},
	{"for over a shared counter", `
shared int x = 0;
thread p { for (x = 0; x < 2; x += 1) { } }
thread q { int v = x; assert(v <= 2); }
thread main { join(p); assert(x == 2); }`, "", false},
	{"for over a shared counter, racy", `
shared int x = 0;
thread p { for (x = 0; x < 2; x += 1) { } }
thread q { x = 7; }
thread main { join(p); join(q); assert(x == 2); }`, "assertion", false},
	{"a statement function as a for step", `
shared int x = 0;
func next(int i) int { x++; int j = i + 1; return j; }
thread p { for (int i = 0; i < 2; i = next(i)) { if (i == 1) { continue; } } }
thread q { int v = x; assert(v <= 2); }
thread main { join(p); assert(x == 2); }`, "", false},
	{"continue and break inside atomic", `
shared int x = 0;
thread p {
    for (int i = 0; i < 4; i++) {
        atomic { if (i == 1) { continue; } if (i == 3) { break; } x = x + 10; }
    }
}
thread main { join(p); assert(x == 20); }`, "", false},
	{"return inside atomic", `
shared int x = 0;
shared int y = 0;
thread p { atomic { if (x == 0) { return; } y = 1; } }
thread q { x = 1; }
thread main { join(p); join(q); assert(y == 0); }`, "assertion", false},
	{"a statement function returns inside atomic", `
shared int x = 0;
func take() int { atomic { if (x > 0) { x--; return 1; } } return 0; }
func takeAll() int { atomic { int v = x; x = 0; return v; } }
thread p { int r = take(); int s = takeAll(); assert(r + s <= 2); }
thread q { x = 2; }`, "", false},
	{"statement function with shared arguments and result", `
shared int x = 1;
shared int r = 0;
func add(int a, int b) int { int t = a; t = t + b; return t; }
thread p { r = add(x, x); }
thread q { x = 2; }
thread main { join(p); join(q); assert(r == 2 || r == 4); }`, "", false},
	{"statement function arguments read in one step", `
shared int x = 1;
shared int y = 1;
func both(int a, int b) { assert(a == b); }
thread p { both(x, y); }
thread q { atomic { x = 2; y = 2; } }`, "", false},
	{"void statement function with an early return", `
shared int cells[2];
func store(int i, int v) { if (i < 0 || i >= 2) { return; } cells[i] = v; }
thread p { store(1, 5); store(3, 7); }
thread main { join(p); assert(cells[1] == 5 && cells[0] == 0); }`, "", false},
	{"mutex array with a shared index", `
mutex ms[2];
shared int i = 0;
thread p { lock(ms[i]); unlock(ms[i]); }
thread q { i = nondet(1, 2); }`, "bounds,bad-unlock", false},
	{"mutex array with a constant index", `
mutex ms[3];
shared int x = 0;
thread w[2] { lock(ms[2]); int t = x; x = t + 1; unlock(ms[2]); }
thread main { join(w); assert(x == 2); }`, "", false},
	{"join of one instance chosen by shared data", `
shared int sel = 0;
shared int seen[2];
thread w[2] { seen[tid] = 1; }
thread p { join(w[sel]); assert(seen[sel] == 1); }
thread q { sel = 1; }`, "assertion", false},
	{"join of an instance out of range", `
shared int sel = 0;
thread w[2] { }
thread p { join(w[sel]); }
thread q { sel = 2; }`, "bounds", false},
	{"join waits for every instance", `
shared int n = 0;
thread w[3] { n++; }
thread main { join(w); assert(n == 3); }`, "", false},
	{"join of a single thread", `
shared int x = 0;
thread w { x = 1; }
thread main { join(w); assert(x == 1); }`, "", false},
	{"division by zero", `
shared int d = 1;
thread p { int q = 10 / d; }
thread r { d = nondet(-1, 1); }`, "division-by-zero", false},
	{"remainder by zero in a short circuit", `
shared int d = 0;
thread p { assert(d == 0 || 10 % d == 0); }
thread r { d = 3; }`, "assertion", false},
	{"shift out of range", `
shared int s = 1;
thread p { int v = 1 << s; }
thread r { s = nondet(30, 33); }`, "shift", false},
	{"constant shift out of range", `
shared int x = 1;
thread p { x = x << 40; }`, "shift", false},
	{"constant division by zero", `
shared int x = 1;
thread p { if (x == 1) { x = 10 / (5 - 5); } }
thread q { x = 2; }`, "division-by-zero", false},
	{"constant remainder by zero", `
shared int x = 1;
thread p { x = x % 0; }`, "division-by-zero", false},
	{"negative shift", `
shared int x = 1;
thread p { x = x >> -1; }`, "shift", false},
	{"arithmetic wraps around", `
shared int x = 2147483647;
shared int m = -2147483647 - 1;
shared int o = 1;
thread p {
    x = x + 1;
    assert(x == m);
    assert(m / -1 == m);
    assert(m % -1 == 0);
    assert(-m == m);
    assert(m - 1 == 2147483647);
    assert(65536 * 65536 == 0);
    assert(-7 / 2 == -3 && -7 % 2 == -1 && 7 % -2 == 1);
    assert(-16 >> 2 == -4 && ~5 == -6);
    assert(1 << 31 == m);
}
thread r {
    int one = o;
    int seven = o * 7;
    assert(one << 31 == m && (one << 31) >> 31 == -1);
    assert(-seven / 2 == -3 && -seven % 2 == -1 && seven % -2 == 1);
    assert(-seven * 16 >> 2 == -28 && ~seven == -8);
    assert(65536 * (seven - 6) * 65536 == 0);
    assert((seven ^ 5) == 2 && (seven & 12) == 4 && (seven | 8) == 15);
}`, "", false},
	{"array bounds", `
shared int a[3];
shared int i = 0;
thread p { a[i] = 1; }
thread q { i = nondet(2, 3); }`, "bounds", false},
	{"local array bounds", `
shared int i = 0;
thread p { int l[2] = {4, 5}; assert(l[i] >= 4); }
thread q { i = nondet(-1, 1); }`, "bounds", false},
	{"array initialisers", `
shared int a[4] = {1, 2};
shared bool b[2] = {true};
thread p {
    int l[3] = {a[1], 7};
    assert(a[0] == 1 && a[1] == 2 && a[2] == 0 && a[3] == 0);
    assert(b[0] && !b[1]);
    assert(l[0] == 2 && l[1] == 7 && l[2] == 0);
}`, "", false},
	{"locals reset in a loop", `
thread p {
    for (int i = 0; i < 2; i++) {
        int v;
        bool f;
        int arr[2];
        assert(v == 0 && !f && arr[1] == 0);
        v = 5; f = true; arr[1] = 3;
    }
}`, "", false},
	{"cas on a shared scalar, an array element and a local", `
shared int x = 0;
shared int a[2];
shared int won = 0;
thread w[2] {
    if (cas(x, 0, tid + 1)) { won++; }
    cas(a[x - 1], 0, 9);
    int l = 3;
    bool ok = cas(l, 3, 4);
    assert(ok && l == 4);
}
thread main { join(w); assert(won == 1 && a[0] + a[1] == 9); }`, "", false},
	{"cas on a shared bool", `
shared bool taken;
shared int owners = 0;
thread w[2] { if (cas(taken, false, true)) { owners++; } }
thread main { join(w); assert(owners == 1 && taken); }`, "", false},
	{"cas inside a condition with && and ?:", `
shared int x = 0;
shared int y = 0;
thread p {
    if (x == 0 && cas(y, 0, 1)) { x = 1; }
    int v = x > 0 ? (cas(y, 1, 2) ? 5 : 6) : 7;
    assert(v != 6);
}
thread q { y = nondet(0, 1); }`, "assertion", false},
	{"the index of a store before a cas on its right", `
shared int x = 0;
shared int a[2];
thread p { a[x] = cas(x, 0, 1) ? 5 : 6; assert(a[0] == 5 && x == 1); }`, "", false},
	{"non-short-circuit bool operators", `
shared int x = 0;
shared bool f;
thread p { bool b = (x == 1) & cas(x, 0, 1); assert(!b && x == 1); }
thread q { f = true ^ f | false; assert(f); }`, "", false},
	{"nondet ranges", `
shared int x = 0;
thread p { int v = nondet(-2, 3); assume(v != 1); x = v; }
thread main { join(p); assert(x >= -2 && x <= 3 && x != 1); assert(x != 3, "three"); }`, "assertion", false},
	{"a wide nondet range", `
shared int x;
thread p { int v = nondet(-600, 600); assert(v >= -600 && v <= 600); x = v; }
thread main { join(p); assert(x != 600, "the top"); assert(x != -600, "the bottom"); }`, "assertion", false},
	{"a wide nondet range beside a deadlock", `
mutex a; mutex b;
thread p { int v = nondet(0, 300); if (v == 300) { lock(a); lock(b); } }
thread q { lock(b); lock(a); }`, "deadlock", false},
	{"yield and an empty atomic block are steps", `
shared int x = 0;
thread p { yield; atomic { } x = 1; }
thread q { int a = x; int b = x; assert(a <= b); }`, "", false},
	{"nested atomic blocks", `
shared int x = 0;
thread p { atomic { x = 1; atomic { x = 2; } x = 3; } }
thread q { int v = x; assert(v == 0 || v == 3); }`, "", false},
	{"tid and templates", `
shared int seen[3];
thread w[3] { seen[tid] = tid + 1; }
thread main { join(w); assert(seen[0] + seen[1] + seen[2] == 6); assert(tid == 0); }`, "", false},
	{"constants", `
const N = 2;
const M = N * 3 - 1;
shared int a[M];
thread w[N] { a[M - 1 - tid] = M; }
thread main { join(w); assert(a[4] == 5 && a[3] == 5 && a[2] == 0); }`, "", false},
	{"names C gives a meaning", `
shared int printf = 1;
shared int free = 2;
shared int pthread_x = 3;
shared int _under = 4;
shared int kbh_t1 = 5;
mutex exit;
func malloc(int sleep) int { return sleep + 1; }
thread main { lock(exit); int reach_error = malloc(printf) + free; unlock(exit); assert(reach_error == 4 && pthread_x + _under + kbh_t1 == 12); }`, "", false},
	{"locals hide top-level names", `
shared int x = 1;
const N = 3;
func f(int x) int { return x * 2; }
thread g {
    int x = x + N;
    int N = 5;
    assert(x == 4 && N == 5 && f(x) == 8);
}`, "", false},
	{"else if chains on shared data", `
shared int x = 0;
thread p { if (x == 1) { x = 10; } else if (x == 2) { x = 20; } else { x = 30; } }
thread q { x = nondet(1, 2); }
thread main { join(p); join(q); assert(x != 30); }`, "assertion", false},
	// Statements that can fail in two ways: the first failure in .kb's order
	// of evaluation is the one reported, in both forms.
	{"the value of a store is computed before its index", `
shared int a[2];
shared int b[2];
shared int i = 0;
shared int d = 1;
func g(int e) int { return 10 / e - 10; }
thread p { a[10 / d - 10] = b[i]; }
thread q { atomic { i = 5; d = 0; } }`, "bounds", false},
	{"the value of a store is computed before its index, through a call", `
shared int a[2];
shared int b[2];
shared int i = 0;
shared int d = 1;
func g(int e) int { return 10 / e - 10; }
thread p { a[g(d)] = b[i]; }
thread q { atomic { i = 5; d = 0; } }`, "bounds", false},
	{"a value is computed left to right, before the index", `
shared int a[2];
shared int b[2];
shared int i = 0;
shared int d = 1;
func g(int e) int { return 10 / e - 10; }
thread p { b[g(d)] = g(d) + b[i]; }
thread q { atomic { i = 5; d = 0; } }`, "division-by-zero", false},
	{"the bounds check of a store comes after its value", `
shared int a[2];
shared int b[2];
shared int i = 0;
shared int d = 1;
func g(int e) int { return 10 / e - 10; }
thread p { a[i] = g(d); }
thread q { atomic { i = 5; d = 0; } }`, "division-by-zero", false},
	{"operands fail left to right", `
shared int a[2];
shared int i = 0;
shared int d = 1;
shared int x;
thread p { x = a[i] + 10 / d; }
thread r { x = 10 / d + a[i]; }
thread q { atomic { i = 5; d = 0; } }`, "bounds,division-by-zero", false},
	// A compound assignment reads its target first.
	{"compound assignments fail in order", `
shared int a[2];
shared int i = 0;
shared int d = 1;
thread p { a[i] += 10 / d; }
thread r { a[i]--; }
thread q { atomic { i = -1; d = 0; } }`, "bounds", false},
	{"a cas checks its target first", `
shared int a[2];
shared int i = 0;
shared int d = 1;
thread p { cas(a[i], 0, 10 / d); }
thread q { atomic { i = 2; d = 0; } }`, "bounds", false},
	{"a shift fails before a division", `
shared int s = 0;
shared int d = 1;
shared int x;
thread p { x = (1 << s) / d; }
thread q { atomic { s = 40; d = 0; } }`, "shift", false},
	{"an assertion's condition fails before it is checked", `
shared int a[2];
shared int i = 0;
shared int d = 1;
thread p { assert(10 / d > a[i] + 9); }
thread q { atomic { i = 5; d = 0; } }`, "division-by-zero", false},
	{"a call's arguments fail in order", `
shared int a[2];
shared int i = 0;
shared int d = 1;
shared int r;
func f(int u, int v) int { int w = u + v; return w; }
func g(int u, int v) int { return u - v; }
thread p { r = f(a[i], 10 / d); }
thread t { r = g(10 / d, a[i]); }
thread q { atomic { i = 5; d = 0; } }`, "bounds,division-by-zero", false},
	{"an initialiser list fails in order", `
shared int a[2];
shared int i = 0;
shared int d = 1;
thread p { int l[2] = {a[i], 10 / d}; }
thread q { atomic { i = 5; d = 0; } }`, "bounds", false},
	{"only the chosen branch is evaluated", `
shared int a[2];
shared int i = 0;
shared int d = 1;
shared int x;
thread p { x = i == 0 ? a[i] : 10 / d; }
thread r { x = d != 0 ? 10 / d : a[i]; }
thread q { atomic { i = 5; d = 0; } }`, "bounds,division-by-zero", false},
	{"a while loop with an early return", `
shared int x = 0;
func first() int { int i = 0; while (true) { if (i == 2) { return i; } i++; } }
thread p { x = first(); }
thread main { join(p); assert(x == 2); }`, "", false},
}

func TestTranslate(t *testing.T) {
	for _, tc := range translateCases {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(strings.TrimPrefix(tc.src, "\n"))
			pk, err := lang.Compile("case.kb", src, lang.Config{Width: kb2c.Width})
			if err != nil {
				t.Fatalf("the .kb program does not compile: %v", err)
			}
			prog, err := kb2c.Translate("case.kb", src)
			if err != nil {
				t.Fatalf("Translate: %v", err)
			}
			pc, err := cfront.Compile("case.i", prog.C, cfront.Config{})
			if err != nil {
				t.Fatalf("the C form does not compile: %v\n%s", err, prog.C)
			}
			want := []string{}
			if tc.kinds != "" {
				want = strings.Split(tc.kinds, ",")
			}
			ok, err := oracle.Explore(pk, 1<<16, nil)
			if err != nil {
				t.Fatalf("oracle on the .kb form: %v", err)
			}
			oc, err := oracle.Explore(pc, 1<<16, nil)
			if err != nil {
				t.Fatalf("oracle on the C form: %v\n%s", err, prog.C)
			}
			for _, x := range []struct {
				name string
				o    *oracle.Graph
			}{{".kb", ok}, {"C", oc}} {
				var got []string
				for _, k := range canonicalKinds(x.o.Kinds(1<<30, false)) {
					got = append(got, k.String())
				}
				if got == nil {
					got = []string{}
				}
				if !slices.Equal(got, want) || (x.o.Longest < 0) != tc.cycle {
					t.Errorf("%s form: %s; want violations {%s}, a cycle %v", x.name, x.o, tc.kinds, tc.cycle)
				}
			}
			if t.Failed() {
				t.Logf("C form:\n%s", prog.C)
				return
			}
			if ok.Longest >= 0 && oc.Longest > prog.Depth(ok.Longest) {
				t.Errorf("the longest C execution takes %d steps, more than Depth(%d) = %d", oc.Longest, ok.Longest, prog.Depth(ok.Longest))
			}
		})
	}
}

// TestTranslateRejects checks that what has no faithful C form is an error
// at its position, never a loose translation.
func TestTranslateRejects(t *testing.T) {
	for _, tc := range []struct {
		name, src, err string
	}{
		{"await", "shared int x;\nthread p { await(x == 1); }\nthread q { x = 1; }\n",
			"2:12: await has no C equivalent"},
		{"await as a guard", "shared int x;\nthread p { atomic { await(x == 1); x = 2; } }\n",
			"2:21: await has no C equivalent"},
		{"processes and channels", "chan (int) c capacity 1;\nprocess n[2] { thread t { send(c, pid); } }\n",
			"1:1: channel c: the C form has no channels"},
		{"channels between threads", "chan (int) c capacity 1;\nthread p { send(c, 1); }\nthread q { int v; recv(c, v); }\n",
			"1:1: channel c"},
		{"a template that joins itself", "thread w[2] { join(w); }\n",
			"1:15: join of w by a thread of w"},
		{"a self-join through a function", "func wait() { join(w); }\nthread w { wait(); }\n",
			"1:15: join of w by a thread of w"},
		{"a program that does not compile", "thread p { x = 1; }\n", "undefined: x"},
		{"a global invariant", "shared int x;\nthread p { x = 1; }\ninvariant small: x < 2;\n",
			"3:1: invariant small: the C form has no global invariants"},
		{"a literal wider than C's int", "shared int x = 4294967296;\nthread p { x = 1; }\n", "out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := kb2c.Translate("bad.kb", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Translate: %v; want an error containing %q", err, tc.err)
			}
		})
	}
}
