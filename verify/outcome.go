package verify

import (
	"fmt"

	"kbmc/ir"
)

// An Outcome is what a search established, from which its verdict follows. Engines
// record what they find in one and turn it into a Result with Decide: the one
// place where a verdict is decided (DESIGN.md §4).
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
	// Reached, for an engine that deepens (symbolic), is how deep it showed
	// that no violation exists, when it stopped before a verdict.
	Reached int
}

// Decide returns the result the outcome stands for:
//
//   - unsafe when a violation was found, whatever else happened;
//   - unknown when the search was stopped (the Note says how deep it showed
//     that no violation exists, when Reached says so) or reported a possible
//     livelock;
//   - bounded-safe when a bound cut some execution;
//   - safe otherwise: the search was exhaustive.
//
// The Result's Note says why, for people.
func (o *Outcome) Decide() *Result {
	switch {
	case o.Violation != nil:
		return &Result{Verdict: Unsafe, Violation: o.Violation, Trace: o.Trace}
	case o.Stopped != nil:
		note := "stopped: " + o.Stopped.Error()
		if o.Reached > 0 {
			note += fmt.Sprintf("; no violation up to depth %d", o.Reached)
		}
		return &Result{Verdict: Unknown, Note: note, Stopped: StopReason(o.Stopped)}
	case o.Livelock != "":
		return &Result{Verdict: Unknown, Note: "livelock: " + o.Livelock}
	case o.Cut != "":
		return &Result{Verdict: BoundedSafe, Note: o.Cut}
	}
	return &Result{Verdict: Safe}
}

// Found records a violation and the schedule that reaches it (copied), unless one
// was recorded before: an engine reports the first violation its search reaches.
func (o *Outcome) Found(v *ir.Violation, trace []ir.Move) {
	if o.Violation != nil {
		return
	}
	o.Violation, o.Trace = v, ir.CloneMoves(trace)
}

// CutBy records that a bound kept the search from some execution; the first note
// stays.
func (o *Outcome) CutBy(note string) {
	if o.Cut == "" {
		o.Cut = note
	}
}
