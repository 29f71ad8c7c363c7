package ir_test

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
)

func compileKB(t *testing.T, src string) *ir.Program {
	t.Helper()
	p, err := lang.Compile("t.kb", []byte(src), lang.Config{})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return p
}

// TestInvariantVisibility checks, on generated programs with invariants and
// random runs of them, the visibility condition the partial-order reductions
// rely on (invariant.go): a step that does not write the invariants' location
// leaves every invariant's value as it was, and every two steps that write it
// conflict (dependency.go), so that no reduction may reorder them.
func TestInvariantVisibility(t *testing.T) {
	writers := 0
	for seed := range uint64(120) {
		cfg := progen.DefaultConfig()
		if seed%2 == 1 {
			cfg = progen.DistributedConfig()
		}
		cfg.Invariants = 2
		src := progen.Generate(seed, cfg)
		p := compileKB(t, src)
		inv, ok := p.InvariantLocation()
		if !ok {
			continue // no shared int to read
		}
		rng := rand.New(rand.NewSource(int64(seed)))
		for run := range 5 {
			s := p.Initial()
			if p.InitialViolation() != nil {
				t.Fatalf("seed %d: progen's invariants hold initially\n%s", seed, src)
			}
			var prev []ir.Access
			for step := 0; step < 60; step++ {
				var enabled []int
				for th := range p.Threads {
					if p.Enabled(s, th) {
						enabled = append(enabled, th)
					}
				}
				if len(enabled) == 0 {
					break
				}
				th := enabled[rng.Intn(len(enabled))]
				before := s.Clone()
				var ev ir.Event
				p.Step(s, th, &ir.Choices{Rand: nil}, &ev)
				writes := slices.ContainsFunc(ev.Accesses, func(a ir.Access) bool { return a.Loc == inv && a.Kind == ir.Write })
				if writes {
					writers++
					if prev != nil && !ir.Conflict(prev, ev.Accesses) {
						t.Fatalf("seed %d run %d step %d: two writers of the invariants do not conflict", seed, run, step)
					}
					prev = slices.Clone(ev.Accesses)
				}
				if ev.Violation != nil {
					if ev.Violation.Kind == ir.InvariantViolation && !writes {
						t.Fatalf("seed %d run %d step %d: an invariant broken by a step that writes nothing it reads", seed, run, step)
					}
					break
				}
				if !writes && (p.BrokenInvariant(before, -1) == nil) != (p.BrokenInvariant(s, -1) == nil) {
					t.Fatalf("seed %d run %d step %d: a step that does not write the invariants' location changed one\n%s", seed, run, step, src)
				}
				if w := p.WritesInvariantReads(ev.Accesses); w != writes {
					t.Fatalf("seed %d run %d step %d: WritesInvariantReads = %v, the step wrote the invariants' location: %v", seed, run, step, w, writes)
				}
			}
		}
	}
	if writers == 0 {
		t.Fatal("no step wrote what an invariant reads: the test checks nothing")
	}
}

