package cfront

import (
	"modernc.org/cc/v4"

	"kbmc/ir"
)

// A place is where a C lvalue lives: cells of a variable (from cell index, a
// pure expression; nil is 0), or the memory pointer ptr addresses.
type place struct {
	v     *ir.Var
	index *ir.Expr
	ptr   *ir.Expr
	typ   cc.Type
	irt   ir.Type // the scalar type, when typ is nil (a cell whose C type is not at hand)
	// atomic: a variable declared _Atomic (atomic.go); an object whose
	// type says so is atomic whatever this says.
	atomic bool
}

// cell is the place of the value's cell i (of a struct or array place).
func (pl place) cell(i int, t cc.Type) place {
	if i == 0 {
		pl.typ = t
		return pl
	}
	off := constant(ir.I64, int64(i))
	if pl.ptr != nil {
		return place{ptr: &ir.Expr{Op: ir.EPtrAdd, Type: ir.Ptr, X: pl.ptr, Y: off, Pos: pl.ptr.Pos}, typ: t}
	}
	return place{v: pl.v, index: addIndex(pl.index, off), typ: t}
}

// addIndex is a + b, for cell offsets (nil is 0).
func addIndex(a, b *ir.Expr) *ir.Expr {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.Op == ir.EConst && b.Op == ir.EConst:
		return constant(ir.I64, a.Val+b.Val)
	}
	return &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: a, Y: b, Pos: a.Pos}
}

// irType is the ir type of a scalar C type; an error for others.
func (b *builder) irType(t cc.Type, at cc.Node) ir.Type {
	it, err := b.l.scalar(t)
	if err != nil {
		b.errorf(at, "%v", err)
		return ir.I32
	}
	return it
}

// cells is how many cells a value of type t takes (a pointer to t moves by
// that many).
func (b *builder) cells(t cc.Type, at cc.Node) int64 {
	if t.Kind() == cc.Void || t.Kind() == cc.Function {
		return 1 // GNU C: void* arithmetic moves by bytes; kbmc by one cell
	}
	lo, err := b.l.layoutOf(t)
	if err != nil {
		b.errorf(at, "%v", err)
		return 1
	}
	return int64(lo.n())
}

// pointee is the type a pointer type points to (an array's element).
func pointee(t cc.Type) cc.Type {
	switch x := t.(type) {
	case *cc.PointerType:
		return x.Elem()
	case *cc.ArrayType:
		return x.Elem()
	}
	return t
}

func isPtr(t cc.Type) bool {
	k := t.Kind()
	return k == cc.Ptr || k == cc.Array || k == cc.Function
}

// isArray reports whether t is an array type, or a pointer cc made of one:
// cc gives an array expression its decayed type.
func isArray(t cc.Type) bool { return t.Undecay().Kind() == cc.Array }

// cellLV is the lvalue of cell index (nil: the first) of variable v.
func (b *builder) cellLV(v *ir.Var, index *ir.Expr, t ir.Type) *ir.LValue {
	switch {
	case v.Len > 0 && index == nil:
		index = constant(ir.I64, 0)
	case v.Len == 0:
		index = nil // a scalar's only cell
	}
	return &ir.LValue{Var: v, Index: index, Type: t, Pos: b.cur.pos}
}

// scalarType is the ir type of a scalar place.
func (b *builder) scalarType(pl place, at cc.Node) ir.Type {
	if pl.typ == nil {
		return pl.irt
	}
	return b.irType(pl.typ, at)
}

// lvOf is the lvalue of a scalar place.
func (b *builder) lvOf(pl place, at cc.Node) *ir.LValue {
	t := b.scalarType(pl, at)
	if pl.ptr != nil {
		return &ir.LValue{Ptr: pl.ptr, Type: t, Pos: b.cur.pos}
	}
	return b.cellLV(pl.v, pl.index, t)
}

// load reads a scalar place; a read of memory other threads may reach is an
// operation of its own.
func (b *builder) load(pl place, at cc.Node) *ir.Expr {
	t := b.scalarType(pl, at)
	if isAtomicPlace(pl) && b.atomic == 0 {
		// An atomic load: a step of its own, atomic.
		b.enterAtomic()
		defer b.leaveAtomic()
		r := b.temp(t)
		b.assign(&ir.LValue{Var: r, Pos: b.cur.pos}, b.load(pl, at))
		return &ir.Expr{Op: ir.EVar, Type: t, Var: r, Pos: b.cur.pos}
	}
	if pl.ptr != nil {
		return b.hoist(&ir.Expr{Op: ir.EDeref, Type: t, X: pl.ptr, Pos: b.cur.pos})
	}
	return b.hoist(varExpr(pl.v, pl.index, t, b.cur.pos))
}

// store writes x (of the place's type) to a scalar place.
func (b *builder) store(pl place, x *ir.Expr, at cc.Node) {
	if isAtomicPlace(pl) && b.atomic == 0 {
		x = b.stable(x) // the value first; the store alone is atomic
		b.enterAtomic()
		defer b.leaveAtomic()
	}
	b.assign(b.lvOf(pl, at), x)
}

// addrOf is the address of a place.
func (b *builder) addrOf(pl place, at cc.Node) *ir.Expr {
	if pl.ptr != nil {
		return pl.ptr
	}
	if !pl.v.Addressable {
		b.errorf(at, "internal error: the address of %s, which cfront did not expect to be taken", pl.v.Name)
	}
	return &ir.Expr{Op: ir.EAddr, Type: ir.Ptr, Var: pl.v, X: pl.index, Pos: b.cur.pos}
}

