package explicit

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kbmc/cfront"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

func TestHunt(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want ir.ViolationKind // NoViolation: none, the hunt ends Unknown
		only ir.ViolationKind // Want accepts only this kind (NoViolation: every kind)
	}{
		{"a bug behind a full-range value", `shared int x = 0;
thread a { int v = nondet(); if (v == -1) { x = 1; } }
thread b { assert(x == 0); }
`, ir.Assertion, ir.NoViolation},
		{"a lost update needs one interleaving", `shared int x = 0;
thread w[2] { int r = x; x = r + 1; }
thread m { join(w[0]); join(w[1]); assert(x == 2); }
`, ir.Assertion, ir.NoViolation},
		{"a deadlock passed over for the assertion asked for", `shared int x = 0;
mutex a; mutex b;
thread one { lock(a); lock(b); x = x + 1; unlock(b); unlock(a); }
thread two { lock(b); lock(a); x = x + 2; unlock(a); unlock(b); }
thread c { assert(x != 3); }
`, ir.Assertion, ir.Assertion},
		{"a safe program: nothing found, nothing claimed", `shared int x = 0;
mutex m;
thread w[3] { lock(m); x = x + 1; unlock(m); }
thread c { int v = nondet(); assert(x <= 3); }
`, ir.NoViolation, ir.NoViolation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := lang.Compile("hunt.kb", []byte(tc.src), lang.Config{})
			if err != nil {
				t.Fatal(err)
			}
			opts := HuntOptions{Seed: 1}
			if tc.only != ir.NoViolation {
				opts.Want = func(v *ir.Violation) bool { return v.Kind == tc.only }
			}
			// A safe program's hunt ends at the deadline; an unsafe one's
			// deadline only ends a hang, and fails the test as too slow.
			limit := time.Minute
			if tc.want == ir.NoViolation {
				limit = 200 * time.Millisecond
			}
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			res, err := Hunt(ctx, p, opts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == ir.NoViolation {
				if res.Verdict != verify.Unknown || res.Stats.Executions == 0 {
					t.Fatalf("verdict %v after %d executions, want unknown after some", res.Verdict, res.Stats.Executions)
				}
				return
			}
			if res.Verdict != verify.Unsafe {
				t.Fatalf("no violation within %v: %s", limit, res.Note)
			}
			if res.Violation.Kind != tc.want {
				t.Fatalf("found %v, want %v", res.Violation.Kind, tc.want)
			}
			// Hunt validated the trace; the same seed finds the same one.
			again, err := Hunt(context.Background(), p, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(res.Trace, again.Trace, func(a, b ir.Move) bool {
				return a.Thread == b.Thread && slices.Equal(a.Choices, b.Choices)
			}) {
				t.Errorf("the same seed gave another trace")
			}
		})
	}
}

// The values a hunt draws stay inside their range, narrow or full, and a wide
// range's draws include the ends and small numbers.
func TestHuntDraw(t *testing.T) {
	h := &hunter{rng: newHuntRand(7)}
	for _, r := range []struct{ lo, hi int64 }{{0, 3}, {-5, 200}, {0, 255}, {-1 << 31, 1<<31 - 1}, {0, -1}, {10, 1 << 40}} {
		seen := map[int64]bool{}
		for range 4000 {
			v := h.draw(r.lo, r.hi)
			if uint64(v-r.lo) > uint64(r.hi-r.lo) {
				t.Fatalf("draw(%d, %d) = %d, outside the range", r.lo, r.hi, v)
			}
			seen[v] = true
		}
		if uint64(r.hi-r.lo) >= 64 && (!seen[r.lo] || !seen[r.hi]) {
			t.Errorf("draw(%d, %d) never drew an end of the range", r.lo, r.hi)
		}
	}
}

// A loop that creates more threads than the model's pool holds: lowered with
// phantoms, the hunt gets past it to the bug after it; lowered as the searches
// take it, main waits at the pool's bound and the bug is out of reach. A
// phantom never runs: joining it waits at the bound, and an execution that
// started one ends cut by the bound, never complete.
func TestHuntPhantoms(t *testing.T) {
	const src = `extern void reach_error(void);
#include <pthread.h>
int x;
void *w(void *arg) { return 0; }
int main(void) {
    pthread_t ids[1000];
    for (int i = 0; i < 1000; i++) pthread_create(&ids[i], 0, w, 0);
    x = 1;
    if (x == 1) reach_error();
    for (int i = 0; i < 1000; i++) pthread_join(ids[i], 0);
    return 0;
}
`
	compile := func(phantoms bool) *ir.Program {
		p, err := cfront.Compile(filepath.Join(t.TempDir(), "phantoms.c"), []byte(src), cfront.Config{Phantoms: phantoms})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := HuntOptions{Seed: 3, Want: func(v *ir.Violation) bool { return v.Kind == ir.ReachError }}

	p := compile(true)
	if err := Supported(p, Options{}); err == nil {
		t.Errorf("the searches accept a program with phantoms")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only a hang ends it
	defer cancel()
	res, err := Hunt(ctx, p, want)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verify.Unsafe {
		t.Fatalf("with phantoms: %v (%s), want the reach_error after the loop", res.Verdict, res.Note)
	}
	// Past the pool, every spawn started a phantom.
	run, err := p.Replay(res.Trace[:len(res.Trace)-1])
	if err != nil {
		t.Fatal(err)
	}
	if end, _ := p.End(run.Final()); end != ir.Running {
		t.Errorf("before the violating step the execution is %v, want running", end)
	}

	// Without phantoms main waits at the pool's bound: nothing to find.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	res, err = Hunt(ctx2, compile(false), want)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verify.Unknown {
		t.Fatalf("without phantoms: %v, want unknown", res.Verdict)
	}
}

// Only the last threads a loop creates touch busy, and the bug needs one of
// them between its two writes when main looks. With the slots first, no
// thread that runs is one of them; the hunt's delays (ir.Choices.Delay) give
// the slots to the last spawns, and the bug is found. The delay is the first
// value of the counterexample's first move, where a replay finds it.
func TestHuntDelays(t *testing.T) {
	const src = `extern void reach_error(void);
#include <pthread.h>
int busy;
void *w(void *arg) { if ((long)arg >= 990) { busy = 1; busy = 0; } return 0; }
int main(void) {
    pthread_t ids[1000];
    for (long i = 0; i < 1000; i++) pthread_create(&ids[i], 0, w, (void *)i);
    if (busy) reach_error();
    return 0;
}
`
	p, err := cfront.Compile(filepath.Join(t.TempDir(), "delays.c"), []byte(src), cfront.Config{Phantoms: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Pools) != 1 {
		t.Fatalf("%d pools, want 1", len(p.Pools))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only a hang ends it
	defer cancel()
	res, err := Hunt(ctx, p, HuntOptions{Seed: 5, Want: func(v *ir.Violation) bool { return v.Kind == ir.ReachError }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verify.Unsafe {
		t.Fatalf("%v (%s), want the reach_error", res.Verdict, res.Note)
	}
	first := res.Trace[0].Choices
	if len(first) == 0 || first[0] < 990-int64(len(p.Pools[0].Slots)) {
		t.Errorf("the first move draws %v, want a delay that leaves a slot to a spawn from the 990th on", first)
	}
	// The same schedule with the slots first is not an execution that fails.
	moves := slices.Clone(res.Trace)
	moves[0].Choices = append([]int64{0}, first[1:]...)
	if _, v, err := p.Confirm(moves, ir.ReachError); err == nil && v != nil {
		t.Errorf("without the delay the schedule still fails: %v", v)
	}
}
