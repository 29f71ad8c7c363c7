package lang

import (
	"fmt"
	"math"

	"kbmc/lang/syntax"
)

// arith does the W-bit two's-complement arithmetic of constant expressions, the
// same as the ir semantics does at run time (docs/language.md §6).
type arith struct{ width int }

func (a arith) min() int64 { return math.MinInt64 >> (64 - a.width) }
func (a arith) max() int64 { return math.MaxInt64 >> (64 - a.width) }

// wrap truncates v to W bits and sign-extends it.
func (a arith) wrap(v int64) int64 {
	sh := 64 - uint(a.width)
	return v << sh >> sh
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// unary folds op x. x is an int for - and ~, a bool (0/1) for !.
func (a arith) unary(op syntax.Token, x int64) int64 {
	switch op {
	case syntax.SUB:
		return a.wrap(-x)
	case syntax.TILDE:
		return a.wrap(^x)
	case syntax.NOT:
		return 1 - x
	}
	return 0
}

// binary folds x op y. It fails where the run-time semantics would report a
// violation (division by zero, shift count out of range); such an expression is
// then not constant, and stays a run-time check unless a constant is required.
func (a arith) binary(op syntax.Token, x, y int64) (int64, error) {
	switch op {
	case syntax.ADD:
		return a.wrap(x + y), nil
	case syntax.SUB:
		return a.wrap(x - y), nil
	case syntax.MUL:
		return a.wrap(x * y), nil
	case syntax.QUO, syntax.REM:
		if y == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		if op == syntax.QUO {
			return a.wrap(x / y), nil // INT_MIN / -1 wraps to INT_MIN, as at run time
		}
		return x % y, nil // INT_MIN % -1 is 0, as Go defines it
	case syntax.SHL, syntax.SHR:
		if y < 0 || y >= int64(a.width) {
			return 0, fmt.Errorf("shift count %d out of range [0, %d)", y, a.width)
		}
		if op == syntax.SHL {
			return a.wrap(x << uint(y)), nil
		}
		return x >> uint(y), nil
	case syntax.AND:
		return x & y, nil
	case syntax.OR:
		return x | y, nil
	case syntax.XOR:
		return x ^ y, nil
	case syntax.LSS:
		return b2i(x < y), nil
	case syntax.LEQ:
		return b2i(x <= y), nil
	case syntax.GTR:
		return b2i(x > y), nil
	case syntax.GEQ:
		return b2i(x >= y), nil
	case syntax.EQL:
		return b2i(x == y), nil
	case syntax.NEQ:
		return b2i(x != y), nil
	case syntax.LAND:
		return b2i(x != 0 && y != 0), nil
	case syntax.LOR:
		return b2i(x != 0 || y != 0), nil
	}
	return 0, fmt.Errorf("invalid constant operator %s", op)
}