// convert converts x, a value of C type from, to ir type to (C type toC, nil
// if not known): C's conversions (ir.Convert).
func (b *builder) convert(x *ir.Expr, from, toC cc.Type, to ir.Type) *ir.Expr {
	if x.Type == to {
		return x
	}
	if x.Op == ir.EConst {
		return constant(to, x.Val)
	}
	return &ir.Expr{Op: ir.EConv, Type: to, X: x, Pos: x.Pos}
}

// conv converts x to C type to.
func (b *builder) conv(x *ir.Expr, to cc.Type, at cc.Node) *ir.Expr {
	return b.convert(x, nil, to, b.irType(to, at))
}

// rv lowers e as a value: nodes for its side effects and for its reads of
// shared memory, and a pure expression of e's (decayed) type.
func (b *builder) rv(e cc.ExpressionNode) *ir.Expr {
	t := e.Type()
	if v, ok := constValue(e); ok && e.Pure() && cc.IsIntegerType(t) {
		return constant(b.irType(t, e), v)
	}
	pos := b.posAt(e)
	switch x := e.(type) {
	case *cc.PrimaryExpression:
		switch x.Case {
		case cc.PrimaryExpressionIdent:
			return b.ident(x)
		case cc.PrimaryExpressionInt, cc.PrimaryExpressionChar:
			if v, ok := constValue(x); ok {
				return constant(b.irType(t, e), v)
			}
		case cc.PrimaryExpressionString:
			s, _ := x.Value().(cc.StringValue)
			o := b.l.stringObject(string(s), pos)
			return &ir.Expr{Op: ir.EAddr, Type: ir.Ptr, Var: o, Pos: pos}
		case cc.PrimaryExpressionExpr:
			return b.rv(x.ExpressionList)
		case cc.PrimaryExpressionStmt:
			return b.stmtExpr(x, true)
		}
		b.errorf(e, "%s is not supported", b.l.text(e))
		return constant(ir.I32, 0)
	case *cc.ExpressionList:
		if x.ExpressionList == nil {
			return b.rv(x.AssignmentExpression)
		}
		// a, b: every operand but the last for its effects.
		var last cc.ExpressionNode
		for l := x; l != nil; l = l.ExpressionList {
			if last != nil {
				b.effect(last)
			}
			last = l.AssignmentExpression
		}
		return b.rv(last)
	case *cc.PostfixExpression:
		return b.postfix(x, true)
	case *cc.UnaryExpression:
		return b.unary(x)
	case *cc.CastExpression:
		if x.Case == cc.CastExpressionUnary {
			return b.rv(x.UnaryExpression)
		}
		if t.Kind() == cc.Void {
			b.effect(x.CastExpression)
			return constant(ir.I32, 0)
		}
		return b.conv(b.rvAs(x.CastExpression, t), t, e)
	case *cc.MultiplicativeExpression:
		op := map[cc.MultiplicativeExpressionCase]ir.ExprOp{cc.MultiplicativeExpressionMul: ir.EMul,
			cc.MultiplicativeExpressionDiv: ir.EDiv, cc.MultiplicativeExpressionMod: ir.ERem}[x.Case]
		return b.arith(e, op, x.MultiplicativeExpression, x.CastExpression)
	case *cc.AdditiveExpression:
		op := ir.EAdd
		if x.Case == cc.AdditiveExpressionSub {
			op = ir.ESub
		}
		return b.additive(x, op)
	case *cc.ShiftExpression:
		op := ir.EShl
		if x.Case == cc.ShiftExpressionRsh {
			op = ir.EShr
		}
		l := b.conv(b.rv(x.ShiftExpression), t, e)
		r := b.convert(b.rv(x.AdditiveExpression), nil, nil, ir.I64)
		return &ir.Expr{Op: op, Type: l.Type, X: l, Y: r, Pos: pos}
	case *cc.AndExpression:
		return b.arith(e, ir.EAnd, x.AndExpression, x.EqualityExpression)
	case *cc.ExclusiveOrExpression:
		return b.arith(e, ir.EXor, x.ExclusiveOrExpression, x.AndExpression)
	case *cc.InclusiveOrExpression:
		return b.arith(e, ir.EOr, x.InclusiveOrExpression, x.ExclusiveOrExpression)
	case *cc.RelationalExpression, *cc.EqualityExpression, *cc.LogicalAndExpression, *cc.LogicalOrExpression:
		return b.conv(b.cond(e), t, e)
	case *cc.ConditionalExpression:
		return b.conditional(x)
	case *cc.AssignmentExpression:
		return b.assignment(x, true)
	case *cc.ConstantExpression:
		return b.rv(x.ConditionalExpression)
	}
	b.errorf(e, "%s is not supported", b.l.text(e))
	return constant(ir.I32, 0)
}

// rvAs is rv for a value wanted as type t (an assignment's or a parameter's):
// an allocation takes its element type from t.
func (b *builder) rvAs(e cc.ExpressionNode, t cc.Type) *ir.Expr {
	old := b.hint
	b.hint = t
	defer func() { b.hint = old }()
	return b.rv(e)
}

