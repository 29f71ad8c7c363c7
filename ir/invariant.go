package ir

import (
	"fmt"
	"slices"
	"strings"
)

// Global invariants (docs/language.md, "Invariants"). An invariant is a
// condition over shared cells, process memory and channel lengths that must
// hold in every reachable state, the initial one included. Step checks it
// after every step that wrote a location it may read (a step that writes none
// leaves its value as it was), InitialViolation checks the initial state, and
// Confirm replays both, so that every explicit engine and every replayed
// counterexample check it in one place.
//
// Under partial-order reduction, checking a predicate in every explored state
// is not enough: a reduced search need not visit every state an equivalent
// interleaving passes through (with x = 1 and y = 1 independent, it may never
// visit x = 1, y = 0). The standard remedy is the visibility condition: every
// step that may change a location an invariant reads is visible, and visible
// steps are mutually dependent. Here that is one more location, InvariantLocation
// ("the invariants"), which every such step writes (Step, and Probe's static
// footprints): since the dependency relation (dependency.go) orders every two
// of them, every equivalent interleaving performs them in the same order, and
// the invariants' values along each are the same. docs/explicit.md argues it
// for each algorithm.

// An Invariant is a named condition that every reachable state must satisfy.
// Its expression reads shared cells (EVar, EIndex of shared variables),
// channel lengths (ELen) and constants, never a thread's locals or tid: lang
// expands quantifiers into conjunctions and disjunctions.
type Invariant struct {
	Name string
	Expr *Expr
	Pos  Pos
	Text string // the source text of its condition
}

// InvariantLocation returns the location every step that writes a location an
// invariant reads also writes, and false when the program has no invariant.
func (p *Program) InvariantLocation() (int, bool) {
	if !p.invariantLoc {
		return 0, false
	}
	return p.PortLocation(len(p.Threads)), true // after the ports
}

// ReadByInvariant reports whether location l is one an invariant may read.
func (p *Program) ReadByInvariant(l int) bool {
	return l >= 0 && l < len(p.invariantReads) && p.invariantReads[l]
}

// InvariantVars returns the shared variables some invariant reads: lang keeps
// them out of the process memory it folds (PrivateVars), since a value written
// and overwritten within one folded step would be no state of the run.
func (p *Program) InvariantVars() map[*Var]bool {
	out := map[*Var]bool{}
	for _, inv := range p.Invariants {
		Inspect(inv.Expr, func(x *Expr) bool {
			if (x.Op == EVar || x.Op == EIndex) && x.Var.Shared {
				out[x.Var] = true
			}
			return true
		})
	}
	return out
}

// SelectInvariants keeps the invariants whose names are in names and drops
// the others (--invariant); it fails on a name no invariant has. It may be
// called on a finished program: the location space stays as Finish laid it out.
func (p *Program) SelectInvariants(names []string) error {
	for _, n := range names {
		if !slices.ContainsFunc(p.Invariants, func(inv *Invariant) bool { return inv.Name == n }) {
			var have []string
			for _, inv := range p.Invariants {
				have = append(have, inv.Name)
			}
			if len(have) == 0 {
				return fmt.Errorf("no invariant %s: the program declares none", n)
			}
			return fmt.Errorf("no invariant %s (the program declares %s)", n, strings.Join(have, ", "))
		}
	}
	p.Invariants = slices.DeleteFunc(p.Invariants, func(inv *Invariant) bool { return !slices.Contains(names, inv.Name) })
	p.noteInvariantReads()
	return nil
}

// noteInvariantReads computes the locations the invariants may read: every
// cell of a variable they name (an index may vary), both ends of every channel
// whose length they read.
func (p *Program) noteInvariantReads() {
	p.invariantReads = nil
	if !p.invariantLoc || len(p.Invariants) == 0 {
		return
	}
	reads := make([]bool, p.NumLocations())
	for _, inv := range p.Invariants {
		Inspect(inv.Expr, func(x *Expr) bool {
			switch x.Op {
			case EVar, EIndex:
				for c := range x.Var.Cells() {
					reads[p.CellLocation(x.Var.Offset+c)] = true
				}
			case ELen:
				lo, hi := x.Chan.Offset, x.Chan.Offset+1
				if x.X != nil {
					hi = x.Chan.Offset + x.Chan.Count()
				}
				for c := lo; c < hi; c++ {
					send, recv := p.ChannelEnds(c)
					reads[send], reads[recv] = true, true
				}
			}
			return true
		})
	}
	p.invariantReads = reads
}

