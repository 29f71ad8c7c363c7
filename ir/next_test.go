package ir_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"kbmc/cfront"
	"kbmc/ir"
)

// TestProbePrecisions checks the three answers to "what may this thread's next
// transition access": Exact (one step, draws at their low end, or a blocked
// thread's guard), AllDraws (every combination of draws), Static (the guard plus
// the transition's static footprint).
func TestProbePrecisions(t *testing.T) {
	src := `shared int a[3];
shared int x = 1;
mutex ms[2];
thread w { a[nondet(0, 1)] = 7; }
thread h { lock(ms[1]); x = 2; unlock(ms[1]); }
thread m { lock(ms[x]); a[2] = 1; unlock(ms[x]); }
`
	p := compile(t, src, 32)
	s := p.Initial()
	var ev ir.Event
	p.Step(s, 1, nil, &ev) // h holds ms[1]: m waits for it (x == 1)
	names := func(acc []ir.Access) string {
		var out []string
		for _, a := range acc {
			k := "r"
			if a.Kind == ir.Write {
				k = "w"
			}
			out = append(out, k+":"+p.LocationName(a.Loc))
		}
		sort.Strings(out)
		return strings.Join(slices.Compact(out), " ")
	}
	for _, tc := range []struct {
		thread int
		prec   ir.Precision
		want   string
		steps  int64
	}{
		{0, ir.Exact, "w:a[0] w:w", 1}, // w ends: it writes its termination
		{0, ir.AllDraws, "w:a[0] w:a[1] w:w", 2},
		{0, ir.Static, "w:a[0] w:a[1] w:a[2] w:w", 0},
		{2, ir.Exact, "r:x w:ms[1]", 0},          // blocked: what its guard reads
		{2, ir.AllDraws, "r:x w:ms[1]", 0},       // the same
		{2, ir.Static, "r:x w:ms[0] w:ms[1]", 0}, // a[2] = 1 is a transition of its own
	} {
		probe := p.NewProbe()
		got := names(probe.Accesses(s, tc.thread, p.Status(s, tc.thread), tc.prec, nil))
		if got != tc.want || probe.Steps != tc.steps {
			t.Errorf("thread %s, precision %d: %q after %d steps, want %q after %d",
				p.Threads[tc.thread].Name, tc.prec, got, probe.Steps, tc.want, tc.steps)
		}
	}
}

// TestProbeManyDraws checks that an AllDraws probe of a step with more than
// MaxProbeDraws combinations stops executing draws there and answers with the
// static footprint, a sound over-approximation, instead of running every draw.
func TestProbeManyDraws(t *testing.T) {
	p := compile(t, "shared int b[4];\nthread v { b[nondet(0, 99999) % 2] = 1; }\n", 32)
	s := p.Initial()
	probe := p.NewProbe()
	var got []string
	for _, a := range probe.Accesses(s, 0, p.Status(s, 0), ir.AllDraws, nil) {
		got = append(got, p.LocationName(a.Loc))
	}
	sort.Strings(got)
	want := "b[0] b[1] b[2] b[3] v" // every cell of b: the static footprint
	if strings.Join(got, " ") != want || probe.Steps != ir.MaxProbeDraws {
		t.Errorf("AllDraws: %v after %d steps, want %s after %d", got, probe.Steps, want, ir.MaxProbeDraws)
	}
}

// TestJoinGuardLastWaited checks what a join of several threads (main's
// pthread_joins made one step, Node.JAlso) reads while it waits: the end of the
// last thread it names that has not ended. The ends of threads already ended
// are set for good, and the end of another changes nothing while that one
// runs.
func TestJoinGuardLastWaited(t *testing.T) {
	src := `#include <pthread.h>
int x;
void *w(void *a) { x = 1; return 0; }
int main(void) {
    pthread_t h[3];
    for (int i = 0; i < 3; i++) pthread_create(&h[i], 0, w, (void *)(long)i);
    for (int i = 0; i < 3; i++) pthread_join(h[i], 0);
    return 0;
}`
	p, err := cfront.Compile("join.c", []byte(src), cfront.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Threads) != 4 {
		t.Fatalf("%d threads, want main and 3 workers", len(p.Threads))
	}
	s := p.Initial()
	var ev ir.Event
	p.Step(s, 0, nil, &ev) // the creations, one step
	probe := p.NewProbe()
	guard := func() string {
		if st := p.Status(s, 0); st == ir.Enabled {
			return "enabled"
		}
		var out []string
		for _, a := range probe.Accesses(s, 0, p.Status(s, 0), ir.Exact, nil) {
			out = append(out, p.LocationName(a.Loc))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		run  int // the worker that ends before the probe, 0: none
		want string
	}{
		{0, p.LocationName(p.ThreadLocation(3))},
		{3, p.LocationName(p.ThreadLocation(2))}, // the last has ended
		{1, p.LocationName(p.ThreadLocation(2))}, // another one's end: still 2
		{2, "enabled"},
	} {
		if tc.run > 0 {
			p.Step(s, tc.run, nil, &ev)
		}
		if got := guard(); got != tc.want {
			t.Errorf("after %s ended: main's join reads %q, want %q", p.Threads[tc.run].Name, got, tc.want)
		}
	}
}
