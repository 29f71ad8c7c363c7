package gofront

import (
	"fmt"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"kbmc/ir"
)

// funcOf returns the function value v holds when kbmc can follow it: a
// function, a closure made in this goroutine's code, or a parameter or free
// variable bound to one. With must set, a value it cannot follow is an error.
func (b *builder) funcOf(v ssa.Value, must bool) *closure {
	switch v := v.(type) {
	case *ssa.Function:
		return &closure{fn: v}
	case *ssa.MakeClosure:
		if cl := b.frame.funcs[v]; cl != nil {
			return cl
		}
	}
	if cl := b.frame.funcs[v]; cl != nil {
		return cl
	}
	if must {
		b.errorf("a call of the function value %s, which kbmc cannot follow (it follows functions and closures passed as arguments, not through memory)", v.Name())
	}
	return nil
}

// callee resolves a call: the function it runs, its arguments' cells (the
// receiver first for a method) and the closure whose free variables it sees.
// ok is false when the call is modelled (lib names it) or refused.
func (b *builder) callee(c *ssa.CallCommon) (cl *closure, args [][]*ir.Expr, fargs []*closure, lib string) {
	var vals []ssa.Value
	if c.IsInvoke() && isNamed(c.Value.Type(), "context", "Context") {
		args = append(args, b.value(c.Value))
		for _, v := range c.Args {
			args = append(args, b.value(v))
		}
		return nil, args, nil, "context.Context." + c.Method.Name()
	}
	if c.IsInvoke() && isNamed(c.Value.Type(), "sync", "Locker") {
		if lib := b.lockerMethod(c.Method.Name()); lib != "" {
			return nil, [][]*ir.Expr{b.value(c.Value)}, nil, lib
		}
	}
	if c.IsInvoke() {
		fn := b.invokeTarget(c)
		if fn == nil {
			return nil, nil, nil, "" // several implementations: invoke
		}
		cl = &closure{fn: fn}
		vals = append([]ssa.Value{c.Value}, c.Args...)
	} else {
		switch v := c.Value.(type) {
		case *ssa.Builtin:
			for _, a := range c.Args {
				args = append(args, b.value(a))
			}
			return nil, args, nil, "builtin." + v.Name()
		case *ssa.Function:
			cl = &closure{fn: v}
		default:
			cl = b.funcOf(v, false)
			if cl == nil {
				return nil, nil, nil, "" // a function value: dynamicCall
			}
		}
		vals = c.Args
	}
	if cl.fn != nil && (len(cl.fn.Blocks) == 0 || cl.fn.Pkg != b.l.pkg && !b.l.ownWrapper(cl.fn)) {
		lib = libName(cl.fn)
	}
	for _, v := range vals {
		args = append(args, b.value(v))
		fargs = append(fargs, b.funcOf(v, false))
	}
	return cl, args, fargs, lib
}

// libName names a library function as docs/go.md lists it:
// "(*sync.Mutex).Lock", "time.Sleep".
func libName(fn *ssa.Function) string {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	return fn.String()
}

// ownWrapper reports whether fn is a wrapper go/ssa made for a method of one
// of the package's types (a method promoted from an embedded field, called
// through an interface): lowered as the package's own code.
func (l *lowerer) ownWrapper(fn *ssa.Function) bool {
	recv := fn.Signature.Recv()
	if fn.Synthetic == "" || len(fn.Blocks) == 0 || recv == nil {
		return false
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	return isNamedInPkg(t, l.pkg.Pkg)
}

// invokeTarget resolves an interface method call: the one method of the
// program's types that implements it.
func (b *builder) invokeTarget(c *ssa.CallCommon) *ssa.Function {
	iface := c.Value.Type()
	var found []*ssa.Function
	for _, m := range b.l.pkg.Members {
		t, ok := m.(*ssa.Type)
		if !ok {
			continue
		}
		for _, rt := range []types.Type{t.Type(), types.NewPointer(t.Type())} {
			if !types.Implements(rt, iface.Underlying().(*types.Interface)) {
				continue
			}
			sel := b.l.pkg.Prog.MethodSets.MethodSet(rt).Lookup(c.Method.Pkg(), c.Method.Name())
			if sel == nil {
				continue
			}
			if fn := b.l.pkg.Prog.MethodValue(sel); fn != nil {
				found = append(found, fn)
			}
			break
		}
	}
	if len(found) == 1 {
		if _, ptr := found[0].Signature.Recv().Type().(*types.Pointer); ptr {
			return found[0]
		}
	}
	return nil
}

// isNamed reports whether t is the named type path.name.
func isNamed(t types.Type, path, name string) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}

// syncMutex is the type sync.Mutex.
// The kinds of value a sync.Locker of the program holds (lockerKind).
const (
	lockerMutex   = "(*sync.Mutex)"   // a *sync.Mutex
	lockerRW      = "(*sync.RWMutex)" // a *sync.RWMutex: its writer's lock
	lockerReader  = "rlocker"         // RWMutex.RLocker(): its readers' lock
	lockerProgram = "program"         // a value of the program's own types
)

