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
// becomes (a ∨ c) ∧ (b ∨ c), which on a term shared as a DAG could otherwise
// grow exponentially. Deeper structure becomes a circuit literal.
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
// items, which it changes in place, and appends to lits: a caller that
// passes the same ones to several calls passes copies, or clipped slices
// for lits.
func (bl *blaster) clause(dst []z.Lit, items []item, lits []z.Lit, depth int) []z.Lit {
	for len(items) > 0 {
		it := items[len(items)-1]
		items = items[:len(items)-1]
		t, pos := it.t, it.pos
		for t.Op() == solver.OpNot {
			t, pos = t.Arg(0), !pos
		}
		switch op := t.Op(); {
		case op == solver.OpOr && pos || op == solver.OpAnd && !pos:
			for i := 0; i < t.NumArgs(); i++ {
				items = append(items, item{t.Arg(i), pos})
			}
			continue
		case depth < maxDistribute && (op == solver.OpAnd && pos || op == solver.OpOr && !pos):
			// One clause per conjunct; the rest of this clause is in each.
			for i := 0; i < t.NumArgs(); i++ {
				dst = bl.clause(dst, append(slices.Clip(items), item{t.Arg(i), pos}), slices.Clip(lits), depth+1)
			}
			return dst
		case depth < maxDistribute && op == solver.OpEq && t.Arg(0).IsBool():
			// x = y: (¬x ∨ y) ∧ (x ∨ ¬y); negated, (x ∨ y) ∧ (¬x ∨ ¬y).
			x, y := t.Arg(0), t.Arg(1)
			dst = bl.clause(dst, append(slices.Clip(items), item{x, false}, item{y, pos}), slices.Clip(lits), depth+1)
			return bl.clause(dst, append(items, item{x, true}, item{y, !pos}), lits, depth+1)
		case depth < maxDistribute && op == solver.OpEq && pos:
			// a = b on bit-vectors: ¬a_i ∨ b_i and a_i ∨ ¬b_i for every bit.
			// (a ≠ b, a disjunction of XORs, stays a circuit literal.)
			a, b := bl.bits(t.Arg(0)), bl.bits(t.Arg(1))
			for i := range a {
				if a[i] == b[i] {
					continue
				}
				dst = bl.clause(dst, slices.Clone(items), append(slices.Clip(lits), a[i].Not(), b[i]), depth+1)
				dst = bl.clause(dst, slices.Clone(items), append(slices.Clip(lits), a[i], b[i].Not()), depth+1)
			}
			return dst
		case depth < maxDistribute && op == solver.OpIte && t.IsBool():
			// ite(s, x, y) = (¬s ∨ x) ∧ (s ∨ y); negated, (¬s ∨ ¬x) ∧ (s ∨ ¬y).
			s := t.Arg(0)
			dst = bl.clause(dst, append(slices.Clip(items), item{s, false}, item{t.Arg(1), pos}), slices.Clip(lits), depth+1)
			return bl.clause(dst, append(items, item{s, true}, item{t.Arg(2), pos}), lits, depth+1)
		}
		m := bl.lit(t)
		if !pos {
			m = m.Not()
		}
		lits = append(lits, m)
	}
	return bl.emit(dst, lits)
}

// emit appends one clause, simplified: false literals dropped, nothing for a
// clause with a true literal or a literal and its negation. An empty clause
// is the constant false, which CnfSince defines.
func (bl *blaster) emit(dst []z.Lit, lits []z.Lit) []z.Lit {
	c := bl.c
	start := len(dst)
	for _, m := range lits {
		switch {
		case m == c.F:
			continue
		case m == c.T:
			return dst[:start]
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
