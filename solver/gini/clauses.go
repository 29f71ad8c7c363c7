package gini

import (
	"slices"

	"github.com/go-air/gini/z"

	"kbmc/solver"
)

// An asserted formula is given to the solver as clauses of its own where its
// top-level structure allows, instead of as the unit clause of its circuit
// literal. The circuit is an and-inverter graph whose gates are defined in
// both directions (three clauses each), so an n-ary disjunction becomes a
// chain of n−1 gates, and an implied bit-vector equality s → a = b becomes
// 32 XOR gates (three AND gates each) and an AND chain. As clauses, the
// disjunction is one clause and the equality 2·w clauses of three literals
// (¬s ∨ ¬a_i ∨ b_i, ¬s ∨ a_i ∨ ¬b_i), with no auxiliary variable. The
// partial-order encoding consists mostly of such implications (read-from,
// from-read, order and clock constraints; docs/symbolic.md); the operands
// below the top-level structure are still circuit literals.
//
// Only where an assertion holds matters here: a subformula's clauses
// constrain it in the direction the assertion needs (Plaisted–Greenbaum
// rather than Tseitin), which is equisatisfiable, and every model of the
// clauses is a model of the assertion, since each clause is one of the
// assertion's conjuncts in conjunctive normal form. Values of the assertion's
// subterms in a model are read from their circuits (backend.value), which
// compute them from the inputs.

// maxDistribute bounds how many conjunctions are distributed over the
// disjunctions that contain them along one path from the root: (a ∧ b) ∨ c
// becomes (a ∨ c) ∧ (b ∨ c). Only one conjunction of a clause is
// distributed, the others become circuit literals, so the clauses of an
// assertion do not multiply ((a ∧ b) ∨ (c ∧ d) would be four); deeper
// structure becomes a circuit literal too.
const maxDistribute = 3

// item is a subformula of a clause, positive or negated.
type item struct {
	t   *solver.Term
	pos bool
}

// clauses appends to dst the clauses of the assertion t, each terminated by
// z.LitNull.
func (bl *blaster) clauses(dst []z.Lit, t *solver.Term) []z.Lit {
	return bl.clause(dst, []item{{t, true}}, nil, 0)
}

// clause appends the clauses of the disjunction of items and lits. It owns
// items and appends to lits: a caller that passes the same lits to several
// calls passes clipped slices.
func (bl *blaster) clause(dst []z.Lit, items []item, lits []z.Lit, depth int) []z.Lit {
	// Flatten the disjunction; keep one conjunction to distribute.
	var conj *item
	for len(items) > 0 {
		it := items[len(items)-1]
		items = items[:len(items)-1]
		for it.t.Op() == solver.OpNot {
			it = item{it.t.Arg(0), !it.pos}
		}
		t, pos := it.t, it.pos
		switch op := t.Op(); {
		case op == solver.OpOr && pos || op == solver.OpAnd && !pos:
			for i := 0; i < t.NumArgs(); i++ {
				items = append(items, item{t.Arg(i), pos})
			}
			continue
		case conj == nil && depth < maxDistribute && conjunctive(t, pos):
			conj = &it
			continue
		}
		m := bl.lit(t)
		if !pos {
			m = m.Not()
		}
		lits = append(lits, m)
	}
	if conj == nil {
		return bl.emit(dst, lits)
	}
	t, pos := conj.t, conj.pos
	switch op := t.Op(); {
	case op == solver.OpAnd || op == solver.OpOr:
		// One clause per conjunct, each with the rest of this clause.
		for i := 0; i < t.NumArgs(); i++ {
			dst = bl.clause(dst, []item{{t.Arg(i), pos}}, slices.Clip(lits), depth+1)
		}
		return dst
	case op == solver.OpEq && t.Arg(0).IsBool():
		// x = y: (¬x ∨ y) ∧ (x ∨ ¬y); negated, (x ∨ y) ∧ (¬x ∨ ¬y).
		x, y := t.Arg(0), t.Arg(1)
		dst = bl.clause(dst, []item{{x, false}, {y, pos}}, slices.Clip(lits), depth+1)
		return bl.clause(dst, []item{{x, true}, {y, !pos}}, lits, depth+1)
	case op == solver.OpEq:
		// a = b on bit-vectors: ¬a_i ∨ b_i and a_i ∨ ¬b_i for every bit.
		a, b := bl.bits(t.Arg(0)), bl.bits(t.Arg(1))
		for i := range a {
			if a[i] != b[i] {
				dst = bl.emit(dst, append(slices.Clip(lits), a[i].Not(), b[i]))
				dst = bl.emit(dst, append(slices.Clip(lits), a[i], b[i].Not()))
			}
		}
		return dst
	}
	// ite(s, x, y) = (¬s ∨ x) ∧ (s ∨ y); negated, (¬s ∨ ¬x) ∧ (s ∨ ¬y).
	s := t.Arg(0)
	dst = bl.clause(dst, []item{{s, false}, {t.Arg(1), pos}}, slices.Clip(lits), depth+1)
	return bl.clause(dst, []item{{s, true}, {t.Arg(2), pos}}, lits, depth+1)
}

// conjunctive reports whether t, positive or negated, is a conjunction that
// clause distributes: a ∧ b, ¬(a ∨ b), an equivalence or its negation, a
// bit-vector equality, a Boolean if-then-else. (A bit-vector disequality, a
// disjunction of XORs, stays a circuit literal.)
func conjunctive(t *solver.Term, pos bool) bool {
	switch t.Op() {
	case solver.OpAnd:
		return pos
	case solver.OpOr:
		return !pos
	case solver.OpEq:
		return pos || t.Arg(0).IsBool()
	case solver.OpIte:
		return t.IsBool()
	}
	return false
}

// emit appends one clause, simplified: false literals dropped, nothing for a
// clause with a true literal or a literal and its negation. An empty clause
// is the constant false, which CnfSince defines.
func (bl *blaster) emit(dst []z.Lit, lits []z.Lit) []z.Lit {
	c := bl.c
	start := len(dst)
	// A wide clause (a violation's disjunction over every check of every
	// step) looks its literals up in a set: the scan below is quadratic.
	wide := len(lits) > 32
	if wide {
		if bl.seen == nil {
			bl.seen = make(map[z.Lit]bool)
		}
		clear(bl.seen)
	}
	for _, m := range lits {
		switch {
		case m == c.F:
			continue
		case m == c.T:
			return dst[:start]
		case wide && bl.seen[m.Not()]:
			return dst[:start]
		case wide:
			if !bl.seen[m] {
				bl.seen[m] = true
				dst = append(dst, m)
			}
			continue
		}
		dup := false
		for _, n := range dst[start:] {
			if n == m {
				dup = true
				break
			}
			if n == m.Not() {
				return dst[:start]
			}
		}
		if !dup {
			dst = append(dst, m)
		}
	}
	if len(dst) == start {
		dst = append(dst, c.F)
	}
	return append(dst, z.LitNull)
}
