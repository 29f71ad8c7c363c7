package encode

import (
	"slices"
	"testing"

	"kbmc/solver"
)

// traceSystem is a TraceSystem given by its events' threads and its constraints.
type traceSystem struct {
	threads []int
	before  [][2]int
}

func (s traceSystem) NumEvents() int              { return len(s.threads) }
func (s traceSystem) Thread(e int) int            { return s.threads[e] }
func (s traceSystem) NumConstraints() int         { return len(s.before) }
func (s traceSystem) Constraint(i int) (int, int) { return s.before[i][0], s.before[i][1] }

func TestTraceOrder(t *testing.T) {
	tests := []struct {
		name     string
		sys      traceSystem
		position []uint64 // an assignment
		holds    bool     // does it satisfy every proposition
		schedule []int    // Schedule's order under it
	}{
		{"program order only", traceSystem{threads: []int{0, 1, 0, 1}},
			[]uint64{0, 0, 1, 1}, true, []int{0, 1, 2, 3}},
		{"dependency respected", traceSystem{threads: []int{0, 1, 0, 1}, before: [][2]int{{3, 0}}},
			[]uint64{2, 0, 3, 1}, true, []int{1, 3, 0, 2}},
		{"dependency violated", traceSystem{threads: []int{0, 1}, before: [][2]int{{1, 0}}},
			[]uint64{0, 0}, false, []int{0, 1}},
		{"program order violated", traceSystem{threads: []int{0, 0}},
			[]uint64{1, 0}, false, []int{1, 0}},
	}
	for _, tc := range tests {
		b := solver.NewBuilder()
		var o TraceOrder
		o.Encode(b, tc.sys)
		if len(o.Position) != tc.sys.NumEvents() || len(o.Constraints) != tc.sys.NumConstraints() {
			t.Errorf("%s: %d positions, %d constraints", tc.name, len(o.Position), len(o.Constraints))
			continue
		}
		a := solver.Assignment{}
		for e, p := range o.Position {
			if 1<<p.Width() <= tc.sys.NumEvents() {
				t.Errorf("%s: position of width %d cannot order %d events", tc.name, p.Width(), tc.sys.NumEvents())
			}
			a[p] = tc.position[e]
		}
		holds := true
		for _, f := range append(slices.Clone(o.ProgramOrder), o.Constraints...) {
			v, err := solver.EvalBool(f, a)
			if err != nil {
				t.Fatal(err)
			}
			holds = holds && v
		}
		if holds != tc.holds {
			t.Errorf("%s: the constraints evaluate to %v, want %v", tc.name, holds, tc.holds)
		}
		got, err := o.Schedule(func(p *solver.Term) (uint64, error) { return a[p], nil })
		if err != nil || !slices.Equal(got, tc.schedule) {
			t.Errorf("%s: Schedule = %v, %v; want %v", tc.name, got, err, tc.schedule)
		}
	}
}

// TestTraceOrderReuse checks that encoding a second system reuses the position
// variables and replaces the propositions.
func TestTraceOrderReuse(t *testing.T) {
	b := solver.NewBuilder()
	var o TraceOrder
	o.Encode(b, traceSystem{threads: []int{0, 1, 1}, before: [][2]int{{0, 2}}})
	first := slices.Clone(o.Position)
	o.Encode(b, traceSystem{threads: []int{1, 0, 0}})
	if !slices.Equal(first, o.Position) {
		t.Errorf("positions differ: %v, then %v", first, o.Position)
	}
	if len(o.Constraints) != 0 || len(o.ProgramOrder) != 1 || o.ProgramOrder[0] != b.Ult(o.Position[1], o.Position[2]) {
		t.Errorf("second system: program order %v, constraints %v", o.ProgramOrder, o.Constraints)
	}
}
