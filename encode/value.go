package encode

import (
	"cmp"
	"slices"

	"kbmc/solver"
)

// Values of the encoding: a val is either a term, or — as long as few values are
// possible — a set of guarded constants. Most of a program's values are
// determined by the schedule: loop counters, hash codes, indices, locals computed
// from constants, control locations, lock owners. Held as guarded constants they
// are computed concretely (the operators of the term language fold constants),
// an array access touches only the cells its index may name, and a comparison
// with a constant is a single guard instead of a comparator circuit. The state
// copies hold such a value as one Boolean variable per possible constant (a
// one-hot encoding) instead of a W-bit vector.
//
// A set's guards are mutually exclusive, and exactly one holds wherever the value
// is used: on the executed path of a taken step, or in a state of an execution.
// Elsewhere (a branch not taken, a step that failed) all may be false; such
// values are never observed (docs/symbolic.md).

// Limits of the guarded-constant form; larger sets fall back to terms. An
// index into an array of 128 (the thesis's indexer) stays a set.
const (
	maxSet    = 130 // constants in one set
	maxPairs  = 260 // operand pairs a binary operator computes concretely
	maxOneHot = 16  // values of a nondet range drawn as one Boolean each
)

type gconst struct {
	c uint64       // the constant's bits
	g *solver.Term // when it holds
}

// val is a value: t when set is nil, else the constant of set whose guard holds.
// w is the bit-vector width (0 for a Bool, which is always a term).
type val struct {
	t   *solver.Term
	set []gconst // sorted by c, no two equal
	w   int
}

func termVal(t *solver.Term) val { return val{t: t, w: t.Width()} }

func (u *Unrolling) constVal(c uint64, w int) val {
	return val{set: []gconst{{c & solver.Mask(w), u.b.True()}}, w: w}
}

func (v val) isBool() bool { return v.set == nil && v.t.IsBool() }

// term returns v as a term.
func (u *Unrolling) term(v val) *solver.Term {
	if v.set == nil {
		return v.t
	}
	b := u.b
	n := len(v.set)
	t := b.BV(v.set[n-1].c, v.w)
	for j := n - 2; j >= 0; j-- {
		t = b.Ite(v.set[j].g, b.BV(v.set[j].c, v.w), t)
	}
	return t
}

// is returns the proposition v = c.
func (u *Unrolling) is(v val, c uint64) *solver.Term {
	if v.set == nil {
		return u.b.Eq(v.t, u.b.BV(c, v.w))
	}
	c &= solver.Mask(v.w)
	if j, ok := slices.BinarySearchFunc(v.set, c, func(x gconst, c uint64) int { return cmp.Compare(x.c, c) }); ok {
		return v.set[j].g
	}
	return u.b.False()
}

// collect builds a set from guarded constants, or-ing the guards of equal
// constants; it reports false when there are more than maxSet.
func (u *Unrolling) collect(cs []gconst, w int) (val, bool) {
	slices.SortStableFunc(cs, func(x, y gconst) int { return cmp.Compare(x.c, y.c) })
	out := cs[:0]
	var gs []*solver.Term
	flush := func() {
		if len(gs) > 0 {
			out[len(out)-1].g = u.b.Or(gs...)
		}
	}
	for _, x := range cs {
		if x.g.IsFalse() {
			continue
		}
		if len(out) > 0 && out[len(out)-1].c == x.c {
			gs = append(gs, x.g)
			continue
		}
		flush()
		out = append(out, x)
		gs = append(gs[:0], x.g)
	}
	flush()
	if len(out) > maxSet {
		return val{}, false
	}
	if len(out) <= 1 {
		// One constant: its guard holds wherever the value is observed. None:
		// the value is never observed.
		c := uint64(0)
		if len(out) == 1 {
			c = out[0].c
		}
		return u.constVal(c, w), true
	}
	return val{set: out, w: w}, true
}

// choose is the value of the case whose condition holds; the conditions are
// mutually exclusive and one of them holds wherever the result is used.
func (u *Unrolling) choose(conds []*solver.Term, vs []val) val {
	b := u.b
	for j, c := range conds {
		if c.IsTrue() {
			return vs[j]
		}
	}
	var live []int
	for j, c := range conds {
		if !c.IsFalse() {
			live = append(live, j)
		}
	}
	switch len(live) {
	case 0:
		return vs[len(vs)-1]
	case 1:
		return vs[live[0]]
	}
	first := vs[live[0]]
	same := true
	for _, j := range live[1:] {
		if !sameVal(vs[j], first) {
			same = false
			break
		}
	}
	if same {
		return first
	}
	if !first.isBool() {
		sets := true
		n := 0
		for _, j := range live {
			sets = sets && vs[j].set != nil
			n += len(vs[j].set)
		}
		if sets && n <= 4*maxSet {
			var cs []gconst
			for _, j := range live {
				for _, x := range vs[j].set {
					cs = append(cs, gconst{x.c, b.And(conds[j], x.g)})
				}
			}
			if v, ok := u.collect(cs, first.w); ok {
				return v
			}
		}
	}
	last := live[len(live)-1]
	t := u.term(vs[last])
	for k := len(live) - 2; k >= 0; k-- {
		j := live[k]
		t = b.Ite(conds[j], u.term(vs[j]), t)
	}
	return termVal(t)
}