// checkInvariants validates the invariants' expressions for Finish: bool,
// over shared variables, constants and channel lengths only.
func (p *Program) checkInvariants() error {
	for _, inv := range p.Invariants {
		if inv.Expr == nil || inv.Expr.Type != Bool {
			return fmt.Errorf("invariant %s: not a bool expression", inv.Name)
		}
		if Any(inv.Expr, func(x *Expr) bool {
			switch x.Op {
			case EVar, EIndex:
				return !x.Var.Shared || x.Var.Private
			case ETid, ESelf, ENondet, EAddr, EDeref, EPtrAdd, EPtrDiff:
				return true
			}
			return false
		}) {
			return fmt.Errorf("invariant %s: reads something other than shared variables, constants and channel lengths", inv.Name)
		}
	}
	return nil
}

// watchInvariants ends a step of thread t that wrote s's locations (ev): if
// it wrote a location an invariant reads, the step also writes
// InvariantLocation, and, unless it failed or got stuck already, every
// invariant must hold in s, the state after it; the first that does not is
// the step's violation.
func (p *Program) watchInvariants(s State, t int, ev *Event, evaluate bool) {
	l, _ := p.InvariantLocation()
	for i := range ev.Accesses {
		a := &ev.Accesses[i]
		if a.Kind == Write && p.ReadByInvariant(a.Loc) {
			ev.Accesses = append(ev.Accesses, Access{Loc: l, Kind: Write})
			if evaluate {
				ev.Violation = p.BrokenInvariant(s, t)
			}
			return
		}
	}
}

// InitialViolation returns the violation of the first invariant that does
// not hold in the initial state, or, when the run looks for data races
// (SelectRaces), the initial state's race; nil when there is neither.
func (p *Program) InitialViolation() *Violation {
	if v := p.BrokenInvariant(p.Initial(), -1); v != nil {
		return v
	}
	if p.races != nil {
		return p.checkRace(p.Initial())
	}
	return nil
}

// BrokenInvariant returns the violation of the first invariant that does
// not hold in s, reached by a step of thread t (-1: the initial state), or
// nil. An invariant whose evaluation fails (an index out of bounds, a
// division by zero) does not hold. Its message names the invariant and shows
// the values the evaluation read.
func (p *Program) BrokenInvariant(s State, t int) *Violation {
	for _, inv := range p.Invariants {
		// Evaluated without recording what it reads first: the common case,
		// an invariant that holds, allocates nothing.
		m := p.newMachine(s, 0, nil, nil)
		if m.eval(inv.Expr) != 0 && !m.failed {
			continue
		}
		ev := Event{}
		m = p.newMachine(s, 0, nil, &ev)
		m.eval(inv.Expr)
		msg := fmt.Sprintf("%s does not hold", inv.Name)
		if m.failed {
			msg = fmt.Sprintf("%s cannot be evaluated: %s", inv.Name, m.viol.Msg)
		}
		if vals := p.readValues(ev.Accesses); vals != "" {
			msg += ": " + vals
		}
		return &Violation{Kind: InvariantViolation, Msg: msg, Pos: inv.Pos, Thread: t}
	}
	return nil
}

// readValues renders the locations an evaluation read, each once, in the
// order read: "node[0].leader = 1, node[1].leader = 2, len(c) = 0".
func (p *Program) readValues(acc []Access) string {
	var parts []string
	seen := map[int]bool{}
	for _, a := range acc {
		if seen[a.Loc] {
			continue
		}
		seen[a.Loc] = true
		switch k, i := p.Locate(a.Loc); k {
		case LocCell:
			val := fmt.Sprint(a.Value)
			if p.cellType(i) == Bool {
				val = fmt.Sprint(a.Value != 0)
			}
			parts = append(parts, fmt.Sprintf("%s = %s", p.LocationName(a.Loc), val))
		case LocChannel:
			if send, _ := p.ChannelEnds(i); a.Loc == send {
				parts = append(parts, fmt.Sprintf("len(%s) = %d", p.LocationName(a.Loc), a.Value))
			}
		}
	}
	return strings.Join(parts, ", ")
}

// cellType is the type of shared cell c.
func (p *Program) cellType(c int) Type {
	for _, v := range p.Shared {
		if c >= v.Offset && c < v.Offset+v.Cells() {
			return v.CellType(c - v.Offset)
		}
	}
	return Int
}

// WritesInvariantReads reports whether acc writes a location an invariant
// reads: whether the step or footprint it describes is visible to the
// invariants, and so writes InvariantLocation too.
func (p *Program) WritesInvariantReads(acc []Access) bool {
	if p.invariantReads == nil {
		return false
	}
	for i := range acc {
		if acc[i].Kind == Write && p.ReadByInvariant(acc[i].Loc) {
			return true
		}
	}
	return false
}

// InvariantAt returns the invariant declared at pos (a violation's
// position), or nil.
func (p *Program) InvariantAt(pos Pos) *Invariant {
	for _, inv := range p.Invariants {
		if inv.Pos == pos {
			return inv
		}
	}
	return nil
}
