package gofront

import (
	"go/types"

	"golang.org/x/tools/go/ssa"

	"kbmc/ir"
)

// Function values. A call kbmc can follow statically (a function, a closure
// made in the same code, one passed down as an argument) is inlined with no
// cost at run time. A function value that goes through memory, a phi or a
// result is a closure object, as Go's runtime makes one: a cell with the
// function's number, then the cells of its free variables. A call of such a
// value reads the number and dispatches over the functions of its signature
// that the program uses as values (scanFuncValues).

// funcValue is a function the program uses as a value: its number, and the
// object that holds it when it has no free variables.
type funcValue struct {
	fn      *ssa.Function // nil for a builtin
	builtin string
	sig     *types.Signature
	id      int64
	obj     *ir.Var
}

// scanFuncValues numbers the functions the program uses as values: the
// closures it makes and the functions it names other than to call them.
func (l *lowerer) scanFuncValues(fns []*ssa.Function) {
	add := func(fn *ssa.Function) {
		if _, ok := l.funcVals[fn]; ok || fn.Pkg != l.pkg && fn.Synthetic == "" {
			return
		}
		fv := &funcValue{fn: fn, sig: fn.Signature, id: int64(len(l.funcList) + 1)}
		l.funcVals[fn] = fv
		l.funcList = append(l.funcList, fv)
	}
	for _, fn := range fns {
		for _, bb := range fn.Blocks {
			for _, in := range bb.Instrs {
				if mc, ok := in.(*ssa.MakeClosure); ok {
					if !staticOnly(mc) {
						add(mc.Fn.(*ssa.Function))
					}
					continue // its Fn operand names the closure's code, no value
				}
				var ops []*ssa.Value
				for _, op := range in.Operands(ops) {
					if f, ok := (*op).(*ssa.Function); ok && !isCallee(in, op) {
						add(f)
					}
				}
			}
		}
	}
}

// isCallee reports whether operand op of in is the function in calls.
func isCallee(in ssa.Instruction, op *ssa.Value) bool {
	c, ok := in.(ssa.CallInstruction)
	return ok && !c.Common().IsInvoke() && &c.Common().Value == op
}

// staticOnly reports whether a closure is only called or started where it
// is made (go func(){…}(), defer func(){…}()): kbmc then follows it without
// an object.
func staticOnly(mc *ssa.MakeClosure) bool {
	for _, r := range *mc.Referrers() {
		if _, ok := r.(*ssa.DebugRef); ok {
			continue
		}
		c, ok := r.(ssa.CallInstruction)
		if !ok || c.Common().IsInvoke() || c.Common().Value != ssa.Value(mc) {
			return false
		}
		for _, a := range c.Common().Args {
			if a == ssa.Value(mc) {
				return false
			}
		}
	}
	return true
}

// builtinValue numbers a modelled function value (a context's cancel).
func (l *lowerer) builtinValue(name string, sig *types.Signature) *funcValue {
	for _, fv := range l.funcList {
		if fv.builtin == name {
			return fv
		}
	}
	fv := &funcValue{builtin: name, sig: sig, id: int64(len(l.funcList) + 1)}
	l.funcList = append(l.funcList, fv)
	return fv
}

// closureLayout is the layout of fn's closure object.
func (l *lowerer) closureLayout(fn *ssa.Function) (*layout, error) {
	lo := &layout{cells: []cellInfo{{typ: ir.I64, name: ".fn"}}}
	for _, fv := range fn.FreeVars {
		flo, err := l.layoutOf(fv.Type())
		if err != nil {
			return nil, err
		}
		for _, c := range flo.cells {
			lo.cells = append(lo.cells, c.renamed("."+fv.Name()+c.name))
		}
	}
	return lo, nil
}

// funcObject is the object of a function without free variables used as a
// value: it holds the function's number from the start.
func (l *lowerer) funcObject(fn *ssa.Function) *ir.Expr {
	fv := l.funcVals[fn]
	if fv == nil {
		return constant(ir.Ptr, 0)
	}
	if fv.obj == nil {
		fv.obj = &ir.Var{Name: "func " + fn.Name(), Type: ir.I64, Shared: true, Addressable: true,
			Init: []int64{fv.id}, Pos: l.pos(fn.Pos())}
		l.prog.Shared = append(l.prog.Shared, fv.obj)
	}
	return &ir.Expr{Op: ir.EAddr, Type: ir.Ptr, Var: fv.obj}
}

