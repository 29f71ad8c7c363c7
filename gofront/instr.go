package gofront

import (
	"fmt"
	gconst "go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"kbmc/ir"
)

// instr lowers one SSA instruction.
func (b *builder) instr(in ssa.Instruction) {
	switch in := in.(type) {
	case *ssa.DebugRef:
	case *ssa.Phi:
		b.phiVars(in)
	case *ssa.Jump:
		b.edge(in.Block(), in.Block().Succs[0])
	case *ssa.If:
		cond := b.scalarValue(in.Cond)
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: cond})
		b.open = []*int{&br.Next}
		b.edge(in.Block(), in.Block().Succs[0])
		b.open = []*int{&br.Else}
		b.edge(in.Block(), in.Block().Succs[1])
	case *ssa.Return:
		b.ret(in)
	case *ssa.Panic:
		b.panicNode(b.panicText(in.X))
		b.open = nil
	case *ssa.Alloc:
		b.alloc(in)
	case *ssa.Store:
		if isInitGuard(in.Addr) {
			break // kbmc initializes the package once, before the entry
		}
		b.store(b.scalarValue(in.Addr), b.layout(in.Val.Type()), b.value(in.Val))
	case *ssa.UnOp:
		b.unop(in)
	case *ssa.BinOp:
		b.define(in, []*ir.Expr{b.binop(in.Op, in.X, in.Y, in.Type())})
	case *ssa.Convert:
		b.convert(in)
	case *ssa.ChangeType:
		b.define(in, append([]*ir.Expr(nil), b.value(in.X)...))
	case *ssa.ChangeInterface:
		b.define(in, append([]*ir.Expr(nil), b.value(in.X)...))
	case *ssa.MakeInterface:
		b.makeInterface(in)
	case *ssa.TypeAssert:
		b.typeAssert(in)
	case *ssa.FieldAddr:
		off, err := b.l.fieldOffset(typeparamsDeref(in.X.Type()), in.Field)
		if err != nil {
			b.errorf("%v", err)
		}
		b.define(in, []*ir.Expr{b.nilCheck(b.scalarValue(in.X), off)})
	case *ssa.Field:
		off, err := b.l.fieldOffset(in.X.Type(), in.Field)
		if err != nil {
			b.errorf("%v", err)
		}
		n := b.layout(in.Type()).n()
		b.define(in, append([]*ir.Expr(nil), b.value(in.X)[off:off+n]...))
	case *ssa.IndexAddr:
		b.indexAddr(in)
	case *ssa.Index:
		b.index(in)
	case *ssa.Extract:
		lo := b.layout(in.Tuple.Type())
		n := b.layout(in.Type()).n()
		cells := b.value(in.Tuple)
		if in.Index >= len(lo.fields) || lo.fields[in.Index]+n > len(cells) {
			b.frame.vals[in] = b.zero(in.Type()) // an error was reported
			break
		}
		start := lo.fields[in.Index]
		b.frame.vals[in] = cells[start : start+n]
		if cl := b.frame.funcs[in.Tuple]; cl != nil && in.Index < len(cl.parts) && cl.parts[in.Index] != nil {
			b.frame.funcs[in] = cl.parts[in.Index]
		}
	case *ssa.Slice:
		b.slice(in)
	case *ssa.MakeSlice:
		b.makeSlice(in)
	case *ssa.MakeClosure:
		b.makeClosure(in)
	case *ssa.Call:
		res := b.call(in.Common(), in)
		if in.Type() != nil && types.Identical(in.Type(), types.NewTuple()) {
			res = nil
		}
		if _, ok := in.Type().(*types.Tuple); ok && in.Type().(*types.Tuple).Len() == 0 {
			res = nil
		}
		b.frame.vals[in] = res
	case *ssa.Go:
		b.spawn(in)
	case *ssa.Defer:
		b.deferCall(in)
	case *ssa.RunDefers:
		b.runDefers()
	case *ssa.MakeChan:
		b.makeChan(in)
	case *ssa.Send:
		b.send(in)
	case *ssa.Select:
		b.selectOp(in)
	case *ssa.MakeMap:
		b.makeMap(in)
	case *ssa.MapUpdate:
		b.mapUpdate(in)
	case *ssa.Lookup:
		b.lookup(in)
	case *ssa.Range:
		b.rangeMap(in)
	case *ssa.Next:
		b.next(in)
	default:
		b.errorf("%T is not supported (%s)", in, in)
	}
}

