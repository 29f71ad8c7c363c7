package ir_test

import (
	"testing"

	"kbmc/ir"
)

// spinSrc has a waiter that spins on flag, a setter that publishes x and then
// flag, and a bystander whose write nothing reads.
const spinSrc = `
shared int flag = 0;
shared int x = 0;
shared int y = 0;
thread waiter {
    while (flag == 0) { yield; }
    assert(x == 0, "x was published");
}
thread setter { x = 1; flag = 1; }
thread bystander { y = 1; }
`

// spinRun replays the waiter spinning twice round its loop, the bystander,
// the setter to its end and the waiter to its failing assertion.
func spinRun(t *testing.T) (*ir.Program, *ir.Run) {
	t.Helper()
	p := compile(t, spinSrc, 8)
	waiter, setter, bystander := 0, 1, 2
	var moves []ir.Move
	for range 4 {
		moves = append(moves, ir.Move{Thread: waiter})
	}
	moves = append(moves, ir.Move{Thread: bystander})
	run, err := p.Replay(moves)
	if err != nil {
		t.Fatal(err)
	}
	for !p.Done(run.Final(), setter) {
		moves = append(moves, ir.Move{Thread: setter})
		if run, err = p.Replay(moves); err != nil {
			t.Fatal(err)
		}
	}
	for run.Violation() == nil {
		moves = append(moves, ir.Move{Thread: waiter})
		if run, err = p.Replay(moves); err != nil {
			t.Fatal(err)
		}
	}
	return p, run
}

func TestRunRepeatAndLoop(t *testing.T) {
	p, run := spinRun(t)
	from, to := run.Repeat()
	if from != 0 || to <= from || to > 4 {
		t.Fatalf("Repeat() = %d, %d; want the first spin round from 0", from, to)
	}
	loop, ok := p.LoopOf(run, from, to)
	if !ok || loop.Thread != 0 || !loop.BusyWait {
		t.Fatalf("LoopOf(spin) = %+v, %v; want the waiter's busy-wait", loop, ok)
	}
	if op := p.Threads[0].Template.Transitions[loop.Transition].EntryNode().Op; op != ir.OpBranch {
		t.Errorf("LoopOf(spin) names a %v, want the loop head", op)
	}
	if _, ok := p.LoopOf(run, 3, 3); ok {
		t.Errorf("LoopOf of an empty stretch is ok")
	}
	n := len(run.Events)
	if loop, _ := p.LoopOf(run, 4, n); loop.BusyWait {
		t.Errorf("LoopOf(%d, %d) is a busy-wait, but the setter writes there", 4, n)
	}
	if from, to := (&ir.Run{States: run.States[4:6], Events: run.Events[4:5]}).Repeat(); from != -1 || to != -1 {
		t.Errorf("Repeat of the bystander's step = %d, %d; want -1, -1", from, to)
	}
}

func TestRunRelevant(t *testing.T) {
	p, run := spinRun(t)
	keep := p.Relevant(run, run.Violation())
	for i, ev := range run.Events {
		want := ev.Thread != 2 // the bystander's write is read by nobody
		if keep[i] != want {
			t.Errorf("step %d (thread %s): relevant = %v, want %v", i+1, p.Threads[ev.Thread].Name, keep[i], want)
		}
	}
}
