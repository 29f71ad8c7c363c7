package cfront

import (
	"fmt"
	"path/filepath"
	"testing"

	"kbmc/ir"
)

// TestFoldSpawns: main's consecutive thread creations, with only local
// computation between them, are one step when main alone creates threads of
// their pools; want is how many of main's steps create threads. The verdict
// (an exhaustive search of every interleaving) must be the one --no-fold,
// which keeps every creation a step, gives.
func TestFoldSpawns(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		want   int
		unsafe bool
	}{
		{
			name: "loop of creations",
			src: `int a[3];
void *w(void *p) { int k = (int)(long)p; a[k] = k + 1; return 0; }
int main(void) {
    unsigned long h[3];
    for (int i = 0; i < 3; i++) pthread_create(&h[i], 0, w, (void *)(long)i);
    for (int i = 0; i < 3; i++) pthread_join(h[i], 0);
    if (a[0] + a[1] + a[2] != 6) reach_error();
    return 0;
}`,
			want: 1,
		},
		{
			name: "creations of two pools with local code between",
			src: `int x, y;
void *w(void *p) { x = 1; return 0; }
void *v(void *p) { if (x == 0) y = 1; return 0; }
int main(void) {
    unsigned long a, b;
    int k = 2;
    pthread_create(&a, 0, w, 0);
    k = k * 3;
    pthread_create(&b, 0, v, (void *)(long)k);
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (y == 1) reach_error();
    return 0;
}`,
			want:   1,
			unsafe: true,
		},
		{
			// main reads g between the creations: a step of its own that
			// the first thread's write may precede.
			name: "main reads shared data between creations",
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
			want:   2,
			unsafe: true,
		},
		{
			// s creates threads of w too: main's creations of w stay steps.
			name: "two threads create into one pool",
			src: `int a[8];
void *w(void *p) { int k = (int)(long)p; a[k] = 1; return 0; }
void *s(void *p) { unsigned long h; pthread_create(&h, 0, w, (void *)5); return 0; }
int main(void) {
    unsigned long g, h[2];
    pthread_create(&g, 0, s, 0);
    pthread_create(&h[0], 0, w, 0);
    pthread_create(&h[1], 0, w, (void *)1);
    if (a[5] == 1 && a[0] == 0) reach_error();
    return 0;
}`,
			want:   3,
			unsafe: true,
		},
		{
			// The second thread's value goes to a global that w reads: its
			// creation is a step of its own, or the first w could never see
			// g still 0.
			name: "thread value stored in a global",
			src: `unsigned long g;
int seen;
void *w(void *p) { if (g == 0) seen = 1; return 0; }
int main(void) {
    unsigned long a;
    pthread_create(&a, 0, w, 0);
    pthread_create(&g, 0, w, 0);
    pthread_join(a, 0);
    if (seen == 1) reach_error();
    return 0;
}`,
			want:   2,
			unsafe: true,
		},
		{
			// A loop whose trip count cfront cannot tell stays a loop.
			name: "loop not counted",
			src: `int n = 2, c;
void *w(void *p) { __atomic_fetch_add(&c, 1, 5); return 0; }
int main(void) {
    unsigned long h[2];
    int i = 0;
    while (i < n) { pthread_create(&h[i], 0, w, 0); i++; }
    pthread_join(h[0], 0);
    pthread_join(h[1], 0);
    if (c != 2) reach_error();
    return 0;
}`,
			want: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, noFold := range []bool{false, true} {
				p := compileSlots(t, tc.src, noFold)
				steps, spawns := 0, 0
				mt := p.Threads[0].Template
				for _, tr := range mt.Transitions {
					has := false
					for _, i := range tr.Nodes {
						if mt.Nodes[i].Op == ir.OpSpawn {
							has = true
							spawns++
						}
					}
					if has {
						steps++
					}
				}
				if !noFold && steps != tc.want {
					t.Errorf("main creates threads in %d steps, want %d", steps, tc.want)
				}
				if noFold && steps != spawns {
					t.Errorf("--no-fold: main creates threads in %d steps, want one per creation (%d)", steps, spawns)
				}
				if got := reachable(t, p); got != tc.unsafe {
					t.Errorf("no-fold %v: a violation is reachable: %v, want %v", noFold, got, tc.unsafe)
				}
			}
		})
	}
}

// TestFoldedSpawnAccesses: the step that creates every thread records each
// slot's started flag as read once, before it takes the slot, not again for
// every later creation of the same step (it wrote the flag itself), and
// writes the flag and the argument of each: with n creations, n reads and 2n
// writes, where the reads grew with n² before.
func TestFoldedSpawnAccesses(t *testing.T) {
	for _, n := range []int{1, 3, 14} {
		src := fmt.Sprintf(`int l[%[1]d];
void *r(void *p) { int k = (int)(long)p; int a = l[k]; return 0; }
int main(void) {
    unsigned long h[%[1]d];
    for (int i = 0; i < %[1]d; i++) pthread_create(&h[i], 0, r, (void *)(long)i);
    for (int i = 0; i < %[1]d; i++) pthread_join(h[i], 0);
    return 0;
}`, n)
		p, err := Compile(filepath.Join(t.TempDir(), "p.c"), []byte(slotHeader+src), Config{})
		if err != nil {
			t.Fatal(err)
		}
		s := p.Initial()
		for {
			var ev ir.Event
			p.Step(s, 0, nil, &ev)
			reads, writes := 0, 0
			spawned := false
			for _, a := range ev.Accesses {
				if a.Kind == ir.Read {
					reads++
				} else {
					writes++
					spawned = true
				}
			}
			if !spawned {
				continue
			}
			if reads != n || writes != 2*n {
				t.Errorf("n = %d: the creation step reads %d cells and writes %d, want %d and %d", n, reads, writes, n, 2*n)
			}
			break
		}
	}
}

// compileSlots compiles src after slotHeader's declarations, failing the test
// on an error.
func compileSlots(t *testing.T, src string, noFold bool) *ir.Program {
	t.Helper()
	p, err := Compile(filepath.Join(t.TempDir(), "p.c"), []byte(slotHeader+src), Config{NoFold: noFold})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