// typeparamsDeref is the element type of a pointer type.
func typeparamsDeref(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// ret stores the results and leaves the frame.
func (b *builder) ret(in *ssa.Return) {
	f := b.frame
	if len(in.Results) == 1 {
		if _, isFunc := in.Results[0].Type().Underlying().(*types.Signature); isFunc {
			cl := b.funcOf(in.Results[0], false)
			if cl == nil || f.resultFunc != nil && f.resultFunc.fn != cl.fn {
				f.conflict = true
			}
			f.resultFunc = cl
		}
	}
	var cells []*ir.Expr
	for _, r := range in.Results {
		cells = append(cells, b.value(r)...)
	}
	for i, v := range f.results {
		if i < len(cells) {
			b.assign(v, cells[i])
		}
	}
	f.returns = append(f.returns, b.open...)
	b.open = nil
}

// panicNode is a Go panic (or a fatal error) at the current point.
func (b *builder) panicNode(msg string) {
	b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: panicKind, Msg: msg})
}

// panicKind is the violation a Go panic reports.
const panicKind = ir.Panic

// panicText is what a panic's argument says, when kbmc knows it.
func (b *builder) panicText(v ssa.Value) string {
	for {
		mi, ok := v.(*ssa.MakeInterface)
		if !ok {
			break
		}
		v = mi.X
	}
	if c, ok := v.(*ssa.Const); ok && c.Value != nil {
		if c.Value.Kind() == gconst.String {
			return gconst.StringVal(c.Value)
		}
		return c.Value.String()
	}
	return b.text
}

// assertOr reports a panic with msg unless cond holds.
func (b *builder) assertOr(cond *ir.Expr, msg string) {
	if cond.Op == ir.EConst && cond.Val != 0 {
		return
	}
	b.emit(&ir.Node{Op: ir.OpAssert, X: cond, Kind: panicKind, Msg: msg})
}

// ptrAdd is pointer p moved by off cells.
func ptrAdd(p *ir.Expr, off *ir.Expr) *ir.Expr {
	if off.Op == ir.EConst && off.Val == 0 {
		return p
	}
	return &ir.Expr{Op: ir.EPtrAdd, Type: ir.Ptr, X: p, Y: off, Pos: p.Pos}
}

// nilCheck is p moved by off cells, after Go's nil check.
func (b *builder) nilCheck(p *ir.Expr, off int) *ir.Expr {
	if p.Op != ir.EAddr {
		b.assertOr(&ir.Expr{Op: ir.ENe, Type: ir.Bool, X: p, Y: constant(ir.Ptr, 0), Pos: b.pos},
			"runtime error: invalid memory address or nil pointer dereference")
	}
	return ptrAdd(p, constant(ir.I64, int64(off)))
}

// load reads the cells at p, each an access of its own.
func (b *builder) load(p *ir.Expr, lo *layout) []*ir.Expr {
	cells := make([]*ir.Expr, lo.n())
	for i, c := range lo.cells {
		t := b.temp(c.typ)
		b.assign(t, &ir.Expr{Op: ir.EDeref, Type: c.typ, X: ptrAdd(p, constant(ir.I64, int64(i))), Pos: b.pos})
		cells[i] = varRef(t)
	}
	return cells
}

// store writes cells at p, each an access of its own.
func (b *builder) store(p *ir.Expr, lo *layout, cells []*ir.Expr) {
	for i, c := range lo.cells {
		b.emit(&ir.Node{Op: ir.OpAssign, LHS: &ir.LValue{Ptr: ptrAdd(p, constant(ir.I64, int64(i))), Type: c.typ, Pos: b.pos},
			X: cells[i]})
	}
}

