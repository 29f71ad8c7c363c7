package lang

import (
	"kbmc/lang/syntax"
)

// exprMode says where an expression stands.
type exprMode struct {
	// stmtCall: the expression is a whole call statement or the whole right-hand
	// side of an assignment or initialiser, where any function may be called.
	stmtCall bool
	// negated: the expression is the operand of a unary minus, so an integer
	// literal may be 2^(W-1) (the magnitude of the most negative value).
	negated bool
}

// expr checks an expression in body b (nil: at file level, where only constants
// are constant) and records what it found in c.types.
func (c *checker) expr(b *body, x syntax.Expr) operand { return c.exprMode(b, x, exprMode{}) }

func (c *checker) exprMode(b *body, x syntax.Expr, m exprMode) operand {
	op := c.expr1(b, x, m)
	c.types[x] = op
	return op
}

func (c *checker) expr1(b *body, x syntax.Expr, m exprMode) operand {
	bad := operand{}
	if c.inInvariant {
		switch e := x.(type) {
		case *syntax.Ident:
			return c.invariantIdent(e)
		case *syntax.IndexExpr:
			return c.invariantIndex(e)
		case *syntax.MemberExpr:
			return c.member(e)
		case *syntax.QuantExpr:
			return c.quant(e)
		case *syntax.TidExpr:
			return c.notInInvariant(x, "tid")
		case *syntax.PidExpr:
			return c.notInInvariant(x, "pid")
		case *syntax.NondetExpr:
			return c.notInInvariant(x, "nondet")
		case *syntax.CasExpr:
			return c.notInInvariant(x, "cas")
		case *syntax.CallExpr:
			return c.notInInvariant(x, "a function call")
		}
	}
	switch e := x.(type) {
	case *syntax.BadExpr:
		return bad
	case *syntax.MemberExpr, *syntax.QuantExpr:
		return c.invariantOnly(x)
	case *syntax.Ident:
		return c.ident(b, e)
	case *syntax.IntLit:
		limit := uint64(c.arith.max())
		if m.negated {
			limit++
		}
		if e.Overflow || e.Value > limit {
			c.errorf(e.Pos(), "integer literal %s out of range for %d-bit int (%d..%d)",
				e.Lit, c.arith.width, c.arith.min(), c.arith.max())
			return bad
		}
		return operand{typ: intType, isConst: true, val: c.arith.wrap(int64(e.Value))}
	case *syntax.BoolLit:
		return operand{typ: boolType, isConst: true, val: b2i(e.Value)}
	case *syntax.TidExpr:
		return operand{typ: intType}
	case *syntax.PidExpr:
		if b.proc() == nil {
			c.errorf(e.Pos(), "pid outside a process: pid is the index of the process instance that runs the code")
			return bad
		}
		return operand{typ: intType}
	case *syntax.LenExpr:
		if len(e.Args) != 1 {
			c.errorf(e.Pos(), "wrong number of arguments to len: have %d, want 1 (len(channel))", len(e.Args))
			c.exprs(b, e.Args)
			return bad
		}
		if c.chanOperand(b, e.Args[0], "len") == nil {
			return bad
		}
		return operand{typ: intType}
	case *syntax.ParenExpr:
		return c.exprMode(b, e.X, exprMode{stmtCall: m.stmtCall})
	case *syntax.IndexExpr:
		return c.indexExpr(b, e)
	case *syntax.CallExpr:
		return c.call(b, e, m)
	case *syntax.NondetExpr:
		return c.nondet(b, e)
	case *syntax.CasExpr:
		if len(e.Args) != 3 {
			c.errorf(e.Pos(), "wrong number of arguments to cas: have %d, want 3 (cas(target, expected, new))", len(e.Args))
			c.exprs(b, e.Args)
			return bad
		}
		t := c.lvalue(b, e.Args[0])
		c.assignable(b, e.Args[1], t, "argument to cas", false)
		c.assignable(b, e.Args[2], t, "argument to cas", false)
		return operand{typ: boolType}
	case *syntax.UnaryExpr:
		return c.unary(b, e)
	case *syntax.BinaryExpr:
		return c.binary(b, e)
	case *syntax.CondExpr:
		cond := c.expr(b, e.Cond)
		if cond.typ != invalid && cond.typ != boolType {
			c.errorf(e.Cond.Pos(), "non-bool condition in conditional expression: %s", describe(e.Cond, cond.typ))
			cond.typ = invalid
		}
		y, z := c.expr(b, e.X), c.expr(b, e.Y)
		if cond.typ == invalid || !c.valueType(e.X, y) || !c.valueType(e.Y, z) {
			return bad
		}
		if y.typ != z.typ {
			c.errorf(e.Colon, "invalid operation: %s (mismatched types %s and %s)", exprString(e), y.typ, z.typ)
			return bad
		}
		r := operand{typ: y.typ}
		switch {
		case cond.constErr != "":
			r.constErr = cond.constErr
		case !cond.isConst:
		case cond.val != 0:
			r.isConst, r.val, r.constErr = y.isConst, y.val, y.constErr
		default:
			r.isConst, r.val, r.constErr = z.isConst, z.val, z.constErr
		}
		return r
	case *syntax.InitList:
		c.errorf(e.Pos(), "initialiser list not allowed here")
		c.exprs(b, e.Elems)
		return bad
	}
	c.errorf(x.Pos(), "unexpected %s", exprString(x))
	return bad
}

