package svcomp

import (
	"fmt"

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

// The properties kbmc answers, as task files name them.
const (
	UnreachCall = "unreach-call" // no execution calls reach_error()
	NoDataRace  = "no-data-race" // no reachable state has a data race (ir/race.go)
	NoOverflow  = "no-overflow"  // no signed integer operation overflows (ir/overflow.go)
)

// Violation is the kind of violation that makes property name false.
func Violation(name string) ir.ViolationKind {
	switch name {
	case NoDataRace:
		return ir.DataRace
	case NoOverflow:
		return ir.Overflow
	}
	return ir.ReachError
}

// Supported reports whether kbmc checks property name, and why not.
func Supported(name string) (bool, string) {
	if name == UnreachCall || name == NoDataRace || name == NoOverflow {
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
// no-data-race (ir.Program.SelectRaces).
func Judge(name string, r *verify.Result, closed bool) (Answer, string) {
	if ok, why := Supported(name); !ok {
		return Unknown, why
	}
	switch r.Verdict {
	case verify.Unsafe:
		if r.Violation.Kind == Violation(name) {
			return False, ""
		}
		return Unknown, fmt.Sprintf("a %s at %s, which %s does not cover: %s", r.Violation.Kind, r.Violation.Pos, name, r.Violation.Msg)
	case verify.Safe:
		return True, ""
	case verify.BoundedSafe:
		switch {
		case r.ModelCut:
			return Unknown, "a thread or heap pool of the model ran out (" + r.Note + ")"
		case closed:
			return True, ""
		}
		return Unknown, "the bound cut some executions: " + r.Note
	}
	return Unknown, r.Note
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
func Choose(p *ir.Program, maxNondet int64) []Attempt {
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
