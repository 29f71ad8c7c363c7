package gofront

import (
	"fmt"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"kbmc/ir"
)

// Interfaces. An interface holds a pointer as the pointer itself, and a
// value of a named type with methods as a pointer to a box, an object of
// that type holding a copy (as Go's runtime boxes it); other values (an
// error errors.New made, an int) are tokens. The dynamic type of a pointer
// is the type of the object it points to: every object is made for one
// type (objectsOf), so a method call through an interface, a type assertion
// and a type switch test which objects the pointer may be (isObjectOf),
// filled in once every object is made.

// registerObject records that v's cells hold a value of type t from cell 0.
func (l *lowerer) registerObject(t types.Type, v *ir.Var) {
	list, _ := l.typeObjects.At(t).([]*ir.Var)
	l.typeObjects.Set(t, append(list, v))
}

// isObjectOf is whether pointer p points to the start of an object of type
// t: a condition filled in when lowering ends.
func (b *builder) isObjectOf(p *ir.Expr, t types.Type) *ir.Expr {
	return b.pointsToOneOf(p, func() []*ir.Var {
		list, _ := b.l.typeObjects.At(t).([]*ir.Var)
		return list
	})
}

// isAnyObject is whether pointer p points to the start of an object of any
// type (registerObject), filled in when lowering ends.
func (b *builder) isAnyObject(p *ir.Expr) *ir.Expr {
	return b.pointsToOneOf(p, func() []*ir.Var {
		var all []*ir.Var
		b.l.typeObjects.Iterate(func(_ types.Type, list any) { all = append(all, list.([]*ir.Var)...) })
		return all
	})
}

// pointsToOneOf is whether pointer p is the address of one of the objects
// objects returns once every object is made: a condition filled in when
// lowering ends (false for none).
func (b *builder) pointsToOneOf(p *ir.Expr, objects func() []*ir.Var) *ir.Expr {
	p = b.hold(p)
	cond := constant(ir.Bool, 0)
	b.l.finals = append(b.l.finals, func() {
		var x *ir.Expr
		for _, v := range objects() {
			eq := &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: &ir.Expr{Op: p.Op, Type: p.Type, Var: p.Var, Val: p.Val},
				Y: &ir.Expr{Op: ir.EAddr, Type: ir.Ptr, Var: v}, Pos: p.Pos}
			if x == nil {
				x = eq
			} else {
				x = &ir.Expr{Op: ir.ELOr, Type: ir.Bool, X: x, Y: eq, Pos: p.Pos}
			}
		}
		if x != nil {
			*cond = *x
		}
	})
	return cond
}

// implementations are the methods of the program's types that an interface
// method call may run: per named type T whose *T implements the interface,
// the method of *T (a wrapper for a method of T).
func (l *lowerer) implementations(iface *types.Interface, m *types.Func) (ts []types.Type, fns []*ssa.Function) {
	for _, mem := range l.pkg.Members {
		t, ok := mem.(*ssa.Type)
		if !ok {
			continue
		}
		pt := types.NewPointer(t.Type())
		if !types.Implements(pt, iface) {
			continue
		}
		sel := l.pkg.Prog.MethodSets.MethodSet(pt).Lookup(m.Pkg(), m.Name())
		if sel == nil {
			continue
		}
		if fn := l.pkg.Prog.MethodValue(sel); fn != nil {
			ts = append(ts, t.Type())
			fns = append(fns, fn)
		}
	}
	return ts, fns
}

// invoke lowers a method call through an interface whose value may be of
// several types: one branch per type, on the object the value points to.
func (b *builder) invoke(c *ssa.CallCommon, rt types.Type, loopy bool) []*ir.Expr {
	iface := c.Value.Type().Underlying().(*types.Interface)
	ts, fns := b.l.implementations(iface, c.Method)
	if len(ts) == 0 && b.implementedByTestingT(iface) {
		// An interface of the program that *testing.T satisfies (a
		// TestingT of its own): the call is testing.T's.
		var args [][]*ir.Expr
		args = append(args, b.value(c.Value))
		for _, v := range c.Args {
			args = append(args, b.value(v))
		}
		return b.library("(*testing.common)."+c.Method.Name(), c, args, rt)
	}
	if len(ts) == 0 {
		b.errorf("call of %s.%s: no type of the program implements it", c.Value.Type(), c.Method.Name())
		return b.zero(rt)
	}
	recv := b.hold(b.scalarValue(c.Value))
	var args [][]*ir.Expr
	var fargs []*closure
	args = append(args, []*ir.Expr{recv})
	fargs = append(fargs, nil)
	for _, v := range c.Args {
		args = append(args, b.value(v))
		fargs = append(fargs, b.funcOf(v, false))
	}
	var res []*ir.Var
	if rt != nil {
		for _, cell := range b.layout(rt).cells {
			res = append(res, b.temp(cell.typ))
		}
	}
	var done []*int
	for i, t := range ts {
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: b.isObjectOf(recv, t)})
		b.open = []*int{&br.Next}
		if b.onStack(fns[i]) {
			b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: ir.Unsupported,
				Msg: "a recursive call through an interface (" + fns[i].Name() + "): not supported (calls are inlined)"})
		} else {
			b.speculative++
			out := b.inline(fns[i], args, fargs, &closure{fn: fns[i]}, loopy)
			b.speculative--
			for j, v := range res {
				if j < len(out) {
					b.assign(v, out[j])
				}
			}
		}
		done = append(done, b.open...)
		b.open = []*int{&br.Else}
	}
	// None of the types: a nil interface panics, as in Go; a value whose
	// type kbmc cannot tell (a pointer into an object of another type, a
	// token) stops the run as unsupported rather than be taken for nil.
	isNil := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: recv, Y: constant(ir.Ptr, 0), Pos: b.pos}})
	b.open = []*int{&isNil.Next}
	b.panicNode(fmt.Sprintf("runtime error: invalid memory address or nil pointer dereference (a call of %s on a nil %s)", c.Method.Name(), c.Value.Type()))
	b.open = []*int{&isNil.Else}
	b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: ir.Unsupported,
		Msg: fmt.Sprintf("a call of %s on a %s whose dynamic type kbmc cannot tell", c.Method.Name(), c.Value.Type())})
	b.open = done
	cells := make([]*ir.Expr, len(res))
	for i, v := range res {
		cells[i] = varRef(v)
	}
	return cells
}

