package gini

import (
	"fmt"

	"github.com/go-air/gini/logic"
	"github.com/go-air/gini/z"

	"kbmc/solver"
)

// blaster translates terms into an and-inverter graph. A Bool term becomes
// one literal; a bit-vector term becomes its bits, least significant first.
// The circuit's structural hashing merges equal gates, so shared structure
// (also structure the term language does not see, like the two halves of a
// division and remainder of the same operands) is built once.
type blaster struct {
	c    *logic.C
	memo [][]z.Lit // by term ID; nil until the term is blasted
	// seen: the literals of the clause emit is building, when it is wide.
	seen map[z.Lit]bool
}

func newBlaster() *blaster {
	return &blaster{c: logic.NewCCap(1 << 12)}
}

// lit returns the literal of a proposition.
func (bl *blaster) lit(t *solver.Term) z.Lit { return bl.bits(t)[0] }

// bits returns the literals of t, blasting it and its subterms on first use.
func (bl *blaster) bits(t *solver.Term) []z.Lit {
	if id := t.ID(); id < len(bl.memo) && bl.memo[id] != nil {
		return bl.memo[id]
	}
	r := bl.blast(t)
	if id := t.ID(); id >= len(bl.memo) {
		bl.memo = append(bl.memo, make([][]z.Lit, id+1-len(bl.memo))...)
	}
	bl.memo[t.ID()] = r
	return r
}

func (bl *blaster) blast(t *solver.Term) []z.Lit {
	c := bl.c
	w := t.Width()
	switch t.Op() {
	case solver.OpConst:
		if t.IsBool() {
			return []z.Lit{bl.constant(t.Value() == 1)}
		}
		r := make([]z.Lit, w)
		for i := range r {
			r[i] = bl.constant(t.Value()>>uint(i)&1 == 1)
		}
		return r
	case solver.OpVar:
		r := make([]z.Lit, max(w, 1))
		for i := range r {
			r[i] = c.Lit()
		}
		return r
	}

	args := make([][]z.Lit, t.NumArgs())
	for i := range args {
		args[i] = bl.bits(t.Arg(i))
	}
	one := func(m z.Lit) []z.Lit { return []z.Lit{m} }
	switch t.Op() {
	case solver.OpNot:
		return one(args[0][0].Not())
	case solver.OpAnd:
		return one(c.Ands(heads(args)...))
	case solver.OpOr:
		return one(c.Ors(heads(args)...))
	case solver.OpXor:
		return one(c.Xor(args[0][0], args[1][0]))
	case solver.OpIte:
		return bl.mux(args[0][0], args[1], args[2])
	case solver.OpEq:
		return one(bl.equal(args[0], args[1]))
	case solver.OpBVNot:
		return not(args[0])
	case solver.OpBVAnd:
		return bl.bitwise(args[0], args[1], c.And)
	case solver.OpBVOr:
		return bl.bitwise(args[0], args[1], c.Or)
	case solver.OpBVXor:
		return bl.bitwise(args[0], args[1], c.Xor)
	case solver.OpNeg:
		return bl.neg(args[0])
	case solver.OpAdd:
		r, _ := bl.add(args[0], args[1], c.F)
		return r
	case solver.OpSub:
		r, _ := bl.add(args[0], not(args[1]), c.T)
		return r
	case solver.OpMul:
		return bl.mul(args[0], args[1])
	case solver.OpUDiv:
		q, _ := bl.divmod(args[0], args[1])
		return q
	case solver.OpURem:
		_, r := bl.divmod(args[0], args[1])
		return r
	case solver.OpSDiv:
		q, _ := bl.sdivmod(args[0], args[1])
		return q
	case solver.OpSRem:
		_, r := bl.sdivmod(args[0], args[1])
		return r
	case solver.OpShl:
		return bl.shift(args[0], args[1], shiftLeft)
	case solver.OpLShr:
		return bl.shift(args[0], args[1], shiftRightLogical)
	case solver.OpAShr:
		return bl.shift(args[0], args[1], shiftRightArith)
	case solver.OpUlt:
		return one(bl.less(args[0], args[1], false))
	case solver.OpUle:
		return one(bl.less(args[1], args[0], false).Not())
	case solver.OpSlt:
		return one(bl.less(args[0], args[1], true))
	case solver.OpSle:
		return one(bl.less(args[1], args[0], true).Not())
	case solver.OpExtract:
		_, lo := t.ExtractRange()
		return args[0][lo : lo+w]
	case solver.OpZeroExt:
		return extend(args[0], w, c.F)
	case solver.OpSignExt:
		return extend(args[0], w, args[0][len(args[0])-1])
	case solver.OpConcat:
		r := make([]z.Lit, 0, w)
		r = append(r, args[1]...)
		return append(r, args[0]...)
	}
	panic(fmt.Sprintf("gini: cannot blast operator %s", t.Op()))
}

