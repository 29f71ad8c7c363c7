package kb2go

import (
	"fmt"
	"strings"

	"kbmc/lang/syntax"
)

// expr is the Go text of a .kb expression, evaluated as .kb does: operands
// left to right (go/ssa's order, which gofront follows), short circuits and
// conditionals evaluating only what .kb does. Every operation is
// parenthesised: Go's precedences are not C's (& binds tighter than == in
// Go). A constant subexpression is folded at width 32, as lang folds it, so
// that Go's exact constant arithmetic never sees an overflow.
func (b *body) expr(e syntax.Expr) string {
	if v, ty, ok := b.t.constValue(b, e); ok {
		return literal(v, ty)
	}
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return b.expr(e.X)
	case *syntax.Ident:
		if s := b.lookup(e.Name); s != nil {
			return s.goName
		}
		b.errorf(e.Pos(), "internal error: %s is no variable", e.Name)
	case *syntax.TidExpr:
		return "tid"
	case *syntax.PidExpr:
		return "pid"
	case *syntax.IndexExpr:
		s := b.lookup(e.X.Name)
		if s == nil || s.size == 0 {
			b.errorf(e.Pos(), "internal error: %s is no array", e.X.Name)
			return "0"
		}
		if i, _, ok := b.t.constValue(b, e.Index); ok && i >= 0 && i < int64(s.size) {
			return s.element(int(i))
		}
		args := []string{b.expr(e.Index)}
		for i := range s.size {
			args = append(args, s.element(i))
		}
		return fmt.Sprintf("%s(%s)", b.t.getHelper(s.typ, s.size), strings.Join(args, ", "))
	case *syntax.LenExpr:
		ch, _ := b.channelOf(e.Args[0])
		return fmt.Sprintf("int32(len(%s))", ch)
	case *syntax.NondetExpr:
		return b.nondet(e)
	case *syntax.CallExpr:
		b.errorf(e.Pos(), "call of %s: functions do not translate yet", e.Fun.Name)
	case *syntax.CasExpr:
		b.errorf(e.Pos(), "cas does not translate")
	case *syntax.UnaryExpr:
		x := b.expr(e.X)
		switch e.Op {
		case syntax.SUB:
			return "(-" + x + ")"
		case syntax.TILDE:
			return "(^" + x + ")"
		case syntax.NOT:
			return "(!" + x + ")"
		}
		b.errorf(e.Pos(), "internal error: unary %s", e.Op)
	case *syntax.BinaryExpr:
		return b.binary(e)
	case *syntax.CondExpr:
		// A helper evaluates both branches: only when neither can fail
		// nor draw is that the same as evaluating the one taken.
		if !b.safe(e.X) || !b.safe(e.Y) {
			b.errorf(e.Pos(), "a conditional whose branches may fail or draw where Go has no statement to evaluate it in (a loop's condition or post statement, a select's guard): Go has no conditional expression, and a helper evaluates both branches")
			return "0"
		}
		name := "kbCondI"
		ty := "int32"
		if b.boolExpr(e.X) {
			name, ty = "kbCondB", "bool"
		}
		b.t.helper(name, fmt.Sprintf("func %s(c bool, x, y %s) %s {\n\tif c {\n\t\treturn x\n\t}\n\treturn y\n}\n", name, ty, ty))
		return fmt.Sprintf("%s(%s, %s, %s)", name, b.expr(e.Cond), b.expr(e.X), b.expr(e.Y))
	default:
		b.errorf(e.Pos(), "internal error: expression %T", e)
	}
	return "0"
}

// binary is x op y.
func (b *body) binary(e *syntax.BinaryExpr) string {
	return b.binaryText(e, b.expr(e.X), b.expr(e.Y))
}

// binaryText is x op y, of the Go texts of e's operands.
func (b *body) binaryText(e *syntax.BinaryExpr, x, y string) string {
	op := e.Op.String()
	switch e.Op {
	case syntax.QUO, syntax.REM:
		// A divisor that is no constant, or a constant 0 (which Go refuses
		// to compile), divides in a helper: a run-time division by zero.
		if d, _, ok := b.t.constValue(b, e.Y); !ok || d == 0 {
			name, sym := "kbDiv", "/"
			if e.Op == syntax.REM {
				name, sym = "kbRem", "%"
			}
			b.t.helper(name, fmt.Sprintf("func %s(x, y int32) int32 {\n\treturn x %s y\n}\n", name, sym))
			return fmt.Sprintf("%s(%s, %s)", name, x, y)
		}
	case syntax.SHL, syntax.SHR:
		// .kb fails on an amount outside [0, 32); Go panics on a negative
		// one only, and shifts everything out past 31.
		if d, _, ok := b.t.constValue(b, e.Y); !ok || d < 0 || d >= Width {
			name := "kbShl"
			if e.Op == syntax.SHR {
				name = "kbShr"
			}
			b.t.helper(name, fmt.Sprintf("func %s(x, y int32) int32 {\n\tif y < 0 || y >= %d {\n\t\tpanic(%q)\n\t}\n\treturn x %s y\n}\n",
				name, Width, ShiftPanic, op))
			return fmt.Sprintf("%s(%s, %s)", name, x, y)
		}
	case syntax.AND, syntax.OR, syntax.XOR:
		if b.boolExpr(e.X) {
			// Both operands evaluated, as .kb's & and | on bools do.
			switch e.Op {
			case syntax.XOR:
				return "(" + x + " != " + y + ")"
			case syntax.AND:
				b.t.helper("kbAnd", "func kbAnd(x, y bool) bool {\n\treturn x && y\n}\n")
				return fmt.Sprintf("kbAnd(%s, %s)", x, y)
			}
			b.t.helper("kbOr", "func kbOr(x, y bool) bool {\n\treturn x || y\n}\n")
			return fmt.Sprintf("kbOr(%s, %s)", x, y)
		}
	}
	return "(" + x + " " + op + " " + y + ")"
}

