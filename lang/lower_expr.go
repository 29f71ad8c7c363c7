package lang

import (
	"kbmc/ir"
	"kbmc/lang/syntax"
)

// mk allocates an expression node, charging it to the size budget.
func (b *builder) mk(e ir.Expr) *ir.Expr {
	b.l.spend(1, b.cur.pos)
	return &e
}

func (b *builder) constant(t typ, v int64, pos syntax.Pos) *ir.Expr {
	return b.mk(ir.Expr{Op: ir.EConst, Type: t.ir(), Val: v, Pos: irPos(pos)})
}

// clone copies an expression tree. A substituted parameter is cloned at each use,
// so that trees stay trees and their size is charged to the budget.
func (b *builder) clone(e *ir.Expr) *ir.Expr {
	if e == nil || b.l.tooBig {
		return e
	}
	c := b.mk(*e)
	c.X, c.Y, c.Z = b.clone(e.X), b.clone(e.Y), b.clone(e.Z)
	return c
}

// stable reports whether e has the same value wherever in a statement it is
// evaluated, whatever the statement writes.
func stable(e *ir.Expr) bool { return e.Op == ir.EConst || e.Op == ir.ETid }

func hasNondet(e *ir.Expr) bool {
	if e == nil {
		return false
	}
	return e.Op == ir.ENondet || hasNondet(e.X) || hasNondet(e.Y) || hasNondet(e.Z)
}

// spill evaluates e into a fresh temporary now and returns the temporary.
func (b *builder) spill(e *ir.Expr) *ir.Expr {
	t := b.temp(typOfIR(e.Type), "tmp")
	b.emitAssign(&ir.LValue{Var: t, Pos: e.Pos}, e)
	return b.varExpr(t, e.Pos)
}

func typOfIR(t ir.Type) typ {
	if t == ir.Bool {
		return boolType
	}
	return intType
}

func (b *builder) varExpr(v *ir.Var, pos ir.Pos) *ir.Expr {
	return b.mk(ir.Expr{Op: ir.EVar, Type: v.Type, Var: v, Pos: pos})
}

// read returns an expression reading the location lv.
func (b *builder) read(lv *ir.LValue) *ir.Expr {
	if lv.Index == nil {
		return b.varExpr(lv.Var, lv.Pos)
	}
	return b.mk(ir.Expr{Op: ir.EIndex, Type: lv.Var.Type, Var: lv.Var, X: b.clone(lv.Index), Pos: lv.Pos})
}

// lvalue lowers an assignable location. later says that operations of the same
// statement run after the index is computed (a cas in the right-hand side), and
// reread that the location is read back (x += e): in both cases an index that
// could change meanwhile, or draw a different nondeterministic value, is
// evaluated into a temporary first, as C evaluates it once.
func (b *builder) lvalue(x syntax.Expr, later, reread bool) *ir.LValue {
	switch e := syntax.Unparen(x).(type) {
	case *syntax.Ident:
		o, _ := b.l.c.uses[e].(*varObj)
		if o == nil {
			b.internal(e.Pos(), "assignment to a non-variable")
			return &ir.LValue{Var: b.temp(intType, "missing")}
		}
		return &ir.LValue{Var: b.variable(o, e.Pos()), Pos: irPos(e.Pos())}
	case *syntax.IndexExpr:
		o, _ := b.l.c.uses[e.X].(*varObj)
		if o == nil {
			b.internal(e.Pos(), "assignment to a non-variable")
			return &ir.LValue{Var: b.temp(intType, "missing")}
		}
		v := b.variable(o, e.Pos())
		idx := b.expr(e.Index)
		if later && !stable(idx) || reread && hasNondet(idx) {
			idx = b.spill(idx)
		}
		return &ir.LValue{Var: v, Index: idx, Pos: irPos(e.Pos())}
	}
	b.internal(x.Pos(), "assignment to a non-variable")
	return &ir.LValue{Var: b.temp(intType, "missing")}
}

// exprList lowers expressions evaluated left to right. When a later one needs
// operations of its own (a cas), earlier values that such an operation could
// change are saved in temporaries first.
func (b *builder) exprList(list []syntax.Expr) []*ir.Expr {
	later := make([]bool, len(list)+1)
	for i := len(list) - 1; i >= 0; i-- {
		later[i] = later[i+1] || b.l.fx.needsSteps(list[i])
	}
	out := make([]*ir.Expr, len(list))
	for i, x := range list {
		out[i] = b.expr(x)
		if later[i+1] && !stable(out[i]) {
			out[i] = b.spill(out[i])
		}
	}
	return out
}