// lockerKind scans the package for the values it turns into a sync.Locker,
// once: the kinds found, in a fixed order. A Locker's value is a pointer
// (to the mutex itself for sync's kinds), which does not say its kind, so a
// call on a Locker is modelled when the package makes Lockers of one kind.
func (l *lowerer) lockerKinds() []string {
	if l.lockers != nil {
		return l.lockers
	}
	found := map[string]bool{}
	for _, fn := range l.sortedFuncs() {
		for _, bb := range fn.Blocks {
			for _, in := range bb.Instrs {
				switch in := in.(type) {
				case *ssa.MakeInterface:
					if !isNamed(in.Type(), "sync", "Locker") {
						continue
					}
					p, ok := in.X.Type().(*types.Pointer)
					switch {
					case ok && isNamed(p.Elem(), "sync", "Mutex"):
						found[lockerMutex] = true
					case ok && isNamed(p.Elem(), "sync", "RWMutex"):
						found[lockerRW] = true
					default:
						found[lockerProgram] = true
					}
				case ssa.CallInstruction:
					if f := in.Common().StaticCallee(); f != nil && f.String() == "(*sync.RWMutex).RLocker" {
						found[lockerReader] = true
					}
				}
			}
		}
	}
	l.lockers = []string{}
	for _, k := range []string{lockerMutex, lockerRW, lockerReader, lockerProgram} {
		if found[k] {
			l.lockers = append(l.lockers, k)
		}
	}
	return l.lockers
}

// lockerMethod is the library call a sync.Locker's method m stands for
// ("(*sync.RWMutex).RLock" for Lock of an RLocker), or "" for a Locker of
// the program's own types, whose methods dispatch as any interface's. A
// package that makes Lockers of several kinds is refused.
func (b *builder) lockerMethod(m string) string {
	kinds := b.l.lockerKinds()
	switch {
	case len(kinds) > 1:
		b.errorf("a sync.Locker that may hold values of different kinds (%s) is not supported", strings.Join(kinds, ", "))
		return lockerMutex + "." + m
	case len(kinds) == 0:
		// No Locker is made in the package: the value is nil, and any
		// call of it panics as the mutex's would on a nil pointer.
		return lockerMutex + "." + m
	case kinds[0] == lockerReader:
		return lockerRW + ".R" + m
	case kinds[0] == lockerProgram:
		return ""
	}
	return kinds[0] + "." + m
}

// call lowers a call and returns its result's cells.
func (b *builder) call(c *ssa.CallCommon, in *ssa.Call) []*ir.Expr {
	cl, args, fargs, lib := b.callee(c)
	var rt types.Type
	if in != nil {
		rt = in.Type()
	}
	if lib != "" {
		if cl != nil && cl.fn.Name() == "init" && cl.fn.Signature.Recv() == nil && cl.fn.Pkg != b.l.pkg {
			return nil // an imported package's initialization: modelled packages need none
		}
		return b.library(lib, c, args, rt)
	}
	loopy := !b.runsOnce(in.Block())
	if cl == nil && c.IsInvoke() {
		if c.Value.Type().String() == "error" && c.Method.Name() == "Error" {
			// Its text, which kbmc does not know: a token (see fmt.Sprintf).
			return []*ir.Expr{constant(ir.I64, b.l.token(fmt.Sprint("string at ", b.pos)))}
		}
		return b.invoke(c, rt, loopy)
	}
	if cl == nil {
		if b.dynamic(c) {
			return b.callValue(c, rt, loopy)
		}
		return b.zero(rt)
	}
	if cl.builtin != "" {
		b.callBuiltin(cl)
		return nil
	}
	res := b.inline(cl.fn, args, fargs, cl, loopy)
	if b.resultFunc != nil && in != nil {
		b.frame.funcs[in] = b.resultFunc
	}
	return res
}

// dynamic reports whether a call is of a function value kbmc follows only
// at run time.
func (b *builder) dynamic(c *ssa.CallCommon) bool {
	if c.IsInvoke() {
		return false
	}
	switch c.Value.(type) {
	case *ssa.Builtin, *ssa.Function:
		return false
	}
	return true
}

// callValue calls a function value through its closure object.
func (b *builder) callValue(c *ssa.CallCommon, rt types.Type, loopy bool) []*ir.Expr {
	var args [][]*ir.Expr
	var fargs []*closure
	for _, v := range c.Args {
		args = append(args, b.value(v))
		fargs = append(fargs, b.funcOf(v, false))
	}
	var res []*ir.Var
	if rt != nil {
		for _, c := range b.layout(rt).cells {
			res = append(res, b.temp(c.typ))
		}
	}
	sig := c.Value.Type().Underlying().(*types.Signature)
	b.dynamicCall(b.scalarValue(c.Value), sig, func(cl *closure) {
		if cl.builtin != "" {
			b.callBuiltin(cl)
			return
		}
		out := b.inline(cl.fn, args, fargs, cl, loopy)
		for i, v := range res {
			if i < len(out) {
				b.assign(v, out[i])
			}
		}
	})
	cells := make([]*ir.Expr, len(res))
	for i, v := range res {
		cells[i] = varRef(v)
	}
	return cells
}