// alloc is a variable that lives in memory: an object of its own when the
// code runs once per goroutine, else a block of a pool (one per run, up to
// the bound). A variable that does not escape is zeroed where it is
// declared, so that each run of a loop starts from zero.
func (b *builder) alloc(in *ssa.Alloc) {
	elem := typeparamsDeref(in.Type())
	lo := b.layout(elem)
	name := in.Comment
	if name == "" {
		name = in.Name()
	}
	if b.runsOnce(in.Block()) || !in.Heap || libraryVarargs(in) {
		v := b.l.objectVar(b.t.Name+"::"+name, lo, b.pos)
		b.l.registerObject(elem, v)
		p := &ir.Expr{Op: ir.EAddr, Type: ir.Ptr, Var: v, Pos: b.pos}
		if !b.runsOnce(in.Block()) {
			b.store(p, lo, b.zero(elem))
		}
		b.frame.vals[in] = []*ir.Expr{p}
		return
	}
	b.define(in, []*ir.Expr{b.allocBlockOf(elem, name, lo)})
}

// libraryVarargs reports whether a heap allocation is the array of a
// variadic call's arguments that only a builtin (append) or a modelled
// library call (fmt's) reads: it does not outlive the call, so one object,
// cleared where it is made, serves every run of a loop (a pool of blocks
// would cut the loop at its bound).
func libraryVarargs(a *ssa.Alloc) bool {
	if a.Comment != "varargs" {
		return false
	}
	for _, r := range *a.Referrers() {
		switch r := r.(type) {
		case *ssa.IndexAddr:
		case *ssa.Slice:
			for _, u := range *r.Referrers() {
				c, ok := u.(ssa.CallInstruction)
				if !ok || c.Common().IsInvoke() {
					return false
				}
				switch f := c.Common().Value.(type) {
				case *ssa.Builtin:
				case *ssa.Function:
					if len(f.Blocks) > 0 {
						return false // the program's own variadic function may keep it
					}
				default:
					return false
				}
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// newObject is a fresh object of layout lo (holding a value of type t, nil
// for none an interface may hold), made by code of block bb: an object of
// its own when the code runs once per goroutine, else a block of a pool
// made for the site (one per run, up to the bound).
func (b *builder) newObject(bb *ssa.BasicBlock, name string, lo *layout, t types.Type) *ir.Expr {
	if !b.runsOnce(bb) {
		return b.allocBlockOf(t, name, lo)
	}
	v := b.l.objectVar(fmt.Sprintf("%s::%s at %s", b.t.Name, name, site(b.pos)), lo, b.pos)
	if t != nil {
		b.l.registerObject(t, v)
	}
	return &ir.Expr{Op: ir.EAddr, Type: ir.Ptr, Var: v, Pos: b.pos}
}

// allocBlockOf takes a block of a pool made for one allocation site, of
// blocks that hold a value of type t (nil: no type an interface may hold).
func (b *builder) allocBlockOf(t types.Type, name string, lo *layout) *ir.Expr {
	pool := fmt.Sprintf("%s at %s in %s", name, site(b.pos), b.t.Name)
	a := &ir.Alloc{Name: pool, Pos: b.pos}
	blocks := b.l.cfg.LoopBlocks
	a.Status = &ir.Var{Name: pool + " (status)", Type: ir.I64, Len: blocks, Shared: true, Pos: b.pos}
	for i := range blocks {
		a.Status.CellNames = append(a.Status.CellNames, fmt.Sprintf("%s #%d (status)", pool, i+1))
	}
	b.l.prog.Shared = append(b.l.prog.Shared, a.Status)
	for i := range blocks {
		v := b.l.objectVar(fmt.Sprintf("%s #%d", pool, i+1), lo, b.pos)
		if v.Len == 0 {
			v.Len = 1
			v.CellTypes = lo.types()
			v.CellNames = []string{v.Name}
		}
		v.Block, v.BlockIndex = a, i
		a.Blocks = append(a.Blocks, v)
		if t != nil {
			b.l.registerObject(t, v)
		}
	}
	b.l.prog.Allocs = append(b.l.prog.Allocs, a)
	r := b.temp(ir.Ptr)
	b.emit(&ir.Node{Op: ir.OpAlloc, Alloc: a, X: constant(ir.I64, int64(lo.n())), LHS: &ir.LValue{Var: r, Type: ir.Ptr, Pos: b.pos}})
	return varRef(r)
}

func (b *builder) unop(in *ssa.UnOp) {
	switch in.Op {
	case token.MUL:
		if isInitGuard(in.X) {
			b.frame.vals[in] = []*ir.Expr{constant(ir.Bool, 0)}
			return
		}
		p := b.scalarValue(in.X)
		lo := b.layout(in.Type())
		b.frame.vals[in] = b.load(b.nilCheck(p, 0), lo)
	case token.ARROW:
		b.recv(in)
	case token.NOT:
		b.define(in, []*ir.Expr{{Op: ir.ENot, Type: ir.Bool, X: b.scalarValue(in.X), Pos: b.pos}})
	case token.SUB:
		x := b.scalarValue(in.X)
		b.define(in, []*ir.Expr{{Op: ir.ENeg, Type: x.Type, X: x, Pos: b.pos}})
	case token.XOR:
		x := b.scalarValue(in.X)
		b.define(in, []*ir.Expr{{Op: ir.ECompl, Type: x.Type, X: x, Pos: b.pos}})
	default:
		b.errorf("operator %s is not supported", in.Op)
		b.frame.vals[in] = b.zero(in.Type())
	}
}

var binops = map[token.Token]ir.ExprOp{
	token.ADD: ir.EAdd, token.SUB: ir.ESub, token.MUL: ir.EMul, token.QUO: ir.EDiv, token.REM: ir.ERem,
	token.AND: ir.EAnd, token.OR: ir.EOr, token.XOR: ir.EXor,
	token.EQL: ir.EEq, token.NEQ: ir.ENe, token.LSS: ir.ELt, token.LEQ: ir.ELe, token.GTR: ir.EGt, token.GEQ: ir.EGe,
}

// binop is x op y.
func (b *builder) binop(op token.Token, xv, yv ssa.Value, rt types.Type) *ir.Expr {
	if isString(xv.Type()) && op != token.EQL && op != token.NEQ {
		b.errorf("string operator %s is not supported (strings are tokens: only == and != of constants)", op)
		return b.zero(rt)[0]
	}
	xs, ys := b.value(xv), b.value(yv)
	if isString(xv.Type()) {
		// Strings are tokens: equal constants, equal tokens; a string
		// kbmc does not know stops the run where it is compared.
		b.knownString(xs[0])
		b.knownString(ys[0])
	}
	if len(xs) != 1 {
		// Comparing structs or arrays: cell by cell.
		if op != token.EQL && op != token.NEQ {
			b.errorf("operator %s on %s is not supported", op, xv.Type())
			return constant(ir.Bool, 0)
		}
		var all *ir.Expr
		for i := range xs {
			eq := &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: xs[i], Y: ys[i], Pos: b.pos}
			if all == nil {
				all = eq
			} else {
				all = &ir.Expr{Op: ir.ELAnd, Type: ir.Bool, X: all, Y: eq, Pos: b.pos}
			}
		}
		if op == token.NEQ {
			return &ir.Expr{Op: ir.ENot, Type: ir.Bool, X: all, Pos: b.pos}
		}
		return all
	}
	x, y := xs[0], ys[0]
	switch op {
	case token.SHL, token.SHR:
		return b.shift(op, x, y, yv.Type())
	case token.AND_NOT:
		return &ir.Expr{Op: ir.EAnd, Type: x.Type, X: x, Y: &ir.Expr{Op: ir.ECompl, Type: x.Type, X: y, Pos: b.pos}, Pos: b.pos}
	}
	eop, ok := binops[op]
	if !ok {
		b.errorf("operator %s is not supported", op)
		return b.zero(rt)[0]
	}
	t := x.Type
	if eop >= ir.ELt && eop <= ir.ENe {
		if y.Type != x.Type && x.Op == ir.EConst {
			x = constant(y.Type, x.Val)
		} else if y.Type != x.Type && y.Op == ir.EConst {
			y = constant(x.Type, y.Val)
		}
		t = ir.Bool
	}
	return &ir.Expr{Op: eop, Type: t, X: x, Y: y, Pos: b.pos}
}

func isString(t types.Type) bool {
	bt, ok := t.Underlying().(*types.Basic)
	return ok && bt.Info()&types.IsString != 0
}

func isConst(v ssa.Value) bool { _, ok := v.(*ssa.Const); return ok }

// shift is Go's shift: a count of at least the width gives 0 (or -1 for a
// negative value shifted right); a negative count panics.
func (b *builder) shift(op token.Token, x, y *ir.Expr, yt types.Type) *ir.Expr {
	w := int64(x.Type.Bits(64))
	if bt, ok := yt.Underlying().(*types.Basic); ok && bt.Info()&types.IsUnsigned == 0 {
		b.assertOr(&ir.Expr{Op: ir.EGe, Type: ir.Bool, X: y, Y: constant(y.Type, 0), Pos: b.pos}, "runtime error: negative shift amount")
	}
	count := y
	if y.Type != x.Type {
		count = &ir.Expr{Op: ir.EConv, Type: x.Type, X: y, Pos: b.pos}
	}
	eop, over := ir.EShl, constant(x.Type, 0)
	if op == token.SHR {
		eop = ir.EShr
		if x.Type.Signed() {
			over = &ir.Expr{Op: ir.ECond, Type: x.Type, X: &ir.Expr{Op: ir.ELt, Type: ir.Bool, X: x, Y: constant(x.Type, 0), Pos: b.pos},
				Y: constant(x.Type, -1), Z: constant(x.Type, 0), Pos: b.pos}
		}
	}
	big := &ir.Expr{Op: ir.EGe, Type: ir.Bool, X: &ir.Expr{Op: ir.EConv, Type: ir.U64, X: y, Pos: b.pos}, Y: constant(ir.U64, w), Pos: b.pos}
	return &ir.Expr{Op: ir.ECond, Type: x.Type, X: big, Y: over, Z: &ir.Expr{Op: eop, Type: x.Type, X: x, Y: count, Pos: b.pos}, Pos: b.pos}
}

// convert is a conversion between integer types (or to and from
// unsafe.Pointer).
func (b *builder) convert(in *ssa.Convert) {
	from, to := in.X.Type().Underlying(), in.Type().Underlying()
	fb, fok := from.(*types.Basic)
	tb, tok := to.(*types.Basic)
	if fok && tok && fb.Info()&types.IsInteger != 0 && tb.Info()&types.IsInteger != 0 {
		x := b.scalarValue(in.X)
		t := intType(tb)
		if x.Type == t {
			b.define(in, []*ir.Expr{x})
			return
		}
		b.define(in, []*ir.Expr{{Op: ir.EConv, Type: t, X: x, Pos: b.pos}})
		return
	}
	if pointerLike(from) && pointerLike(to) {
		// unsafe.Pointer, uintptr and pointers convert keeping their bits.
		x := b.scalarValue(in.X)
		t := b.layout(in.Type()).cells[0].typ
		b.define(in, []*ir.Expr{{Op: ir.EConv, Type: t, X: x, Pos: b.pos}})
		return
	}
	b.errorf("conversion from %s to %s is not supported", in.X.Type(), in.Type())
	b.frame.vals[in] = b.zero(in.Type())
}

// makeInterface: an interface holds its value when the value is a pointer;
// any other value is a token of its site (not nil, and equal only to values
// from the same site, which kbmc does not compare further).
func (b *builder) makeInterface(in *ssa.MakeInterface) {
	xs := b.value(in.X)
	if _, isPtr := in.X.Type().Underlying().(*types.Pointer); !isPtr && hasMethods(b.l.pkg.Prog, in.X.Type()) && isNamedInPkg(in.X.Type(), b.l.pkg.Pkg) {
		// A value of a named type with methods: boxed, so that a method
		// call finds its type.
		b.frame.vals[in] = []*ir.Expr{b.box(in.X.Type(), xs, in.Block())}
		return
	}
	if len(xs) == 1 && xs[0].Type == ir.Ptr {
		b.frame.vals[in] = xs
		return
	}
	b.frame.vals[in] = []*ir.Expr{constant(ir.Ptr, b.l.token(fmt.Sprint("interface at ", b.pos)))}
}

// typeAssert: only to the pointer type the interface was made of, without
// comma-ok (kbmc does not keep an interface's dynamic type).
func (b *builder) typeAssert(in *ssa.TypeAssert) {
	if b.typeAssertObject(in) {
		return
	}
	if _, isPtr := in.AssertedType.Underlying().(*types.Pointer); isPtr && !in.CommaOk {
		b.frame.vals[in] = b.value(in.X)
		return
	}
	if _, isIface := in.AssertedType.Underlying().(*types.Interface); isIface && !in.CommaOk {
		b.frame.vals[in] = b.value(in.X)
		return
	}
	b.errorf("type assertion to %s is not supported (kbmc does not keep an interface's dynamic type)", in.AssertedType)
	b.frame.vals[in] = b.zero(in.Type())
}

// bounds asserts 0 <= i < n, Go's index check.
func (b *builder) bounds(i, n *ir.Expr) {
	if i.Op == ir.EConst && n.Op == ir.EConst && i.Val >= 0 && i.Val < n.Val {
		return
	}
	i64 := i
	if i.Type != ir.I64 {
		i64 = &ir.Expr{Op: ir.EConv, Type: ir.I64, X: i, Pos: b.pos}
	}
	ok := &ir.Expr{Op: ir.ELAnd, Type: ir.Bool, Pos: b.pos,
		X: &ir.Expr{Op: ir.EGe, Type: ir.Bool, X: i64, Y: constant(ir.I64, 0), Pos: b.pos},
		Y: &ir.Expr{Op: ir.ELt, Type: ir.Bool, X: i64, Y: n, Pos: b.pos}}
	b.assertOr(ok, "runtime error: index out of range")
}

func (b *builder) scaled(i *ir.Expr, n int) *ir.Expr {
	if i.Type != ir.I64 {
		i = &ir.Expr{Op: ir.EConv, Type: ir.I64, X: i, Pos: b.pos}
	}
	if n == 1 {
		return i
	}
	if i.Op == ir.EConst {
		return constant(ir.I64, i.Val*int64(n))
	}
	return &ir.Expr{Op: ir.EMul, Type: ir.I64, X: i, Y: constant(ir.I64, int64(n)), Pos: b.pos}
}

// indexAddr is &a[i] of a pointer to an array or of a slice.
func (b *builder) indexAddr(in *ssa.IndexAddr) {
	i := b.scalarValue(in.Index)
	elem := typeparamsDeref(in.Type())
	n := b.layout(elem).n()
	switch t := in.X.Type().Underlying().(type) {
	case *types.Pointer:
		arr := t.Elem().Underlying().(*types.Array)
		p := b.nilCheck(b.scalarValue(in.X), 0)
		b.bounds(i, constant(ir.I64, arr.Len()))
		b.define(in, []*ir.Expr{ptrAdd(p, b.scaled(i, n))})
	case *types.Slice:
		s := b.value(in.X)
		b.bounds(i, s[1])
		b.define(in, []*ir.Expr{ptrAdd(s[0], b.scaled(i, n))})
	default:
		b.errorf("indexing %s is not supported", in.X.Type())
		b.frame.vals[in] = []*ir.Expr{constant(ir.Ptr, 0)}
	}
}

// index is a[i] of an array value.
func (b *builder) index(in *ssa.Index) {
	arr, ok := in.X.Type().Underlying().(*types.Array)
	i := b.scalarValue(in.Index)
	if !ok || i.Op != ir.EConst {
		b.errorf("indexing %s by a variable is not supported", in.X.Type())
		b.frame.vals[in] = b.zero(in.Type())
		return
	}
	b.bounds(i, constant(ir.I64, arr.Len()))
	n := b.layout(in.Type()).n()
	xs := b.value(in.X)
	b.frame.vals[in] = xs[int(i.Val)*n : int(i.Val+1)*n]
}

// slice is s[lo:hi] of a pointer to an array or of a slice.
func (b *builder) slice(in *ssa.Slice) {
	var ptr, length, capa *ir.Expr
	switch t := in.X.Type().Underlying().(type) {
	case *types.Pointer:
		arr, ok := t.Elem().Underlying().(*types.Array)
		if !ok {
			b.errorf("slicing %s is not supported", in.X.Type())
			b.frame.vals[in] = b.zero(in.Type())
			return
		}
		ptr, length, capa = b.scalarValue(in.X), constant(ir.I64, arr.Len()), constant(ir.I64, arr.Len())
	case *types.Slice:
		s := b.value(in.X)
		ptr, length, capa = s[0], s[1], s[2]
	default:
		b.errorf("slicing %s is not supported", in.X.Type())
		b.frame.vals[in] = b.zero(in.Type())
		return
	}
	if in.Max != nil {
		b.errorf("a 3-index slice is not supported")
	}
	lo, hi := constant(ir.I64, 0), length
	if in.Low != nil {
		lo = b.asInt(b.scalarValue(in.Low))
	}
	if in.High != nil {
		hi = b.asInt(b.scalarValue(in.High))
	}
	b.assertOr(&ir.Expr{Op: ir.ELAnd, Type: ir.Bool, Pos: b.pos,
		X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: constant(ir.I64, 0), Y: lo, Pos: b.pos},
		Y: &ir.Expr{Op: ir.ELAnd, Type: ir.Bool, Pos: b.pos,
			X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: lo, Y: hi, Pos: b.pos},
			Y: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: hi, Y: capa, Pos: b.pos}}},
		"runtime error: slice bounds out of range")
	n := b.layout(in.Type().Underlying().(*types.Slice).Elem()).n()
	sub := func(x, y *ir.Expr) *ir.Expr {
		if y.Op == ir.EConst && y.Val == 0 {
			return x
		}
		return &ir.Expr{Op: ir.ESub, Type: ir.I64, X: x, Y: y, Pos: b.pos}
	}
	b.define(in, []*ir.Expr{ptrAdd(ptr, b.scaled(lo, n)), sub(hi, lo), sub(capa, lo)})
}

