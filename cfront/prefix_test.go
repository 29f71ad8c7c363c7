package cfront

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/verify"
)

const slotHeader = `extern void reach_error(void);
extern _Bool __VERIFIER_nondet_bool(void);
int pthread_create(unsigned long *, void *, void *(*)(void *), void *);
int pthread_join(unsigned long, void **);
`

// TestSlotArguments: a thread argument that main's prefix (which no other
// thread can influence) gives a slot is propagated into the slot's code, and
// only then: want lists, per slot of pool w, whether its use of the argument
// became a constant. The verdict, found by an exhaustive search of every
// interleaving, must not change: unsafe says a reach_error is reachable.
func TestSlotArguments(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		want   []bool // per slot of w: its store of the argument is a constant
		unsafe bool
	}{
		{
			name: "loop of constants",
			src: `int a[3];
void *w(void *p) { int k = (int)(long)p; a[k] = k + 1; return 0; }
int main(void) {
    unsigned long h[3];
    for (int i = 0; i < 3; i++) pthread_create(&h[i], 0, w, (void *)(long)i);
    for (int i = 0; i < 3; i++) pthread_join(h[i], 0);
    if (a[0] + a[1] + a[2] != 6) reach_error();
    return 0;
}`,
			want: []bool{true, true, true},
		},
		{
			name: "addresses",
			src: `int a[2];
void *w(void *p) { int *q = p; *q = 1; return 0; }
int main(void) {
    unsigned long h[2];
    for (int i = 0; i < 2; i++) pthread_create(&h[i], 0, w, &a[i]);
    for (int i = 0; i < 2; i++) pthread_join(h[i], 0);
    if (a[0] != 1 || a[1] != 1) reach_error();
    return 0;
}`,
			want: []bool{true, true},
		},
		{
			// main reads g, which slot 0 writes, before it creates slot 1:
			// slot 1's argument depends on the interleaving.
			name: "main reads shared data between spawns",
			src: `int g, a[8];
void *w(void *p) { int k = (int)(long)p; g = 5; a[k] = 1; return 0; }
int main(void) {
    unsigned long h[2];
    pthread_create(&h[0], 0, w, (void *)0);
    int k = g;
    pthread_create(&h[1], 0, w, (void *)(long)k);
    pthread_join(h[0], 0);
    pthread_join(h[1], 0);
    if (a[5] == 1) reach_error();
    return 0;
}`,
			want:   []bool{true, false},
			unsafe: true,
		},
		{
			// Another thread spawns into w too: which slot main's spawn
			// takes depends on the interleaving.
			name: "two threads spawn into one pool",
			src: `int a[8];
void *w(void *p) { int k = (int)(long)p; a[k] = 1; return 0; }
void *s(void *p) { unsigned long h; pthread_create(&h, 0, w, (void *)5); return 0; }
int main(void) {
    unsigned long h, g;
    pthread_create(&g, 0, s, 0);
    pthread_create(&h, 0, w, (void *)0);
    if (a[5] == 1) reach_error();
    return 0;
}`,
			want:   []bool{false, false},
			unsafe: true,
		},
		{
			name: "nondeterministic argument",
			src: `int a[8];
void *w(void *p) { int k = (int)(long)p; if (k == 1) reach_error(); return 0; }
int main(void) {
    unsigned long h;
    int v = __VERIFIER_nondet_bool();
    pthread_create(&h, 0, w, (void *)(long)v);
    return 0;
}`,
			want:   []bool{false},
			unsafe: true,
		},
		{
			// A lock in main's prefix ends it: the spawn after it is not
			// main's alone.
			name: "lock ends the prefix",
			src: `#include <pthread.h>
extern void reach_error(void);
pthread_mutex_t m;
int a[8];
void *w(void *p) { int k = (int)(long)p; a[k] = 1; return 0; }
int main(void) {
    unsigned long h[2];
    pthread_create(&h[0], 0, w, (void *)1);
    pthread_mutex_lock(&m);
    pthread_create(&h[1], 0, w, (void *)2);
    pthread_mutex_unlock(&m);
    return 0;
}`,
			want: []bool{true, false},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			if !strings.HasPrefix(src, "#include") {
				src = slotHeader + src
			}
			p, err := Compile(filepath.Join(t.TempDir(), "p.c"), []byte(src), Config{})
			if err != nil {
				t.Fatal(err)
			}
			var pool *ir.Pool
			for _, pl := range p.Pools {
				if pl.Name == "w" {
					pool = pl
				}
			}
			if pool == nil || len(pool.Slots) != len(tc.want) {
				t.Fatalf("pool w: %v, want %d slots", pool, len(tc.want))
			}
			for k, slot := range pool.Slots {
				if got := argumentConstant(slot); got != tc.want[k] {
					t.Errorf("slot %d: argument propagated = %v, want %v", k, got, tc.want[k])
				}
			}
			if got := reachable(t, p); got != tc.unsafe {
				t.Errorf("a violation is reachable: %v, want %v", got, tc.unsafe)
			}
		})
	}
}