// spawn lowers a go statement: a free slot of the function's pool starts,
// with the arguments and the closure's free variables as its start cells.
func (b *builder) spawn(in *ssa.Go) {
	c := in.Common()
	cl, args, _, lib := b.callee(c)
	if lib == "builtin.close" {
		// go close(ch): a goroutine of the library that closes it.
		t := c.Args[0].Type()
		pi := b.l.libPool(fmt.Sprintf("go close at %s", site(b.pos)), &layout{cells: []cellInfo{{typ: ir.I64, name: ".ch", chanVal: true}}}, func(g *builder, cells []*ir.Expr) {
			g.closeChan(t, cells[0])
		})
		b.startSlot(pi, in.Block(), args[0])
		return
	}
	if lib != "" {
		b.errorf("go %s: a goroutine must run a function of the program", lib)
		return
	}
	if cl == nil {
		if b.dynamic(c) {
			var args [][]*ir.Expr
			for _, v := range c.Args {
				args = append(args, b.value(v))
			}
			b.dynamicCall(b.scalarValue(c.Value), c.Value.Type().Underlying().(*types.Signature), func(cl *closure) {
				b.startGoroutine(in, cl, args)
			})
		}
		return
	}
	// A function argument travels as its closure object (funcs.go): the
	// goroutine calls it through the object.
	b.startGoroutine(in, cl, args)
}

// startGoroutine starts a goroutine running closure cl with arguments args.
func (b *builder) startGoroutine(in *ssa.Go, cl *closure, args [][]*ir.Expr) {
	if cl.builtin != "" {
		// go cancel(): a library goroutine that calls it.
		name := cl.builtin
		pi := b.l.libPool("go "+name, &layout{cells: []cellInfo{{typ: ir.Ptr, name: ".ctx"}}}, func(g *builder, cells []*ir.Expr) {
			g.callBuiltin(&closure{builtin: name, bindings: [][]*ir.Expr{{cells[0]}}})
		})
		b.startSlot(pi, in.Block(), cl.bindings[0])
		return
	}
	pi := b.l.poolOf(cl.fn, b.pos)
	pi.site(b.pos)
	var cells []*ir.Expr
	for _, a := range args {
		cells = append(cells, a...)
	}
	for _, bd := range cl.bindings {
		cells = append(cells, bd...)
	}
	if len(cells) != pi.args.n() {
		b.errorf("internal error: go %s: %d argument cells, want %d", cl.fn.Name(), len(cells), pi.args.n())
		return
	}
	b.startSlot(pi, in.Block(), cells)
}

// startSlot starts a free slot of pool pi with the given start cells, from
// code of block bb: the pool gets a slot for each goroutine that code may
// start (one, or the loop bound inside a loop).
func (b *builder) startSlot(pi *poolInfo, bb *ssa.BasicBlock, cells []*ir.Expr) {
	if b.runsOnce(bb) {
		pi.need++
	} else {
		pi.need += b.l.cfg.LoopGoroutines
	}
	sp := &ir.Node{Op: ir.OpSpawn, Pool: pi.pool, X: constant(ir.I64, 0)}
	if len(cells) == 1 {
		sp.X = cells[0]
	}
	if len(cells) <= 1 {
		b.emit(sp)
		return
	}
	// The slot the spawn took is the last one started (slots start in
	// order and are never reused): its args variable gets the cells, in the
	// same step. The pool's slots are not all made yet, so the stores are
	// chosen once they are (finals).
	b.beginAtomic()
	v := b.temp(ir.I64)
	sp.LHS = &ir.LValue{Var: v, Type: ir.I64, Pos: b.pos}
	b.emit(sp)
	held := make([]*ir.Expr, len(cells))
	copy(held, cells)
	hook := b.emit(&ir.Node{Op: ir.OpNop})
	after := b.open
	b.endAtomic()
	tmpl := b.t
	b.l.finals = append(b.l.finals, func() { b.l.storeArgs(tmpl, hook, after, pi, held) })
	b.open = after
}