// heads returns the literals of Boolean operands.
func heads(args [][]z.Lit) []z.Lit {
	ms := make([]z.Lit, len(args))
	for i, a := range args {
		ms[i] = a[0]
	}
	return ms
}

func (bl *blaster) constant(v bool) z.Lit {
	if v {
		return bl.c.T
	}
	return bl.c.F
}

func not(a []z.Lit) []z.Lit {
	r := make([]z.Lit, len(a))
	for i, m := range a {
		r[i] = m.Not()
	}
	return r
}

func extend(a []z.Lit, w int, fill z.Lit) []z.Lit {
	r := make([]z.Lit, w)
	copy(r, a)
	for i := len(a); i < w; i++ {
		r[i] = fill
	}
	return r
}

// choose returns "if s then a else b" for single literals. logic.C's gates
// fold constant and repeated operands (so Xor and Choice need no special
// cases for them), but Choice(s, a, a) would build gates for a.
func (bl *blaster) choose(s, a, b z.Lit) z.Lit {
	if a == b {
		return a
	}
	return bl.c.Choice(s, a, b)
}

func (bl *blaster) mux(s z.Lit, a, b []z.Lit) []z.Lit {
	r := make([]z.Lit, len(a))
	for i := range a {
		r[i] = bl.choose(s, a[i], b[i])
	}
	return r
}

func (bl *blaster) bitwise(a, b []z.Lit, f func(z.Lit, z.Lit) z.Lit) []z.Lit {
	r := make([]z.Lit, len(a))
	for i := range a {
		r[i] = f(a[i], b[i])
	}
	return r
}

func (bl *blaster) equal(a, b []z.Lit) z.Lit {
	ms := make([]z.Lit, len(a))
	for i := range a {
		ms[i] = bl.c.Xor(a[i], b[i]).Not()
	}
	return bl.c.Ands(ms...)
}

// add is a ripple-carry adder: it returns a+b+carry and the carry out.
func (bl *blaster) add(a, b []z.Lit, carry z.Lit) ([]z.Lit, z.Lit) {
	c := bl.c
	r := make([]z.Lit, len(a))
	for i := range a {
		half := c.Xor(a[i], b[i])
		r[i] = c.Xor(half, carry)
		carry = c.Or(c.And(a[i], b[i]), c.And(half, carry))
	}
	return r, carry
}

// neg is ~a + 1, with the constant operand folded into a chain of
// half adders.
func (bl *blaster) neg(a []z.Lit) []z.Lit {
	r := make([]z.Lit, len(a))
	carry := bl.c.T
	for i, m := range a {
		r[i] = bl.c.Xor(m.Not(), carry)
		carry = bl.c.And(m.Not(), carry)
	}
	return r
}

// mul is a shift-and-add multiplier truncated to the operands' width: row i
// adds a<<i where bit i of b is set. Bits below i are unaffected by row i,
// so each row only adds into the bits above it.
func (bl *blaster) mul(a, b []z.Lit) []z.Lit {
	w := len(a)
	acc := make([]z.Lit, w)
	for i := range acc {
		acc[i] = bl.c.F
	}
	for i := 0; i < w; i++ {
		if b[i] == bl.c.F {
			continue
		}
		row := make([]z.Lit, w-i)
		for j := range row {
			row[j] = bl.c.And(a[j], b[i])
		}
		sum, _ := bl.add(acc[i:], row, bl.c.F)
		copy(acc[i:], sum)
	}
	return acc
}

