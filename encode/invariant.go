package encode

import (
	"kbmc/ir"
	"kbmc/solver"
)

// Global invariants (ir/invariant.go) in the step encoding. ir checks them
// after every step that writes a location one reads; the encoding checks them
// after every step that may write a location one reads: a move of step i
// that may fails with the first invariant that does not hold in s_{i+1}, as
// ir's Step reports it, when it is taken and fails no other check. Every
// invariant held in s_i then: s_0 is checked concretely by New (with ir's
// InitialViolation; a violation there halts the execution before its first
// step), a step that breaks one fails and halts the execution, and a step
// that writes no location an invariant reads leaves them as they were.

// holdsIn is "every invariant holds in s_i" (cached), and the term of each
// invariant, in order.
func (u *Unrolling) holdsIn(s *state) []*solver.Term {
	b := u.b
	out := make([]*solver.Term, len(u.p.Invariants))
	for j, inv := range u.p.Invariants {
		// A frame without a move records no accesses and collects the
		// evaluation's failures in guardFail: an invariant that cannot be
		// evaluated does not hold (as in ir).
		f := &frame{u: u, b: b, th: u.p.Threads[0], pre: s, st: store{}, g: b.True()}
		v := u.toBool(f.eval(inv.Expr))
		out[j] = b.And(v, b.Not(b.Or(f.guardFail...)))
	}
	return out
}

// checkInvariants adds to each move of a step into ns that may write what an
// invariant reads the checks of the invariants after it.
func (u *Unrolling) checkInvariants(ns *state, moves []*move) {
	if len(u.p.Invariants) == 0 {
		return
	}
	b := u.b
	after := u.holdsIn(ns)
	for _, mv := range moves {
		if !u.writesInvariantReads(mv) {
			continue // it leaves what the invariants read, which held, as it was
		}
		var own []*solver.Term
		for _, c := range mv.checks {
			own = append(own, c.guard)
		}
		g := b.And(mv.act, b.Not(b.Or(own...)))
		if g.IsFalse() {
			continue
		}
		for j, inv := range u.p.Invariants {
			mv.checks = append(mv.checks, check{guard: b.And(g, b.Not(after[j])), kind: ir.InvariantViolation,
				pos: inv.Pos, msg: inv.Name + " does not hold"})
			g = b.And(g, after[j])
		}
	}
}

// invariantFootprint makes a step's footprint write ir's InvariantLocation
// when it writes a location an invariant reads: the visibility condition
// (ir/invariant.go) for the reductions' constraints (por.go).
func (u *Unrolling) invariantFootprint(fp Footprint) {
	l, ok := u.p.InvariantLocation()
	if !ok {
		return
	}
	var ws []*solver.Term
	for loc := range fp.Write {
		if loc != l && u.p.ReadByInvariant(loc) {
			ws = append(ws, fp.Write[loc])
		}
	}
	fp.Write[l] = u.b.Or(ws...)
}

// writesInvariantReads reports whether move mv may write a location an
// invariant reads: a shared cell, or a channel whose length one reads.
func (u *Unrolling) writesInvariantReads(mv *move) bool {
	p := u.p
	for k := range mv.final {
		if c, ok := u.cellOf(k); ok && p.ReadByInvariant(p.CellLocation(c)) {
			return true
		}
		if u.isChanKey(k) {
			send, recv := p.ChannelEnds(u.keyChan[k-u.chanKey0])
			if p.ReadByInvariant(send) || p.ReadByInvariant(recv) {
				return true
			}
		}
	}
	return false
}