// Step checks the invariants after a step that writes what they read and
// reports the first that fails, with the values it read; the initial state is
// InitialViolation's; Confirm replays both; SelectInvariants drops the others.
func TestInvariantStep(t *testing.T) {
	p := compileKB(t, `shared int x = 0;
shared int y = 0;
shared bool done;
thread a { x = 1; done = true; }
thread b { y = 1; }
invariant order: !(x == 0 && y == 1);
invariant sum: x + y < 2;
`)
	inv, ok := p.InvariantLocation()
	if !ok || p.LocationName(inv) != "the invariants" {
		t.Fatalf("invariant location %d %v named %q", inv, ok, p.LocationName(inv))
	}
	if k, _ := p.Locate(inv); k != ir.LocInvariant || inv != p.NumLocations()-1 {
		t.Fatalf("location %d is %s of %d", inv, k, p.NumLocations())
	}
	if !p.ReadByInvariant(p.CellLocation(0)) || p.ReadByInvariant(p.CellLocation(2)) {
		t.Errorf("ReadByInvariant: x %v, done %v", p.ReadByInvariant(0), p.ReadByInvariant(2))
	}
	if v := p.InitialViolation(); v != nil {
		t.Fatalf("initial violation %v", v)
	}
	// b first: order fails after its step.
	run, v, err := p.Confirm([]ir.Move{{Thread: 1}}, ir.InvariantViolation)
	if err != nil {
		t.Fatal(err)
	}
	if v.Thread != 1 || v.Pos != p.Invariants[0].Pos || v.Msg != "order does not hold: x = 0, y = 1" {
		t.Errorf("violation %+v", v)
	}
	if acc := run.Events[0].Accesses; !slices.Contains(acc, ir.Access{Loc: inv, Kind: ir.Write}) {
		t.Errorf("the step's accesses %v do not write the invariants' location", acc)
	}
	// a, then done = true: writes nothing an invariant reads.
	s := p.Initial()
	var ev ir.Event
	p.Step(s, 0, nil, &ev)
	p.Step(s, 0, nil, &ev)
	if ev.Violation != nil || slices.ContainsFunc(ev.Accesses, func(a ir.Access) bool { return a.Loc == inv }) {
		t.Errorf("done = true: violation %v, accesses %v", ev.Violation, ev.Accesses)
	}
	// a then b: sum fails (order holds).
	if _, v, err := p.Confirm([]ir.Move{{Thread: 0}, {Thread: 1}}, ir.InvariantViolation); err != nil || !strings.HasPrefix(v.Msg, "sum does not hold") {
		t.Errorf("a, b: %v, %v", v, err)
	}
	// The static footprint of a writer writes the location too.
	pr := p.NewProbe()
	fp := pr.Accesses(p.Initial(), 1, ir.Enabled, ir.Static, nil)
	if !slices.Contains(fp, ir.Access{Loc: inv, Kind: ir.Write}) {
		t.Errorf("static footprint %v", fp)
	}
	if err := p.SelectInvariants([]string{"nope"}); err == nil || !strings.Contains(err.Error(), "order, sum") {
		t.Errorf("SelectInvariants(nope): %v", err)
	}
	if err := p.SelectInvariants([]string{"sum"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Confirm([]ir.Move{{Thread: 1}}, ir.InvariantViolation); err == nil {
		t.Error("order still checked after SelectInvariants(sum)")
	}
	if err := p.SelectInvariants(nil); err != nil || p.WritesInvariantReads(run.Events[0].Accesses) {
		t.Errorf("SelectInvariants(nil): %v", err)
	}
}

func TestInvariantInitialState(t *testing.T) {
	p := compileKB(t, `process q[2] { shared int v = 3; thread t { v = 0; } }
invariant low: forall i in 0..1: q[i].v < 3;
`)
	v := p.InitialViolation()
	if v == nil || v.Thread != -1 || v.Msg != "low does not hold: q[0].v = 3" {
		t.Fatalf("initial violation %+v", v)
	}
	if _, got, err := p.Confirm(nil, ir.InvariantViolation); err != nil || got.Msg != v.Msg {
		t.Errorf("Confirm of the empty schedule: %v, %v", got, err)
	}
	// An invariant that cannot be evaluated does not hold.
	p = compileKB(t, `process q { shared int i; shared int a[2]; thread t { i = 2; } }
invariant ok: q.a[q.i] == 0;
`)
	_, v, err := p.Confirm([]ir.Move{{Thread: 0}}, ir.InvariantViolation)
	if err != nil || !strings.HasPrefix(v.Msg, "ok cannot be evaluated: index 2 out of bounds") {
		t.Errorf("%v, %v", v, err)
	}
}

// ValueBits covers what an invariant computes: the symbolic encoding narrows
// ints to it, and a product that wrapped there would change the verdict.
func TestInvariantValueBits(t *testing.T) {
	src := "shared int x; thread t { x = 1; }\n"
	plain := compileKB(t, src).ValueBits(10)
	wide := compileKB(t, src+"invariant big: x * 100000 < 5;\n").ValueBits(10)
	if plain >= 18 || wide < 18 {
		t.Errorf("ValueBits: %d without the invariant, %d with it (100000 needs 18)", plain, wide)
	}
	if w := compileKB(t, src+"invariant shift: (x << 2) < 5;\n").ValueBits(10); w != 32 {
		t.Errorf("ValueBits with a shift in an invariant: %d, want the width", w)
	}
}