// box makes an object of x's type holding it, for an interface.
func (b *builder) box(t types.Type, cells []*ir.Expr, bb *ssa.BasicBlock) *ir.Expr {
	lo := b.layout(t)
	p := b.newObject(bb, types.TypeString(t, shortQualifier), lo, t)
	b.beginAtomic()
	b.store(p, lo, cells)
	b.endAtomic()
	return p
}

func shortQualifier(p *types.Package) string { return p.Name() }

// hasMethods reports whether values of t have methods an interface may
// call.
func hasMethods(prog *ssa.Program, t types.Type) bool {
	if _, named := t.(*types.Named); !named {
		return false
	}
	return prog.MethodSets.MethodSet(t).Len() > 0
}

// typeAssertObject lowers x.(*T) and x.(T) for a named T, with or without
// comma-ok, by the object the interface's pointer points to.
func (b *builder) typeAssertObject(in *ssa.TypeAssert) bool {
	t := in.AssertedType
	ptr, isPtr := t.Underlying().(*types.Pointer)
	var objType types.Type
	switch {
	case isPtr:
		if _, named := ptr.Elem().(*types.Named); !named {
			return false
		}
		objType = ptr.Elem()
	case hasMethods(b.l.pkg.Prog, t):
		objType = t
	default:
		return false
	}
	x := b.hold(b.scalarValue(in.X))
	is := b.hold(b.isObjectOf(x, objType))
	// A pointer that is nil, a token (a value kbmc does not model, never a
	// pointer) or the start of an object of another type is known not to be
	// of the type; any other pointer (into an object's middle) kbmc cannot
	// tell, and the run stops there as unsupported.
	told := &ir.Expr{Op: ir.ELOr, Type: ir.Bool, Pos: b.pos, X: is,
		Y: &ir.Expr{Op: ir.ELOr, Type: ir.Bool, Pos: b.pos,
			X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: &ir.Expr{Op: ir.EConv, Type: ir.I64, X: x, Pos: b.pos}, Y: constant(ir.I64, 0), Pos: b.pos},
			Y: b.isAnyObject(x)}}
	b.emit(&ir.Node{Op: ir.OpAssert, X: told, Kind: ir.Unsupported,
		Msg: fmt.Sprintf("a type assertion to %s of a pointer whose type kbmc cannot tell", t)})
	var val []*ir.Expr
	if isPtr {
		val = []*ir.Expr{&ir.Expr{Op: ir.ECond, Type: ir.Ptr, X: is, Y: x, Z: constant(ir.Ptr, 0), Pos: b.pos}}
		val[0] = b.hold(val[0])
	} else {
		// The box's copy, read when the assertion holds.
		lo := b.layout(t)
		vars := make([]*ir.Var, lo.n())
		for i, c := range lo.cells {
			vars[i] = b.temp(c.typ)
			b.assign(vars[i], constant(c.typ, 0))
		}
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: is})
		b.open = []*int{&br.Next}
		for i, v := range b.load(x, lo) {
			b.assign(vars[i], v)
		}
		b.open = append(b.open, &br.Else)
		for _, v := range vars {
			val = append(val, varRef(v))
		}
	}
	if in.CommaOk {
		b.frame.vals[in] = append(val, is)
		return true
	}
	b.assertOr(is, fmt.Sprintf("interface conversion: %s is not %s", in.X.Type(), t))
	b.frame.vals[in] = val
	return true
}

// implementedByTestingT reports whether *testing.T implements iface.
func (b *builder) implementedByTestingT(iface *types.Interface) bool {
	for _, p := range b.l.pkg.Pkg.Imports() {
		if p.Path() == "testing" {
			t := p.Scope().Lookup("T")
			return t != nil && types.Implements(types.NewPointer(t.Type()), iface)
		}
	}
	return false
}