func sameVal(x, y val) bool {
	if x.set == nil || y.set == nil {
		return x.set == nil && y.set == nil && x.t == y.t
	}
	if len(x.set) != len(y.set) {
		return false
	}
	for j := range x.set {
		if x.set[j] != y.set[j] {
			return false
		}
	}
	return true
}

// ite is "c ? x : y".
func (u *Unrolling) ite(c *solver.Term, x, y val) val {
	return u.choose([]*solver.Term{c, u.b.Not(c)}, []val{x, y})
}

// unary applies a bit-vector operator.
func (u *Unrolling) unary(x val, op func(*solver.Term) *solver.Term) val {
	if x.set == nil {
		return termVal(op(x.t))
	}
	cs := make([]gconst, len(x.set))
	for j, a := range x.set {
		cs[j] = gconst{op(u.b.BV(a.c, x.w)).Value(), a.g}
	}
	v, _ := u.collect(cs, x.w) // never more constants than x has
	return v
}

// binary applies a bit-vector operator giving a bit-vector or a Bool; on two
// sets it is computed constant by constant while the pairs are few.
func (u *Unrolling) binary(x, y val, op func(a, c *solver.Term) *solver.Term) val {
	b := u.b
	if x.set != nil && y.set != nil && len(x.set)*len(y.set) <= maxPairs {
		var cs []gconst
		var yes, no []*solver.Term
		boolean := op(b.BV(0, x.w), b.BV(0, y.w)).IsBool()
		diagonal := sameVal(x, y) // x op x: the guards of two constants exclude each other
		for _, a := range x.set {
			for _, c := range y.set {
				if diagonal && a.c != c.c {
					continue
				}
				g := b.And(a.g, c.g)
				if g.IsFalse() {
					continue
				}
				r := op(b.BV(a.c, x.w), b.BV(c.c, y.w))
				if boolean {
					if r.IsTrue() {
						yes = append(yes, g)
					} else {
						no = append(no, g)
					}
					continue
				}
				cs = append(cs, gconst{r.Value(), g})
			}
		}
		if boolean {
			if len(no) < len(yes) {
				return termVal(b.Not(b.Or(no...)))
			}
			return termVal(b.Or(yes...))
		}
		if v, ok := u.collect(cs, x.w); ok {
			return v
		}
	}
	return termVal(op(u.term(x), u.term(y)))
}

// equal is x = y for two ints (or two Bools).
func (u *Unrolling) equal(x, y val) *solver.Term {
	b := u.b
	if x.isBool() || y.isBool() {
		return b.Iff(u.toBool(x), u.toBool(y))
	}
	if x.set != nil && y.set != nil {
		var or []*solver.Term
		j := 0
		for _, a := range x.set {
			for j < len(y.set) && y.set[j].c < a.c {
				j++
			}
			if j < len(y.set) && y.set[j].c == a.c {
				or = append(or, b.And(a.g, y.set[j].g))
			}
		}
		return b.Or(or...)
	}
	if x.set != nil && y.set == nil {
		x, y = y, x
	}
	if y.set != nil && len(y.set) <= 4 {
		// A term against a few constants: one comparison per constant.
		var or []*solver.Term
		for _, c := range y.set {
			or = append(or, b.And(c.g, u.is(x, c.c)))
		}
		return b.Or(or...)
	}
	return b.Eq(u.term(x), u.term(y))
}

// toBool is a value used as a condition: a Bool, or an int that is not 0.
func (u *Unrolling) toBool(v val) *solver.Term {
	if v.isBool() {
		return v.t
	}
	return u.b.Not(u.is(v, 0))
}

// toInt is a Bool as an int (0 or 1) of width w; ints are unchanged.
func (u *Unrolling) toInt(v val, w int) val {
	if !v.isBool() {
		return v
	}
	if v.t.IsConst() {
		return u.constVal(v.t.Value(), w)
	}
	return val{set: []gconst{{0, u.b.Not(v.t)}, {1, v.t}}, w: w}
}