// guard lowers an operand that decides enabledness. The checker made sure it
// needs no operations of its own.
func (b *builder) guard(x syntax.Expr) *ir.Expr {
	n := len(b.t.Nodes)
	e := b.expr(x)
	if len(b.t.Nodes) != n {
		b.internal(x.Pos(), "guard operand needs operations of its own")
	}
	return e
}

// expr lowers an expression to an ir.Expr, emitting first the operations it
// needs (hoisted cas, temporaries).
func (b *builder) expr(x syntax.Expr) *ir.Expr {
	if b.l.tooBig {
		return &ir.Expr{Op: ir.EConst}
	}
	op := b.l.c.types[x]
	t := op.typ.ir()
	if op.isConst {
		return b.constant(op.typ, op.val, opPos(x))
	}
	switch e := x.(type) {
	case *syntax.ParenExpr:
		return b.expr(e.X)
	case *syntax.Ident:
		o, _ := b.l.c.uses[e].(*varObj)
		if o == nil {
			break
		}
		if s, ok := b.frame.subst[o]; ok {
			return b.clone(s)
		}
		return b.varExpr(b.variable(o, e.Pos()), irPos(e.Pos()))
	case *syntax.IndexExpr:
		o, _ := b.l.c.uses[e.X].(*varObj)
		if o == nil {
			break
		}
		v := b.variable(o, e.Pos())
		return b.mk(ir.Expr{Op: ir.EIndex, Type: t, Var: v, X: b.expr(e.Index), Pos: irPos(e.Pos())})
	case *syntax.TidExpr:
		return b.mk(ir.Expr{Op: ir.ETid, Type: ir.Int, Pos: irPos(e.Pos())})
	case *syntax.PidExpr:
		return b.constant(intType, int64(b.pid), e.Pos())
	case *syntax.LenExpr:
		ch, idx := b.channel(e.Args[0])
		if ch == nil {
			break
		}
		return b.mk(ir.Expr{Op: ir.ELen, Type: ir.Int, Chan: ch, X: idx, Pos: irPos(e.Pos())})
	case *syntax.NondetExpr:
		n := ir.Expr{Op: ir.ENondet, Type: ir.Int, Pos: irPos(e.Pos())}
		if len(e.Args) == 2 {
			n.Lo, n.Hi = b.l.c.types[e.Args[0]].val, b.l.c.types[e.Args[1]].val
		} else {
			n.Unbounded = true
			n.Lo, n.Hi = b.l.c.arith.min(), b.l.c.arith.max()
		}
		return b.mk(n)
	case *syntax.CasExpr:
		return b.cas(e, true)
	case *syntax.CallExpr:
		return b.inline(e)
	case *syntax.UnaryExpr:
		return b.mk(ir.Expr{Op: unaryOp(e.Op), Type: t, X: b.expr(e.X), Pos: irPos(e.OpPos)})
	case *syntax.BinaryExpr:
		if (e.Op == syntax.LAND || e.Op == syntax.LOR) && b.l.fx.needsSteps(e.Y) {
			return b.shortCircuit(e)
		}
		xs := b.exprList([]syntax.Expr{e.X, e.Y})
		return b.mk(ir.Expr{Op: binaryOp(e.Op), Type: t, X: xs[0], Y: xs[1], Pos: irPos(e.OpPos)})
	case *syntax.CondExpr:
		if b.l.fx.needsSteps(e.X) || b.l.fx.needsSteps(e.Y) {
			return b.condSteps(e, op.typ)
		}
		c := b.expr(e.Cond)
		return b.mk(ir.Expr{Op: ir.ECond, Type: t, X: c, Y: b.expr(e.X), Z: b.expr(e.Y), Pos: irPos(e.Question)})
	}
	b.internal(x.Pos(), "cannot lower "+exprString(x))
	return b.constant(intType, 0, x.Pos())
}

// opPos is where an expression's value is computed: the operator of a binary or
// conditional expression (found without walking down its left operand, so that
// asking is cheap on long chains), the start of any other expression.
func opPos(x syntax.Expr) syntax.Pos {
	switch x := x.(type) {
	case *syntax.BinaryExpr:
		return x.OpPos
	case *syntax.CondExpr:
		return x.Question
	case *syntax.ParenExpr:
		return x.Lparen
	}
	return x.Pos()
}

func unaryOp(t syntax.Token) ir.ExprOp {
	switch t {
	case syntax.NOT:
		return ir.ENot
	case syntax.TILDE:
		return ir.ECompl
	}
	return ir.ENeg
}

