package constfold

import "kbmc/lang/syntax"

// Fold returns the value of e if it is a constant expression at width bits
// (a bool as 0 or 1, with isBool set), and ok false otherwise. lookup gives
// the value of a name that is a constant; a name it does not know is no
// constant.
func Fold(e syntax.Expr, width int, lookup func(name string) (int64, bool)) (v int64, isBool, ok bool) {
	sh := 64 - uint(width)
	wrap := func(v int64) int64 { return v << sh >> sh }
	b2i := func(c bool) int64 {
		if c {
			return 1
		}
		return 0
	}
	switch e := e.(type) {
	case *syntax.IntLit:
		return wrap(int64(e.Value)), false, !e.Overflow
	case *syntax.BoolLit:
		return b2i(e.Value), true, true
	case *syntax.ParenExpr:
		return Fold(e.X, width, lookup)
	case *syntax.Ident:
		v, ok := lookup(e.Name)
		return v, false, ok
	case *syntax.UnaryExpr:
		x, xb, ok := Fold(e.X, width, lookup)
		if !ok {
			return 0, false, false
		}
		switch e.Op {
		case syntax.SUB:
			return wrap(-x), false, true
		case syntax.TILDE:
			return wrap(^x), false, true
		case syntax.NOT:
			return 1 - x, xb, true
		}
	case *syntax.BinaryExpr:
		x, xb, ok1 := Fold(e.X, width, lookup)
		y, _, ok2 := Fold(e.Y, width, lookup)
		if !ok1 || !ok2 {
			return 0, false, false
		}
		switch e.Op {
		case syntax.ADD:
			return wrap(x + y), false, true
		case syntax.SUB:
			return wrap(x - y), false, true
		case syntax.MUL:
			return wrap(x * y), false, true
		case syntax.QUO, syntax.REM:
			if y == 0 {
				return 0, false, false
			}
			if e.Op == syntax.QUO {
				return wrap(x / y), false, true
			}
			return x % y, false, true
		case syntax.SHL, syntax.SHR:
			if y < 0 || y >= int64(width) {
				return 0, false, false
			}
			if e.Op == syntax.SHL {
				return wrap(x << uint(y)), false, true
			}
			return x >> uint(y), false, true
		case syntax.AND:
			return x & y, xb, true
		case syntax.OR:
			return x | y, xb, true
		case syntax.XOR:
			return x ^ y, xb, true
		case syntax.LSS:
			return b2i(x < y), true, true
		case syntax.LEQ:
			return b2i(x <= y), true, true
		case syntax.GTR:
			return b2i(x > y), true, true
		case syntax.GEQ:
			return b2i(x >= y), true, true
		case syntax.EQL:
			return b2i(x == y), true, true
		case syntax.NEQ:
			return b2i(x != y), true, true
		case syntax.LAND:
			return b2i(x != 0 && y != 0), true, true
		case syntax.LOR:
			return b2i(x != 0 || y != 0), true, true
		}
	case *syntax.CondExpr:
		c, _, ok := Fold(e.Cond, width, lookup)
		if !ok {
			return 0, false, false
		}
		if c != 0 {
			return Fold(e.X, width, lookup)
		}
		return Fold(e.Y, width, lookup)
	}
	return 0, false, false
}
