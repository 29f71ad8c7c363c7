package solver

import "fmt"

// Op is the operator at the root of a term.
type Op uint8

// The operators. Boolean connectives take and give Bool; the bit-vector
// operators take operands of one width. Comparisons and OpEq give Bool.
const (
	OpConst   Op = iota // a constant; see Term.Value
	OpVar               // a named variable; see Term.Name
	OpNot               // Boolean negation
	OpAnd               // n-ary conjunction (at least two operands)
	OpOr                // n-ary disjunction (at least two operands)
	OpXor               // Boolean exclusive or
	OpIte               // if-then-else: condition, then, else (Bool or bit-vector)
	OpEq                // equality of two Bools or two bit-vectors
	OpBVNot             // bitwise complement
	OpBVAnd             // bitwise and
	OpBVOr              // bitwise or
	OpBVXor             // bitwise exclusive or
	OpNeg               // two's-complement negation
	OpAdd               // addition modulo 2^width
	OpSub               // subtraction modulo 2^width
	OpMul               // multiplication modulo 2^width
	OpUDiv              // unsigned division; x/0 is all ones
	OpURem              // unsigned remainder; x%0 is x
	OpSDiv              // signed division, truncating; see the package comment
	OpSRem              // signed remainder, sign of the dividend; x%0 is x
	OpShl               // shift left; amounts >= width give 0
	OpLShr              // logical shift right; amounts >= width give 0
	OpAShr              // arithmetic shift right; amounts >= width give the sign
	OpUlt               // unsigned less than
	OpUle               // unsigned less than or equal
	OpSlt               // signed less than
	OpSle               // signed less than or equal
	OpExtract           // bits hi..lo of the operand; see Term.ExtractRange
	OpZeroExt           // zero extension to the term's width
	OpSignExt           // sign extension to the term's width
	OpConcat            // concatenation; the first operand gives the high bits
	numOps
)

var opNames = [numOps]string{
	OpConst:   "const",
	OpVar:     "var",
	OpNot:     "not",
	OpAnd:     "and",
	OpOr:      "or",
	OpXor:     "xor",
	OpIte:     "ite",
	OpEq:      "=",
	OpBVNot:   "bvnot",
	OpBVAnd:   "bvand",
	OpBVOr:    "bvor",
	OpBVXor:   "bvxor",
	OpNeg:     "bvneg",
	OpAdd:     "bvadd",
	OpSub:     "bvsub",
	OpMul:     "bvmul",
	OpUDiv:    "bvudiv",
	OpURem:    "bvurem",
	OpSDiv:    "bvsdiv",
	OpSRem:    "bvsrem",
	OpShl:     "bvshl",
	OpLShr:    "bvlshr",
	OpAShr:    "bvashr",
	OpUlt:     "bvult",
	OpUle:     "bvule",
	OpSlt:     "bvslt",
	OpSle:     "bvsle",
	OpExtract: "extract",
	OpZeroExt: "zero_extend",
	OpSignExt: "sign_extend",
	OpConcat:  "concat",
}

// String returns the operator's SMT-LIB name.
func (op Op) String() string {
	if op < numOps {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", uint8(op))
}

// apply computes the value of an operator application from the values of its
// operands. It is the single definition of the semantics: the evaluator and
// constant folding both use it. sort is the result sort, param the term's
// parameter (the low bit of an extract), args the operands (for their
// widths) and v their values.
func apply(op Op, sort Sort, param uint64, args []*Term, v []uint64) uint64 {
	w := sort.Width()
	if w == 0 && len(args) > 0 {
		// Boolean results of bit-vector operands use the operands' width.
		w = args[len(args)-1].Width()
	}
	m := Mask(max(w, 1))
	switch op {
	case OpNot:
		return v[0] ^ 1
	case OpAnd:
		r := uint64(1)
		for _, x := range v {
			r &= x
		}
		return r
	case OpOr:
		r := uint64(0)
		for _, x := range v {
			r |= x
		}
		return r
	case OpXor:
		return v[0] ^ v[1]
	case OpIte:
		if v[0] == 1 {
			return v[1]
		}
		return v[2]
	case OpEq:
		return b2u(v[0] == v[1])
	case OpBVNot:
		return ^v[0] & m
	case OpBVAnd:
		return v[0] & v[1]
	case OpBVOr:
		return v[0] | v[1]
	case OpBVXor:
		return v[0] ^ v[1]
	case OpNeg:
		return -v[0] & m
	case OpAdd:
		return (v[0] + v[1]) & m
	case OpSub:
		return (v[0] - v[1]) & m
	case OpMul:
		return (v[0] * v[1]) & m
	case OpUDiv:
		if v[1] == 0 {
			return m
		}
		return v[0] / v[1]
	case OpURem:
		if v[1] == 0 {
			return v[0]
		}
		return v[0] % v[1]
	case OpSDiv:
		x, y := Signed(v[0], w), Signed(v[1], w)
		if y == 0 {
			if x < 0 {
				return 1
			}
			return m
		}
		// Go defines MinInt64 / -1 as MinInt64, the wrap-around C's
		// hardware gives; narrower widths wrap when masked.
		return uint64(x/y) & m
	case OpSRem:
		x, y := Signed(v[0], w), Signed(v[1], w)
		if y == 0 {
			return v[0]
		}
		return uint64(x%y) & m
	case OpShl:
		if v[1] >= uint64(w) {
			return 0
		}
		return (v[0] << v[1]) & m
	case OpLShr:
		if v[1] >= uint64(w) {
			return 0
		}
		return v[0] >> v[1]
	case OpAShr:
		x := Signed(v[0], w)
		if v[1] >= uint64(w) {
			if x < 0 {
				return m
			}
			return 0
		}
		return uint64(x>>v[1]) & m
	case OpUlt:
		return b2u(v[0] < v[1])
	case OpUle:
		return b2u(v[0] <= v[1])
	case OpSlt:
		return b2u(Signed(v[0], w) < Signed(v[1], w))
	case OpSle:
		return b2u(Signed(v[0], w) <= Signed(v[1], w))
	case OpExtract:
		return (v[0] >> param) & m
	case OpZeroExt:
		return v[0]
	case OpSignExt:
		return uint64(Signed(v[0], args[0].Width())) & m
	case OpConcat:
		return v[0]<<uint(args[1].Width()) | v[1]
	}
	panic(fmt.Sprintf("solver: apply: unexpected operator %s", op))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
