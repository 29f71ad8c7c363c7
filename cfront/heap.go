package cfront

import (
	"fmt"
	"strings"

	"modernc.org/cc/v4"

	"kbmc/ir"
)

// memory lowers malloc, calloc, free, memset and strcpy.
func (b *builder) memory(name string, pe *cc.PostfixExpression, args []cc.ExpressionNode) (*ir.Expr, bool) {
	pos := b.posAt(pe)
	switch name {
	case "free":
		if len(args) != 1 {
			return b.arity(pe, name, 1)
		}
		b.emit(&ir.Node{Op: ir.OpFree, X: b.rv(args[0]), Pos: pos})
		return constant(ir.I32, 0), true
	case "memset":
		return b.memset(pe, args)
	case "strcpy":
		return b.strcpy(pe, args)
	case "malloc":
		if len(args) != 1 {
			return b.arity(pe, name, 1)
		}
		return b.alloc(pe, name, args[0], nil), true
	case "calloc":
		if len(args) != 2 {
			return b.arity(pe, name, 2)
		}
		return b.alloc(pe, name, args[0], args[1]), true
	}
	return nil, false
}

// alloc lowers malloc(size) (n nil) or calloc(n, size): an allocation site of
// its own with a pool of blocks, as many as the code around it may allocate
// (the loops' trip counts), each of the site's capacity. The element type
// comes from the pointer the result is assigned to (b.hint), or, for a
// malloc assigned to a void pointer inside a function that returns one (a
// safe_malloc wrapper), from the pointer the wrapper's caller wants
// (frame.elemHint); the size in bytes becomes a count of elements, and that
// a count of cells. A wrong guess cannot give a wrong answer: an access of a
// cell as another type than the block's stops the run as unsupported.
func (b *builder) alloc(pe *cc.PostfixExpression, name string, size, n cc.ExpressionNode) *ir.Expr {
	pos := b.posAt(pe)
	var elem cc.Type
	if b.hint != nil && b.hint.Kind() == cc.Ptr {
		elem = pointee(b.hint)
	}
	if (elem == nil || elem.Kind() == cc.Void) && b.frame != nil && b.frame.elemHint != nil {
		elem = pointee(b.frame.elemHint)
	}
	if elem == nil || elem.Kind() == cc.Void || elem.Kind() == cc.Function {
		b.errorf(pe, "%s whose element type is not known here: assign its result to a pointer of the element type (T *p = %s(…))", name, name)
		return constant(ir.Ptr, 0)
	}
	lo, err := b.l.layoutOf(elem)
	if err != nil {
		b.errorf(pe, "%s of %v", name, err)
		return constant(ir.Ptr, 0)
	}
	esz := elem.Size()
	if esz <= 0 {
		esz = 1
	}
	per := int64(lo.n())
	// The number of elements, as an expression, and the site's capacity.
	bytes := b.convert(b.rv(size), size.Type(), nil, ir.I64)
	if n != nil {
		count := b.convert(b.rv(n), n.Type(), nil, ir.I64)
		bytes = &ir.Expr{Op: ir.EMul, Type: ir.I64, X: count, Y: bytes, Pos: pos}
		if count.Op == ir.EConst && bytes.Y.Op == ir.EConst {
			bytes = constant(ir.I64, count.Val*bytes.Y.Val)
		}
	}
	var cells *ir.Expr
	capacity := int64(b.l.cfg.BlockCells)
	if bytes.Op == ir.EConst {
		elems := (bytes.Val + esz - 1) / esz
		cells = constant(ir.I64, elems*per)
		capacity = max(elems*per, 1)
	} else {
		elems := &ir.Expr{Op: ir.EDiv, Type: ir.I64, Pos: pos,
			X: &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: bytes, Y: constant(ir.I64, esz-1), Pos: pos}, Y: constant(ir.I64, esz)}
		cells = &ir.Expr{Op: ir.EMul, Type: ir.I64, X: elems, Y: constant(ir.I64, per), Pos: pos}
		capacity = max(capacity/per, 1) * per
	}
	if capacity > ir.MaxStateCells/4 {
		b.errorf(pe, "%s of %d cells: too large", name, capacity)
		return constant(ir.Ptr, 0)
	}
	blocks := min(b.trip, maxPool)
	if blocks < 1 {
		blocks = 1
	}
	site := fmt.Sprintf("%s at %s", name, pos)
	if b.t.Start != nil || b.t.Name != "main" {
		site = fmt.Sprintf("%s at %s in %s", name, pos, b.t.Name)
	}
	a := &ir.Alloc{Name: site, Pos: pos}
	a.Status = &ir.Var{Name: site + " (status)", Type: ir.I64, Len: blocks, Shared: true, Pos: pos}
	for i := range blocks {
		a.Status.CellNames = append(a.Status.CellNames, fmt.Sprintf("%s #%d (status)", site, i+1))
	}
	b.l.prog.Shared = append(b.l.prog.Shared, a.Status)
	for i := range blocks {
		bname := fmt.Sprintf("%s #%d", site, i+1)
		v := &ir.Var{Name: bname, Type: lo.cells[0].typ, Len: int(capacity), Shared: true, Addressable: true,
			Block: a, BlockIndex: i, Pos: pos}
		if lo.types() != nil || per > 1 {
			v.CellTypes = make([]ir.Type, capacity)
			v.CellNames = make([]string, capacity)
			for c := range capacity {
				ci := lo.cells[c%per]
				v.CellTypes[c] = ci.typ
				v.CellNames[c] = fmt.Sprintf("%s[%d]%s", bname, c/per, ci.name)
			}
		}
		if lo.atomics(false) != nil {
			v.AtomicCells = make([]bool, capacity)
			for c := range capacity {
				v.AtomicCells[c] = lo.cells[c%per].atomic
			}
		}
		a.Blocks = append(a.Blocks, v)
		b.l.prog.Shared = append(b.l.prog.Shared, v)
	}
	b.l.prog.Allocs = append(b.l.prog.Allocs, a)
	r := b.temp(ir.Ptr)
	b.emit(&ir.Node{Op: ir.OpAlloc, Alloc: a, X: cells, LHS: &ir.LValue{Var: r, Pos: pos}, Pos: pos})
	return &ir.Expr{Op: ir.EVar, Type: ir.Ptr, Var: r, Pos: pos}
}