// storeArgs fills in, after node hook of template t, the stores of a spawn's
// cells into the args of the slot it started: a branch per slot on the
// thread value the spawn returned.
func (l *lowerer) storeArgs(t *ir.Template, hook *ir.Node, after []*int, pi *poolInfo, cells []*ir.Expr) {
	b := &builder{l: l, t: t, atomic: 1, pos: hook.Pos, text: hook.Text, names: map[string]int{}}
	cont := *after[0]
	b.open = []*int{&hook.Next}
	var done []*int
	for i, slot := range pi.pool.Slots {
		args := pi.slots[i]
		// Thread values are numbers plus one; slot templates are numbered
		// by Finish, so the test compares the slot's start flag instead:
		// the slot just started is the last one started.
		started := func(u *ir.Template) *ir.Expr {
			return &ir.Expr{Op: ir.EIndex, Type: ir.I64, Var: u.Start, X: constant(ir.I64, ir.StartFlag), Pos: b.pos}
		}
		cond := &ir.Expr{Op: ir.ENe, Type: ir.Bool, X: started(slot), Y: constant(ir.I64, 0), Pos: b.pos}
		if i+1 < len(pi.pool.Slots) {
			next := &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: started(pi.pool.Slots[i+1]), Y: constant(ir.I64, 0), Pos: b.pos}
			cond = &ir.Expr{Op: ir.ELAnd, Type: ir.Bool, X: cond, Y: next, Pos: b.pos}
		}
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: cond})
		b.open = []*int{&br.Next}
		for j, c := range cells {
			b.emit(&ir.Node{Op: ir.OpAssign, LHS: &ir.LValue{Var: args, Index: constant(ir.I64, int64(j)), Type: pi.args.cells[j].typ, Pos: b.pos}, X: c})
		}
		done = append(done, b.open...)
		b.open = []*int{&br.Else}
	}
	done = append(done, b.open...)
	b.patch(done, cont)
}

// defersRecover reports whether fn defers a call of a function that calls
// recover (which stops a panic only when a deferred function calls it
// directly), or, when the deferred function is a value or an interface
// method kbmc does not name statically, whether any function of the package
// calls recover.
//
// kbmc does not model recovering: a panic in such a function, or in what it
// calls, stops the run as unsupported (ir.Node.Recoverable). recover then
// returns nil wherever a run reaches it, which is what Go returns when no
// panic is in progress. Panics before the defer statement runs are treated
// the same, so a few real crashes are unknown rather than found.
func (l *lowerer) defersRecover(fn *ssa.Function) bool {
	for _, bb := range fn.Blocks {
		for _, in := range bb.Instrs {
			d, ok := in.(*ssa.Defer)
			if !ok {
				continue
			}
			if _, builtin := d.Common().Value.(*ssa.Builtin); builtin {
				continue
			}
			callee := d.Common().StaticCallee()
			if callee == nil && l.anyRecover() || callee != nil && callsRecover(callee) {
				return true
			}
		}
	}
	return false
}

// anyRecover reports whether a function of the package calls recover.
func (l *lowerer) anyRecover() bool {
	if l.recovers == 0 {
		l.recovers = -1
		if slices.ContainsFunc(l.sortedFuncs(), callsRecover) {
			l.recovers = 1
		}
	}
	return l.recovers > 0
}

// callsRecover reports whether fn calls the builtin recover itself.
func callsRecover(fn *ssa.Function) bool {
	for _, bb := range fn.Blocks {
		for _, in := range bb.Instrs {
			if c, ok := in.(ssa.CallInstruction); ok {
				if bi, ok := c.Common().Value.(*ssa.Builtin); ok && bi.Name() == "recover" {
					return true
				}
			}
		}
	}
	return false
}

// deferCall lowers a defer statement: its call's values are taken now, and
// a flag says that it ran.
func (b *builder) deferCall(in *ssa.Defer) {
	if !b.runsOnce(in.Block()) && b.frame.cyclic[in.Block()] {
		b.errorf("defer inside a loop is not supported")
		return
	}
	c := in.Common()
	cl, args, _, lib := b.callee(c)
	if cl == nil && lib == "" {
		return
	}
	ds := &deferSite{call: c, fn: cl, lib: lib, pos: b.pos, text: b.text}
	for _, a := range args {
		held := make([]*ir.Expr, len(a))
		for i, x := range a {
			held[i] = b.hold(x)
		}
		ds.args = append(ds.args, held)
	}
	// The flag is cleared when the deferred call runs, so that a frame
	// inlined in a loop starts each run with it clear.
	ds.flag = b.newLocal("$defer", ir.Bool)
	b.assign(ds.flag, constant(ir.Bool, 1))
	b.frame.defers = append(b.frame.defers, ds)
}

// runDefers runs the frame's deferred calls that ran, last first.
func (b *builder) runDefers() {
	for i := len(b.frame.defers) - 1; i >= 0; i-- {
		ds := b.frame.defers[i]
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: varRef(ds.flag)})
		b.open = []*int{&br.Next}
		saved, savedText := b.pos, b.text
		b.pos, b.text = ds.pos, ds.text
		b.assign(ds.flag, constant(ir.Bool, 0))
		if ds.lib != "" {
			b.library(ds.lib, ds.call, ds.args, nil)
		} else if ds.fn.builtin != "" {
			b.callBuiltin(ds.fn)
		} else {
			b.inline(ds.fn.fn, ds.args, nil, ds.fn, b.frame.loopy)
		}
		b.pos, b.text = saved, savedText
		b.open = append(b.open, &br.Else)
	}
}

