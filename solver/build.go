package solver

import (
	"fmt"
	"slices"
)

// True returns the Boolean constant true.
func (b *Builder) True() *Term { return b.t }

// False returns the Boolean constant false.
func (b *Builder) False() *Term { return b.f }

// Bool returns the Boolean constant v.
func (b *Builder) Bool(v bool) *Term {
	if v {
		return b.t
	}
	return b.f
}

// BV returns the bit-vector constant of the given width whose bits are the
// low width bits of v; a negative number converted with uint64(int64(x))
// gives its two's-complement pattern.
func (b *Builder) BV(v uint64, width int) *Term {
	checkWidth(width)
	return b.intern(OpConst, BVSort(width), v&Mask(width), "", nil)
}

// BoolVar returns the Boolean variable with the given name. Asking twice for
// a name gives the same term; a name already used for a bit-vector variable
// panics.
func (b *Builder) BoolVar(name string) *Term {
	return b.variable(name, BoolSort)
}

// BVVar returns the bit-vector variable with the given name and width.
// Asking twice for a name gives the same term; a name already used with
// another sort panics.
func (b *Builder) BVVar(name string, width int) *Term {
	return b.variable(name, BVSort(width))
}

func (b *Builder) variable(name string, sort Sort) *Term {
	if v, ok := b.vars[name]; ok {
		if v.sort != sort {
			panic(fmt.Sprintf("solver: variable %q declared as %s and as %s", name, v.sort, sort))
		}
		return v
	}
	v := b.intern(OpVar, sort, 0, name, nil)
	b.vars[name] = v
	return v
}

// fold builds the constant value of op over constant operands, or returns nil
// if some operand is not constant.
func (b *Builder) fold(op Op, sort Sort, param uint64, args ...*Term) *Term {
	var buf [3]uint64
	v := buf[:0]
	for _, a := range args {
		if a.op != OpConst {
			return nil
		}
		v = append(v, a.val)
	}
	return b.constant(sort, apply(op, sort, param, args, v))
}

func (b *Builder) constant(sort Sort, v uint64) *Term {
	if sort.IsBool() {
		return b.Bool(v != 0)
	}
	return b.intern(OpConst, sort, v&Mask(sort.Width()), "", nil)
}

// ordered returns x and y sorted by ID: commutative operators keep their
// operands in this order, so x+y and y+x are one term.
func ordered(x, y *Term) (*Term, *Term) {
	if y.id < x.id {
		return y, x
	}
	return x, y
}

// isComplement reports whether x is not y or y is not x.
func isComplement(x, y *Term) bool {
	return (x.op == OpNot && x.args[0] == y) || (y.op == OpNot && y.args[0] == x)
}

func isZero(t *Term) bool { return t.op == OpConst && t.val == 0 }
func isOne(t *Term) bool  { return t.op == OpConst && t.val == 1 }
func isOnes(t *Term) bool { return t.op == OpConst && t.val == Mask(t.Width()) }

// Not returns the negation of the proposition x.
func (b *Builder) Not(x *Term) *Term {
	b.wantBool("not", x)
	if c := b.fold(OpNot, BoolSort, 0, x); c != nil {
		return c
	}
	if x.op == OpNot {
		return x.args[0]
	}
	return b.intern(OpNot, BoolSort, 0, "", []*Term{x})
}

// And returns the conjunction of xs; And() is true.
func (b *Builder) And(xs ...*Term) *Term { return b.junction(OpAnd, xs) }

// Or returns the disjunction of xs; Or() is false.
func (b *Builder) Or(xs ...*Term) *Term { return b.junction(OpOr, xs) }

// junction builds a conjunction (op OpAnd) or disjunction (OpOr): nested
// junctions of the same kind are flattened, the neutral constant dropped,
// duplicates removed, and complementary operands or the absorbing constant
// collapse the whole term.
func (b *Builder) junction(op Op, xs []*Term) *Term {
	b.wantBool(op.String(), xs...)
	unit, zero := b.t, b.f // neutral and absorbing elements
	if op == OpOr {
		unit, zero = b.f, b.t
	}
	var flat []*Term
	for _, x := range xs {
		switch {
		case x == unit:
		case x == zero:
			return zero
		case x.op == op:
			flat = append(flat, x.args...)
		default:
			flat = append(flat, x)
		}
	}
	slices.SortFunc(flat, func(x, y *Term) int { return x.id - y.id })
	flat = slices.Compact(flat)
	// After sorting by ID, x and (not x) are not necessarily adjacent.
	if hasComplement(flat) {
		return zero
	}
	switch len(flat) {
	case 0:
		return unit
	case 1:
		return flat[0]
	}
	return b.intern(op, BoolSort, 0, "", flat)
}

