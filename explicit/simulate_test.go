package explicit

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"kbmc/ir"
	"kbmc/lang"
)

func TestSimulate(t *testing.T) {
	const src = `shared int x = 0;
mutex a; mutex b;
thread one { lock(a); lock(b); x = x + 1; unlock(b); unlock(a); }
thread two { lock(b); lock(a); x = x + 2; unlock(a); unlock(b); }
thread w[2] { x = x * 2; }
`
	p, err := lang.Compile("sim.kb", []byte(src), lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		schedule string
		depth    int
		end      string
		kind     ir.ViolationKind // NoViolation: none
		steps    int
		err      string
	}{
		{"round robin ends in the lock-order deadlock", "rr", 100, "deadlock", ir.Deadlock, 4, ""},
		{"one thread after another", "one,one,one,one,one,two,two,two,two,two,w[0],w[1]", 100,
			"every thread terminated", ir.NoViolation, 12, ""},
		{"numbers and names mixed", "0,two,w[1]", 100, "schedule ended", ir.NoViolation, 3, ""},
		{"the depth bound", "rr", 2, "depth bound 2 reached", ir.NoViolation, 2, ""},
		{"a thread that is not enabled", "0,1,0", 100, "", ir.NoViolation, 0, "step 3: thread one is not enabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			sched, err := ParseSchedule(tc.schedule, p, rng)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := Simulate(context.Background(), p, tc.depth, sched, rng)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			kind := ir.NoViolation
			if sim.Violation != nil {
				kind = sim.Violation.Kind
			}
			if sim.End != tc.end || kind != tc.kind || len(sim.Trace) != tc.steps {
				t.Fatalf("ended %q with %s after %d steps, want %q with %s after %d",
					sim.End, kind, len(sim.Trace), tc.end, tc.kind, tc.steps)
			}
			if _, err := p.Replay(sim.Trace); err != nil {
				t.Fatalf("the simulated run does not replay: %v", err)
			}
		})
	}
	if _, err := ParseSchedule("one,nobody", p, nil); err == nil {
		t.Error("a schedule naming no thread was accepted")
	}
}

// TestSimulateRandomIsSeeded checks that a random simulation is a function of the
// seed: the same seed, the same run.
func TestSimulateRandomIsSeeded(t *testing.T) {
	p, err := lang.Compile("r.kb", []byte("shared int x;\nthread t[4] { x = x + nondet(0, 9); x = x * 2; }\n"), lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(seed uint64) string {
		rng := rand.New(rand.NewPCG(seed, 0))
		sim, err := Simulate(context.Background(), p, 100, RandomScheduler(rng), rng)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, m := range sim.Trace {
			b.WriteString(p.Threads[m.Thread].Name)
			for _, v := range m.Choices {
				b.WriteString(" " + string(rune('0'+v)))
			}
			b.WriteString(";")
		}
		return b.String()
	}
	if a, b := run(7), run(7); a != b {
		t.Errorf("seed 7 gave two runs: %s and %s", a, b)
	}
	if run(7) == run(8) && run(7) == run(9) {
		t.Errorf("seeds 7, 8 and 9 gave the same run")
	}
}
