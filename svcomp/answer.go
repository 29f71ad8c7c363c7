package svcomp

import (
	"fmt"
	"slices"

	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/verify"
)

// Answer is SV-COMP's answer for a property: whether it holds.
type Answer uint8

const (
	Unknown Answer = iota
	True
	False
)

func (a Answer) String() string {
	switch a {
	case True:
		return "true"
	case False:
		return "false"
	}
	return "unknown"
}

// Score is what SV-COMP scores answer a to a property whose expected verdict
// is expected (nil: the task gives none): +2 a correct true, +1 a correct
// false, −32 a wrong true, −16 a wrong false, 0 an unknown.
func Score(a Answer, expected *bool) int {
	if a == Unknown || expected == nil {
		return 0
	}
	switch {
	case a == True && *expected:
		return 2
	case a == False && !*expected:
		return 1
	case a == True:
		return -32
	}
	return -16
}

// Correct reports whether answer a matches the expected verdict; false for an
// unknown answer or no expectation.
func Correct(a Answer, expected *bool) bool { return Score(a, expected) > 0 }

// Grade scores answer a to property p as SV-COMP does, sub being the
// sub-property a false answer says is violated (valid-memsafety's
// valid-deref, say): a false answer naming another sub-property than the task
// expects is wrong, as SV-COMP counts "false(valid-deref)" against an
// expected "false(valid-free)".
func Grade(a Answer, sub string, p Property) (score int, correct bool) {
	if a == False && p.Expected != nil && !*p.Expected && p.Sub != "" && sub != p.Sub {
		return -16, false
	}
	return Score(a, p.Expected), Correct(a, p.Expected)
}

// The properties kbmc answers, as task files name them.
const (
	UnreachCall = "unreach-call" // no execution calls reach_error()
	NoDataRace  = "no-data-race" // no reachable state has a data race (ir/race.go)
	NoOverflow  = "no-overflow"  // no signed integer operation overflows (ir/overflow.go)
	// ValidMemsafety: no invalid dereference (valid-deref), no invalid free
	// (valid-free), and no allocated memory lost (valid-memtrack). kbmc
	// checks the first two and not the third, so it answers the property
	// false, never true (Judge).
	ValidMemsafety = "valid-memsafety"
)

// Violation is the kind of violation a run must look for to check property
// name (ir.Program.SelectProperty): a race or an overflow, which runs report
// only when selected; an invalid dereference for valid-memsafety; or else
// ir.ReachError, whose runs report every other kind too.
func Violation(name string) ir.ViolationKind {
	switch name {
	case NoDataRace:
		return ir.DataRace
	case NoOverflow:
		return ir.Overflow
	case ValidMemsafety:
		// Memory safety: its violations every run reports; selecting it
		// makes a failing assertion abort, as C's assert does.
		return ir.InvalidDeref
	}
	return ir.ReachError
}

// Covers reports whether a violation of kind k makes property name false,
// and the sub-property it violates, for a property that has them
// (valid-memsafety: an invalid dereference, of a null, dangling or freed
// pointer or outside its object, violates valid-deref; an invalid or double
// free valid-free).
func Covers(name string, k ir.ViolationKind) (sub string, ok bool) {
	if name == ValidMemsafety {
		switch k {
		case ir.InvalidDeref:
			return "valid-deref", true
		case ir.InvalidFree:
			return "valid-free", true
		}
		return "", false
	}
	return "", k == Violation(name)
}

// Properties are the names of SV-COMP's properties, as task files name them
// (their .prp files), whether kbmc checks them or not.
var Properties = []string{UnreachCall, NoDataRace, NoOverflow, ValidMemsafety,
	"valid-memcleanup", "termination", "def-behavior", "coverage-error-call", "coverage-branches"}

// Known reports whether name is one of Properties.
func Known(name string) bool { return slices.Contains(Properties, name) }

// Supported reports whether kbmc checks property name, and why not.
func Supported(name string) (bool, string) {
	if name == UnreachCall || name == NoDataRace || name == NoOverflow || name == ValidMemsafety {
		return true, ""
	}
	return false, fmt.Sprintf("the property %s is not supported by kbmc yet", name)
}