// hasComplement reports whether xs holds some x and its negation.
func hasComplement(xs []*Term) bool {
	if len(xs) <= 16 {
		for _, x := range xs {
			if x.op != OpNot {
				continue
			}
			for _, y := range xs {
				if y == x.args[0] {
					return true
				}
			}
		}
		return false
	}
	in := make(map[*Term]bool, len(xs))
	for _, x := range xs {
		in[x] = true
	}
	for _, x := range xs {
		if x.op == OpNot && in[x.args[0]] {
			return true
		}
	}
	return false
}

// Xor returns the exclusive or of the propositions x and y.
func (b *Builder) Xor(x, y *Term) *Term {
	b.wantBool("xor", x, y)
	if c := b.fold(OpXor, BoolSort, 0, x, y); c != nil {
		return c
	}
	switch {
	case x == b.f:
		return y
	case y == b.f:
		return x
	case x == b.t:
		return b.Not(y)
	case y == b.t:
		return b.Not(x)
	case x == y:
		return b.f
	case isComplement(x, y):
		return b.t
	}
	x, y = ordered(x, y)
	return b.intern(OpXor, BoolSort, 0, "", []*Term{x, y})
}

// Implies returns x → y, built as (not x) or y.
func (b *Builder) Implies(x, y *Term) *Term {
	b.wantBool("=>", x, y)
	return b.Or(b.Not(x), y)
}

// Iff returns x ↔ y; it is Eq on propositions.
func (b *Builder) Iff(x, y *Term) *Term {
	b.wantBool("iff", x, y)
	return b.Eq(x, y)
}

// Ite returns "if c then x else y"; x and y must have the same sort.
func (b *Builder) Ite(c, x, y *Term) *Term {
	b.wantBool("ite", c)
	b.own(x, y)
	if x.sort != y.sort {
		panic(fmt.Sprintf("solver: ite: branches of sorts %s and %s", x.sort, y.sort))
	}
	switch {
	case c == b.t:
		return x
	case c == b.f:
		return y
	case x == y:
		return x
	case c.op == OpNot:
		return b.Ite(c.args[0], y, x)
	}
	if x.IsBool() {
		switch {
		case x == b.t && y == b.f:
			return c
		case x == b.f && y == b.t:
			return b.Not(c)
		case x == b.t:
			return b.Or(c, y)
		case x == b.f:
			return b.And(b.Not(c), y)
		case y == b.t:
			return b.Or(b.Not(c), x)
		case y == b.f:
			return b.And(c, x)
		}
	}
	return b.intern(OpIte, x.sort, 0, "", []*Term{c, x, y})
}

// Eq returns x = y for two propositions or two bit-vectors of one width.
func (b *Builder) Eq(x, y *Term) *Term {
	b.own(x, y)
	if x.sort != y.sort {
		panic(fmt.Sprintf("solver: =: operands of sorts %s and %s", x.sort, y.sort))
	}
	if c := b.fold(OpEq, BoolSort, 0, x, y); c != nil {
		return c
	}
	if x == y {
		return b.t
	}
	if x.IsBool() {
		switch {
		case x == b.t:
			return y
		case y == b.t:
			return x
		case x == b.f:
			return b.Not(y)
		case y == b.f:
			return b.Not(x)
		case isComplement(x, y):
			return b.f
		}
	}
	x, y = ordered(x, y)
	return b.intern(OpEq, BoolSort, 0, "", []*Term{x, y})
}

// Distinct returns the negation of x = y.
func (b *Builder) Distinct(x, y *Term) *Term { return b.Not(b.Eq(x, y)) }

// bvBinary builds a binary bit-vector operator with a bit-vector result,
// after constant folding; commutative operators order their operands.
func (b *Builder) bvBinary(op Op, x, y *Term, commutative bool) *Term {
	w := b.wantBV(op.String(), x, y)
	s := BVSort(w)
	if c := b.fold(op, s, 0, x, y); c != nil {
		return c
	}
	if commutative {
		x, y = ordered(x, y)
	}
	return b.intern(op, s, 0, "", []*Term{x, y})
}

// BVNot returns the bitwise complement of x.
func (b *Builder) BVNot(x *Term) *Term {
	w := b.wantBV("bvnot", x)
	if c := b.fold(OpBVNot, BVSort(w), 0, x); c != nil {
		return c
	}
	if x.op == OpBVNot {
		return x.args[0]
	}
	return b.intern(OpBVNot, BVSort(w), 0, "", []*Term{x})
}

// BVAnd returns the bitwise and of x and y.
func (b *Builder) BVAnd(x, y *Term) *Term {
	b.wantBV("bvand", x, y)
	switch {
	case isZero(x) || isOnes(y) || x == y:
		return x
	case isZero(y) || isOnes(x):
		return y
	}
	return b.bvBinary(OpBVAnd, x, y, true)
}