func binaryOp(t syntax.Token) ir.ExprOp {
	switch t {
	case syntax.MUL:
		return ir.EMul
	case syntax.QUO:
		return ir.EDiv
	case syntax.REM:
		return ir.ERem
	case syntax.ADD:
		return ir.EAdd
	case syntax.SUB:
		return ir.ESub
	case syntax.SHL:
		return ir.EShl
	case syntax.SHR:
		return ir.EShr
	case syntax.LSS:
		return ir.ELt
	case syntax.LEQ:
		return ir.ELe
	case syntax.GTR:
		return ir.EGt
	case syntax.GEQ:
		return ir.EGe
	case syntax.EQL:
		return ir.EEq
	case syntax.NEQ:
		return ir.ENe
	case syntax.AND:
		return ir.EAnd
	case syntax.XOR:
		return ir.EXor
	case syntax.OR:
		return ir.EOr
	case syntax.LAND:
		return ir.ELAnd
	}
	return ir.ELOr
}

// cas lowers a cas into an OpCas node; as an expression its value is a fresh
// bool temporary that receives the result.
func (b *builder) cas(e *syntax.CasExpr, value bool) *ir.Expr {
	later := b.l.fx.needsSteps(e.Args[1]) || b.l.fx.needsSteps(e.Args[2])
	lv := b.lvalue(e.Args[0], later, false)
	xs := b.exprList(e.Args[1:3])
	n := &ir.Node{Op: ir.OpCas, LHS: lv, X: xs[0], Y: xs[1]}
	var r *ir.Var
	if value {
		r = b.temp(boolType, "cas")
		n.Result = &ir.LValue{Var: r, Pos: irPos(e.Pos())}
	}
	b.emit(n)
	if !value {
		return nil
	}
	return b.varExpr(r, irPos(e.Pos()))
}

// branch emits "if c { then() } else { els() }" at the current point.
func (b *builder) branch(c *ir.Expr, then, els func()) {
	br := b.emit(&ir.Node{Op: ir.OpBranch, X: c})
	b.open = []*int{&br.Next}
	then()
	thenOpen := b.open
	b.open = []*int{&br.Else}
	els()
	b.open = join(b.open, thenOpen)
}

// shortCircuit lowers x && y or x || y whose y needs operations of its own: the
// operations run only when y is evaluated.
func (b *builder) shortCircuit(e *syntax.BinaryExpr) *ir.Expr {
	x := b.expr(e.X)
	t := b.temp(boolType, "cond")
	lv := &ir.LValue{Var: t, Pos: irPos(e.OpPos)}
	evalY := func() { b.emitAssign(lv, b.expr(e.Y)) }
	short := func() { b.emitAssign(lv, b.constant(boolType, b2i(e.Op == syntax.LOR), e.OpPos)) }
	if e.Op == syntax.LAND {
		b.branch(x, evalY, short)
	} else {
		b.branch(x, short, evalY)
	}
	return b.varExpr(t, irPos(e.OpPos))
}

// condSteps lowers c ? x : y where x or y needs operations of its own.
func (b *builder) condSteps(e *syntax.CondExpr, t typ) *ir.Expr {
	c := b.expr(e.Cond)
	r := b.temp(t, "cond")
	lv := &ir.LValue{Var: r, Pos: irPos(e.Question)}
	b.branch(c,
		func() { b.emitAssign(lv, b.expr(e.X)) },
		func() { b.emitAssign(lv, b.expr(e.Y)) })
	return b.varExpr(r, irPos(e.Question))
}

// inline expands a call of an expression function. A parameter is replaced by
// its argument where that keeps C's meaning (the argument is evaluated once, at
// the call): it is bound to a temporary instead when the body has operations of
// its own (they could change what the argument reads) or when the argument draws
// a nondeterministic value and the parameter is used more than once.
func (b *builder) inline(call *syntax.CallExpr) *ir.Expr {
	f := b.l.c.funcOf[call]
	if f == nil || f.exprBody == nil {
		b.internal(call.Pos(), "call of a statement function in an expression")
		return b.constant(intType, 0, call.Pos())
	}
	b.l.spend(1, call.Pos())
	args := b.exprList(call.Args)
	fr := &frame{fn: f, vars: map[*varObj]*ir.Var{}, subst: map[*varObj]*ir.Expr{}}
	steps := b.l.fx.needsSteps(f.exprBody)
	for i, p := range f.params {
		if i >= len(args) {
			break
		}
		switch uses := b.l.fx.useCount(f, p); {
		case uses == 0:
			// Nothing reads it; the argument's own operations have run.
		case steps || uses > 1 && hasNondet(args[i]):
			v := b.newVar(f.id.Name+"::"+p.id.Name, p.typ, 0, p.id.Pos())
			b.emitAssign(&ir.LValue{Var: v, Pos: irPos(call.Args[i].Pos())}, args[i])
			fr.vars[p] = v
		default:
			fr.subst[p] = args[i]
		}
	}
	outer := b.frame
	b.frame = fr
	r := b.expr(f.exprBody)
	b.frame = outer
	return r
}