// posAt is the position of a cc node in the user's file, or the statement's.
func (b *builder) posAt(n cc.Node) ir.Pos {
	if p, ok := b.l.lines.node(n); ok {
		return p
	}
	return b.cur.pos
}

// ident is the value of a name: a variable, an enumeration constant, or an
// array decaying to its first element's address.
func (b *builder) ident(x *cc.PrimaryExpression) *ir.Expr {
	t := x.Type()
	if t.Kind() == cc.Function || t.Undecay().Kind() == cc.Function {
		b.errorf(x, "%s used as a value: function pointers are not supported (only as pthread_create's start routine)", x.Token.SrcStr())
		return constant(ir.Ptr, 0)
	}
	pl, ok := b.varPlace(x)
	if !ok {
		return constant(ir.I32, 0)
	}
	if isArray(t) || isArray(pl.typ) {
		return b.addrOf(pl, x)
	}
	if t.Kind() == cc.Struct || t.Kind() == cc.Union {
		b.errorf(x, "a struct value here is not supported (only copied by assignment or initialization)")
		return constant(ir.I32, 0)
	}
	return b.load(pl, x)
}

// varPlace is the place of the variable an identifier names.
func (b *builder) varPlace(x *cc.PrimaryExpression) (place, bool) {
	d, _ := x.ResolvedTo().(*cc.Declarator)
	if d == nil {
		b.errorf(x, "%s: not a variable", x.Token.SrcStr())
		return place{}, false
	}
	for f := b.frame; f != nil; f = f.parent {
		if loc := f.vars[d]; loc != nil {
			return place{v: loc.v, typ: d.Type(), atomic: d.IsAtomic()}, true
		}
		if f.fn != nil && f.fn != b.frame.fn {
			break
		}
	}
	if loc := b.frame.vars[d]; loc != nil {
		return place{v: loc.v, typ: d.Type(), atomic: d.IsAtomic()}, true
	}
	if g := b.l.statics[d]; g != nil {
		if g.v == nil && g.lay == nil {
			b.l.makeGlobal(g, g.name, b.l.taken[d])
			if g.v == nil {
				g.lay = &layout{}
			}
		}
		if g.decl.IsThreadLocal() {
			g = b.l.threadCopy(g, b.t, b.l.taken[d])
		}
		if g.v == nil {
			return place{}, false
		}
		return place{v: g.v, typ: d.Type(), atomic: d.IsAtomic()}, true
	}
	g := b.l.globalVar(d.Name())
	if g != nil && g.decl.IsThreadLocal() {
		g = b.l.threadCopy(g, b.t, b.l.takenNames[g.name])
	}
	if g != nil && g.v == nil {
		return place{}, false // its declaration was reported
	}
	if g == nil {
		b.errorf(x, "%s: no such variable (a local of another function?)", x.Token.SrcStr())
		return place{}, false
	}
	return place{v: g.v, typ: g.decl.Type(), atomic: g.decl.IsAtomic() || d.IsAtomic()}, true
}

// lval lowers e as an lvalue: the place it denotes.
func (b *builder) lval(e cc.ExpressionNode) (place, bool) {
	switch x := e.(type) {
	case *cc.PrimaryExpression:
		switch x.Case {
		case cc.PrimaryExpressionIdent:
			return b.varPlace(x)
		case cc.PrimaryExpressionExpr:
			return b.lval(x.ExpressionList)
		case cc.PrimaryExpressionString:
			s, _ := x.Value().(cc.StringValue)
			o := b.l.stringObject(string(s), b.posAt(e))
			return place{v: o, typ: x.Type()}, true
		}
	case *cc.ExpressionList:
		if x.ExpressionList == nil {
			return b.lval(x.AssignmentExpression)
		}
	case *cc.CastExpression:
		if x.Case == cc.CastExpressionUnary {
			return b.lval(x.UnaryExpression)
		}
	case *cc.UnaryExpression:
		switch x.Case {
		case cc.UnaryExpressionPostfix:
			return b.lval(x.PostfixExpression)
		case cc.UnaryExpressionDeref:
			p := b.rv(x.CastExpression)
			return place{ptr: p, typ: x.Type()}, true
		}
	case *cc.PostfixExpression:
		switch x.Case {
		case cc.PostfixExpressionPrimary:
			return b.lval(x.PrimaryExpression)
		case cc.PostfixExpressionIndex:
			return b.index(x)
		case cc.PostfixExpressionSelect:
			pl, ok := b.lval(x.PostfixExpression)
			if !ok {
				return place{}, false
			}
			return b.field(pl, x)
		case cc.PostfixExpressionPSelect:
			p := b.rv(x.PostfixExpression)
			return b.field(place{ptr: p, typ: pointee(x.PostfixExpression.Type())}, x)
		case cc.PostfixExpressionCall:
			if r := b.call(x, true); r != nil && r.Op == ir.EVar {
				return place{v: r.Var, typ: x.Type()}, true
			}
		}
	case *cc.AssignmentExpression:
		if x.Case == cc.AssignmentExpressionCond {
			return b.lval(x.ConditionalExpression)
		}
	case *cc.ConditionalExpression:
		if x.Case == cc.ConditionalExpressionLOr {
			return b.lval(x.LogicalOrExpression)
		}
	}
	b.errorf(e, "%s as an lvalue is not supported", b.l.text(e))
	return place{}, false
}