// Judge turns kbmc's result for property name into SV-COMP's answer, with the
// reason for an unknown one. closed says that the run explores every state
// the program can reach before it ends (a stateful search whose depth bound
// exceeds every execution): then a bound cut only by cycles of states still
// decides the property. A violation the property does not cover (a bounds
// error under unreach-call or no-data-race) is unknown, never false: the
// program's behaviour past it is undefined, and another execution may still
// reach the error. The program must check what name asks: races only under
// no-data-race (ir.Program.SelectRaces). A false answer comes with the
// sub-property it violates (Covers); valid-memsafety is never true, since
// kbmc does not check its valid-memtrack.
func Judge(name string, r *verify.Result, closed bool) (a Answer, sub, reason string) {
	if ok, why := Supported(name); !ok {
		return Unknown, "", why
	}
	switch r.Verdict {
	case verify.Unsafe:
		if sub, ok := Covers(name, r.Violation.Kind); ok {
			return False, sub, ""
		}
		return Unknown, "", fmt.Sprintf("a %s at %s, which %s does not cover: %s", r.Violation.Kind, r.Violation.Pos, name, r.Violation.Msg)
	}
	if Exhausted(r, closed) {
		if name == ValidMemsafety {
			return Unknown, "", "no invalid dereference or free is reachable, but kbmc does not check valid-memtrack (that no allocated memory is lost), so it answers valid-memsafety only false"
		}
		return True, "", ""
	}
	switch {
	case r.Verdict != verify.BoundedSafe:
		return Unknown, "", r.Note
	case r.ModelCut && r.Note != "":
		return Unknown, "", r.Note // the engine's note says that a pool ran out
	case r.ModelCut:
		return Unknown, "", "a thread pool or heap pool of the model ran out (raise --pool)"
	}
	return Unknown, "", "the bound cut some executions: " + r.Note
}

// Exhausted reports whether result r, of a run that closes the state space
// when closed is set (see Judge), covers every execution of the program
// without a violation: no other engine or search can then find one.
func Exhausted(r *verify.Result, closed bool) bool {
	return r.Verdict == verify.Safe || r.Verdict == verify.BoundedSafe && closed && !r.ModelCut
}

// UnboundedDepth is the depth of the runs Choose plans for a closed state
// space: beyond any execution a search can hold in memory.
const UnboundedDepth = 1 << 30

// An Attempt is one engine run for a task: the engine (as kbmc regress names
// engines), its depth, and whether it closes the state space (see Judge).
type Attempt struct {
	Engine string
	Depth  int
	Closed bool
	// Share is the part of the time left that the attempt may take (0: all
	// of it), so that a later attempt still gets its turn.
	Share float64
}

// Choose plans how kbmc checks a program. Where every nondeterministic value
// it draws has a range the explicit engine can enumerate: its persistent-set
// search for half the time, then its plain stateful search for the rest; both
// visit every reachable state, or (persistent, whose second phase keeps every
// thread that may fail in each persistent set) a representative of every
// violation, with no depth bound that matters. Persistent sets cut the
// interleavings of independent steps that make a plain search run out of
// time; where their static analysis finds little to cut, the plain search is
// faster, hence both. Where some value has a range too wide to enumerate (a
// full-range __VERIFIER_nondet_int, say): the symbolic engine, deepening.
//
// A program that looks for data races (ir.Program.SelectRaces) gets the
// plain stateful search alone where it can enumerate the values: it is the
// explicit search that visits every reachable state, which the property
// needs (docs/explicit.md, "Data races"); the persistent-set search refuses
// it. Where values are too wide to enumerate: the symbolic engine, which
// checks every state of its unrolling (its step encoding; docs/symbolic.md,
// "Data races").
//
// A program that looks for signed overflow with values too wide to enumerate
// gets no engine: the symbolic engine does not encode the property (its
// arithmetic wraps), so only the bug hunt beside can answer, false.
func Choose(p *ir.Program, maxNondet int64) []Attempt {
	if p.ChecksOverflow() && explicit.Supported(p, explicit.Options{MaxNondet: maxNondet}) != nil {
		return nil
	}
	if p.ChecksRaces() {
		if explicit.Supported(p, explicit.Options{MaxNondet: maxNondet}) == nil {
			return []Attempt{{Engine: "explicit/dfs/stateful", Depth: UnboundedDepth, Closed: true}}
		}
		return []Attempt{{Engine: "symbolic/gini", Depth: verify.DefaultDepth}}
	}
	if explicit.Supported(p, explicit.Options{MaxNondet: maxNondet}) == nil {
		return []Attempt{
			{Engine: "explicit/persistent", Depth: UnboundedDepth, Closed: true, Share: 0.5},
			{Engine: "explicit/dfs/stateful", Depth: UnboundedDepth, Closed: true},
		}
	}
	return []Attempt{{Engine: "symbolic/gini", Depth: verify.DefaultDepth}}
}