// boolExpr reports whether e is a bool.
func (b *body) boolExpr(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.BoolLit:
		return true
	case *syntax.ParenExpr:
		return b.boolExpr(e.X)
	case *syntax.Ident:
		s := b.lookup(e.Name)
		return s != nil && s.typ == tBool
	case *syntax.IndexExpr:
		s := b.lookup(e.X.Name)
		return s != nil && s.typ == tBool
	case *syntax.UnaryExpr:
		return e.Op == syntax.NOT
	case *syntax.BinaryExpr:
		switch e.Op {
		case syntax.LSS, syntax.LEQ, syntax.GTR, syntax.GEQ, syntax.EQL, syntax.NEQ, syntax.LAND, syntax.LOR:
			return true
		case syntax.AND, syntax.OR, syntax.XOR:
			return b.boolExpr(e.X)
		}
	case *syntax.CondExpr:
		return b.boolExpr(e.X)
	}
	return false
}

// nondet is nondet(lo, hi) over constant bounds: rand.Intn over the range,
// each of whose values gofront explores.
func (b *body) nondet(e *syntax.NondetExpr) string {
	if len(e.Args) != 2 {
		b.errorf(e.Pos(), "nondet() without bounds: rand.Intn needs a range")
		return "0"
	}
	lo, _, ok1 := b.t.constValue(b, e.Args[0])
	hi, _, ok2 := b.t.constValue(b, e.Args[1])
	switch {
	case !ok1 || !ok2:
		b.errorf(e.Pos(), "nondet with bounds that are not constant: rand.Intn needs a constant range")
		return "0"
	case hi < lo || hi-lo+1 > MaxNondet:
		b.errorf(e.Pos(), "nondet over %d values: more than %d", hi-lo+1, MaxNondet)
		return "0"
	}
	b.t.rand = true
	if lo == 0 {
		return fmt.Sprintf("int32(rand.Intn(%d))", hi+1)
	}
	return fmt.Sprintf("(%s + int32(rand.Intn(%d)))", literal(lo, tInt), hi-lo+1)
}

// hoisted reports whether e holds a conditional whose branches may fail or
// draw: then it is evaluated statement by statement (hoist).
func (b *body) hoisted(e syntax.Expr) bool {
	found := false
	syntax.Inspect(e, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CondExpr); ok && (!b.safe(c.X) || !b.safe(c.Y)) {
			found = true
		}
		return !found
	})
	return found
}

// hoist writes statements that evaluate e into temporaries, in .kb's
// order, where e holds a conditional that must evaluate the branch taken
// only, and returns the Go text of its value (expr's, for any other e). An
// operand evaluated before one that needs statements goes into a temporary
// first, so that nothing is evaluated out of order. Temporaries are
// goroutine-local: they fold into the step before, as the .kb statement's
// local evaluation does.
func (b *body) hoist(e syntax.Expr) string {
	if !b.hoisted(e) {
		return b.expr(e)
	}
	tyOf := func(x syntax.Expr) typ {
		if b.boolExpr(x) {
			return tBool
		}
		return tInt
	}
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return b.hoist(e.X)
	case *syntax.CondExpr:
		v := b.temp("kbt")
		b.line("var %s %s", v, tyOf(e.X).Go())
		b.line("if %s {", b.hoist(e.Cond))
		b.indent++
		b.line("%s = %s", v, b.hoist(e.X))
		b.indent--
		b.line("} else {")
		b.indent++
		b.line("%s = %s", v, b.hoist(e.Y))
		b.indent--
		b.line("}")
		return v
	case *syntax.UnaryExpr:
		x := b.hoist(e.X)
		switch e.Op {
		case syntax.SUB:
			return "(-" + x + ")"
		case syntax.TILDE:
			return "(^" + x + ")"
		}
		return "(!" + x + ")"
	case *syntax.BinaryExpr:
		if e.Op == syntax.LAND || e.Op == syntax.LOR {
			v := b.temp("kbt")
			b.line("var %s bool = %s", v, b.hoist(e.X))
			if e.Op == syntax.LAND {
				b.line("if %s {", v)
			} else {
				b.line("if !%s {", v)
			}
			b.indent++
			b.line("%s = %s", v, b.hoist(e.Y))
			b.indent--
			b.line("}")
			return v
		}
		x := b.hoist(e.X)
		if b.hoisted(e.Y) {
			v := b.temp("kbt")
			b.line("var %s %s = %s", v, tyOf(e.X).Go(), x)
			x = v
		}
		return b.binaryText(e, x, b.hoist(e.Y))
	case *syntax.IndexExpr:
		s := b.lookup(e.X.Name)
		if s == nil || s.size == 0 {
			b.errorf(e.Pos(), "internal error: %s is no array", e.X.Name)
			return "0"
		}
		args := []string{b.hoist(e.Index)}
		for i := range s.size {
			args = append(args, s.element(i))
		}
		return fmt.Sprintf("%s(%s)", b.t.getHelper(s.typ, s.size), strings.Join(args, ", "))
	}
	return b.expr(e)
}