// BVOr returns the bitwise or of x and y.
func (b *Builder) BVOr(x, y *Term) *Term {
	b.wantBV("bvor", x, y)
	switch {
	case isOnes(x) || isZero(y) || x == y:
		return x
	case isOnes(y) || isZero(x):
		return y
	}
	return b.bvBinary(OpBVOr, x, y, true)
}

// BVXor returns the bitwise exclusive or of x and y.
func (b *Builder) BVXor(x, y *Term) *Term {
	w := b.wantBV("bvxor", x, y)
	switch {
	case isZero(x):
		return y
	case isZero(y):
		return x
	case x == y:
		return b.BV(0, w)
	}
	return b.bvBinary(OpBVXor, x, y, true)
}

// Neg returns the two's-complement negation of x.
func (b *Builder) Neg(x *Term) *Term {
	w := b.wantBV("bvneg", x)
	if c := b.fold(OpNeg, BVSort(w), 0, x); c != nil {
		return c
	}
	if x.op == OpNeg {
		return x.args[0]
	}
	return b.intern(OpNeg, BVSort(w), 0, "", []*Term{x})
}

// Add returns x + y modulo 2^width.
func (b *Builder) Add(x, y *Term) *Term {
	b.wantBV("bvadd", x, y)
	switch {
	case isZero(x):
		return y
	case isZero(y):
		return x
	}
	return b.bvBinary(OpAdd, x, y, true)
}

// Sub returns x - y modulo 2^width.
func (b *Builder) Sub(x, y *Term) *Term {
	w := b.wantBV("bvsub", x, y)
	switch {
	case isZero(y):
		return x
	case x == y:
		return b.BV(0, w)
	case isZero(x):
		return b.Neg(y)
	}
	return b.bvBinary(OpSub, x, y, false)
}

// Mul returns x * y modulo 2^width.
func (b *Builder) Mul(x, y *Term) *Term {
	b.wantBV("bvmul", x, y)
	switch {
	case isZero(x) || isOne(y):
		return x
	case isZero(y) || isOne(x):
		return y
	}
	return b.bvBinary(OpMul, x, y, true)
}

// UDiv returns the unsigned quotient x / y; x / 0 is all ones.
func (b *Builder) UDiv(x, y *Term) *Term {
	b.wantBV("bvudiv", x, y)
	if isOne(y) {
		return x
	}
	return b.bvBinary(OpUDiv, x, y, false)
}

// URem returns the unsigned remainder x % y; x % 0 is x.
func (b *Builder) URem(x, y *Term) *Term {
	w := b.wantBV("bvurem", x, y)
	switch {
	case isOne(y):
		return b.BV(0, w)
	case isZero(y):
		return x
	}
	return b.bvBinary(OpURem, x, y, false)
}

// SDiv returns the signed quotient x / y, truncated toward zero as in C;
// MIN / -1 is MIN, and x / 0 is -1 for x >= 0 and 1 for x < 0 (SMT-LIB's
// bvsdiv).
func (b *Builder) SDiv(x, y *Term) *Term {
	b.wantBV("bvsdiv", x, y)
	if isOne(y) {
		return x
	}
	return b.bvBinary(OpSDiv, x, y, false)
}

// SRem returns the signed remainder of x / y, with the sign of x as in C;
// MIN % -1 is 0 and x % 0 is x (SMT-LIB's bvsrem).
func (b *Builder) SRem(x, y *Term) *Term {
	w := b.wantBV("bvsrem", x, y)
	switch {
	case isOne(y) || isOnes(y):
		return b.BV(0, w)
	case isZero(y):
		return x
	}
	return b.bvBinary(OpSRem, x, y, false)
}

// shift builds a shift; the amount is an unsigned bit-vector of x's width.
func (b *Builder) shift(op Op, x, n *Term) *Term {
	w := b.wantBV(op.String(), x, n)
	switch {
	case isZero(n):
		return x
	case isZero(x):
		return x
	case op == OpAShr && isOnes(x):
		return x
	case op != OpAShr && n.op == OpConst && n.val >= uint64(w):
		return b.BV(0, w)
	}
	return b.bvBinary(op, x, n, false)
}

// Shl returns x shifted left by n bits; n >= width gives 0.
func (b *Builder) Shl(x, n *Term) *Term { return b.shift(OpShl, x, n) }

// LShr returns x shifted right by n bits, filling with zeros; n >= width
// gives 0.
func (b *Builder) LShr(x, n *Term) *Term { return b.shift(OpLShr, x, n) }

