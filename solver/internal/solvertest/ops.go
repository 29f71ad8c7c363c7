package solvertest

import (
	"math/big"
	"slices"

	"kbmc/solver"
)

// Widths are the bit-vector widths every operator is tested at.
var Widths = []int{1, 2, 3, 8, 13, 16, 32, 63, 64}

// EdgeValues returns the interesting values of width w: 0, 1, 2, -1, -2,
// the extreme signed values and their neighbours, and the shift amounts
// w-1, w and w+1, without duplicates.
func EdgeValues(w int) []uint64 {
	m := solver.Mask(w)
	minInt := uint64(1) << uint(w-1)
	vs := []uint64{0, 1, 2, 3, m, m - 1, minInt, minInt + 1, minInt - 1,
		uint64(w - 1), uint64(w), uint64(w + 1), 0x5555555555555555, 0xa3c5f00f1234abcd}
	for i := range vs {
		vs[i] &= m
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}

// BackendEdgeValues is a smaller set of edge values for the backends, whose
// checks cost far more than an evaluation: 0, 1, 2, -1, the extreme signed
// values, the shift amounts w-1 and w, and an irregular bit pattern.
func BackendEdgeValues(w int) []uint64 {
	m := solver.Mask(w)
	minInt := uint64(1) << uint(w-1)
	vs := []uint64{0, 1, 2, m, minInt, minInt - 1, uint64(w - 1), uint64(w), 0xa3c5f00f1234abcd}
	for i := range vs {
		vs[i] &= m
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}

// OpCase is one operator under test: how to build it from operands and
// what it must compute, defined independently of package solver with
// math/big so the tests do not check the code against itself.
type OpCase struct {
	Name  string
	Arity int
	// Bool is true when the operator's result is a proposition.
	Bool bool
	// Build applies the operator to bit-vector operands of width w.
	Build func(b *solver.Builder, w int, x ...*solver.Term) *solver.Term
	// Ref gives the expected value (0 or 1 for propositions) for operand
	// values of width w.
	Ref func(w int, v ...uint64) uint64
}

// Ops lists the bit-vector operators and comparisons of the term language,
// and the parameterised ones (extract, extension, concatenation) at fixed
// parameters chosen from the width.
var Ops = []OpCase{
	{"bvnot", 1, false, un((*solver.Builder).BVNot), func(w int, v ...uint64) uint64 { return wrap(w, new(big.Int).Not(sgn(w, v[0]))) }},
	{"bvneg", 1, false, un((*solver.Builder).Neg), func(w int, v ...uint64) uint64 { return wrap(w, new(big.Int).Neg(sgn(w, v[0]))) }},
	{"bvadd", 2, false, bin((*solver.Builder).Add), func(w int, v ...uint64) uint64 { return wrap(w, new(big.Int).Add(uns(v[0]), uns(v[1]))) }},
	{"bvsub", 2, false, bin((*solver.Builder).Sub), func(w int, v ...uint64) uint64 { return wrap(w, new(big.Int).Sub(uns(v[0]), uns(v[1]))) }},
	{"bvmul", 2, false, bin((*solver.Builder).Mul), func(w int, v ...uint64) uint64 { return wrap(w, new(big.Int).Mul(uns(v[0]), uns(v[1]))) }},
	{"bvudiv", 2, false, bin((*solver.Builder).UDiv), refUDiv},
	{"bvurem", 2, false, bin((*solver.Builder).URem), refURem},
	{"bvsdiv", 2, false, bin((*solver.Builder).SDiv), refSDiv},
	{"bvsrem", 2, false, bin((*solver.Builder).SRem), refSRem},
	{"bvshl", 2, false, bin((*solver.Builder).Shl), refShl},
	{"bvlshr", 2, false, bin((*solver.Builder).LShr), refLShr},
	{"bvashr", 2, false, bin((*solver.Builder).AShr), refAShr},
	{"bvand", 2, false, bin((*solver.Builder).BVAnd), func(w int, v ...uint64) uint64 { return wrap(w, new(big.Int).And(uns(v[0]), uns(v[1]))) }},
	{"bvor", 2, false, bin((*solver.Builder).BVOr), func(w int, v ...uint64) uint64 { return wrap(w, new(big.Int).Or(uns(v[0]), uns(v[1]))) }},
	{"bvxor", 2, false, bin((*solver.Builder).BVXor), func(w int, v ...uint64) uint64 { return wrap(w, new(big.Int).Xor(uns(v[0]), uns(v[1]))) }},
	{"=", 2, true, bin((*solver.Builder).Eq), func(w int, v ...uint64) uint64 { return cmp(uns(v[0]).Cmp(uns(v[1])) == 0) }},
	{"bvult", 2, true, bin((*solver.Builder).Ult), func(w int, v ...uint64) uint64 { return cmp(uns(v[0]).Cmp(uns(v[1])) < 0) }},
	{"bvule", 2, true, bin((*solver.Builder).Ule), func(w int, v ...uint64) uint64 { return cmp(uns(v[0]).Cmp(uns(v[1])) <= 0) }},
	{"bvugt", 2, true, bin((*solver.Builder).Ugt), func(w int, v ...uint64) uint64 { return cmp(uns(v[0]).Cmp(uns(v[1])) > 0) }},
	{"bvuge", 2, true, bin((*solver.Builder).Uge), func(w int, v ...uint64) uint64 { return cmp(uns(v[0]).Cmp(uns(v[1])) >= 0) }},
	{"bvslt", 2, true, bin((*solver.Builder).Slt), func(w int, v ...uint64) uint64 { return cmp(sgn(w, v[0]).Cmp(sgn(w, v[1])) < 0) }},
	{"bvsle", 2, true, bin((*solver.Builder).Sle), func(w int, v ...uint64) uint64 { return cmp(sgn(w, v[0]).Cmp(sgn(w, v[1])) <= 0) }},
	{"bvsgt", 2, true, bin((*solver.Builder).Sgt), func(w int, v ...uint64) uint64 { return cmp(sgn(w, v[0]).Cmp(sgn(w, v[1])) > 0) }},
	{"bvsge", 2, true, bin((*solver.Builder).Sge), func(w int, v ...uint64) uint64 { return cmp(sgn(w, v[0]).Cmp(sgn(w, v[1])) >= 0) }},
	{"ite", 2, false,
		// ite(x <u y, x, y) is the unsigned minimum.
		func(b *solver.Builder, w int, x ...*solver.Term) *solver.Term {
			return b.Ite(b.Ult(x[0], x[1]), x[0], x[1])
		},
		func(w int, v ...uint64) uint64 { return min(v[0], v[1]) }},
	{"extract-high", 1, false,
		func(b *solver.Builder, w int, x ...*solver.Term) *solver.Term { return b.Extract(x[0], w-1, w/2) },
		func(w int, v ...uint64) uint64 {
			return wrap(w-w/2, new(big.Int).Rsh(uns(v[0]), uint(w/2)))
		}},
	{"extract-mid", 1, false,
		func(b *solver.Builder, w int, x ...*solver.Term) *solver.Term { return b.Extract(x[0], (w-1)*2/3, w/3) },
		func(w int, v ...uint64) uint64 {
			return wrap((w-1)*2/3-w/3+1, new(big.Int).Rsh(uns(v[0]), uint(w/3)))
		}},
	{"zero_extend", 1, false,
		func(b *solver.Builder, w int, x ...*solver.Term) *solver.Term {
			return b.Extract(b.ZeroExtend(x[0], min(w+7, 64)), min(w+7, 64)-1, 1)
		},
		func(w int, v ...uint64) uint64 { return wrap(min(w+7, 64)-1, new(big.Int).Rsh(uns(v[0]), 1)) }},
	{"sign_extend", 1, false,
		func(b *solver.Builder, w int, x ...*solver.Term) *solver.Term {
			return b.Extract(b.SignExtend(x[0], min(w+7, 64)), min(w+7, 64)-1, 1)
		},
		func(w int, v ...uint64) uint64 { return wrap(min(w+7, 64)-1, new(big.Int).Rsh(sgn(w, v[0]), 1)) }},
	{"sign_extend-64", 1, false,
		func(b *solver.Builder, w int, x ...*solver.Term) *solver.Term { return b.SignExtend(x[0], 64) },
		func(w int, v ...uint64) uint64 { return wrap(64, sgn(w, v[0])) }},
	{"concat", 2, false,
		// The high half of x above the low half of y.
		func(b *solver.Builder, w int, x ...*solver.Term) *solver.Term {
			if w == 1 {
				return b.Concat(x[0], x[1])
			}
			return b.Concat(b.Extract(x[0], w-1, w/2), b.Extract(x[1], w/2-1, 0))
		},
		func(w int, v ...uint64) uint64 {
			if w == 1 {
				return v[0]<<1 | v[1]
			}
			hi := new(big.Int).Lsh(new(big.Int).Rsh(uns(v[0]), uint(w/2)), uint(w/2))
			return wrap(w, new(big.Int).Or(hi, new(big.Int).And(uns(v[1]), big.NewInt(int64(1)<<uint(w/2)-1))))
		}},
}

func un(f func(*solver.Builder, *solver.Term) *solver.Term) func(*solver.Builder, int, ...*solver.Term) *solver.Term {
	return func(b *solver.Builder, _ int, x ...*solver.Term) *solver.Term { return f(b, x[0]) }
}

func bin(f func(*solver.Builder, *solver.Term, *solver.Term) *solver.Term) func(*solver.Builder, int, ...*solver.Term) *solver.Term {
	return func(b *solver.Builder, _ int, x ...*solver.Term) *solver.Term { return f(b, x[0], x[1]) }
}

func uns(v uint64) *big.Int { return new(big.Int).SetUint64(v) }

// sgn reads the low w bits of v as a two's-complement number.
func sgn(w int, v uint64) *big.Int {
	x := uns(v)
	if v>>uint(w-1)&1 == 1 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(w)))
	}
	return x
}