// divmod is a restoring divider for unsigned operands. Each step shifts the
// next dividend bit into the partial remainder and subtracts the divisor if
// it fits; the remainder needs one extra bit during the comparison. With a
// zero divisor every subtraction fits, which yields the all-ones quotient
// and the dividend as remainder, SMT-LIB's convention, with no special case.
func (bl *blaster) divmod(a, b []z.Lit) (q, r []z.Lit) {
	w := len(a)
	c := bl.c
	q = make([]z.Lit, w)
	r = make([]z.Lit, w)
	for i := range r {
		r[i] = c.F
	}
	nb := not(extend(b, w+1, c.F))
	for i := w - 1; i >= 0; i-- {
		shifted := make([]z.Lit, w+1)
		shifted[0] = a[i]
		copy(shifted[1:], r)
		diff, fits := bl.add(shifted, nb, c.T) // carry out: shifted >= b
		q[i] = fits
		r = bl.mux(fits, diff[:w], shifted[:w])
	}
	return q, r
}

// sdivmod divides the magnitudes and fixes the signs: the quotient is
// negative when the operands' signs differ, the remainder takes the sign of
// the dividend. This is SMT-LIB's definition of bvsdiv and bvsrem, which is
// C's truncating division for non-zero divisors.
func (bl *blaster) sdivmod(a, b []z.Lit) (q, r []z.Lit) {
	w := len(a)
	sa, sb := a[w-1], b[w-1]
	ua := bl.mux(sa, bl.neg(a), a)
	ub := bl.mux(sb, bl.neg(b), b)
	uq, ur := bl.divmod(ua, ub)
	q = bl.mux(bl.c.Xor(sa, sb), bl.neg(uq), uq)
	r = bl.mux(sa, bl.neg(ur), ur)
	return q, r
}

type shiftKind int

const (
	shiftLeft shiftKind = iota
	shiftRightLogical
	shiftRightArith
)

// shift is a barrel shifter: stage j shifts by 2^j when bit j of the amount
// is set. Amount bits worth w or more force the result to the fill (zeros,
// or the sign for an arithmetic shift), as do stages that together shift by
// w or more, since every stage shifts fill bits in.
func (bl *blaster) shift(a, n []z.Lit, kind shiftKind) []z.Lit {
	c := bl.c
	w := len(a)
	fill := c.F
	if kind == shiftRightArith {
		fill = a[w-1]
	}
	r := a
	j := 0
	for ; j < w && 1<<uint(j) < w; j++ {
		d := 1 << uint(j)
		shifted := make([]z.Lit, w)
		for i := range shifted {
			src := i + d
			if kind == shiftLeft {
				src = i - d
			}
			if src >= 0 && src < w {
				shifted[i] = r[src]
			} else {
				shifted[i] = fill
			}
		}
		r = bl.mux(n[j], shifted, r)
	}
	over := c.Ors(n[j:]...)
	fills := make([]z.Lit, w)
	for i := range fills {
		fills[i] = fill
	}
	return bl.mux(over, fills, r)
}

// less returns a < b, unsigned or signed. It scans from the least
// significant bit: a < b on bits 0..i when bit i decides it or bits i are
// equal and bits below decide it. In two's complement the sign bit decides
// the other way round.
func (bl *blaster) less(a, b []z.Lit, signed bool) z.Lit {
	c := bl.c
	lt := c.F
	for i := range a {
		x, y := a[i], b[i]
		if signed && i == len(a)-1 {
			x, y = y, x
		}
		lt = c.Or(c.And(x.Not(), y), c.And(c.Xor(x, y).Not(), lt))
	}
	return lt
}