// argumentConstant reports whether the first assignment after slot's start,
// which copies its argument into a local, stores a constant.
func argumentConstant(slot *ir.Template) bool {
	start := slot.Nodes[slot.Entry]
	for n := slot.Nodes[start.Next]; ; n = slot.Nodes[n.Next] {
		if n.Op == ir.OpAssign {
			return !ir.Any(n.X, func(x *ir.Expr) bool { return x.Op == ir.EVar || x.Op == ir.EIndex })
		}
		if n.Next == ir.Exit {
			return false
		}
	}
}

// reachable reports whether some interleaving (and nondeterministic choice)
// reaches a violation or a deadlock: the explicit engine's stateful search,
// the project's reference.
func reachable(t *testing.T, p *ir.Program) bool {
	t.Helper()
	eng, err := explicit.New("dfs", explicit.Options{Options: verify.Options{Depth: 200}, Stateful: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Check(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict == verify.Unknown || res.Verdict == verify.BoundedSafe {
		t.Fatalf("no exhaustive answer: %v (%s)", res.Verdict, res.Note)
	}
	return res.Verdict == verify.Unsafe
}

// TestNoopStores: a store main makes before it creates any thread, of the
// value its cell already holds, in code it never runs again, does nothing and
// is removed; any other store stays. want is how many stores of a constant
// main still makes.
func TestNoopStores(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		want   int
		unsafe bool
	}{
		{
			name: "mutex init before the threads",
			src: `#include <pthread.h>
extern void reach_error(void);
pthread_mutex_t m[3];
int x;
void *w(void *p) { pthread_mutex_lock(&m[0]); x++; pthread_mutex_unlock(&m[0]); return 0; }
int main(void) {
    pthread_t h;
    for (int i = 0; i < 3; i++) pthread_mutex_init(&m[i], NULL);
    pthread_create(&h, 0, w, 0);
    pthread_mutex_lock(&m[0]); x++; pthread_mutex_unlock(&m[0]);
    pthread_join(h, 0);
    if (x != 2) reach_error();
    return 0;
}`,
			want: 0,
		},
		{
			// The thread may write x before main's store: it matters.
			name: "store after a thread started",
			src: `int x;
void *w(void *p) { x = 1; return 0; }
int main(void) {
    unsigned long h;
    pthread_create(&h, 0, w, 0);
    x = 0;
    pthread_join(h, 0);
    if (x == 0) reach_error();
    return 0;
}`,
			want:   1,
			unsafe: true,
		},
		{
			// The loop's store runs again once a thread has started.
			name: "store main runs again later",
			src: `int x;
void *w(void *p) { x = 1; return 0; }
int main(void) {
    unsigned long h[2];
    for (int i = 0; i < 2; i++) { x = 0; pthread_create(&h[i], 0, w, 0); }
    pthread_join(h[1], 0);
    if (x == 0) reach_error();
    return 0;
}`,
			want: 1,
		},
		{
			name: "store that changes the cell",
			src: `int x;
void *w(void *p) { if (x == 5) reach_error(); return 0; }
int main(void) {
    unsigned long h;
    x = 5;
    pthread_create(&h, 0, w, 0);
    return 0;
}`,
			want:   1,
			unsafe: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			if !strings.HasPrefix(src, "#include") {
				src = slotHeader + src
			}
			p, err := Compile(filepath.Join(t.TempDir(), "p.c"), []byte(src), Config{})
			if err != nil {
				t.Fatal(err)
			}
			stores := 0
			for _, n := range p.Threads[0].Template.Nodes {
				if n.Op == ir.OpAssign && n.LHS.Shared() && n.X.Op == ir.EConst {
					stores++
				}
			}
			if stores != tc.want {
				t.Errorf("main stores %d times, want %d", stores, tc.want)
			}
			if got := reachable(t, p); got != tc.unsafe {
				t.Errorf("a violation is reachable: %v, want %v", got, tc.unsafe)
			}
		})
	}
}

// TestJoinChain: main's joins one after the other, with only local code
// between them, are one step that waits for every thread; want is how many
// of main's steps join. The verdict (deadlocks included) must be the one
// --no-fold, which keeps every join a step, gives.
func TestJoinChain(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		want   int
		unsafe bool
	}{
		{
			name: "loop of joins",
			src: `int a[3];
void *w(void *p) { int k = (int)(long)p; a[k] = 1; return 0; }
int main(void) {
    unsigned long h[3];
    for (int i = 0; i < 3; i++) pthread_create(&h[i], 0, w, (void *)(long)i);
    for (int i = 0; i < 3; i++) pthread_join(h[i], 0);
    if (a[0] + a[1] + a[2] != 3) reach_error();
    return 0;
}`,
			want: 1,
		},
		{
			// t1 ends holding m; t2 waits for m for ever: main, waiting for
			// both, deadlocks in either form.
			name: "a joined thread never ends",
			src: `#include <pthread.h>
extern void reach_error(void);
pthread_mutex_t m;
void *t1(void *p) { pthread_mutex_lock(&m); return 0; }
void *t2(void *p) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); return 0; }
int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, t1, 0);
    pthread_create(&b, 0, t2, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}`,
			want:   1,
			unsafe: true,
		},
		{
			// Which thread the second join waits for is read from g.
			name: "join of a thread named by shared data",
			src: `unsigned long h[2];
int g, x;
void *w(void *p) { g = 1; x = 1; return 0; }
int main(void) {
    pthread_create(&h[0], 0, w, 0);
    pthread_create(&h[1], 0, w, 0);
    pthread_join(h[0], 0);
    pthread_join(h[g], 0);
    return 0;
}`,
			want: 2,
		},
		{
			name: "join with a result",
			src: `int x;
void *w(void *p) { x = 1; return (void *)7; }
int main(void) {
    unsigned long a, b;
    void *r;
    pthread_create(&a, 0, w, 0);
    pthread_create(&b, 0, w, 0);
    pthread_join(a, 0);
    pthread_join(b, &r);
    if ((long)r != 7) reach_error();
    return 0;
}`,
			want: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			if !strings.HasPrefix(src, "#include") {
				src = slotHeader + src
			}
			for _, noFold := range []bool{false, true} {
				p, err := Compile(filepath.Join(t.TempDir(), "p.c"), []byte(src), Config{NoFold: noFold})
				if err != nil {
					t.Fatal(err)
				}
				steps := 0
				mt := p.Threads[0].Template
				for _, tr := range mt.Transitions {
					if mt.Nodes[tr.Entry].Op == ir.OpJoin {
						steps++
					}
				}
				if !noFold && steps != tc.want {
					t.Errorf("main joins in %d steps, want %d", steps, tc.want)
				}
				if got := reachable(t, p); got != tc.unsafe {
					t.Errorf("no-fold %v: a violation or deadlock is reachable: %v, want %v", noFold, got, tc.unsafe)
				}
			}
		})
	}
}