// wrap reduces x modulo 2^w.
func wrap(w int, x *big.Int) uint64 {
	mod := new(big.Int).Lsh(big.NewInt(1), uint(w))
	r := new(big.Int).Mod(x, mod) // Euclidean: never negative
	return r.Uint64()
}

func cmp(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func ones(w int) *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(w)), big.NewInt(1))
}

func refUDiv(w int, v ...uint64) uint64 {
	if v[1] == 0 {
		return wrap(w, ones(w))
	}
	return wrap(w, new(big.Int).Quo(uns(v[0]), uns(v[1])))
}

func refURem(w int, v ...uint64) uint64 {
	if v[1] == 0 {
		return v[0]
	}
	return wrap(w, new(big.Int).Rem(uns(v[0]), uns(v[1])))
}

// refSDiv is C's truncating division, wrapped to w bits (so MIN / -1 is
// MIN), with SMT-LIB's value for division by zero: -1 for a non-negative
// dividend and 1 for a negative one.
func refSDiv(w int, v ...uint64) uint64 {
	x, y := sgn(w, v[0]), sgn(w, v[1])
	if y.Sign() == 0 {
		if x.Sign() < 0 {
			return 1
		}
		return wrap(w, big.NewInt(-1))
	}
	return wrap(w, new(big.Int).Quo(x, y)) // Quo truncates toward zero
}

// refSRem is C's remainder (sign of the dividend); x % 0 is x.
func refSRem(w int, v ...uint64) uint64 {
	x, y := sgn(w, v[0]), sgn(w, v[1])
	if y.Sign() == 0 {
		return v[0]
	}
	return wrap(w, new(big.Int).Rem(x, y)) // Rem has the sign of x
}

func refShl(w int, v ...uint64) uint64 {
	if v[1] >= uint64(w) {
		return 0
	}
	return wrap(w, new(big.Int).Lsh(uns(v[0]), uint(v[1])))
}

func refLShr(w int, v ...uint64) uint64 {
	if v[1] >= uint64(w) {
		return 0
	}
	return wrap(w, new(big.Int).Rsh(uns(v[0]), uint(v[1])))
}

// refAShr shifts the signed value; big.Int's Rsh of a negative number
// rounds toward minus infinity, which is the arithmetic shift.
func refAShr(w int, v ...uint64) uint64 {
	n := min(v[1], uint64(w))
	return wrap(w, new(big.Int).Rsh(sgn(w, v[0]), uint(n)))
}