// valueType reports whether an operand has a value (is int or bool); it reports
// an operand without value.
func (c *checker) valueType(x syntax.Expr, op operand) bool {
	switch op.typ {
	case intType, boolType:
		return true
	case voidType:
		c.errorf(x.Pos(), "%s has no value and cannot be used in an expression", exprString(x))
	}
	return false
}

func (c *checker) ident(b *body, e *syntax.Ident) operand {
	switch o := c.lookupName(b, e).(type) {
	case *constObj:
		if o.state == resolving {
			c.errorf(e.Pos(), "initialization cycle: constant %s refers to itself", e.Name)
			return operand{}
		}
		c.resolveConst(o)
		if !o.ok {
			return operand{}
		}
		return operand{typ: intType, isConst: true, val: o.val}
	case *varObj:
		switch {
		case o.size < 0:
			return operand{}
		case o.size > 0:
			c.errorf(e.Pos(), "array used without index: %s", e.Name)
			return operand{}
		}
		return operand{typ: o.typ}
	case *mutexObj:
		c.errorf(e.Pos(), "mutex %s cannot be used in an expression (only in lock and unlock)", e.Name)
	case *threadObj:
		c.errorf(e.Pos(), "thread %s cannot be used in an expression (only in join)", e.Name)
	case *funcObj:
		c.errorf(e.Pos(), "function %s used without a call", e.Name)
	case *chanObj:
		c.errorf(e.Pos(), "channel %s cannot be used as a value (only in send, recv, close and len)", e.Name)
	case *processObj:
		c.errorf(e.Pos(), "process %s cannot be used in an expression", e.Name)
	}
	return operand{}
}

func (c *checker) indexExpr(b *body, e *syntax.IndexExpr) operand {
	o := c.lookupName(b, e.X)
	switch o := o.(type) {
	case nil:
	case *varObj:
		if o.size == 0 {
			c.errorf(e.Lbrack, "cannot index %s (not an array)", e.X.Name)
			break
		}
		c.index(b, e.Index)
		if o.size < 0 {
			return operand{}
		}
		return operand{typ: o.typ}
	case *mutexObj:
		c.errorf(e.Pos(), "mutex %s cannot be used in an expression (only in lock and unlock)", e.X.Name)
	case *threadObj:
		c.errorf(e.Pos(), "thread %s cannot be used in an expression (only in join)", e.X.Name)
	case *chanObj:
		c.errorf(e.Pos(), "channel %s cannot be used as a value (only in send, recv, close and len)", e.X.Name)
	default:
		c.errorf(e.Lbrack, "cannot index %s %s (not an array)", kindOf(o), e.X.Name)
	}
	c.expr(b, e.Index)
	return operand{}
}

func (c *checker) call(b *body, e *syntax.CallExpr, m exprMode) operand {
	o := c.lookupName(b, e.Fun)
	f, ok := o.(*funcObj)
	if !ok {
		if o != nil {
			c.errorf(e.Fun.Pos(), "cannot call %s: %s is a %s, not a function", e.Fun.Name, e.Fun.Name, kindOf(o))
		}
		c.exprs(b, e.Args)
		return operand{}
	}
	c.funcOf[e] = f
	if b != nil && b.fn != nil {
		b.fn.calls = append(b.fn.calls, callSite{f, e})
	}
	if len(e.Args) != len(f.params) {
		c.errorf(e.Rparen, "wrong number of arguments in call to %s: have %d, want %d", f.id.Name, len(e.Args), len(f.params))
	}
	for i, a := range e.Args {
		if i < len(f.params) {
			c.assignable(b, a, f.params[i].typ, "argument to "+f.id.Name, false)
		} else {
			c.expr(b, a)
		}
	}
	if f.exprBody == nil {
		switch {
		case !m.stmtCall:
			c.errorf(e.Pos(), "call of %s cannot be used in an expression: %s is not an expression function "+
				"(its body is not a single return statement), so it may only be called as a statement "+
				"or as the whole right-hand side of an assignment or initialiser", f.id.Name, f.id.Name)
			return operand{}
		case b != nil && b.atomic > 0:
			c.errorf(e.Pos(), "call inside atomic: %s is not an expression function", f.id.Name)
		}
	}
	return operand{typ: f.result}
}

