package verify

import (
	"fmt"
	"strings"

	"kbmc/ir"
)

// An Outcome is what a search established, from which its verdict follows. Engines
// record what they find in one and turn it into a Result with Decide: the one
// place where a verdict is decided (docs/architecture.md, "Verdicts").
type Outcome struct {
	// Violation is the violation the search reached first, Trace the schedule
	// that reaches it.
	Violation *ir.Violation
	Trace     []ir.Move
	// Stopped says why the search ended early (a time limit, an interrupt), or
	// is nil.
	Stopped error
	// Livelock describes a possible livelock the search reported instead of a
	// verdict (bpor-fair past --max-steps), or is empty.
	Livelock string
	// Cut says which bound kept the search from some execution (the depth, a
	// preemption or fair bound), or is empty.
	Cut string
	// ModelCut says that a bound of the program's model cut some execution: a
	// thread pool or heap pool of a C or Go program ran out. (The depth never
	// does once it exceeds every execution; these bounds may.)
	ModelCut bool
	// Reached, for an engine that deepens (symbolic), is how deep it showed
	// that no violation exists, when it stopped before a verdict: no execution
	// of at most Reached steps has one.
	Reached int
	// Unrolling, for the symbolic partial-order encoding, is what it showed
	// beyond Reached: no execution within the depth bound in which each
	// thread takes at most its Steps has a violation. Empty otherwise.
	Unrolling []ThreadSteps
	// CutTrace is the first execution the depth bound cut (its schedule), so
	// that a bounded-safe verdict can show which loop kept running.
	CutTrace []ir.Move
	// Cycle says that the search met a cycle of states: an execution that runs
	// for ever, so that no depth covers every execution. CycleTrace is a
	// schedule whose last state repeats an earlier state of it.
	Cycle      bool
	CycleTrace []ir.Move
	// Closed says that the search expanded every reachable state (a
	// breadth-first search whose levels ended before the depth bound): the
	// executions longer than the bound only revisit explored states, so none
	// of any length has a violation, though the verdict stays bounded-safe.
	Closed bool
	// Incomplete names the lossy visited set that may have made the search
	// skip states it never explored ("hash-compact", "bitstate"), or is
	// empty. No violation found is then no proof: the verdict is unknown.
	Incomplete string
}

// Decide returns the result the outcome stands for:
//
//   - unsafe when a violation was found, whatever else happened; unknown when
//     the "violation" is a step the model cannot express (ir.Unsupported);
//   - unknown when the search was stopped (the Note says how deep it showed
//     that no violation exists, when Reached says so) or reported a possible
//     livelock;
//   - unknown when the search was incomplete (Incomplete): no violation was
//     found in the part it explored, which may not be every state;
//   - bounded-safe when a bound cut some execution;
//   - safe otherwise: the search was exhaustive.
//
// The Result's Note says why, for people.
func (o *Outcome) Decide() *Result {
	switch {
	case o.Violation != nil && o.Violation.Kind == ir.Unsupported:
		return &Result{Verdict: Unknown, Note: fmt.Sprintf("unsupported at %s: %s", o.Violation.Pos, o.Violation.Msg)}
	case o.Violation != nil:
		return &Result{Verdict: Unsafe, Violation: o.Violation, Trace: o.Trace}
	case o.Stopped != nil:
		note := "stopped: " + o.Stopped.Error()
		if o.Reached > 0 {
			note += fmt.Sprintf("; no violation in executions of up to %d steps", o.Reached)
			if len(o.Unrolling) > 0 {
				parts := make([]string, len(o.Unrolling))
				for i, u := range o.Unrolling {
					parts[i] = fmt.Sprintf("%s %d", u.Thread, u.Steps)
				}
				note += fmt.Sprintf(", nor in any within the depth bound in which each thread takes at most the steps of its unrolling (%s)",
					strings.Join(parts, ", "))
			}
		}
		return &Result{Verdict: Unknown, Note: note, Stopped: StopReason(o.Stopped), Reached: o.Reached, Unrolling: o.Unrolling}
	case o.Livelock != "":
		return &Result{Verdict: Unknown, Note: "livelock: " + o.Livelock}
	case o.Incomplete != "":
		note := fmt.Sprintf("no violation found in the explored part: --%s may have taken a new state for one explored before, "+
			"so part of the state space may be unexplored", o.Incomplete)
		if o.Cut != "" {
			note += "; and " + o.Cut
		}
		return &Result{Verdict: Unknown, Note: note, Incomplete: o.Incomplete}
	case o.Cut != "":
		note := o.Cut
		if o.Cycle {
			note = CycleNote
		}
		return &Result{Verdict: BoundedSafe, Note: note, CutTrace: o.CutTrace, Cycle: o.Cycle, CycleTrace: o.CycleTrace,
			ModelCut: o.ModelCut, Closed: o.Closed}
	}
	return &Result{Verdict: Safe}
}

// CutAt records the schedule of an execution the depth bound cut (copied),
// unless one was recorded before.
func (o *Outcome) CutAt(trace []ir.Move) {
	if o.CutTrace == nil {
		o.CutTrace = ir.CloneMoves(trace)
	}
}

// CycleAt records that trace ends in a state it has passed through before,
// unless a cycle was recorded before.
func (o *Outcome) CycleAt(trace []ir.Move) {
	if !o.Cycle {
		o.Cycle, o.CycleTrace = true, ir.CloneMoves(trace)
	}
}

// Found records a violation and the schedule that reaches it (copied), unless one
// was recorded before: an engine reports the first violation its search reaches.
func (o *Outcome) Found(v *ir.Violation, trace []ir.Move) {
	if o.Violation != nil {
		return
	}
	o.Violation, o.Trace = v, ir.CloneMoves(trace)
}

// CycleNote is a bounded-safe verdict's note when the search met a cycle of
// states, an execution that runs past any bound: the reason a larger bound
// will not help, so it is named whatever cut the search met first.
const CycleNote = "a cycle of states runs past the depth bound"

// CutBy records that a bound kept the search from some execution; the first note
// stays.
func (o *Outcome) CutBy(note string) {
	if o.Cut == "" {
		o.Cut = note
	}
}