// index is the place a[i] denotes: an element of an array variable, or the
// cell a pointer plus i addresses.
func (b *builder) index(x *cc.PostfixExpression) (place, bool) {
	base, idx := x.PostfixExpression, x.ExpressionList
	if !isPtr(base.Type()) {
		base, idx = idx, base // i[a]
	}
	elem := x.Type()
	n := b.cells(elem, x)
	i := b.convert(b.rv(idx), nil, nil, ir.I64)
	off := i
	if n != 1 {
		off = &ir.Expr{Op: ir.EMul, Type: ir.I64, X: i, Y: constant(ir.I64, n), Pos: i.Pos}
		if i.Op == ir.EConst {
			off = constant(ir.I64, i.Val*n)
		}
	}
	if isArray(base.Type()) {
		if pl, ok := b.lval(base); ok && pl.v != nil {
			return place{v: pl.v, index: addIndex(pl.index, off), typ: elem}, true
		} else if ok {
			return place{ptr: &ir.Expr{Op: ir.EPtrAdd, Type: ir.Ptr, X: pl.ptr, Y: off, Val: byteArith(elem), Pos: b.posAt(x)}, typ: elem}, true
		}
		return place{}, false
	}
	p := b.rv(base)
	return place{ptr: &ir.Expr{Op: ir.EPtrAdd, Type: ir.Ptr, X: p, Y: off, Val: byteArith(elem), Pos: b.posAt(x)}, typ: elem}, true
}

// field is the place of a struct member of pl.
func (b *builder) field(pl place, x *cc.PostfixExpression) (place, bool) {
	f := x.Field()
	if f == nil {
		b.errorf(x, "%s: no such field", b.l.text(x))
		return place{}, false
	}
	st := pl.typ
	lo, err := b.l.layoutOf(st)
	if err != nil {
		b.errorf(x, "%v", err)
		return place{}, false
	}
	c := lo.cellAt(f.Offset())
	if c < 0 {
		b.errorf(x, "field %s: no cell at byte %d of %s", f.Name(), f.Offset(), st)
		return place{}, false
	}
	return pl.cell(c, x.Type()), true
}

// arith lowers a binary arithmetic operation in C's result type.
func (b *builder) arith(e cc.ExpressionNode, op ir.ExprOp, xe, ye cc.ExpressionNode) *ir.Expr {
	t := e.Type()
	x := b.conv(b.rv(xe), t, e)
	y := b.conv(b.rv(ye), t, e)
	return &ir.Expr{Op: op, Type: x.Type, X: x, Y: y, Pos: b.posAt(e)}
}

// additive lowers + and -, with pointer arithmetic in cells.
func (b *builder) additive(x *cc.AdditiveExpression, op ir.ExprOp) *ir.Expr {
	le, re := x.AdditiveExpression, x.MultiplicativeExpression
	pos := b.posAt(x)
	lp, rp := isPtr(le.Type()), isPtr(re.Type())
	switch {
	case lp && rp && op == ir.ESub:
		l, r := b.rv(le), b.rv(re)
		n := b.cells(pointee(le.Type()), x)
		d := &ir.Expr{Op: ir.EPtrDiff, Type: ir.I64, X: l, Y: r, Val: n, Pos: pos}
		return b.conv(d, x.Type(), x)
	case lp || rp:
		pe, ie := le, re
		if rp {
			pe, ie = re, le
		}
		p := b.rv(pe)
		i := b.convert(b.rv(ie), nil, nil, ir.I64)
		n := b.cells(pointee(pe.Type()), x)
		off := i
		if n != 1 {
			off = &ir.Expr{Op: ir.EMul, Type: ir.I64, X: i, Y: constant(ir.I64, n), Pos: pos}
		}
		if op == ir.ESub {
			off = &ir.Expr{Op: ir.ENeg, Type: ir.I64, X: off, Pos: pos}
		}
		return &ir.Expr{Op: ir.EPtrAdd, Type: ir.Ptr, X: p, Y: off, Val: byteArith(pointee(pe.Type())), Pos: pos}
	}
	return b.arith(x, op, le, re)
}

// cond lowers e as a condition: a Bool.
func (b *builder) cond(e cc.ExpressionNode) *ir.Expr {
	pos := b.posAt(e)
	switch x := e.(type) {
	case *cc.PrimaryExpression:
		if x.Case == cc.PrimaryExpressionExpr {
			return b.cond(x.ExpressionList)
		}
	case *cc.ExpressionList:
		if x.ExpressionList == nil {
			return b.cond(x.AssignmentExpression)
		}
	case *cc.RelationalExpression:
		if x.Case != cc.RelationalExpressionShift {
			op := map[cc.RelationalExpressionCase]ir.ExprOp{cc.RelationalExpressionLt: ir.ELt,
				cc.RelationalExpressionGt: ir.EGt, cc.RelationalExpressionLeq: ir.ELe, cc.RelationalExpressionGeq: ir.EGe}[x.Case]
			return b.compare(op, x.RelationalExpression, x.ShiftExpression, pos)
		}
	case *cc.EqualityExpression:
		if x.Case != cc.EqualityExpressionRel {
			op := ir.EEq
			if x.Case == cc.EqualityExpressionNeq {
				op = ir.ENe
			}
			return b.compare(op, x.EqualityExpression, x.RelationalExpression, pos)
		}
	case *cc.UnaryExpression:
		if x.Case == cc.UnaryExpressionNot {
			return &ir.Expr{Op: ir.ENot, Type: ir.Bool, X: b.cond(x.CastExpression), Pos: pos}
		}
	case *cc.LogicalAndExpression:
		if x.Case == cc.LogicalAndExpressionLAnd {
			return b.shortCircuit(ir.ELAnd, x.LogicalAndExpression, x.InclusiveOrExpression, pos)
		}
	case *cc.LogicalOrExpression:
		if x.Case == cc.LogicalOrExpressionLOr {
			return b.shortCircuit(ir.ELOr, x.LogicalOrExpression, x.LogicalAndExpression, pos)
		}
	}
	v := b.rv(e)
	if v.Type == ir.Bool {
		return v
	}
	return b.convert(v, e.Type(), nil, ir.Bool)
}