// library lowers a call of a modelled function of Go's library (docs/go.md).
func (b *builder) library(name string, c *ssa.CallCommon, args [][]*ir.Expr, rt types.Type) []*ir.Expr {
	arg := func(i int) *ir.Expr { return args[i][0] }
	if r, ok := b.timeCall(name, c, b.curInstr, args, rt); ok {
		return r
	}
	if r, ok := b.contextCall(name, c, b.curInstr, args, rt); ok {
		return r
	}
	switch name {
	case "builtin.len", "builtin.cap":
		return []*ir.Expr{b.lenCap(name == "builtin.len", c.Args[0], args[0])}
	case "builtin.close":
		b.closeChan(c.Args[0].Type(), arg(0))
		return nil
	case "builtin.print", "builtin.println":
		return nil
	case "builtin.append":
		return b.appendSlice(c, args, rt)
	case "builtin.copy":
		return b.copySlice(c, args)
	case "builtin.delete":
		b.knownKey(c.Args[1])
		b.deleteKey(c.Args[0], arg(0), args[1])
		return nil
	case "builtin.min", "builtin.max":
		x := arg(0)
		for i := 1; i < len(args); i++ {
			y := arg(i)
			op := ir.ELt
			if name == "builtin.max" {
				op = ir.EGt
			}
			x = b.hold(&ir.Expr{Op: ir.ECond, Type: x.Type, X: &ir.Expr{Op: op, Type: ir.Bool, X: x, Y: y, Pos: b.pos}, Y: x, Z: y, Pos: b.pos})
		}
		return []*ir.Expr{x}
	case "builtin.ssa:wrapnilchk":
		return []*ir.Expr{b.nilCheck(arg(0), 0)}
	case "builtin.recover":
		// nil: a panic a deferred recover may stop ends the run as
		// unsupported where it happens (defersRecover), so a run that
		// reaches recover has no panic to stop.
		return b.zero(rt)

	case "(*sync.Mutex).Lock":
		b.emit(&ir.Node{Op: ir.OpLock, Addr: b.nilCheck(arg(0), 0), AnyOwner: true})
		return nil
	case "(*sync.Mutex).Unlock":
		b.unlock(b.nilCheck(arg(0), 0))
		return nil
	case "(*sync.Mutex).TryLock":
		r := b.temp(ir.Bool)
		b.emit(&ir.Node{Op: ir.OpTryLock, Addr: b.nilCheck(arg(0), 0), Result: &ir.LValue{Var: r, Type: ir.Bool, Pos: b.pos}})
		return []*ir.Expr{varRef(r)}
	case "(*sync.RWMutex).Lock":
		p := b.nilCheck(arg(0), 0)
		b.beginAtomic()
		b.emit(&ir.Node{Op: ir.OpLock, Addr: ptrAdd(p, constant(ir.I64, rwWriter)), AnyOwner: true})
		b.storeCell(p, rwPending, ir.Bool, constant(ir.Bool, 1))
		b.endAtomic()
		// Then wait for the readers to leave; new readers wait for us.
		b.syncAwait(&ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.cell(p, rwReaders, ir.I64), Y: constant(ir.I64, 0), Pos: b.pos})
		return nil
	case "(*sync.RWMutex).Unlock":
		p := b.nilCheck(arg(0), 0)
		b.beginAtomic()
		b.storeCell(p, rwPending, ir.Bool, constant(ir.Bool, 0))
		b.unlock(ptrAdd(p, constant(ir.I64, rwWriter)))
		b.endAtomic()
		return nil
	case "(*sync.RWMutex).RLock":
		p := b.nilCheck(arg(0), 0)
		b.beginAtomic()
		b.emit(&ir.Node{Op: ir.OpAwait, X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.cell(p, rwPending, ir.Bool), Y: constant(ir.Bool, 0), Pos: b.pos}})
		b.storeCell(p, rwReaders, ir.I64, &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: b.cell(p, rwReaders, ir.I64), Y: constant(ir.I64, 1), Pos: b.pos})
		b.endAtomic()
		return nil
	case "(*sync.RWMutex).RLocker":
		// The RWMutex itself: a Locker's calls are its readers' lock
		// (lockerMethod).
		return []*ir.Expr{b.nilCheck(arg(0), 0)}
	case "(*sync.RWMutex).RUnlock":
		p := b.nilCheck(arg(0), 0)
		b.beginAtomic()
		n := b.temp(ir.I64)
		b.assign(n, &ir.Expr{Op: ir.ESub, Type: ir.I64, X: b.cell(p, rwReaders, ir.I64), Y: constant(ir.I64, 1), Pos: b.pos})
		b.assertOr(&ir.Expr{Op: ir.EGe, Type: ir.Bool, X: varRef(n), Y: constant(ir.I64, 0), Pos: b.pos}, "fatal error: sync: RUnlock of unlocked RWMutex")
		b.storeCell(p, rwReaders, ir.I64, varRef(n))
		b.endAtomic()
		return nil
	case "(*sync.WaitGroup).Add", "(*sync.WaitGroup).Done":
		p := b.nilCheck(arg(0), 0)
		delta := constant(ir.I64, -1)
		if name == "(*sync.WaitGroup).Add" {
			delta = b.asInt(arg(1))
		}
		b.beginAtomic()
		n := b.temp(ir.I64)
		b.assign(n, &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: b.cell(p, 0, ir.I64), Y: delta, Pos: b.pos})
		b.assertOr(&ir.Expr{Op: ir.EGe, Type: ir.Bool, X: varRef(n), Y: constant(ir.I64, 0), Pos: b.pos}, "sync: negative WaitGroup counter")
		b.storeCell(p, 0, ir.I64, varRef(n))
		b.endAtomic()
		return nil
	case "(*sync.WaitGroup).Wait":
		p := b.nilCheck(arg(0), 0)
		b.syncAwait(&ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.cell(p, 0, ir.I64), Y: constant(ir.I64, 0), Pos: b.pos})
		return nil
	case "(*sync.Once).Do":
		p := b.nilCheck(arg(0), 0)
		f := b.funcOf(c.Args[1], true)
		if f == nil {
			return nil
		}
		m := ptrAdd(p, constant(ir.I64, onceMutex))
		b.emit(&ir.Node{Op: ir.OpLock, Addr: m, AnyOwner: true})
		done := b.temp(ir.Bool)
		b.assign(done, b.cell(p, onceDone, ir.Bool))
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ENot, Type: ir.Bool, X: varRef(done), Pos: b.pos}})
		b.open = []*int{&br.Next}
		b.inline(f.fn, nil, nil, f, b.frame.loopy)
		b.storeCell(p, onceDone, ir.Bool, constant(ir.Bool, 1))
		b.open = append(b.open, &br.Else)
		b.unlock(m)
		return nil
	case "sync.NewCond":
		lo := &layout{cells: []cellInfo{{typ: ir.Ptr, name: ".L"}, {typ: ir.I64, name: ".wait"}, {typ: ir.I64, name: ".notify"}}}
		p := b.newObject(b.curBlock, "sync.NewCond", lo, nil)
		b.storeCell(p, condL, ir.Ptr, arg(0))
		return []*ir.Expr{p}
	case "(*sync.Cond).Wait":
		// Go's notifyList: take a ticket and release L in one step, wait
		// until the ticket is notified, then take L again.
		p := b.nilCheck(arg(0), 0)
		l := b.temp(ir.Ptr)
		ticket := b.temp(ir.I64)
		b.beginAtomic()
		b.assign(l, b.cell(p, condL, ir.Ptr))
		b.assign(ticket, b.cell(p, condWait, ir.I64))
		b.storeCell(p, condWait, ir.I64, &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: varRef(ticket), Y: constant(ir.I64, 1), Pos: b.pos})
		unlock := b.lockerMethod("Unlock")
		if unlock == "" {
			b.errorf("a sync.Cond whose Locker is of the program's own type is not supported")
			unlock = lockerMutex + ".Unlock"
		}
		b.library(unlock, nil, [][]*ir.Expr{{varRef(l)}}, nil)
		b.endAtomic()
		b.syncAwait(&ir.Expr{Op: ir.EGt, Type: ir.Bool, X: b.cell(p, condNotify, ir.I64), Y: varRef(ticket), Pos: b.pos})
		b.library(strings.TrimSuffix(unlock, "Unlock")+"Lock", nil, [][]*ir.Expr{{varRef(l)}}, nil)
		return nil
	case "(*sync.Cond).Signal":
		p := b.nilCheck(arg(0), 0)
		b.beginAtomic()
		n := b.temp(ir.I64)
		b.assign(n, b.cell(p, condNotify, ir.I64))
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ELt, Type: ir.Bool, X: varRef(n), Y: b.cell(p, condWait, ir.I64), Pos: b.pos}})
		b.open = []*int{&br.Next}
		b.storeCell(p, condNotify, ir.I64, &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: varRef(n), Y: constant(ir.I64, 1), Pos: b.pos})
		b.open = append(b.open, &br.Else)
		b.endAtomic()
		return nil
	case "(*sync.Cond).Broadcast":
		p := b.nilCheck(arg(0), 0)
		b.beginAtomic()
		n := b.temp(ir.I64)
		b.assign(n, b.cell(p, condWait, ir.I64))
		b.storeCell(p, condNotify, ir.I64, varRef(n))
		b.endAtomic()
		return nil

	case "(*testing.common).Fatal", "(*testing.common).Fatalf", "(*testing.common).Error", "(*testing.common).Errorf",
		"(*testing.common).FailNow", "(*testing.common).Fail":
		method := name[strings.LastIndex(name, ".")+1:]
		b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: ir.Assertion, Msg: "t." + method + " called: " + b.text})
		if method != "Error" && method != "Errorf" && method != "Fail" {
			b.open = nil
		}
		return nil
	case "(*testing.common).Log", "(*testing.common).Logf", "(*testing.common).Helper", "(*testing.T).Parallel":
		return nil
	case "(*testing.T).Run":
		// A subtest runs its function to the end before Run returns.
		f := b.funcOf(c.Args[2], true)
		if f != nil {
			b.inline(f.fn, [][]*ir.Expr{args[0]}, nil, f, b.frame.loopy)
		}
		return []*ir.Expr{constant(ir.Bool, 1)}
	case "fmt.Sprintf", "fmt.Sprint", "fmt.Sprintln", "strconv.Itoa", "strconv.FormatInt":
		if strings.HasPrefix(name, "fmt.") {
			b.formatArgs(c)
		}
		// A string kbmc does not know: a token, which no comparison accepts
		// (strings compare only as constants).
		return []*ir.Expr{constant(ir.I64, b.l.token(fmt.Sprint("string at ", b.pos)))}
	case "(*testing.common).Failed":
		return []*ir.Expr{constant(ir.Bool, 0)}
	case "(*testing.common).Skip", "(*testing.common).Skipf", "(*testing.common).SkipNow", "runtime.Goexit":
		// The goroutine ends here (its deferred calls are not run).
		b.patch(b.open, ir.Exit)
		b.open = nil
		return nil

	case "time.Sleep", "runtime.Gosched":
		b.emit(&ir.Node{Op: ir.OpYield})
		return nil
	case "fmt.Println", "fmt.Printf", "fmt.Print", "log.Println", "log.Printf", "log.Print":
		b.formatArgs(c)
		return b.zero(rt)
	case "fmt.Errorf":
		b.formatArgs(c)
		return []*ir.Expr{b.newError()}
	case "errors.New":
		return []*ir.Expr{b.newError()}
	case "math/rand.Intn", "math/rand.Int31n", "math/rand.Int63n":
		n := arg(0)
		if n.Op != ir.EConst || n.Val <= 0 {
			b.errorf("%s of a bound kbmc does not know: not supported", name)
			return b.zero(rt)
		}
		t := b.layout(rt).cells[0].typ
		return []*ir.Expr{b.hold(&ir.Expr{Op: ir.ENondet, Type: t, Lo: 0, Hi: n.Val - 1, Pos: b.pos, Text: b.text})}
	case "log.Fatal", "log.Fatalf", "log.Fatalln", "os.Exit":
		b.panicNode(name + " called: the program exits")
		b.open = nil
		return nil
	case "time.Now":
		return b.zero(rt)
	case "runtime.GOMAXPROCS":
		return []*ir.Expr{constant(ir.I64, 2)}
	}
	if r, ok := b.atomicOp(name, args, rt); ok {
		return r
	}
	b.errorf("call of %s: not supported (docs/go.md lists the library calls kbmc models)", name)
	return b.zero(rt)
}