// AShr returns x shifted right by n bits, filling with copies of the sign
// bit; n >= width gives 0 or -1 by the sign of x.
func (b *Builder) AShr(x, n *Term) *Term { return b.shift(OpAShr, x, n) }

// compare builds a comparison after folding, x op x, and the bounds of the
// unsigned order.
func (b *Builder) compare(op Op, x, y *Term) *Term {
	b.wantBV(op.String(), x, y)
	if c := b.fold(op, BoolSort, 0, x, y); c != nil {
		return c
	}
	if x == y {
		return b.Bool(op == OpUle || op == OpSle)
	}
	switch op {
	case OpUlt:
		if isZero(y) || isOnes(x) {
			return b.f
		}
	case OpUle:
		if isZero(x) || isOnes(y) {
			return b.t
		}
	}
	return b.intern(op, BoolSort, 0, "", []*Term{x, y})
}

// Ult returns x < y, unsigned.
func (b *Builder) Ult(x, y *Term) *Term { return b.compare(OpUlt, x, y) }

// Ule returns x <= y, unsigned.
func (b *Builder) Ule(x, y *Term) *Term { return b.compare(OpUle, x, y) }

// Ugt returns x > y, unsigned.
func (b *Builder) Ugt(x, y *Term) *Term { return b.compare(OpUlt, y, x) }

// Uge returns x >= y, unsigned.
func (b *Builder) Uge(x, y *Term) *Term { return b.compare(OpUle, y, x) }

// Slt returns x < y, signed.
func (b *Builder) Slt(x, y *Term) *Term { return b.compare(OpSlt, x, y) }

// Sle returns x <= y, signed.
func (b *Builder) Sle(x, y *Term) *Term { return b.compare(OpSle, x, y) }

// Sgt returns x > y, signed.
func (b *Builder) Sgt(x, y *Term) *Term { return b.compare(OpSlt, y, x) }

// Sge returns x >= y, signed.
func (b *Builder) Sge(x, y *Term) *Term { return b.compare(OpSle, y, x) }

// Extract returns bits hi..lo of x (hi >= lo, both inclusive, bit 0 the
// least significant) as a bit-vector of width hi-lo+1.
func (b *Builder) Extract(x *Term, hi, lo int) *Term {
	w := b.wantBV("extract", x)
	if lo < 0 || hi < lo || hi >= w {
		panic(fmt.Sprintf("solver: extract %d..%d of a %d-bit operand", hi, lo, w))
	}
	if lo == 0 && hi == w-1 {
		return x
	}
	s := BVSort(hi - lo + 1)
	if c := b.fold(OpExtract, s, uint64(lo), x); c != nil {
		return c
	}
	switch x.op {
	case OpExtract:
		_, lo0 := x.ExtractRange()
		return b.Extract(x.args[0], hi+lo0, lo+lo0)
	case OpZeroExt, OpSignExt, OpConcat:
		// Extracting only the bits of the low operand of an extension or
		// concatenation needs no extension.
		inner := x.args[len(x.args)-1]
		if hi < inner.Width() {
			return b.Extract(inner, hi, lo)
		}
	}
	return b.intern(OpExtract, s, uint64(lo), "", []*Term{x})
}

// ZeroExtend returns x widened to width bits with zeros (width >= x's width).
func (b *Builder) ZeroExtend(x *Term, width int) *Term {
	return b.extend(OpZeroExt, x, width)
}

// SignExtend returns x widened to width bits with copies of its sign bit
// (width >= x's width).
func (b *Builder) SignExtend(x *Term, width int) *Term {
	return b.extend(OpSignExt, x, width)
}

func (b *Builder) extend(op Op, x *Term, width int) *Term {
	w := b.wantBV(op.String(), x)
	checkWidth(width)
	if width < w {
		panic(fmt.Sprintf("solver: %s of a %d-bit operand to %d bits", op, w, width))
	}
	if width == w {
		return x
	}
	s := BVSort(width)
	if c := b.fold(op, s, 0, x); c != nil {
		return c
	}
	return b.intern(op, s, 0, "", []*Term{x})
}

// Concat returns the bit-vector whose high bits are hi and low bits lo; the
// total width must not exceed 64.
func (b *Builder) Concat(hi, lo *Term) *Term {
	b.own(hi, lo)
	if hi.IsBool() || lo.IsBool() {
		panic("solver: concat: Bool operand, want bit-vectors")
	}
	w := hi.Width() + lo.Width()
	if w > MaxWidth {
		panic(fmt.Sprintf("solver: concat: result width %d exceeds %d", w, MaxWidth))
	}
	s := BVSort(w)
	if c := b.fold(OpConcat, s, 0, hi, lo); c != nil {
		return c
	}
	return b.intern(OpConcat, s, 0, "", []*Term{hi, lo})
}
