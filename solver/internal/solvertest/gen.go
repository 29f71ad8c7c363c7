package solvertest

import (
	"math/rand/v2"
	"strconv"

	"kbmc/solver"
)

// Gen builds random formulas over a few variables of one width. Its output
// depends only on its random source, so a seed reproduces a formula.
type Gen struct {
	R     *rand.Rand
	B     *solver.Builder
	Width int
	BVs   []*solver.Term
	Bools []*solver.Term
	// Hard weights multiplication, division and remainder down: at wide
	// widths a nest of them makes instances no test should wait for.
	Hard bool
}

// NewGen returns a generator with three bit-vector and two Boolean
// variables, named after the width so several generators can share a
// Builder.
func NewGen(r *rand.Rand, b *solver.Builder, width int) *Gen {
	g := &Gen{R: r, B: b, Width: width}
	for _, n := range []string{"a", "b", "c"} {
		g.BVs = append(g.BVs, b.BVVar(n+strconv.Itoa(width), width))
	}
	for _, n := range []string{"p", "q"} {
		g.Bools = append(g.Bools, b.BoolVar(n+strconv.Itoa(width)))
	}
	return g
}

// Constraint returns a conjunction of one to five random propositions of at
// most the given depth: single random propositions are nearly always
// satisfiable, conjunctions often are not, and a differential test needs
// both answers.
func (g *Gen) Constraint(depth int) *solver.Term {
	fs := make([]*solver.Term, 1+g.R.IntN(5))
	for i := range fs {
		fs[i] = g.Formula(depth)
	}
	return g.B.And(fs...)
}

// Formula returns a random proposition of at most the given depth.
func (g *Gen) Formula(depth int) *solver.Term {
	b, r := g.B, g.R
	if depth <= 0 || r.IntN(5) == 0 {
		if r.IntN(3) == 0 {
			return g.Bools[r.IntN(len(g.Bools))]
		}
		return g.compare(depth - 1)
	}
	switch r.IntN(9) {
	case 0:
		return b.Not(g.Formula(depth - 1))
	case 1:
		return b.And(g.Formula(depth-1), g.Formula(depth-1))
	case 2:
		return b.Or(g.Formula(depth-1), g.Formula(depth-1))
	case 3:
		return b.Xor(g.Formula(depth-1), g.Formula(depth-1))
	case 4:
		return b.Implies(g.Formula(depth-1), g.Formula(depth-1))
	case 5:
		return b.Ite(g.Formula(depth-1), g.Formula(depth-1), g.Formula(depth-1))
	case 6:
		return b.Iff(g.Formula(depth-1), g.Formula(depth-1))
	default:
		return g.compare(depth - 1)
	}
}

func (g *Gen) compare(depth int) *solver.Term {
	b := g.B
	x, y := g.BV(depth), g.BV(depth)
	switch g.R.IntN(7) {
	case 0:
		return b.Ult(x, y)
	case 1:
		return b.Ule(x, y)
	case 2:
		return b.Slt(x, y)
	case 3:
		return b.Sle(x, y)
	case 4:
		return b.Distinct(x, y)
	default:
		return b.Eq(x, y)
	}
}

// BV returns a random bit-vector term of the generator's width.
func (g *Gen) BV(depth int) *solver.Term {
	b, r, w := g.B, g.R, g.Width
	if depth <= 0 || r.IntN(4) == 0 {
		if r.IntN(4) == 0 {
			vals := EdgeValues(w)
			if r.IntN(2) == 0 {
				return b.BV(r.Uint64(), w)
			}
			return b.BV(vals[r.IntN(len(vals))], w)
		}
		return g.BVs[r.IntN(len(g.BVs))]
	}
	d := depth - 1
	op := r.IntN(22)
	if g.Hard && op >= 4 && op <= 8 && r.IntN(4) != 0 {
		op = r.IntN(4) // mostly replace the expensive operators by cheap ones
	}
	switch op {
	case 0:
		return b.Add(g.BV(d), g.BV(d))
	case 1:
		return b.Sub(g.BV(d), g.BV(d))
	case 2:
		return b.Neg(g.BV(d))
	case 3:
		return b.BVNot(g.BV(d))
	case 4:
		return b.Mul(g.BV(d), g.BV(d))
	case 5:
		return b.SDiv(g.BV(d), g.BV(d))
	case 6:
		return b.SRem(g.BV(d), g.BV(d))
	case 7:
		return b.UDiv(g.BV(d), g.BV(d))
	case 8:
		return b.URem(g.BV(d), g.BV(d))
	case 9:
		return b.Shl(g.BV(d), g.amount(d))
	case 10:
		return b.LShr(g.BV(d), g.amount(d))
	case 11:
		return b.AShr(g.BV(d), g.amount(d))
	case 12:
		return b.BVAnd(g.BV(d), g.BV(d))
	case 13:
		return b.BVOr(g.BV(d), g.BV(d))
	case 14:
		return b.BVXor(g.BV(d), g.BV(d))
	case 15:
		return b.Ite(g.Formula(d), g.BV(d), g.BV(d))
	case 16, 17:
		// Narrow and widen again: exercises extract and both extensions.
		x := g.BV(d)
		lo := r.IntN(w)
		hi := lo + r.IntN(w-lo)
		part := b.Extract(x, hi, lo)
		if r.IntN(2) == 0 {
			return b.ZeroExtend(part, w)
		}
		return b.SignExtend(part, w)
	case 18:
		if w == 1 {
			return g.BV(d)
		}
		split := 1 + r.IntN(w-1)
		return b.Concat(b.Extract(g.BV(d), w-1, split), b.Extract(g.BV(d), split-1, 0))
	default:
		return g.BVs[r.IntN(len(g.BVs))]
	}
}

// amount returns a shift amount: mostly small, sometimes anything.
func (g *Gen) amount(depth int) *solver.Term {
	if g.R.IntN(3) == 0 {
		return g.BV(depth)
	}
	return g.B.BV(uint64(g.R.IntN(g.Width+2)), g.Width)
}
