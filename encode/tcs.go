package encode

import (
	"fmt"
	"math/bits"
	"slices"

	"kbmc/solver"
)

// Trace constraint systems in terms (LazyPOR thesis, Metzler 2014, Def. 11–13).
//
// A trace constraint system has one variable per event and asks for an order of
// the events in which every event follows its thread's previous event (program
// order, §4.1) and every dependency constraint "a before b" holds. The thesis's
// first implementation handed such systems to Z3 (§5); TraceOrder is that
// encoding for any solver.Backend: event e gets a position p_e, a W-bit
// unsigned bit-vector with 2^W > the number of events, and "a before b" is
// p_a <u p_b. Positions may tie between unordered events; sorting by (position,
// event) then gives a linear extension, because every constraint is strict.
//
// Every constraint is a separate proposition, so that a solver can take them as
// assumptions: one backend then decides system after system without asserting
// anything, and the unsat core of an unsatisfiable system names the constraints
// that close a cycle — what the maximal satisfiable prefix (§3.1) is found with.

// A TraceSystem is a trace constraint system as TraceOrder reads it. Events are
// numbered 0..NumEvents()-1; the events of one thread are in program order.
type TraceSystem interface {
	NumEvents() int
	Thread(e int) int
	NumConstraints() int
	Constraint(i int) (before, after int)
}

// TraceOrder holds the terms of the last system encoded with it. Its storage, and
// the position variables, are reused from one system to the next.
type TraceOrder struct {
	// Position[e] is event e's place in the order.
	Position []*solver.Term
	// ProgramOrder holds one proposition per event with a predecessor in its
	// thread: the predecessor's position is lower.
	ProgramOrder []*solver.Term
	// Constraints[i] is dependency constraint i: before's position is lower
	// than after's.
	Constraints []*solver.Term

	vars  map[int][]*solver.Term // the position variables of each width
	last  []int                  // per thread, the last event seen, or -1
	order []int
	pos   []uint64
}

// Encode builds the terms of sys with b, replacing those of the previous call.
func (o *TraceOrder) Encode(b *solver.Builder, sys TraceSystem) {
	n := sys.NumEvents()
	w := max(1, bits.Len(uint(n)))
	if o.vars == nil {
		o.vars = map[int][]*solver.Term{}
	}
	vs := o.vars[w]
	for e := len(vs); e < n; e++ {
		vs = append(vs, b.BVVar(fmt.Sprintf("tcs.pos%d.%d", w, e), w))
	}
	o.vars[w] = vs
	o.Position = vs[:n]

	o.ProgramOrder = o.ProgramOrder[:0]
	o.last = o.last[:0]
	for e := 0; e < n; e++ {
		t := sys.Thread(e)
		for len(o.last) <= t {
			o.last = append(o.last, -1)
		}
		if p := o.last[t]; p >= 0 {
			o.ProgramOrder = append(o.ProgramOrder, b.Ult(o.Position[p], o.Position[e]))
		}
		o.last[t] = e
	}
	o.Constraints = o.Constraints[:0]
	for i := range sys.NumConstraints() {
		before, after := sys.Constraint(i)
		o.Constraints = append(o.Constraints, b.Ult(o.Position[before], o.Position[after]))
	}
}

// Schedule reads the order of the events from a model: value gives a position
// variable's value (solver.Backend.BVValue after a satisfiable check). The
// returned slice is reused by the next call.
func (o *TraceOrder) Schedule(value func(*solver.Term) (uint64, error)) ([]int, error) {
	n := len(o.Position)
	o.pos = slices.Grow(o.pos[:0], n)[:n]
	o.order = o.order[:0]
	for e, p := range o.Position {
		v, err := value(p)
		if err != nil {
			return nil, fmt.Errorf("position of event %d: %w", e, err)
		}
		o.pos[e] = v
		o.order = append(o.order, e)
	}
	slices.SortFunc(o.order, func(a, b int) int {
		if o.pos[a] != o.pos[b] {
			if o.pos[a] < o.pos[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	return o.order, nil
}
