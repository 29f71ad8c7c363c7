package encode

import (
	"cmp"
	"errors"
	"fmt"

	"kbmc/ir"
	"kbmc/solver"
)

// A Model gives the values of terms after a satisfiable check; every
// solver.Backend is one.
type Model interface {
	BoolValue(t *solver.Term) (bool, error)
	BVValue(t *solver.Term) (uint64, error)
}

// Moves reads the execution of the first k steps from a model: the thread of
// each step taken and the nondeterministic values it drew, in draw order. It
// stops at the first halted step, and after a failed step, whose violation it
// returns (nil if no step failed). A step that fails always ends the execution,
// whatever Options.Kinds says.
func (u *Unrolling) Moves(m Model, k int) ([]ir.Move, *ir.Violation, error) {
	u.checkDepth(k)
	var moves []ir.Move
	for i := 0; i < k; i++ {
		st := u.steps[i]
		h, err := m.BoolValue(st.halt)
		if err != nil {
			return nil, nil, fmt.Errorf("encode: model: %w", err)
		}
		if h {
			break
		}
		var mv *move
		for _, c := range st.moves {
			on, err := m.BoolValue(c.act)
			if err != nil {
				return nil, nil, fmt.Errorf("encode: model: %w", err)
			}
			if on {
				mv = c
				break
			}
		}
		if mv == nil {
			return nil, nil, fmt.Errorf("encode: model: step %d is taken by no thread", i+1)
		}
		out, v, err := u.readMove(m, mv, mv.thread)
		if err != nil {
			return nil, nil, err
		}
		moves = append(moves, out)
		if v != nil {
			return moves, v, nil
		}
	}
	return moves, nil, nil
}

// readMove reads from a model the step mv of thread: the values its nondet
// calls drew, in draw order, and the violation of its first failing check, if
// one fails. Both encodings read their counterexamples' steps with it.
func (u *Unrolling) readMove(m Model, mv *move, thread int) (ir.Move, *ir.Violation, error) {
	out := ir.Move{Thread: thread}
	for _, d := range mv.draws {
		on, err := m.BoolValue(d.guard)
		if err != nil {
			return out, nil, fmt.Errorf("encode: model: %w", err)
		}
		if !on {
			continue
		}
		v, err := m.BVValue(d.value)
		if err != nil {
			return out, nil, fmt.Errorf("encode: model: %w", err)
		}
		w := d.w
		if w == 0 {
			w = u.w
		}
		out.Choices = append(out.Choices, solver.Signed(v, w))
	}
	for _, c := range mv.checks {
		on, err := m.BoolValue(c.guard)
		if err != nil {
			return out, nil, fmt.Errorf("encode: model: %w", err)
		}
		if on {
			who := thread
			if c.partner {
				who = c.thread
			}
			return out, &ir.Violation{Kind: c.kind, Msg: c.msg, Pos: c.pos, Thread: who}, nil
		}
	}
	return out, nil, nil
}

// ErrNoViolation is returned by Counterexample for a model without a violation.
var ErrNoViolation = errors.New("encode: the model has no violation")

// Counterexample reads the violating execution from a model of Bad(k): the
// schedule, and the violation of its last step, or a deadlock in its final state.
func (u *Unrolling) Counterexample(m Model, k int) ([]ir.Move, *ir.Violation, error) {
	if v := u.initBad; v != nil {
		if !u.wanted(v.Kind) {
			return nil, v, fmt.Errorf("%w: the initial state breaks an invariant", ErrNoViolation)
		}
		vc := *v
		return []ir.Move{}, &vc, nil
	}
	moves, v, err := u.Moves(m, k)
	if err != nil {
		return nil, nil, err
	}
	if v != nil {
		if !u.wanted(v.Kind) {
			return moves, v, fmt.Errorf("%w: the execution fails with %s", ErrNoViolation, v.Kind)
		}
		return moves, v, nil
	}
	v, err = u.endViolation(m, u.status[k])
	if err != nil || v == nil {
		return nil, nil, cmp.Or(err, ErrNoViolation)
	}
	return moves, v, nil
}

// endViolation is the violation of a model's final state of status st, as
// ir.Program.End reports it, if Bad looks for it: a Deadlock, or a Leak when
// the program's entry goroutine has returned; nil if the state is neither.
func (u *Unrolling) endViolation(m Model, st *status) (*ir.Violation, error) {
	dl, err := m.BoolValue(st.deadlock)
	if err != nil {
		return nil, fmt.Errorf("encode: model: %w", err)
	}
	if !dl {
		return nil, nil
	}
	leak, err := m.BoolValue(st.entryDone)
	if err != nil {
		return nil, fmt.Errorf("encode: model: %w", err)
	}
	v := &ir.Violation{Kind: ir.Deadlock, Msg: "deadlock", Thread: -1}
	if leak {
		v = &ir.Violation{Kind: ir.Leak, Msg: "goroutine leak", Thread: -1}
	}
	if !u.wanted(v.Kind) {
		return nil, nil
	}
	return v, nil
}