// memset(p, c, n) with constant c and n: every cell of the n bytes from p set,
// for a c of 0 (any cell) or a char array (any c).
func (b *builder) memset(pe *cc.PostfixExpression, args []cc.ExpressionNode) (*ir.Expr, bool) {
	if len(args) != 3 {
		return b.arity(pe, "memset", 3)
	}
	c, ok1 := constValue(args[1])
	n, ok2 := constValue(args[2])
	pl, ok := b.pointed(args[0])
	if !ok {
		return constant(ir.Ptr, 0), true
	}
	t := pl.typ
	if !ok1 || !ok2 || t == nil || t.Kind() == cc.Void {
		b.errorf(pe, "memset is supported with a constant value and size, on a typed pointer")
		return constant(ir.Ptr, 0), true
	}
	lo, err := b.l.layoutOf(t)
	if err != nil {
		b.errorf(pe, "memset of %v", err)
		return constant(ir.Ptr, 0), true
	}
	esz := max(t.Size(), 1)
	for e := int64(0); e*esz < n; e++ {
		for i, ci := range lo.cells {
			if e*esz+ci.off >= n {
				break
			}
			if c != 0 && ci.typ != ir.I8 && ci.typ != ir.U8 {
				b.errorf(pe, "memset of a non-zero value is supported on char arrays only")
				return constant(ir.Ptr, 0), true
			}
			cell := pl.cell(int(e)*lo.n()+i, nil)
			cell.irt = ci.typ
			b.store(cell, constant(ci.typ, c), pe)
		}
	}
	return b.addrOf(pl, pe), true
}

// strcpy lowers strcpy(dst, "literal"): the destination pointer evaluated
// once, then the literal's characters and its terminating zero stored one by
// one, each a step of its own where another thread may reach the cell, as the
// library's loop stores them. A source that is not a string literal would need
// a loop over memory; it is reported instead.
func (b *builder) strcpy(pe *cc.PostfixExpression, args []cc.ExpressionNode) (*ir.Expr, bool) {
	if len(args) != 2 {
		return b.arity(pe, "strcpy", 2)
	}
	src, ok := stripParens(args[1]).Value().(cc.StringValue)
	if !ok {
		b.errorf(pe, "strcpy is supported with a string literal as its source")
		return constant(ir.Ptr, 0), true
	}
	t := pointee(args[0].Type())
	if t == nil || t.Size() != 1 || !cc.IsIntegerType(t) {
		b.errorf(pe, "strcpy is supported into a char array only")
		return constant(ir.Ptr, 0), true
	}
	cell := ir.I8
	if !cc.IsSignedInteger(t) {
		cell = ir.U8
	}
	dst := b.stable(b.rv(args[0]))
	pl := place{ptr: dst, typ: t}
	text := string(src) // cc keeps the terminating zero
	if !strings.HasSuffix(text, "\x00") {
		text += "\x00"
	}
	for i := range len(text) {
		v := int64(text[i])
		if cell == ir.I8 {
			v = int64(int8(text[i]))
		}
		b.store(pl.cell(i, t), constant(cell, v), pe)
	}
	return dst, true
}