func (b *builder) asInt(x *ir.Expr) *ir.Expr {
	if x.Type == ir.I64 {
		return x
	}
	if x.Op == ir.EConst {
		return constant(ir.I64, x.Val)
	}
	return &ir.Expr{Op: ir.EConv, Type: ir.I64, X: x, Pos: b.pos}
}

// makeSlice is make([]T, n, m): the backing array is an object (or a pool's
// block) of m elements, or of append's block of appendCap elements when the
// sizes are known only at run time (more stop the run as unsupported).
func (b *builder) makeSlice(in *ssa.MakeSlice) {
	n, m := b.scalarValue(in.Len), b.scalarValue(in.Cap)
	elem := in.Type().Underlying().(*types.Slice).Elem()
	if n.Op != ir.EConst || m.Op != ir.EConst {
		n, m = b.hold(n), b.hold(m)
		b.assertOr(&ir.Expr{Op: ir.ELAnd, Type: ir.Bool, X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: constant(ir.I64, 0), Y: n, Pos: b.pos},
			Y: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: n, Y: m, Pos: b.pos}, Pos: b.pos}, "runtime error: makeslice: len out of range")
		b.emit(&ir.Node{Op: ir.OpAssert, X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: m, Y: constant(ir.I64, appendCap), Pos: b.pos},
			Kind: ir.Unsupported, Msg: fmt.Sprintf("a slice made with more than %d elements: not supported", appendCap)})
		p := b.newObject(in.Block(), "make", b.layout(types.NewArray(elem, appendCap)), nil)
		b.define(in, []*ir.Expr{p, n, m})
		return
	}
	if n.Val < 0 || m.Val < n.Val {
		b.panicNode("runtime error: makeslice: len out of range")
		b.frame.vals[in] = b.zero(in.Type())
		return
	}
	arr := types.NewArray(elem, max(m.Val, 1))
	lo := b.layout(arr)
	p := b.newObject(in.Block(), "make", lo, nil)
	b.define(in, []*ir.Expr{p, constant(ir.I64, n.Val), constant(ir.I64, m.Val)})
}

// pointerLike: a pointer, unsafe.Pointer or uintptr.
func pointerLike(t types.Type) bool {
	switch t := t.(type) {
	case *types.Pointer:
		return true
	case *types.Basic:
		return t.Kind() == types.UnsafePointer || t.Kind() == types.Uintptr
	}
	return false
}

// isNamedInPkg reports whether t is a named type of package pkg.
func isNamedInPkg(t types.Type, pkg *types.Package) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() == pkg
}

// isInitGuard reports whether v is the package's init$guard, which go/ssa's
// init function tests so that the package initializes once.
func isInitGuard(v ssa.Value) bool {
	g, ok := v.(*ssa.Global)
	return ok && g.Name() == "init$guard"
}
