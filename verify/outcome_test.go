package verify

import (
	"errors"
	"testing"

	"kbmc/ir"
)

func TestDecide(t *testing.T) {
	v := &ir.Violation{Kind: ir.Assertion, Msg: "boom"}
	stop := errors.New("context deadline exceeded")
	for _, tc := range []struct {
		name string
		o    Outcome
		want Verdict
		note string
	}{
		{"nothing", Outcome{}, Safe, ""},
		{"cut", Outcome{Cut: "depth bound reached"}, BoundedSafe, "depth bound reached"},
		{"stopped", Outcome{Stopped: stop, Cut: "depth bound reached"}, Unknown, "stopped: context deadline exceeded"},
		{"stopped deep", Outcome{Stopped: stop, Reached: 7}, Unknown, "stopped: context deadline exceeded; no violation in executions of up to 7 steps"},
		{"stopped unrolled", Outcome{Stopped: stop, Reached: 4, Unrolling: []ThreadSteps{{"a", 4}, {"b[0]", 6}}}, Unknown,
			"stopped: context deadline exceeded; no violation in executions of up to 4 steps, nor in any within the depth bound " +
				"in which each thread takes at most the steps of its unrolling (a 4, b[0] 6)"},
		{"livelock", Outcome{Livelock: "a fair execution runs past 50 steps", Cut: "x"}, Unknown,
			"livelock: a fair execution runs past 50 steps"},
		{"violation wins", Outcome{Violation: v, Stopped: stop, Livelock: "l", Cut: "c"}, Unsafe, ""},
		{"incomplete", Outcome{Incomplete: "bitstate"}, Unknown, "no violation found in the explored part: --bitstate may have " +
			"taken a new state for one explored before, so part of the state space may be unexplored"},
		{"incomplete and cut", Outcome{Incomplete: "hash-compact", Cut: "depth bound reached"}, Unknown,
			"no violation found in the explored part: --hash-compact may have taken a new state for one explored before, " +
				"so part of the state space may be unexplored; and depth bound reached"},
		{"incomplete, violation", Outcome{Violation: v, Incomplete: "hash-compact"}, Unsafe, ""},
		{"incomplete, stopped", Outcome{Stopped: stop, Incomplete: "bitstate"}, Unknown, "stopped: context deadline exceeded"},
	} {
		r := tc.o.Decide()
		if r.Verdict != tc.want || r.Note != tc.note {
			t.Errorf("%s: %s (%q), want %s (%q)", tc.name, r.Verdict, r.Note, tc.want, tc.note)
		}
		if r.Verdict == Unknown && r.Note != "" && tc.o.Stopped == nil && r.Incomplete != tc.o.Incomplete {
			t.Errorf("%s: incomplete %q, want %q", tc.name, r.Incomplete, tc.o.Incomplete)
		}
		if (r.Verdict == Unsafe) != (r.Violation != nil) {
			t.Errorf("%s: verdict %s with violation %v", tc.name, r.Verdict, r.Violation)
		}
	}
}

func TestOutcomeKeepsTheFirst(t *testing.T) {
	var o Outcome
	trace := []ir.Move{{Thread: 1, Choices: []int64{3}}}
	first := &ir.Violation{Kind: ir.Bounds}
	o.Found(first, trace)
	trace[0].Choices[0] = 9 // the outcome holds a copy
	o.Found(&ir.Violation{Kind: ir.Assertion}, nil)
	o.CutBy("depth bound reached")
	o.CutBy("preemption bound reached")
	if o.Violation != first || o.Trace[0].Choices[0] != 3 || o.Cut != "depth bound reached" {
		t.Errorf("outcome %+v: want the first violation, a copy of its trace, and the first cut", o)
	}
}

func TestOutcomeKeepsCutAndCycle(t *testing.T) {
	var o Outcome
	first := []ir.Move{{Thread: 0}, {Thread: 1}}
	o.CutAt(first)
	o.CutAt([]ir.Move{{Thread: 2}})
	o.CycleAt([]ir.Move{{Thread: 1}})
	o.CycleAt(nil)
	o.CutBy("depth bound reached")
	first[0].Thread = 9 // the outcome holds a copy
	r := o.Decide()
	if r.Verdict != BoundedSafe || len(r.CutTrace) != 2 || r.CutTrace[0].Thread != 0 || !r.Cycle ||
		len(r.CycleTrace) != 1 || r.CycleTrace[0].Thread != 1 {
		t.Errorf("result %+v: want the first cut execution and the first cycle", r)
	}
}