// compare lowers a comparison in the operands' common type.
func (b *builder) compare(op ir.ExprOp, xe, ye cc.ExpressionNode, pos ir.Pos) *ir.Expr {
	x, y := b.rv(xe), b.rv(ye)
	var t ir.Type
	switch {
	case isPtr(xe.Type()) || isPtr(ye.Type()):
		t = ir.Ptr
	default:
		t = b.irType(cc.UsualArithmeticConversions(xe.Type(), ye.Type()), xe)
	}
	x = b.convert(x, xe.Type(), nil, t)
	y = b.convert(y, ye.Type(), nil, t)
	return &ir.Expr{Op: op, Type: ir.Bool, X: x, Y: y, Pos: pos}
}

// shortCircuit lowers && and ||: as one expression when the right operand has
// no effects and reads nothing shared (or inside an atomic section), else
// with a branch, so that its effects happen only when C says they do.
func (b *builder) shortCircuit(op ir.ExprOp, xe, ye cc.ExpressionNode, pos ir.Pos) *ir.Expr {
	x := b.cond(xe)
	if b.simple(ye) {
		return &ir.Expr{Op: op, Type: ir.Bool, X: x, Y: b.cond(ye), Pos: pos}
	}
	r := b.temp(ir.Bool)
	b.assign(&ir.LValue{Var: r, Pos: pos}, x)
	cond := &ir.Expr{Op: ir.EVar, Type: ir.Bool, Var: r, Pos: pos}
	if op == ir.ELOr {
		cond = &ir.Expr{Op: ir.ENot, Type: ir.Bool, X: cond, Pos: pos}
	}
	br := b.emit(&ir.Node{Op: ir.OpBranch, X: cond})
	b.open = []*int{&br.Next}
	y := b.cond(ye)
	b.assign(&ir.LValue{Var: r, Pos: pos}, y)
	b.open = append(b.open, &br.Else)
	return &ir.Expr{Op: ir.EVar, Type: ir.Bool, Var: r, Pos: pos}
}

// simple reports whether lowering e emits no node: no effects, no calls, and
// (outside atomic sections) no read of memory other threads may reach.
func (b *builder) simple(e cc.ExpressionNode) bool {
	ok := true
	walk(e, func(n cc.Node) bool {
		switch x := n.(type) {
		case *cc.PostfixExpression:
			switch x.Case {
			case cc.PostfixExpressionCall, cc.PostfixExpressionInc, cc.PostfixExpressionDec, cc.PostfixExpressionComplit:
				ok = false
			case cc.PostfixExpressionPSelect:
				ok = ok && b.atomic > 0
			case cc.PostfixExpressionIndex:
				ok = ok && (b.atomic > 0 || isArray(x.PostfixExpression.Type()) && !b.sharedName(x.PostfixExpression))
			}
		case *cc.UnaryExpression:
			switch x.Case {
			case cc.UnaryExpressionInc, cc.UnaryExpressionDec:
				ok = false
			case cc.UnaryExpressionDeref:
				ok = ok && b.atomic > 0
			case cc.UnaryExpressionSizeofExpr, cc.UnaryExpressionSizeofType, cc.UnaryExpressionAlignofExpr, cc.UnaryExpressionAlignofType:
				return false // not evaluated
			}
		case *cc.AssignmentExpression:
			if x.Case != cc.AssignmentExpressionCond {
				ok = false
			}
		case *cc.PrimaryExpression:
			switch x.Case {
			case cc.PrimaryExpressionStmt:
				ok = false
			case cc.PrimaryExpressionIdent:
				ok = ok && (b.atomic > 0 || !b.sharedName(x))
			}
		}
		return ok
	})
	return ok
}

// sharedName reports whether an identifier expression names memory other
// threads may reach: a global, a static local, or an object.
func (b *builder) sharedName(e cc.ExpressionNode) bool {
	x, ok := stripParens(e).(*cc.PrimaryExpression)
	if !ok || x.Case != cc.PrimaryExpressionIdent {
		return true
	}
	d, _ := x.ResolvedTo().(*cc.Declarator)
	if d == nil {
		return false // an enumeration constant
	}
	if loc := b.frame.vars[d]; loc != nil {
		return loc.v.Shared
	}
	return true
}