// makeClosure lowers a closure: followed statically, and made an object
// when it is used as a value.
func (b *builder) makeClosure(in *ssa.MakeClosure) {
	fn := in.Fn.(*ssa.Function)
	cl := &closure{fn: fn}
	for _, v := range in.Bindings {
		cl.bindings = append(cl.bindings, b.value(v))
		cl.funcs = append(cl.funcs, b.funcOf(v, false))
	}
	b.frame.funcs[in] = cl
	fv := b.l.funcVals[fn]
	if fv == nil {
		b.frame.vals[in] = []*ir.Expr{constant(ir.Ptr, 1)}
		return
	}
	lo, err := b.l.closureLayout(fn)
	if err != nil {
		b.errorf("closure %s: %v", fn.Name(), err)
		b.frame.vals[in] = []*ir.Expr{constant(ir.Ptr, 1)}
		return
	}
	cells := []*ir.Expr{constant(ir.I64, fv.id)}
	for _, bd := range cl.bindings {
		cells = append(cells, bd...)
	}
	b.beginAtomic()
	p := b.newObject(in.Block(), fn.Name(), lo, nil)
	b.store(p, lo, cells)
	b.endAtomic()
	b.frame.vals[in] = []*ir.Expr{p}
}

// dynamicCall calls (or, with spawn, starts as a goroutine) the function
// value at p: one branch per function of its signature used as a value.
// call performs the call of one candidate with its closure.
func (b *builder) dynamicCall(p *ir.Expr, sig *types.Signature, call func(cl *closure)) {
	p = b.hold(p)
	b.assertOr(&ir.Expr{Op: ir.ENe, Type: ir.Bool, X: p, Y: constant(ir.Ptr, 0), Pos: b.pos},
		"runtime error: invalid memory address or nil pointer dereference (a call of a nil func)")
	id := b.load(p, scalar(ir.I64))[0]
	var done []*int
	n := 0
	for _, fv := range b.l.funcList {
		if !types.Identical(fv.sig, sig) {
			continue
		}
		n++
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: id, Y: constant(ir.I64, fv.id), Pos: b.pos}})
		b.open = []*int{&br.Next}
		if fv.builtin != "" {
			cells := b.load(p, &layout{cells: []cellInfo{{typ: ir.I64, name: ""}, {typ: ir.Ptr, name: ""}}})
			call(&closure{builtin: fv.builtin, bindings: [][]*ir.Expr{{cells[1]}}})
			done = append(done, b.open...)
			b.open = []*int{&br.Else}
			continue
		}
		if b.onStack(fv.fn) {
			// Inlining cannot recurse: should the value be this very
			// function, the run stops as unsupported there.
			b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: ir.Unsupported,
				Msg: "a recursive call through a function value (" + fv.fn.Name() + "): not supported (calls are inlined)"})
			b.open = []*int{&br.Else}
			continue
		}
		lo, err := b.l.closureLayout(fv.fn)
		if err != nil {
			b.errorf("%v", err)
			return
		}
		cells := b.load(p, lo)[1:]
		cl := &closure{fn: fv.fn}
		k := 0
		for _, fvar := range fv.fn.FreeVars {
			m := b.layout(fvar.Type()).n()
			cl.bindings = append(cl.bindings, cells[k:k+m])
			k += m
		}
		b.speculative++
		call(cl)
		b.speculative--
		done = append(done, b.open...)
		b.open = []*int{&br.Else}
	}
	if n == 0 {
		b.errorf("a call of a function value of type %s: the program makes no function of that type a value", sig)
	}
	b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: ir.Unsupported,
		Msg: "a call of a function value kbmc did not number"})
	b.open = done
}

// onStack reports whether fn is being inlined.
func (b *builder) onStack(fn *ssa.Function) bool {
	for f := b.frame; f != nil; f = f.parent {
		if f.fn == fn {
			return true
		}
	}
	return false
}