// atomicBuiltin lowers GCC's __sync_* and __atomic_* builtins as atomic
// sections: the pointer and operands are evaluated first, then the read and
// write of the cell happen in one step.
func (b *builder) atomicBuiltin(name string, pe *cc.PostfixExpression, args []cc.ExpressionNode) (*ir.Expr, bool) {
	pos := b.posAt(pe)
	ops := map[string]ir.ExprOp{"add": ir.EAdd, "sub": ir.ESub, "or": ir.EOr, "and": ir.EAnd, "xor": ir.EXor}
	var op ir.ExprOp
	var fetchFirst, hasOp bool
	base := name
	switch {
	case len(name) > 7 && name[:7] == "__sync_":
		base = name[7:]
	case len(name) > 9 && name[:9] == "__atomic_":
		base = name[9:]
	}
	for k, o := range ops {
		if base == "fetch_and_"+k || base == "fetch_"+k {
			op, fetchFirst, hasOp = o, true, true
		}
		if base == k+"_and_fetch" || base == k+"_fetch" {
			op, hasOp = o, true
		}
	}
	if len(args) == 0 {
		if base == "synchronize" || base == "thread_fence" || base == "signal_fence" {
			return constant(ir.I32, 0), true
		}
		return b.arity(pe, name, 1)
	}
	pl, ok := b.pointed(args[0])
	if !ok {
		return constant(ir.I32, 0), true
	}
	t := b.scalarType(pl, pe)
	val := func(i int) *ir.Expr { return b.stable(b.convert(b.rv(args[i]), args[i].Type(), nil, t)) }
	read := func() *ir.Expr {
		old := b.temp(t)
		b.assign(&ir.LValue{Var: old, Pos: pos}, b.loadRaw(pl, t))
		return &ir.Expr{Op: ir.EVar, Type: t, Var: old, Pos: pos}
	}
	switch {
	case hasOp:
		v := val(1)
		b.enterAtomic()
		old := read()
		nv := b.stable(&ir.Expr{Op: op, Type: t, X: old, Y: v, Pos: pos})
		b.store(pl, nv, pe)
		b.atomic--
		if fetchFirst {
			return old, true
		}
		return nv, true
	case base == "bool_compare_and_swap" || base == "val_compare_and_swap":
		o, n := val(1), val(2)
		b.enterAtomic()
		old := read()
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: old, Y: o, Pos: pos}})
		b.open = []*int{&br.Next}
		b.store(pl, n, pe)
		b.open = append(b.open, &br.Else)
		b.atomic--
		if base == "val_compare_and_swap" {
			return old, true
		}
		return b.convert(&ir.Expr{Op: ir.EEq, Type: ir.Bool, X: old, Y: o, Pos: pos}, nil, nil, ir.I32), true
	case base == "lock_test_and_set" || base == "exchange_n":
		v := val(1)
		b.enterAtomic()
		old := read()
		b.store(pl, v, pe)
		b.atomic--
		return old, true
	case base == "lock_release":
		b.store(pl, constant(t, 0), pe)
		return constant(ir.I32, 0), true
	case base == "load_n" || base == "load":
		if base == "load" {
			break
		}
		return b.load(pl, pe), true
	case base == "store_n":
		b.store(pl, val(1), pe)
		return constant(ir.I32, 0), true
	case base == "compare_exchange_n":
		if len(args) < 3 {
			return b.arity(pe, name, 6)
		}
		exp, ok := b.pointed(args[1])
		if !ok {
			return constant(ir.I32, 0), true
		}
		n := val(2)
		b.enterAtomic()
		old := read()
		want := b.loadRaw(exp, t)
		eq := b.stable(&ir.Expr{Op: ir.EEq, Type: ir.Bool, X: old, Y: want, Pos: pos})
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: eq})
		b.open = []*int{&br.Next}
		b.store(pl, n, pe)
		then := b.open
		b.open = []*int{&br.Else}
		b.store(exp, old, pe)
		b.open = append(b.open, then...)
		b.atomic--
		return b.convert(eq, nil, nil, ir.I32), true
	}
	b.errorf(pe, "%s is not supported", name)
	return constant(ir.I32, 0), true
}

// loadRaw reads a scalar place of ir type t without hoisting (inside an atomic
// section).
func (b *builder) loadRaw(pl place, t ir.Type) *ir.Expr {
	if pl.ptr != nil {
		return &ir.Expr{Op: ir.EDeref, Type: t, X: pl.ptr, Pos: b.cur.pos}
	}
	return varExpr(pl.v, pl.index, t, b.cur.pos)
}

// isVoidPointer reports whether t is void *.
func isVoidPointer(t cc.Type) bool {
	return t != nil && t.Kind() == cc.Ptr && pointee(t) != nil && pointee(t).Kind() == cc.Void
}