// conditional lowers c ? a : b.
func (b *builder) conditional(x *cc.ConditionalExpression) *ir.Expr {
	if x.Case == cc.ConditionalExpressionLOr {
		return b.rv(x.LogicalOrExpression)
	}
	t := x.Type()
	pos := b.posAt(x)
	if x.ExpressionList == nil {
		// GNU's a ?: b, a evaluated once.
		a := b.stable(b.conv(b.rv(x.LogicalOrExpression), t, x))
		c := b.convert(a, nil, nil, ir.Bool)
		if b.simple(x.ConditionalExpression) {
			return &ir.Expr{Op: ir.ECond, Type: a.Type, X: c, Y: a, Z: b.conv(b.rv(x.ConditionalExpression), t, x), Pos: pos}
		}
		r := b.temp(a.Type)
		b.assign(&ir.LValue{Var: r, Pos: pos}, a)
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: c})
		b.open = []*int{&br.Else}
		b.assign(&ir.LValue{Var: r, Pos: pos}, b.conv(b.rv(x.ConditionalExpression), t, x))
		b.open = append(b.open, &br.Next)
		return &ir.Expr{Op: ir.EVar, Type: r.Type, Var: r, Pos: pos}
	}
	c := b.cond(x.LogicalOrExpression)
	if t.Kind() == cc.Void {
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: c})
		b.open = []*int{&br.Next}
		b.effect(x.ExpressionList)
		then := b.open
		b.open = []*int{&br.Else}
		b.effect(x.ConditionalExpression)
		b.open = append(b.open, then...)
		return constant(ir.I32, 0)
	}
	if b.simple(x.ExpressionList) && b.simple(x.ConditionalExpression) {
		y := b.conv(b.rv(x.ExpressionList), t, x)
		z := b.conv(b.rv(x.ConditionalExpression), t, x)
		return &ir.Expr{Op: ir.ECond, Type: y.Type, X: c, Y: y, Z: z, Pos: pos}
	}
	r := b.temp(b.irType(t, x))
	br := b.emit(&ir.Node{Op: ir.OpBranch, X: c})
	b.open = []*int{&br.Next}
	b.assign(&ir.LValue{Var: r, Pos: pos}, b.conv(b.rv(x.ExpressionList), t, x))
	then := b.open
	b.open = []*int{&br.Else}
	b.assign(&ir.LValue{Var: r, Pos: pos}, b.conv(b.rv(x.ConditionalExpression), t, x))
	b.open = append(b.open, then...)
	return &ir.Expr{Op: ir.EVar, Type: r.Type, Var: r, Pos: pos}
}

// unary lowers the unary operators.
func (b *builder) unary(x *cc.UnaryExpression) *ir.Expr {
	t := x.Type()
	pos := b.posAt(x)
	switch x.Case {
	case cc.UnaryExpressionPostfix:
		return b.rv(x.PostfixExpression)
	case cc.UnaryExpressionInc, cc.UnaryExpressionDec:
		return b.incDec(x.UnaryExpression, x.Case == cc.UnaryExpressionInc, false, true, x)
	case cc.UnaryExpressionAddrof:
		if x.CastExpression.Type().Kind() == cc.Function {
			b.errorf(x, "the address of function %s: function pointers are not supported (only as pthread_create's start routine)", b.l.text(x.CastExpression))
			return constant(ir.Ptr, 0)
		}
		pl, ok := b.lval(x.CastExpression)
		if !ok {
			return constant(ir.Ptr, 0)
		}
		return b.addrOf(pl, x)
	case cc.UnaryExpressionDeref:
		if t.Kind() == cc.Function {
			return b.rv(x.CastExpression)
		}
		p := b.rv(x.CastExpression)
		pl := place{ptr: p, typ: t}
		if isArray(t) {
			return p
		}
		return b.load(pl, x)
	case cc.UnaryExpressionPlus:
		return b.conv(b.rv(x.CastExpression), t, x)
	case cc.UnaryExpressionMinus:
		v := b.conv(b.rv(x.CastExpression), t, x)
		return &ir.Expr{Op: ir.ENeg, Type: v.Type, X: v, Pos: pos}
	case cc.UnaryExpressionCpl:
		v := b.conv(b.rv(x.CastExpression), t, x)
		return &ir.Expr{Op: ir.ECompl, Type: v.Type, X: v, Pos: pos}
	case cc.UnaryExpressionNot:
		return b.conv(b.cond(x), t, x)
	case cc.UnaryExpressionSizeofExpr, cc.UnaryExpressionSizeofType, cc.UnaryExpressionAlignofExpr, cc.UnaryExpressionAlignofType:
		if v, ok := constValue(x); ok {
			return constant(b.irType(t, x), v)
		}
		b.errorf(x, "sizeof of a variable-length value is not supported")
		return constant(ir.I32, 0)
	}
	b.errorf(x, "%s is not supported", b.l.text(x))
	return constant(ir.I32, 0)
}

// incDec lowers ++ and --, prefix or postfix; the result is the new or the old
// value.
func (b *builder) incDec(e cc.ExpressionNode, inc, post, want bool, at cc.Node) *ir.Expr {
	pl, ok := b.lval(e)
	if !ok {
		return constant(ir.I32, 0)
	}
	t := e.Type()
	if isAtomicPlace(pl) && b.atomic == 0 {
		// An atomic read-modify-write: one step.
		b.enterAtomic()
		defer b.leaveAtomic()
	}
	old := b.load(pl, at)
	if want && post {
		old = b.stable(old)
	}
	pos := b.posAt(at)
	var nv *ir.Expr
	if isPtr(t) {
		n := b.cells(pointee(t), at)
		if !inc {
			n = -n
		}
		nv = &ir.Expr{Op: ir.EPtrAdd, Type: ir.Ptr, X: old, Y: constant(ir.I64, n), Val: byteArith(pointee(t)), Pos: pos}
	} else {
		op := ir.EAdd
		if !inc {
			op = ir.ESub
		}
		// In int (or wider): then converted back, as C's x = x + 1 is.
		pt := promoted(old.Type)
		nv = b.convert(&ir.Expr{Op: op, Type: pt, X: b.convert(old, t, nil, pt), Y: constant(pt, 1), Pos: pos}, nil, t, old.Type)
	}
	if want && !post {
		nv = b.stable(nv)
	}
	b.store(pl, nv, at)
	if post {
		return old
	}
	return nv
}