// atomicOp lowers sync/atomic's functions on a pointer: each one step.
func (b *builder) atomicOp(name string, args [][]*ir.Expr, rt types.Type) ([]*ir.Expr, bool) {
	const pkg = "sync/atomic."
	if rest, ok := strings.CutPrefix(name, "(*sync/atomic."); ok {
		// A method of atomic.Int32 and the like: (*sync/atomic.Int32).Add.
		typ, method, _ := strings.Cut(rest, ").")
		name = pkg + method + typ
	}
	if !strings.HasPrefix(name, pkg) {
		return nil, false
	}
	op := name[len(pkg):]
	var kind string
	for _, k := range []string{"Load", "Store", "Add", "CompareAndSwap", "Swap"} {
		if strings.HasPrefix(op, k) {
			kind = k
		}
	}
	var t ir.Type
	switch strings.TrimPrefix(op, kind) {
	case "Int32":
		t = ir.I32
	case "Int64":
		t = ir.I64
	case "Uint32":
		t = ir.U32
	case "Uint64", "Uintptr":
		t = ir.U64
	case "Pointer":
		t = ir.Ptr
	case "Bool": // atomic.Bool's methods
		t = ir.Bool
	default:
		return nil, false
	}
	p := b.nilCheck(args[0][0], 0)
	cur := &ir.Expr{Op: ir.EDeref, Type: t, X: p, Pos: b.pos}
	lv := func() *ir.LValue { return &ir.LValue{Ptr: p, Type: t, Pos: b.pos} }
	switch kind {
	case "Load":
		// Every atomic operation is an atomic step: no data race with
		// another (sync/atomic's accesses are exempt, as Go's race
		// detector exempts them).
		v := b.temp(t)
		b.beginAtomic()
		b.assign(v, cur)
		b.endAtomic()
		return []*ir.Expr{varRef(v)}, true
	case "Store":
		b.beginAtomic()
		b.emit(&ir.Node{Op: ir.OpAssign, LHS: lv(), X: args[1][0]})
		b.endAtomic()
		return nil, true
	case "Add":
		v := b.temp(t)
		b.beginAtomic()
		b.assign(v, &ir.Expr{Op: ir.EAdd, Type: t, X: cur, Y: args[1][0], Pos: b.pos})
		b.emit(&ir.Node{Op: ir.OpAssign, LHS: lv(), X: varRef(v)})
		b.endAtomic()
		return []*ir.Expr{varRef(v)}, true
	case "Swap":
		v := b.temp(t)
		b.beginAtomic()
		b.assign(v, cur)
		b.emit(&ir.Node{Op: ir.OpAssign, LHS: lv(), X: args[1][0]})
		b.endAtomic()
		return []*ir.Expr{varRef(v)}, true
	case "CompareAndSwap":
		r := b.temp(ir.Bool)
		b.beginAtomic()
		b.emit(&ir.Node{Op: ir.OpCas, LHS: lv(), X: args[1][0], Y: args[2][0], Result: &ir.LValue{Var: r, Type: ir.Bool, Pos: b.pos}})
		b.endAtomic()
		return []*ir.Expr{varRef(r)}, true
	}
	return nil, false
}

