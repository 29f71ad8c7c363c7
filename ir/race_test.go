package ir_test

import (
	"strings"
	"testing"

	"kbmc/ir"
)

// TestFindRace checks the definition on the initial states of small
// programs: which enabled accesses of two threads race.
func TestFindRace(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want string // "" for no race, else what the message must contain
	}{
		{"two writes", "shared int x;\nthread a { x = 1; }\nthread b { x = 2; }\n",
			"data race on x: a's write at test.kb:2:12 (x = 1) and b's write at test.kb:3:12 (x = 2)"},
		{"a write and a read", "shared int x; shared int y;\nthread a { x = 1; }\nthread b { y = x; }\n",
			"a's write"},
		{"two reads", "shared int x; shared int y; shared int z;\nthread a { y = x; }\nthread b { z = x; }\n", ""},
		{"different cells", "shared int v[2];\nthread a { v[0] = 1; }\nthread b { v[1] = 1; }\n", ""},
		{"one element of a draw", "shared int v[2];\nthread a { v[nondet(0, 1)] = 1; }\nthread b { v[1] = 2; }\n",
			"data race on v[1]"},
		{"two atomic blocks", "shared int x;\nthread a { atomic { x = x + 1; } }\nthread b { atomic { x = 2; } }\n", ""},
		{"an atomic block and a plain write", "shared int x;\nthread a { atomic { x = x + 1; } }\nthread b { x = 2; }\n",
			"a's atomic"},
		{"two cas", "shared int x;\nthread a { cas(x, 0, 1); }\nthread b { cas(x, 0, 2); }\n", ""},
		{"a lock's index is read", "shared int x;\nmutex ms[2];\nthread a { x = 1; }\nthread b { lock(ms[x]); unlock(ms[x]); }\n",
			"b's read"},
		{"locks never race", "shared int x;\nmutex m;\nthread a { lock(m); x = 1; unlock(m); }\nthread b { lock(m); x = 2; unlock(m); }\n", ""},
		// b's await reads y, which a writes, but b cannot move.
		{"a blocked thread has no enabled access", "shared int x; shared int y;\nthread a { y = 0; }\nthread b { await(y == 1); x = 2; }\n", ""},
		{"a thread alone", "shared int x;\nthread a { x = 1; x = 2; }\n", ""},
		// The draw follows a's first access in its step: it changes none
		// of a's enabled accesses, and is not enumerated (it is more than
		// the check enumerates).
		{"a draw after the first access", "shared int x;\nthread a { int l = x; int d = nondet(0, 100000); d = d + 1; }\nthread b { x = 1; }\n",
			"data race on x"},
		// One thread enabled: no race, whatever it draws.
		{"a thread alone drawing widely", "shared int x;\nthread a { int d = nondet(0, 100000); x = d; }\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, tc.src, 32)
			r, v := p.FindRace(p.Initial())
			if v != nil {
				t.Fatalf("FindRace failed: %s", v.Msg)
			}
			switch {
			case tc.want == "" && r != nil:
				t.Fatalf("race found where none is: %s and %s", p.Threads[r.A.Thread].Name, p.Threads[r.B.Thread].Name)
			case tc.want != "" && r == nil:
				t.Fatalf("no race found, want %q", tc.want)
			}
			p.SelectRaces(true)
			got := p.InitialViolation()
			switch {
			case tc.want == "" && got != nil:
				t.Fatalf("InitialViolation = %v, want none", got)
			case tc.want != "" && (got == nil || got.Kind != ir.DataRace || !strings.Contains(got.Msg, tc.want)):
				t.Fatalf("InitialViolation = %+v, want a data race naming %q", got, tc.want)
			}
		})
	}
}

// TestRaceStepAndConfirm checks that Step reports the race of the state it
// reaches only when the run selects the property, and that Confirm replays
// it: x is written by b only once a has set go.
func TestRaceStepAndConfirm(t *testing.T) {
	src := "shared int x; shared int go;\nthread a { go = 1; x = 1; }\nthread b { await(go == 1); x = 2; }\n"
	p := compile(t, src, 32)
	var ev ir.Event
	s := p.Initial()
	p.Step(s, 0, nil, &ev)
	if ev.Violation != nil {
		t.Fatalf("without the property, Step reports %v", ev.Violation)
	}
	p.SelectRaces(true)
	if v := p.InitialViolation(); v != nil {
		t.Fatalf("the initial state has no race, got %v", v)
	}
	// After a's go = 1, b's await reads go, a's next write is to x: no race.
	// After b's await, both are about to write x.
	moves := []ir.Move{{Thread: 0}, {Thread: 1}}
	run, v, err := p.Confirm(moves, ir.DataRace)
	if err != nil {
		t.Fatal(err)
	}
	if v.Thread != 0 || !strings.Contains(v.Msg, "data race on x") || len(run.Events) != 2 {
		t.Fatalf("Confirm = %+v after %d steps", v, len(run.Events))
	}
	if _, _, err := p.Confirm(moves[:1], ir.DataRace); err == nil {
		t.Fatal("Confirm accepts a trace that ends in no racing state")
	}
	p.SelectRaces(false)
	if _, _, err := p.Confirm(moves, ir.DataRace); err == nil {
		t.Fatal("Confirm finds a race with the property off")
	}
}

// TestRaceHaltsAssertions checks that a failing assertion stops its thread
// under no-data-race instead of failing the step: the other thread still runs.
func TestRaceHaltsAssertions(t *testing.T) {
	p := compile(t, "shared int x;\nthread a { assert(x == 1); x = 5; }\nthread b { x = 2; }\n", 32)
	p.SelectRaces(true)
	s := p.Initial()
	var ev ir.Event
	p.Step(s, 0, nil, &ev)
	if ev.Violation != nil {
		t.Fatalf("the failing assertion reports %v", ev.Violation)
	}
	if st := p.Status(s, 0); st != ir.BlockedAssume {
		t.Fatalf("a after its failing assertion: status %v, want stopped on a false assume", st)
	}
	if st := p.Status(s, 1); st != ir.Enabled {
		t.Fatalf("b: status %v, want enabled", st)
	}
}
