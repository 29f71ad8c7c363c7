package ir

import "fmt"

// A Move is one step of a schedule: the thread that moves and the nondeterministic
// values its step draws, in order.
type Move struct {
	Thread  int
	Choices []int64
}

// CloneMoves returns a deep copy of a schedule.
func CloneMoves(moves []Move) []Move {
	out := make([]Move, len(moves))
	for i, m := range moves {
		out[i] = Move{Thread: m.Thread, Choices: append([]int64(nil), m.Choices...)}
	}
	return out
}

// A Run is an execution replayed concretely: States[i] is the state before step i
// (States[len(Events)] the final one), Events[i] what step i did.
type Run struct {
	States []State
	Events []Event
}

// Violation is the violation the run ends with: a failed last step, or nil.
func (r *Run) Violation() *Violation {
	if n := len(r.Events); n > 0 {
		return r.Events[n-1].Violation
	}
	return nil
}

// Final is the state after the last step.
func (r *Run) Final() State { return r.States[len(r.States)-1] }

// Replay executes a schedule from the initial state. It fails if a move names a
// thread that is not enabled, draws values outside their ranges or a different
// number of values than recorded, or follows a failed step.
func (p *Program) Replay(moves []Move) (*Run, error) {
	s := p.Initial()
	run := &Run{States: []State{s.Clone()}}
	for i, mv := range moves {
		if mv.Thread < 0 || mv.Thread >= len(p.Threads) {
			return run, fmt.Errorf("step %d: no thread %d", i+1, mv.Thread)
		}
		if i > 0 && run.Events[i-1].Violation != nil {
			return run, fmt.Errorf("step %d: follows a failed step", i+1)
		}
		if st := p.Status(s, mv.Thread); st != Enabled {
			return run, fmt.Errorf("step %d: thread %s is not enabled", i+1, p.Threads[mv.Thread].Name)
		}
		ch := Choices{Fixed: mv.Choices}
		ev := Event{TraceLocals: true}
		p.Step(s, mv.Thread, &ch, &ev)
		if len(ev.Choices) != len(mv.Choices) {
			return run, fmt.Errorf("step %d: drew %d nondeterministic values, schedule has %d", i+1, len(ev.Choices), len(mv.Choices))
		}
		for j, c := range ev.Choices {
			if c.Value != mv.Choices[j] {
				return run, fmt.Errorf("step %d: value %d outside [%d, %d]", i+1, mv.Choices[j], c.Lo, c.Hi)
			}
		}
		ev.Accesses = append([]Access(nil), ev.Accesses...)
		ev.Choices = append([]Choice(nil), ev.Choices...)
		ev.LocalWrites = append([]Access(nil), ev.LocalWrites...)
		ev.Visits = append([]Visit(nil), ev.Visits...)
		ev.Message = append([]int64(nil), ev.Message...)
		run.Events = append(run.Events, ev)
		run.States = append(run.States, s.Clone())
	}
	return run, nil
}

// Confirm replays moves and confirms that they end in a violation of the given kind
// (for a deadlock: in a deadlocked state). It is how every counterexample is
// validated before it is shown.
func (p *Program) Confirm(moves []Move, want ViolationKind) (*Run, *Violation, error) {
	run, err := p.Replay(moves)
	if err != nil {
		return run, nil, err
	}
	if want.Deadlocks() {
		if v := run.Violation(); v != nil {
			return run, nil, fmt.Errorf("expected a %s, the trace fails with %s", want, v.Kind)
		}
		v := p.Deadlock(run.Final())
		if v == nil {
			return run, nil, fmt.Errorf("the trace does not end in a deadlock")
		}
		if v.Kind != want {
			return run, nil, fmt.Errorf("expected a %s, the trace ends in a %s", want, v.Kind)
		}
		return run, v, nil
	}
	v := run.Violation()
	if v == nil && len(moves) == 0 && (want == InvariantViolation || want == DataRace) {
		v = p.InitialViolation() // the initial state itself violates an invariant, or races
	}
	if v == nil {
		return run, nil, fmt.Errorf("the trace ends without a violation, expected %s", want)
	}
	if v.Kind != want {
		return run, nil, fmt.Errorf("the trace ends with %s, expected %s", v.Kind, want)
	}
	return run, v, nil
}