// unlock is Go's Mutex.Unlock of the mutex at p.
func (b *builder) unlock(p *ir.Expr) {
	b.emit(&ir.Node{Op: ir.OpUnlock, Addr: p, AnyOwner: true})
}

// cell reads cell off of the object at p.
func (b *builder) cell(p *ir.Expr, off int, t ir.Type) *ir.Expr {
	return &ir.Expr{Op: ir.EDeref, Type: t, X: ptrAdd(p, constant(ir.I64, int64(off))), Pos: b.pos}
}

// storeCell writes cell off of the object at p.
func (b *builder) storeCell(p *ir.Expr, off int, t ir.Type, x *ir.Expr) {
	b.emit(&ir.Node{Op: ir.OpAssign, LHS: &ir.LValue{Ptr: ptrAdd(p, constant(ir.I64, int64(off))), Type: t, Pos: b.pos}, X: x})
}

// formatArgs runs what fmt runs of a call's arguments: the String or Error
// method of each argument that has one (fmt.Stringer, error), in order, as
// fmt's printing does. Only arguments passed directly (the variadic slice
// the call builds) are followed; one that is not stops the lowering.
func (b *builder) formatArgs(c *ssa.CallCommon) {
	if len(c.Args) == 0 {
		return
	}
	last := c.Args[len(c.Args)-1]
	sl, ok := last.(*ssa.Slice)
	if !ok {
		if _, isConst := last.(*ssa.Const); isConst {
			return // no variadic arguments (nil)
		}
		b.errorf("a call of fmt with arguments kbmc cannot see (a slice passed on): not supported")
		return
	}
	arr, ok := sl.X.(*ssa.Alloc)
	if !ok {
		return
	}
	// The stores into the variadic array, in order.
	for _, r := range *arr.Referrers() {
		ia, ok := r.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		for _, rr := range *ia.Referrers() {
			st, ok := rr.(*ssa.Store)
			if !ok {
				continue
			}
			mi, ok := st.Val.(*ssa.MakeInterface)
			if !ok {
				continue
			}
			b.callFormatter(mi.X)
		}
	}
}

