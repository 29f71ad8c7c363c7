package cfront

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/symbolic"
	"kbmc/verify"
)

// TestHoistStarts: a created thread whose code before its first lock is local,
// fixed and cannot fail starts in the lock's step (ir.HoistStarts), and only
// then: hoisted says whether the slots of pool w begin with the lock. The
// verdict of an exhaustive search (unsafe: a violation or a deadlock is
// reachable) must be the one --no-fold, which keeps every start a step, gives,
// and the symbolic engine, whose guard of the lock checks the start too, must
// agree.
func TestHoistStarts(t *testing.T) {
	const mutexes = `typedef struct { int x; } pthread_mutex_t;
int pthread_mutex_lock(pthread_mutex_t *);
int pthread_mutex_unlock(pthread_mutex_t *);
`
	tests := []struct {
		name    string
		src     string
		hoisted bool
		unsafe  bool
	}{
		{
			name: "philosophers with ordered forks",
			src: `pthread_mutex_t f[3];
int meals;
void *w(void *p) {
    int k = (int)(long)p;
    int r = (k + 1) % 3;
    int lo = k < r ? k : r, hi = k < r ? r : k;
    pthread_mutex_lock(&f[lo]);
    pthread_mutex_lock(&f[hi]);
    meals++;
    pthread_mutex_unlock(&f[hi]);
    pthread_mutex_unlock(&f[lo]);
    return 0;
}
int main(void) {
    unsigned long h[3];
    for (int i = 0; i < 3; i++) pthread_create(&h[i], 0, w, (void *)(long)i);
    for (int i = 0; i < 3; i++) pthread_join(h[i], 0);
    if (meals != 3) reach_error();
    return 0;
}`,
			hoisted: true,
		},
		{
			name: "philosophers that deadlock",
			src: `pthread_mutex_t f[3];
void *w(void *p) {
    int k = (int)(long)p;
    pthread_mutex_lock(&f[k]);
    pthread_mutex_lock(&f[(k + 1) % 3]);
    pthread_mutex_unlock(&f[(k + 1) % 3]);
    pthread_mutex_unlock(&f[k]);
    return 0;
}
int main(void) {
    unsigned long h[3];
    for (int i = 0; i < 3; i++) pthread_create(&h[i], 0, w, (void *)(long)i);
    return 0;
}`,
			hoisted: true,
			unsafe:  true,
		},
		{
			// The division fails before the lock, which main never
			// releases: moved after the lock, it would never run.
			name: "local code that fails",
			src: `pthread_mutex_t m;
int d;
void *w(void *p) {
    int z = 1 / (int)(long)p;
    pthread_mutex_lock(&m);
    d = z;
    return 0;
}
int main(void) {
    unsigned long h;
    pthread_mutex_lock(&m);
    pthread_create(&h, 0, w, (void *)0);
    return 0;
}`,
			unsafe: true,
		},
		{
			// A value drawn before the lock is not fixed.
			name: "local code that draws a value",
			src: `pthread_mutex_t m;
int d;
void *w(void *p) {
    int v = __VERIFIER_nondet_bool();
    pthread_mutex_lock(&m);
    d = v != 0;
    pthread_mutex_unlock(&m);
    return 0;
}
int main(void) {
    unsigned long h;
    pthread_create(&h, 0, w, 0);
    pthread_join(h, 0);
    if (d == 1) reach_error();
    return 0;
}`,
			unsafe: true,
		},
		{
			// Created by another thread, the argument is no constant of the
			// slot: which mutex it locks depends on it.
			name: "mutex chosen by an argument not known",
			src: `pthread_mutex_t f[2];
int c;
void *w(void *p) {
    int k = (int)(long)p;
    pthread_mutex_lock(&f[k]);
    c++;
    pthread_mutex_unlock(&f[k]);
    return 0;
}
void *s(void *p) { unsigned long h; pthread_create(&h, 0, w, (void *)1); pthread_join(h, 0); return 0; }
int main(void) {
    unsigned long a;
    pthread_create(&a, 0, s, 0);
    pthread_join(a, 0);
    if (c != 1) reach_error();
    return 0;
}`,
			unsafe: false,
		},
		{
			// The first lock is inside an atomic section.
			name: "atomic section",
			src: `pthread_mutex_t m;
int c;
void __VERIFIER_atomic_take(void) { pthread_mutex_lock(&m); c++; }
void *w(void *p) {
    __VERIFIER_atomic_take();
    pthread_mutex_unlock(&m);
    return 0;
}
int main(void) {
    unsigned long h[2];
    pthread_create(&h[0], 0, w, 0);
    pthread_create(&h[1], 0, w, 0);
    pthread_join(h[0], 0);
    pthread_join(h[1], 0);
    if (c != 2) reach_error();
    return 0;
}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, noFold := range []bool{false, true} {
				p := compileSlots(t, mutexes+tc.src, noFold)
				for _, th := range p.Threads {
					if th.Template.Start == nil || th.Name[0] != 'w' {
						continue
					}
					got := th.Template.Nodes[th.Template.Entry].Op == ir.OpLock
					if want := tc.hoisted && !noFold; got != want {
						t.Errorf("no-fold %v: %s begins with its lock: %v, want %v", noFold, th.Name, got, want)
					}
				}
				if got := reachable(t, p); got != tc.unsafe {
					t.Errorf("no-fold %v: a violation is reachable: %v, want %v", noFold, got, tc.unsafe)
				}
				eng, err := symbolic.New(verify.Options{Depth: 40}, "gini", "partial-order", "none", false)
				if err != nil {
					t.Fatal(err)
				}
				res, err := eng.Check(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Verdict == verify.Unsafe; got != tc.unsafe {
					t.Errorf("no-fold %v: the symbolic engine says %v, want unsafe: %v", noFold, res.Verdict, tc.unsafe)
				}
			}
		})
	}
}

// TestStartStates: a stateful search of the C form of dining philosophers
// (bench/programs) stores the states of the .kb form plus the one before main
// creates the philosophers. With a start step per philosopher
// it stored every interleaving of the starts besides: 42,223 states against
// 10,818 for six philosophers, 202 against 98 for three.
func TestStartStates(t *testing.T) {
	states := func(p *ir.Program) int64 {
		t.Helper()
		eng, err := explicit.New("dfs", explicit.Options{Options: verify.Options{Depth: 1000}, Stateful: true, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		res, err := eng.Check(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != verify.Safe {
			t.Fatalf("verdict %v, want safe", res.Verdict)
		}
		return res.Stats.States
	}
	dir := filepath.Join("..", "bench", "programs")
	for _, n := range []int64{3, 4, 5} {
		path := filepath.Join(dir, "philosophers-fixed.c")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Compile(path, src, Config{Defines: map[string]int64{"N": n}})
		if err != nil {
			t.Fatal(err)
		}
		kbPath := filepath.Join(dir, "philosophers-fixed.kb")
		kbSrc, err := os.ReadFile(kbPath)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := lang.Compile(kbPath, kbSrc, lang.Config{Defines: map[string]int64{"N": n}})
		if err != nil {
			t.Fatal(err)
		}
		// One more: the initial state, before main creates them (its loop
		// of pthread_mutex_init changes nothing and is skipped).
		if got, want := states(c), states(kb)+1; got != want {
			t.Errorf("N = %d: the C form has %d states, want %d (the .kb form's plus one)", n, got, want)
		}
	}
}

// TestSkipEmptyEntry: main's first steps, when they change nothing but where
// main is (declarations without initializers, pthread_mutex_init of global
// mutexes in a loop), are skipped: main starts at the first step that does
// something, unless code jumps back to the steps skipped. entry is the
// operation main then begins with; --no-fold keeps every step, and its
// verdict must be the same.
func TestSkipEmptyEntry(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		entry  ir.OpKind
		unsafe bool
	}{
		{
			name: "declarations before the creations",
			src: `int x;
void *w(void *p) { x = 1; return 0; }
int main(void) {
    unsigned long a, b[2];
    pthread_create(&a, 0, w, 0);
    if (x == 1) reach_error();
    return 0;
}`,
			entry:  ir.OpSpawn,
			unsafe: true,
		},
		{
			name: "a loop of mutex initialisations before the creations",
			src: `typedef struct { int x; } pthread_mutex_t;
int pthread_mutex_init(pthread_mutex_t *, void *);
int pthread_mutex_lock(pthread_mutex_t *);
int pthread_mutex_unlock(pthread_mutex_t *);
pthread_mutex_t m[3];
int c;
void *w(void *p) { pthread_mutex_lock(&m[1]); c++; pthread_mutex_unlock(&m[1]); return 0; }
int main(void) {
    unsigned long h[2];
    for (int i = 0; i < 3; i++) pthread_mutex_init(&m[i], 0);
    for (int i = 0; i < 2; i++) pthread_create(&h[i], 0, w, 0);
    for (int i = 0; i < 2; i++) pthread_join(h[i], 0);
    if (c != 2) reach_error();
    return 0;
}`,
			entry: ir.OpSpawn,
		},
		{
			name: "a store before the creations",
			src: `int x;
void *w(void *p) { if (x == 2) reach_error(); return 0; }
int main(void) {
    unsigned long a;
    x = 2;
    pthread_create(&a, 0, w, 0);
    return 0;
}`,
			entry:  ir.OpAssign,
			unsafe: true,
		},
		{
			name: "a value drawn before the creations",
			src: `int x;
void *w(void *p) { if (x == 1) reach_error(); return 0; }
int main(void) {
    unsigned long a;
    if (__VERIFIER_nondet_bool()) x = 1;
    pthread_create(&a, 0, w, 0);
    return 0;
}`,
			entry:  ir.OpNop, // its first step draws
			unsafe: true,
		},
		{
			name: "a loop back to the declaration",
			src: `int x;
int main(void) {
    do {
        int d;
        x++;
    } while (x < 3);
    if (x != 3) reach_error();
    return 0;
}`,
			entry: ir.OpNop,
		},
		{
			name: "no threads",
			src: `int x;
int main(void) {
    int d;
    x = 1;
    if (x == 1) reach_error();
    return 0;
}`,
			entry:  ir.OpAssign,
			unsafe: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, noFold := range []bool{false, true} {
				p := compileSlots(t, tc.src, noFold)
				mt := p.Threads[0].Template
				if got := mt.Nodes[mt.Entry].Op; !noFold && got != tc.entry {
					t.Errorf("main begins with %v, want %v", got, tc.entry)
				}
				if got := reachable(t, p); got != tc.unsafe {
					t.Errorf("no-fold %v: a violation is reachable: %v, want %v", noFold, got, tc.unsafe)
				}
			}
		})
	}
}

// TestDropUnreadLocals: a local nothing reads (once main's prefix has made
// the argument a constant) leaves the frame of w's slots, with the stores into
// it, unless a store may do something else: read shared memory, fail, draw.
// cells is the frame of w's first slot; the verdict must be --no-fold's, which
// keeps every local.
func TestDropUnreadLocals(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		cells  int
		unsafe bool
	}{
		{
			name: "copies of the argument",
			src: `int a[4];
void *w(void *p) {
    int k = (int)(long)p;
    int r = (k + 1) % 4;
    int q = k * 2 + r;
    a[r] = 1;
    return 0;
}
int main(void) {
    unsigned long h[2];
    for (int i = 0; i < 2; i++) pthread_create(&h[i], 0, w, (void *)(long)i);
    for (int i = 0; i < 2; i++) pthread_join(h[i], 0);
    if (a[1] != 1 || a[2] != 1) reach_error();
    return 0;
}`,
			cells: 0,
		},
		{
			// b is never read, but its store reads x: a step that races
			// with the write.
			name: "a copy of shared memory",
			src: `int x;
void *w(void *p) { int b = x; return 0; }
void *v(void *p) { x = 1; return 0; }
int main(void) {
    unsigned long h, g;
    pthread_create(&h, 0, w, 0);
    pthread_create(&g, 0, v, 0);
    pthread_join(h, 0);
    pthread_join(g, 0);
    if (x != 1) reach_error();
    return 0;
}`,
			cells: 1,
		},
		{
			// z is never read, but computing it divides by zero.
			name: "a division that fails",
			src: `int x;
void *w(void *p) {
    int d = (int)(long)p;
    int z = 10 / d;
    x = 1;
    return 0;
}
int main(void) {
    unsigned long h;
    pthread_create(&h, 0, w, (void *)0);
    pthread_join(h, 0);
    return 0;
}`,
			cells:  1,
			unsafe: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, noFold := range []bool{false, true} {
				p := compileSlots(t, tc.src, noFold)
				found := false
				for _, th := range p.Threads {
					if th.Name != "w[0]" {
						continue
					}
					found = true
					if !noFold && th.Template.FrameSize != tc.cells {
						t.Errorf("w[0] keeps %d cells, want %d", th.Template.FrameSize, tc.cells)
					}
				}
				if !found {
					t.Fatal("no thread w[0]")
				}
				if got := reachable(t, p); got != tc.unsafe {
					t.Errorf("no-fold %v: a violation is reachable: %v, want %v", noFold, got, tc.unsafe)
				}
			}
		})
	}
}