// promoted is C's integer promotion of an ir integer type: below int, int.
func promoted(t ir.Type) ir.Type {
	switch t {
	case ir.Bool, ir.I8, ir.U8, ir.I16, ir.U16:
		return ir.I32
	}
	return t
}

// assignment lowers =, and the compound assignments as x = x op y.
func (b *builder) assignment(x *cc.AssignmentExpression, want bool) *ir.Expr {
	if x.Case == cc.AssignmentExpressionCond {
		return b.rv(x.ConditionalExpression)
	}
	lhs, rhs := x.UnaryExpression, x.AssignmentExpression
	t := lhs.Type()
	if x.Case == cc.AssignmentExpressionAssign {
		if t.Kind() == cc.Struct || t.Kind() == cc.Union || isArray(t) {
			pl, ok := b.lval(lhs)
			if ok {
				b.copyInto(pl, rhs)
			}
			return constant(ir.I32, 0)
		}
		v := b.conv(b.rvAs(rhs, t), t, x)
		pl, ok := b.lval(lhs)
		if !ok {
			return v
		}
		if want {
			v = b.stable(v)
		}
		b.store(pl, v, x)
		return v
	}
	// x op= y: the lvalue first, then y, then x's value, then the store.
	pl, ok := b.lval(lhs)
	if !ok {
		return constant(ir.I32, 0)
	}
	y := b.rv(rhs)
	if isAtomicPlace(pl) && b.atomic == 0 {
		// An atomic read-modify-write: y first, then one step.
		y = b.stable(y)
		b.enterAtomic()
		defer b.leaveAtomic()
	}
	old := b.load(pl, x)
	pos := b.posAt(x)
	var nv *ir.Expr
	if isPtr(t) && (x.Case == cc.AssignmentExpressionAdd || x.Case == cc.AssignmentExpressionSub) {
		n := b.cells(pointee(t), x)
		off := &ir.Expr{Op: ir.EMul, Type: ir.I64, X: b.convert(y, nil, nil, ir.I64), Y: constant(ir.I64, n), Pos: pos}
		if x.Case == cc.AssignmentExpressionSub {
			off = &ir.Expr{Op: ir.ENeg, Type: ir.I64, X: off, Pos: pos}
		}
		nv = &ir.Expr{Op: ir.EPtrAdd, Type: ir.Ptr, X: old, Y: off, Val: byteArith(pointee(t)), Pos: pos}
	} else {
		op := map[cc.AssignmentExpressionCase]ir.ExprOp{cc.AssignmentExpressionMul: ir.EMul,
			cc.AssignmentExpressionDiv: ir.EDiv, cc.AssignmentExpressionMod: ir.ERem, cc.AssignmentExpressionAdd: ir.EAdd,
			cc.AssignmentExpressionSub: ir.ESub, cc.AssignmentExpressionLsh: ir.EShl, cc.AssignmentExpressionRsh: ir.EShr,
			cc.AssignmentExpressionAnd: ir.EAnd, cc.AssignmentExpressionXor: ir.EXor, cc.AssignmentExpressionOr: ir.EOr}[x.Case]
		var ct ir.Type
		if op == ir.EShl || op == ir.EShr {
			ct = promoted(old.Type)
			y = b.convert(y, nil, nil, ir.I64)
		} else {
			ct = b.irType(cc.UsualArithmeticConversions(t, rhs.Type()), x)
			y = b.convert(y, rhs.Type(), nil, ct)
		}
		nv = &ir.Expr{Op: op, Type: ct, X: b.convert(old, t, nil, ct), Y: y, Pos: pos}
		nv = b.convert(nv, nil, t, old.Type)
	}
	if want {
		nv = b.stable(nv)
	}
	b.store(pl, nv, x)
	return nv
}

// copyInto assigns the value of e to a place: a scalar converted to the
// place's type, or a struct or array copied cell by cell.
func (b *builder) copyInto(pl place, e cc.ExpressionNode) {
	t := pl.typ
	if t.Kind() != cc.Struct && t.Kind() != cc.Union && !isArray(t) {
		b.store(pl, b.conv(b.rvAs(e, t), t, e), e)
		return
	}
	src, ok := b.lval(e)
	if !ok {
		return
	}
	lo, err := b.l.layoutOf(t)
	if err != nil {
		b.errorf(e, "%v", err)
		return
	}
	for i, c := range lo.cells {
		from, to := src.cell(i, nil), pl.cell(i, nil)
		var v *ir.Expr
		if from.ptr != nil {
			v = b.hoist(&ir.Expr{Op: ir.EDeref, Type: c.typ, X: from.ptr, Pos: b.cur.pos})
		} else {
			v = b.hoist(varExpr(from.v, from.index, c.typ, b.cur.pos))
		}
		if to.ptr != nil {
			b.assign(&ir.LValue{Ptr: to.ptr, Type: c.typ, Pos: b.cur.pos}, v)
		} else {
			b.assign(b.cellLV(to.v, to.index, c.typ), v)
		}
	}
}