func (c *checker) nondet(b *body, e *syntax.NondetExpr) operand {
	switch len(e.Args) {
	case 0:
	case 2:
		lo, ok1 := c.constInt(b, e.Args[0], "nondet bounds: lower bound")
		hi, ok2 := c.constInt(b, e.Args[1], "nondet bounds: upper bound")
		if ok1 && ok2 && lo > hi {
			c.errorf(e.Args[0].Pos(), "nondet bounds: lower bound %d is greater than upper bound %d", lo, hi)
		}
	default:
		c.errorf(e.Pos(), "wrong number of arguments to nondet: have %d, want 0 or 2 (nondet() or nondet(lo, hi))", len(e.Args))
		c.exprs(b, e.Args)
	}
	return operand{typ: intType}
}

func (c *checker) unary(b *body, e *syntax.UnaryExpr) operand {
	x := c.exprMode(b, e.X, exprMode{negated: e.Op == syntax.SUB})
	if !c.valueType(e.X, x) {
		return operand{}
	}
	want := intType
	if e.Op == syntax.NOT {
		want = boolType
	}
	if x.typ != want {
		c.errorf(e.OpPos, "invalid operation: operator %s not defined on %s", e.Op, describe(e.X, x.typ))
		return operand{}
	}
	r := operand{typ: want, constErr: x.constErr}
	if x.isConst {
		r.isConst, r.val = true, c.arith.unary(e.Op, x.val)
	}
	return r
}

func (c *checker) binary(b *body, e *syntax.BinaryExpr) operand {
	x, y := c.expr(b, e.X), c.expr(b, e.Y)
	okX, okY := c.valueType(e.X, x), c.valueType(e.Y, y)
	if !okX || !okY {
		return operand{}
	}
	var result typ
	switch e.Op {
	case syntax.ADD, syntax.SUB, syntax.MUL, syntax.QUO, syntax.REM, syntax.SHL, syntax.SHR:
		if !c.operandsOf(e, x, y, intType) {
			return operand{}
		}
		result = intType
	case syntax.LSS, syntax.LEQ, syntax.GTR, syntax.GEQ:
		if !c.operandsOf(e, x, y, intType) {
			return operand{}
		}
		result = boolType
	case syntax.LAND, syntax.LOR:
		if !c.operandsOf(e, x, y, boolType) {
			return operand{}
		}
		result = boolType
	case syntax.EQL, syntax.NEQ:
		if !c.sameType(e, x, y) {
			return operand{}
		}
		result = boolType
	case syntax.AND, syntax.OR, syntax.XOR:
		// On bools, & | ^ are the non-short-circuit logical operators.
		if !c.sameType(e, x, y) {
			return operand{}
		}
		result = x.typ
	default:
		c.errorf(e.OpPos, "invalid binary operator %s", e.Op)
		return operand{}
	}
	r := operand{typ: result}
	switch {
	case x.constErr != "":
		r.constErr = x.constErr
	case y.constErr != "":
		r.constErr = y.constErr
	case x.isConst && y.isConst:
		v, err := c.arith.binary(e.Op, x.val, y.val)
		if err != nil {
			r.constErr = err.Error()
		} else {
			r.isConst, r.val = true, v
		}
	}
	return r
}

func (c *checker) sameType(e *syntax.BinaryExpr, x, y operand) bool {
	if x.typ != y.typ {
		c.errorf(e.OpPos, "invalid operation: %s (mismatched types %s and %s)", exprString(e), x.typ, y.typ)
		return false
	}
	return true
}

// operandsOf checks that both operands of e have type t.
func (c *checker) operandsOf(e *syntax.BinaryExpr, x, y operand, t typ) bool {
	if x.typ != y.typ {
		return c.sameType(e, x, y)
	}
	if x.typ != t {
		c.errorf(e.OpPos, "invalid operation: operator %s not defined on %s", e.Op, describe(e.X, x.typ))
		return false
	}
	return true
}