// callFormatter calls v's String method (or Error), if its type has one.
func (b *builder) callFormatter(v ssa.Value) {
	mset := b.l.pkg.Prog.MethodSets.MethodSet(v.Type())
	for _, name := range []string{"Error", "String"} {
		sel := mset.Lookup(nil, name)
		if sel == nil {
			continue
		}
		fn := b.l.pkg.Prog.MethodValue(sel)
		if fn == nil || fn.Signature.Params().Len() != 0 || fn.Signature.Results().Len() != 1 || !isString(fn.Signature.Results().At(0).Type()) {
			continue
		}
		if len(fn.Blocks) == 0 || fn.Pkg != b.l.pkg && fn.Synthetic == "" {
			return // a method of the library (time.Duration's String): no effect kbmc models
		}
		if b.onStack(fn) {
			b.errorf("a recursive call of %s through fmt: not supported (calls are inlined)", fn.Name())
			return
		}
		b.inline(fn, [][]*ir.Expr{b.value(v)}, nil, &closure{fn: fn}, b.frame.loopy)
		return
	}
}

// syncAwait waits until cond, which reads a synchronization object's cells,
// holds: an atomic step of its own, as every access of the library's objects
// is (sync's, timers', contexts'), so that no-data-race never takes the
// library's own synchronization for a data race.
func (b *builder) syncAwait(cond *ir.Expr) {
	b.beginAtomic()
	b.emit(&ir.Node{Op: ir.OpAwait, X: cond})
	b.endAtomic()
}

// syncLoad reads cell off of a synchronization object at p, atomically
// (see syncAwait).
func (b *builder) syncLoad(p *ir.Expr, off int, t ir.Type) *ir.Expr {
	v := b.temp(t)
	b.beginAtomic()
	b.assign(v, b.cell(p, off, t))
	b.endAtomic()
	return varRef(v)
}

// newError is the error errors.New and fmt.Errorf return: as in Go, an
// object of its own per call (an error made once is a sentinel that compares
// equal only to itself), of a type no type assertion of the program names.
func (b *builder) newError() *ir.Expr {
	return b.newObject(b.curBlock, "error", scalar(ir.Bool), b.l.errorType())
}
