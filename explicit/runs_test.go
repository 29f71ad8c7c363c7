package explicit

import (
	"context"
	"errors"
	"slices"
	"testing"

	"kbmc/ir"
	"kbmc/lang"
)

// rareBug fails only when the reader reads between the writer's fifth and
// sixth write: with two threads chosen uniformly, in about one run of 64.
const rareBug = `shared int x = 0;
thread writer {
    x = 1; x = 2; x = 3; x = 4; x = 5; x = 6; x = 7;
}
thread reader {
    int r = x;
    assert(r != 5, "read the fifth write");
}
`

// replaySeed is kbmc run --seed seed (with --pct pct when positive): the run
// Runs makes from that seed.
func replaySeed(t *testing.T, p *ir.Program, depth int, seed uint64, pct int) *Simulation {
	t.Helper()
	rng := SeedRand(seed)
	span := 0
	if pct > 0 {
		var err error
		if span, err = PCTSpan(context.Background(), p, depth); err != nil {
			t.Fatal(err)
		}
	}
	sim, err := Simulate(context.Background(), p, depth, RunScheduler(p, rng, pct, span), rng)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// TestRunsFindRareBug: the first run (seed 1) misses the bug, 200 runs from
// the same seed find it, every time alike, and the seed Runs reports replays
// the violating run alone; so for PCT.
func TestRunsFindRareBug(t *testing.T) {
	p := porCompile(t, "rare", rareBug, lang.Config{})
	for _, pct := range []int{0, 2} {
		one, err := Runs(context.Background(), p, RunsOptions{Runs: 1, Seed: 1, Depth: 100, PCT: pct})
		if err != nil {
			t.Fatal(err)
		}
		if one.Violation != nil || one.Runs != 1 || one.Complete != 1 {
			t.Fatalf("pct %d: the run of seed 1 found the bug (%+v): the test needs a seed whose first run misses it", pct, one)
		}
		var first *RunsSummary
		for range 2 {
			sum, err := Runs(context.Background(), p, RunsOptions{Runs: 200, Seed: 1, Depth: 100, PCT: pct})
			if err != nil {
				t.Fatal(err)
			}
			v := sum.Violation
			if v == nil {
				t.Fatalf("pct %d: 200 runs missed the bug", pct)
			}
			if v.Violation.Kind != ir.Assertion || sum.RunSeed != 1+uint64(sum.Run) || sum.Runs != sum.Run+1 || sum.Complete != sum.Run {
				t.Errorf("pct %d: violation %v in run %d (seed %d) after %d runs, %d complete", pct, v.Violation, sum.Run, sum.RunSeed, sum.Runs, sum.Complete)
			}
			if first == nil {
				first = sum
				again := replaySeed(t, p, 100, sum.RunSeed, pct)
				if again.Violation == nil || again.Violation.Kind != v.Violation.Kind || !slices.EqualFunc(again.Trace, v.Trace, sameMove) {
					t.Errorf("pct %d: seed %d alone replays %v in %d steps, not the run's %v in %d", pct, sum.RunSeed, again.Violation, len(again.Trace), v.Violation, len(v.Trace))
				}
				if _, _, err := p.Confirm(v.Trace, v.Violation.Kind); err != nil {
					t.Errorf("pct %d: the violating run does not replay: %v", pct, err)
				}
			} else if sum.Run != first.Run || !slices.EqualFunc(sum.Violation.Trace, first.Violation.Trace, sameMove) {
				t.Errorf("pct %d: the same seed found the bug in run %d, then in run %d", pct, first.Run, sum.Run)
			}
		}
	}
}

func sameMove(a, b ir.Move) bool { return a.Thread == b.Thread && slices.Equal(a.Choices, b.Choices) }

// outcomes ends, by a value drawn at its start, in each way a run can end
// but a violation: cut by a false assume (v = 0), deadlocked (v = 1, counted
// with NoDeadlock), cut by the depth bound (v = 2, a loop for ever), or
// complete (v = 3, f = 3).
const outcomes = `shared int f = 0;
thread a {
    int v = nondet(0, 3);
    f = v;
    if (v == 0) { assume(false); }
    if (v == 1) { await(f == 7); }
    if (v == 2) { while (true) { yield; } }
}
`

// TestRunsSummary: Runs counts each run's ending as the run of its seed alone
// ends, every ending occurs, the distinct final states are the three the runs
// that ended can end in, with their counts; a deadlock is a violation without
// NoDeadlock.
func TestRunsSummary(t *testing.T) {
	p := porCompile(t, "outcomes", outcomes, lang.Config{})
	const runs, depth = 100, 20
	sum, err := Runs(context.Background(), p, RunsOptions{Runs: runs, Seed: 7, Depth: depth, NoDeadlock: true})
	if err != nil {
		t.Fatal(err)
	}
	var want RunsSummary
	finals := map[int64]int{} // f at the end -> runs
	for i := range runs {
		sim := replaySeed(t, p, depth, 7+uint64(i), 0)
		want.Steps += int64(len(sim.Trace))
		switch {
		case sim.DepthCut:
			want.CutByDepth++
			continue
		case sim.Ending == ir.Complete:
			want.Complete++
		case sim.Ending == ir.Deadlocked:
			want.Deadlocked++
		case sim.Ending == ir.CutByAssume:
			want.CutByAssume++
		default:
			t.Fatalf("seed %d ends %q", 7+i, sim.End)
		}
		finals[sim.Final[0]]++
	}
	if sum.Runs != runs || sum.Violation != nil || sum.Complete != want.Complete || sum.Deadlocked != want.Deadlocked ||
		sum.CutByAssume != want.CutByAssume || sum.CutByDepth != want.CutByDepth || sum.Steps != want.Steps {
		t.Errorf("summary %+v, the runs one by one %+v", sum, want)
	}
	if want.Complete == 0 || want.Deadlocked == 0 || want.CutByAssume == 0 || want.CutByDepth == 0 {
		t.Errorf("some ending never occurs in %d runs: %+v", runs, want)
	}
	got := map[int64]int{}
	for _, f := range sum.Finals {
		got[f.State[0]] += f.Count
	}
	if len(sum.Finals) != 3 || len(got) != 3 || got[0] != want.CutByAssume || got[1] != want.Deadlocked || got[3] != want.Complete {
		t.Errorf("final states %v (%d), want f=0: %d, f=1: %d, f=3: %d", got, len(sum.Finals), want.CutByAssume, want.Deadlocked, want.Complete)
	}
	for i := 1; i < len(sum.Finals); i++ {
		if sum.Finals[i].Count > sum.Finals[i-1].Count {
			t.Errorf("final states not most frequent first: %v", sum.Finals)
		}
	}

	strict, err := Runs(context.Background(), p, RunsOptions{Runs: runs, Seed: 7, Depth: depth})
	if err != nil {
		t.Fatal(err)
	}
	if strict.Violation == nil || strict.Violation.Violation.Kind != ir.Deadlock {
		t.Errorf("without NoDeadlock the runs end %+v, want in the first deadlock", strict)
	}
}

// TestRunsStopped: runs stopped by their context say why and count only the
// runs made.
func TestRunsStopped(t *testing.T) {
	p := porCompile(t, "rare", rareBug, lang.Config{})
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	sum, err := Runs(ctx, p, RunsOptions{Runs: 10, Seed: 1, Depth: 100})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 0 || !errors.Is(sum.Stopped, stop) || sum.Violation != nil {
		t.Errorf("stopped runs: %+v", sum)
	}
}