// effect lowers e for its effects only.
func (b *builder) effect(e cc.ExpressionNode) {
	switch x := e.(type) {
	case *cc.ExpressionList:
		for l := x; l != nil; l = l.ExpressionList {
			b.effect(l.AssignmentExpression)
		}
		return
	case *cc.PrimaryExpression:
		switch x.Case {
		case cc.PrimaryExpressionExpr:
			b.effect(x.ExpressionList)
			return
		case cc.PrimaryExpressionStmt:
			b.stmtExpr(x, false)
			return
		}
	case *cc.AssignmentExpression:
		if x.Case != cc.AssignmentExpressionCond {
			b.assignment(x, false)
			return
		}
	case *cc.PostfixExpression:
		switch x.Case {
		case cc.PostfixExpressionInc, cc.PostfixExpressionDec:
			b.incDec(x.PostfixExpression, x.Case == cc.PostfixExpressionInc, true, false, x)
			return
		case cc.PostfixExpressionCall:
			b.call(x, false)
			return
		}
	case *cc.UnaryExpression:
		switch x.Case {
		case cc.UnaryExpressionInc, cc.UnaryExpressionDec:
			b.incDec(x.UnaryExpression, x.Case == cc.UnaryExpressionInc, false, false, x)
			return
		case cc.UnaryExpressionPostfix:
			b.effect(x.PostfixExpression)
			return
		}
	case *cc.CastExpression:
		if x.Case == cc.CastExpressionCast {
			b.effect(x.CastExpression)
			return
		}
		b.effect(x.UnaryExpression)
		return
	case *cc.ConditionalExpression:
		if x.Case == cc.ConditionalExpressionCond && x.ExpressionList != nil {
			c := b.cond(x.LogicalOrExpression)
			br := b.emit(&ir.Node{Op: ir.OpBranch, X: c})
			b.open = []*int{&br.Next}
			b.effect(x.ExpressionList)
			then := b.open
			b.open = []*int{&br.Else}
			b.effect(x.ConditionalExpression)
			b.open = append(b.open, then...)
			return
		}
	}
	if e.Type().Kind() == cc.Struct || e.Type().Kind() == cc.Union {
		return // a struct value computed for nothing
	}
	// A value computed for nothing: its reads still happen (a volatile
	// read), and its effects.
	b.rv(e)
}

// stmtExpr lowers a GNU statement expression ({ …; e; }): its value is the
// last expression statement's.
func (b *builder) stmtExpr(x *cc.PrimaryExpression, want bool) *ir.Expr {
	cs := x.CompoundStatement
	var last *cc.ExpressionStatement
	var items []*cc.BlockItem
	for list := cs.BlockItemList; list != nil; list = list.BlockItemList {
		items = append(items, list.BlockItem)
	}
	if n := len(items); want && n > 0 && items[n-1].Case == cc.BlockItemStmt &&
		items[n-1].Statement.Case == cc.StatementExpr {
		last = items[n-1].Statement.ExpressionStatement
		items = items[:n-1]
	}
	for _, it := range items {
		b.blockItem(it)
	}
	if last == nil || last.ExpressionList == nil {
		return constant(ir.I32, 0)
	}
	return b.stable(b.rv(last.ExpressionList))
}

// postfix lowers the postfix operators as values.
func (b *builder) postfix(x *cc.PostfixExpression, want bool) *ir.Expr {
	switch x.Case {
	case cc.PostfixExpressionPrimary:
		return b.rv(x.PrimaryExpression)
	case cc.PostfixExpressionIndex, cc.PostfixExpressionSelect, cc.PostfixExpressionPSelect:
		pl, ok := b.lval(x)
		if !ok {
			return constant(ir.I32, 0)
		}
		if isArray(x.Type()) {
			return b.addrOf(pl, x)
		}
		switch x.Type().Kind() {
		case cc.Struct, cc.Union:
			b.errorf(x, "a struct value here is not supported (only copied by assignment or initialization)")
			return constant(ir.I32, 0)
		}
		return b.load(pl, x)
	case cc.PostfixExpressionCall:
		if r := b.call(x, want); r != nil {
			return r
		}
		return constant(ir.I32, 0)
	case cc.PostfixExpressionInc, cc.PostfixExpressionDec:
		return b.incDec(x.PostfixExpression, x.Case == cc.PostfixExpressionInc, true, want, x)
	}
	b.errorf(x, "%s is not supported", b.l.text(x))
	return constant(ir.I32, 0)
}

// byteArith is an EPtrAdd's Val for arithmetic on a pointer to elem: 1 when
// elem is a byte (char, void as GNU C allows, _Bool), so that a run moving
// such a pointer over cells of more than a byte reports it unsupported
// (ir.Var.ByteCell) rather than counting bytes as cells; else 0.
func byteArith(elem cc.Type) int64 {
	if elem == nil {
		return 0
	}
	switch elem.Kind() {
	case cc.Char, cc.SChar, cc.UChar, cc.Void, cc.Bool:
		return 1
	}
	return 0
}
