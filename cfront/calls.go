package cfront

import (
	"strings"

	"modernc.org/cc/v4"

	"kbmc/ir"
)

// call lowers a function call: a modelled library or verifier function
// (builtins), or a function of the program, inlined. It returns the call's
// value (nil for void).
func (b *builder) call(pe *cc.PostfixExpression, want bool) *ir.Expr {
	name := funcName(pe.PostfixExpression)
	var args []cc.ExpressionNode
	for l := pe.ArgumentExpressionList; l != nil; l = l.ArgumentExpressionList {
		args = append(args, l.AssignmentExpression)
	}
	if name == "" {
		b.errorf(pe, "a call through a function pointer (%s) is not supported", b.l.text(pe.PostfixExpression))
		return constant(ir.I32, 0)
	}
	if v, ok := b.builtin(name, pe, args, want); ok {
		return v
	}
	if fd := b.l.funcs[name]; fd != nil {
		return b.inline(fd, args, pe, want)
	}
	b.errorf(pe, "call of %s, which has no definition in the program and is not one kbmc models (docs/c.md lists them): not supported", name)
	return constant(ir.I32, 0)
}

// inline lowers a call of one of the program's functions: its parameters
// become locals of the thread, assigned the arguments (evaluated left to
// right), and its body runs in a frame of its own. A function named
// __VERIFIER_atomic_* runs as one atomic section.
func (b *builder) inline(fd *cc.FunctionDefinition, args []cc.ExpressionNode, call cc.Node, want bool) *ir.Expr {
	name := fd.Declarator.Name()
	for f := b.frame; f != nil; f = f.parent {
		if f.fn == fd {
			b.errorf(call, "recursive call of %s: not supported (calls are inlined)", name)
			return constant(ir.I32, 0)
		}
	}
	ft := fd.Declarator.Type().(*cc.FunctionType)
	params := paramsOf(ft)
	if len(args) != len(params) && !(len(params) == 0 || ft.IsVariadic()) {
		b.errorf(call, "call of %s with %d arguments; it has %d parameters", name, len(args), len(params))
		return constant(ir.I32, 0)
	}
	// The arguments, in the caller's frame.
	type arg struct {
		v  *ir.Expr
		pl place
	}
	vals := make([]arg, len(params))
	for i, a := range args {
		if i >= len(params) {
			b.effect(a)
			continue
		}
		pt := params[i].Type()
		if pt.Kind() == cc.Struct || pt.Kind() == cc.Union {
			pl, _ := b.lval(a)
			vals[i].pl = pl
			continue
		}
		vals[i].v = b.stable(b.conv(b.rvAs(a, pt), pt, a))
	}
	nf := &frame{fn: fd, parent: b.frame, vars: map[*cc.Declarator]*local{},
		labels: map[string]int{}, gotos: map[string][]*int{}, gotoAt: map[string]cc.Node{}}
	if rt := ft.Result(); isVoidPointer(rt) {
		switch {
		case b.hint != nil && b.hint.Kind() == cc.Ptr && !isVoidPointer(b.hint):
			nf.elemHint = b.hint
		case b.frame != nil && (b.hint == nil || isVoidPointer(b.hint)):
			nf.elemHint = b.frame.elemHint // a wrapper of a wrapper: return safe_malloc(n);
		}
	}
	if rt := ft.Result(); rt.Kind() != cc.Void {
		lo, err := b.l.layoutOf(rt)
		if err != nil {
			b.errorf(call, "%s returns %v", name, err)
		} else {
			nf.result, nf.resultT = b.newVar(name+"::$result", lo), rt
		}
	}
	atomic := strings.HasPrefix(name, "__VERIFIER_atomic_")
	if atomic {
		b.atomic++
		if b.atomic == 1 {
			b.cutNext = true
		}
	}
	nf.atomic = b.atomic
	b.frame = nf
	for i, p := range params {
		if p.Declarator == nil || i >= len(args) {
			continue
		}
		loc := b.declare(p.Declarator)
		if vals[i].v != nil {
			b.assign(b.cellLV(loc.v, nil, loc.lay.cells[0].typ), vals[i].v)
		} else if vals[i].pl.v != nil || vals[i].pl.ptr != nil {
			src := vals[i].pl
			for c, ci := range loc.lay.cells {
				from := src.cell(c, nil)
				var v *ir.Expr
				if from.ptr != nil {
					v = b.hoist(&ir.Expr{Op: ir.EDeref, Type: ci.typ, X: from.ptr, Pos: b.cur.pos})
				} else {
					v = b.hoist(varExpr(from.v, from.index, ci.typ, b.cur.pos))
				}
				b.assign(b.cellLV(loc.v, constant(ir.I64, int64(c)), ci.typ), v)
			}
		}
	}
	b.compound(fd.CompoundStatement)
	b.finishFrame()
	b.frame = nf.parent
	if atomic {
		b.atomic--
	}
	if nf.result == nil {
		if want {
			return constant(ir.I32, 0)
		}
		return nil
	}
	if nf.result.Len > 0 {
		return &ir.Expr{Op: ir.EVar, Type: nf.result.Type, Var: nf.result, Pos: b.cur.pos}
	}
	return &ir.Expr{Op: ir.EVar, Type: nf.result.Type, Var: nf.result, Pos: b.cur.pos}
}

// nondetTypes are the types SV-COMP's __VERIFIER_nondet_X functions return,
// by X (long and size_t are 64 bits under LP64, 32 under ILP32); a name not
// listed returns its declared type.
var nondetTypes = map[string]ir.Type{
	"bool": ir.Bool, "_Bool": ir.Bool, "char": ir.I8, "uchar": ir.U8, "short": ir.I16, "ushort": ir.U16,
	"int": ir.I32, "uint": ir.U32, "unsigned": ir.U32, "u32": ir.U32, "u16": ir.U16, "u8": ir.U8,
	"long": ir.I64, "ulong": ir.U64, "size_t": ir.U64, "longlong": ir.I64, "ulonglong": ir.U64, "loff_t": ir.I64,
	"int128": ir.I64, "pointer": ir.Ptr,
}

// paramsOf are a function's parameters; f(void) has none.
func paramsOf(ft *cc.FunctionType) []*cc.Parameter {
	ps := ft.Parameters()
	if len(ps) == 1 && ps[0].Type().Kind() == cc.Void {
		return nil
	}
	return ps
}

// reachErrors are the functions whose call is the violation reach-error,
// whatever their body: SV-COMP's reach_error (its tasks before 2022 define it
// empty), and what assert() expands to.
var reachErrors = map[string]bool{"reach_error": true, "__VERIFIER_error": true, "__assert_fail": true,
	"__assert_perror_fail": true, "__assert": true, "__assert_rtn": true}

// ignored are calls without an effect kbmc models: output, timing, thread
// attributes, and the condition variables' signals (a wait may wake up
// spuriously, as POSIX allows, so a signal changes nothing; see docs/c.md).
var ignored = map[string]bool{
	"printf": true, "fprintf": true, "puts": true, "putchar": true, "fflush": true, "fputs": true, "perror": true,
	"sleep": true, "usleep": true, "nanosleep": true, "sched_yield": true, "srand": true,
	"pthread_attr_init": true, "pthread_attr_destroy": true, "pthread_attr_setdetachstate": true,
	"pthread_attr_setstacksize": true, "pthread_attr_setscope": true, "pthread_detach": true,
	"pthread_mutexattr_init": true, "pthread_mutexattr_destroy": true, "pthread_mutexattr_settype": true,
	"pthread_condattr_init": true, "pthread_condattr_destroy": true,
	"pthread_mutex_destroy": true, "pthread_cond_init": true, "pthread_cond_destroy": true,
	"pthread_cond_signal": true, "pthread_cond_broadcast": true, "__sync_synchronize": true,
	"__VERIFIER_atomic_thread_fence": true, "__atomic_thread_fence": true, "pthread_yield": true,
}

// printedFrom is, for the output functions among the ignored calls, the
// first argument whose value they print (after the format, and the stream).
var printedFrom = map[string]int{"printf": 1, "fprintf": 2, "putchar": 0}

// builtin lowers a call kbmc models by its callee's name; ok is false for
// any other call.
func (b *builder) builtin(name string, pe *cc.PostfixExpression, args []cc.ExpressionNode, want bool) (*ir.Expr, bool) {
	pos := b.posAt(pe)
	zero := constant(ir.I32, 0)
	switch {
	case reachErrors[name]:
		msg := name + "() is called"
		if name != "reach_error" && len(args) > 0 {
			if s, ok := args[0].Value().(cc.StringValue); ok {
				msg = "assertion " + strings.TrimRight(string(s), "\x00") + " failed"
			}
		}
		b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: ir.ReachError, Msg: msg, Pos: pos})
		return zero, true
	case name == "abort" || name == "exit" || name == "_exit" || name == "__builtin_trap" || name == "__builtin_unreachable":
		// The program ends: whatever another thread would do after is what it
		// may do before (docs/c.md), so the thread stops here for good.
		b.emit(&ir.Node{Op: ir.OpAssume, X: constant(ir.Bool, 0), Pos: pos})
		return zero, true
	case name == "__VERIFIER_assume" || name == "assume_abort_if_not" || name == "__CPROVER_assume":
		if len(args) != 1 {
			return b.arity(pe, name, 1)
		}
		b.emit(&ir.Node{Op: ir.OpAssume, X: b.guard(args[0]), Pos: pos})
		return zero, true
	case name == "__VERIFIER_assert" && b.l.funcs[name] == nil:
		if len(args) != 1 {
			return b.arity(pe, name, 1)
		}
		c := b.cond(args[0])
		b.emit(&ir.Node{Op: ir.OpAssert, X: c, Kind: ir.ReachError, Msg: "__VERIFIER_assert(" + b.l.text(args[0]) + ") failed", Pos: pos})
		return zero, true
	case name == "__VERIFIER_atomic_begin":
		b.atomic++
		if b.atomic == 1 {
			b.cutNext = true
		}
		return zero, true
	case name == "__VERIFIER_atomic_end":
		if b.atomic == 0 {
			b.errorf(pe, "__VERIFIER_atomic_end without __VERIFIER_atomic_begin")
		} else {
			b.atomic--
		}
		return zero, true
	case strings.HasPrefix(name, "__VERIFIER_nondet_") && b.l.funcs[name] == nil:
		t, known := nondetTypes[strings.TrimPrefix(name, "__VERIFIER_nondet_")]
		switch {
		case known && t == ir.I64 && b.l.model == "ILP32" && (name == "__VERIFIER_nondet_long"):
			t = ir.I32
		case known && t == ir.U64 && b.l.model == "ILP32" && (name == "__VERIFIER_nondet_ulong" || name == "__VERIFIER_nondet_size_t"):
			t = ir.U32
		case !known:
			rt := pe.Type()
			if rt.Kind() == cc.Void {
				return zero, true
			}
			t = b.irType(rt, pe)
		}
		if t == ir.Ptr {
			b.errorf(pe, "%s: a nondeterministic pointer is not supported", name)
			return constant(ir.Ptr, 0), true
		}
		return b.hold(b.nondet(t, name+"()", pos)), true
	case name == "__builtin_expect":
		if len(args) != 2 {
			return b.arity(pe, name, 2)
		}
		return b.rv(args[0]), true
	case ignored[name]:
		// Output prints nothing, but the values it prints are read: a read
		// of a variable another thread writes is a data race (docs/c.md).
		if from, ok := printedFrom[name]; ok {
			for _, a := range args[min(from, len(args)):] {
				if _, literal := a.Value().(cc.StringValue); !literal {
					b.effect(a)
				}
			}
		}
		return zero, true
	case strings.HasPrefix(name, "pthread_"):
		return b.pthread(name, pe, args, want)
	case strings.HasPrefix(name, "sem_") && b.l.funcs[name] == nil:
		return b.semaphore(name, pe, args)
	case (name == "ffs" || name == "__builtin_ffs") && b.l.funcs[name] == nil:
		return b.ffs(pe, args)
	case name == "malloc" || name == "calloc" || name == "free" || name == "memset" || name == "strcpy":
		return b.memory(name, pe, args)
	case name == "realloc" || name == "alloca" || name == "__builtin_alloca":
		b.errorf(pe, "%s is not supported", name)
		return constant(ir.Ptr, 0), true
	case strings.HasPrefix(name, "__sync_") || strings.HasPrefix(name, "__atomic_"):
		return b.atomicBuiltin(name, pe, args)
	}
	return nil, false
}

func (b *builder) arity(pe *cc.PostfixExpression, name string, n int) (*ir.Expr, bool) {
	b.errorf(pe, "%s takes %d arguments", name, n)
	return constant(ir.I32, 0), true
}

// guard lowers an assume's condition. When it reads at most one cell another
// thread may reach, the condition is the blocking operation's guard itself, so
// that the thread waits until it holds; with more, each read is a step of its
// own, as in C.
func (b *builder) guard(e cc.ExpressionNode) *ir.Expr {
	if b.atomic == 0 && e.Pure() && b.sharedReads(e) <= 1 {
		b.atomic++ // evaluated as one operation: no read is hoisted
		c := b.cond(e)
		b.atomic--
		return c
	}
	return b.cond(e)
}

// sharedReads counts the reads of memory other threads may reach in e (an
// upper bound: a pointer dereference counts as one).
func (b *builder) sharedReads(e cc.ExpressionNode) int {
	n := 0
	walk(e, func(m cc.Node) bool {
		switch x := m.(type) {
		case *cc.PrimaryExpression:
			if x.Case == cc.PrimaryExpressionIdent && b.sharedName(x) && !isArray(x.Type()) && x.Type().Kind() != cc.Function {
				n++
			}
		case *cc.UnaryExpression:
			switch x.Case {
			case cc.UnaryExpressionDeref:
				n++
			case cc.UnaryExpressionSizeofExpr, cc.UnaryExpressionAlignofExpr, cc.UnaryExpressionAddrof:
				return false
			}
		case *cc.PostfixExpression:
			switch x.Case {
			case cc.PostfixExpressionPSelect:
				n++
			case cc.PostfixExpressionIndex:
				if !(isArray(x.PostfixExpression.Type()) && !b.sharedName(x.PostfixExpression)) {
					n++
				}
			case cc.PostfixExpressionCall:
				n += 2
			}
		}
		return true
	})
	return n
}

// nondet is a value of type t drawn nondeterministically, any value of the
// type: the explicit engine enumerates ranges up to --max-nondet values and
// refuses wider ones, naming the call; the symbolic engine takes any.
func (b *builder) nondet(t ir.Type, text string, pos ir.Pos) *ir.Expr {
	e := &ir.Expr{Op: ir.ENondet, Type: t, Pos: pos, Text: text}
	switch t {
	case ir.I64, ir.U64, ir.Ptr:
		e.Unbounded = true
	default:
		e.Lo, e.Hi = t.Range(64)
	}
	return e
}

// hold stores a value that must be drawn once into a temporary.
func (b *builder) hold(x *ir.Expr) *ir.Expr {
	t := b.temp(x.Type)
	b.assign(&ir.LValue{Var: t, Pos: x.Pos}, x)
	return &ir.Expr{Op: ir.EVar, Type: x.Type, Var: t, Pos: x.Pos}
}

// pointed is the place a pointer argument addresses: the variable itself for
// &x (so that no pointer needs following), else the memory the pointer's value
// addresses.
func (b *builder) pointed(e cc.ExpressionNode) (place, bool) {
	if u, ok := stripParens(e).(*cc.UnaryExpression); ok && u.Case == cc.UnaryExpressionAddrof {
		return b.lval(u.CastExpression)
	}
	if c, ok := stripParens(e).(*cc.CastExpression); ok && c.Case == cc.CastExpressionCast {
		return b.pointed(c.CastExpression)
	}
	p := b.rv(e)
	return place{ptr: p, typ: pointee(e.Type())}, true
}

// mutexAddr is the address of the mutex a pointer argument names.
func (b *builder) mutexAddr(e cc.ExpressionNode) *ir.Expr {
	pl, ok := b.pointed(e)
	if !ok {
		return constant(ir.Ptr, 0)
	}
	if pl.v != nil && !pl.v.Addressable {
		// A mutex no pointer reaches: still one the lock operations find
		// through its address.
		pl.v.Addressable = true
	}
	return b.addrOf(pl, e)
}

// pthread lowers the POSIX thread functions kbmc models.
func (b *builder) pthread(name string, pe *cc.PostfixExpression, args []cc.ExpressionNode, want bool) (*ir.Expr, bool) {
	pos := b.posAt(pe)
	zero := constant(ir.I32, 0)
	need := map[string]int{"pthread_create": 4, "pthread_join": 2, "pthread_exit": 1, "pthread_self": 0,
		"pthread_equal": 2, "pthread_mutex_init": 2, "pthread_mutex_lock": 1, "pthread_mutex_unlock": 1,
		"pthread_mutex_trylock": 1, "pthread_cond_wait": 2, "pthread_cond_timedwait": 3,
		"pthread_key_create": 2, "pthread_setspecific": 2, "pthread_getspecific": 1, "pthread_key_delete": 1}
	n, known := need[name]
	if !known {
		b.errorf(pe, "%s is not supported (docs/c.md lists the pthread functions kbmc models)", name)
		return zero, true
	}
	if len(args) != n {
		return b.arity(pe, name, n)
	}
	switch name {
	case "pthread_key_create", "pthread_setspecific", "pthread_getspecific", "pthread_key_delete":
		return b.specific(name, pe, args), true
	case "pthread_create":
		fn := funcName(stripAddr(args[2]))
		fd := b.l.funcs[fn]
		if fd == nil {
			b.errorf(args[2], "pthread_create: the start routine must name a function of the program (%s)", b.l.text(args[2]))
			return zero, true
		}
		pi := b.l.poolOf(fd)
		pi.need += b.trip
		arg := b.convert(b.rv(args[3]), args[3].Type(), nil, ir.Ptr)
		var lhs *ir.LValue
		if v, ok := constValue(args[0]); !ok || v != 0 {
			if pl, ok := b.pointed(args[0]); ok {
				lhs = b.lvOf(pl, args[0])
			}
		}
		b.emit(&ir.Node{Op: ir.OpSpawn, Pool: pi.pool, X: arg, LHS: lhs, Pos: pos})
	case "pthread_join":
		t := b.rv(args[0])
		n := &ir.Node{Op: ir.OpJoin, JThread: t, Pos: pos}
		if v, ok := constValue(args[1]); !ok || v != 0 {
			if pl, ok := b.pointed(args[1]); ok {
				n.LHS = b.lvOf(pl, args[1])
			}
		}
		b.emit(n)
	case "pthread_exit":
		v := b.convert(b.rv(args[0]), args[0].Type(), nil, ir.Ptr)
		if b.start != nil && b.l.results {
			b.assign(b.cellLV(b.start, constant(ir.I64, ir.StartReturn), ir.Ptr), v)
		}
		b.patch(b.open, ir.Exit)
		b.open = nil
	case "pthread_self":
		return b.conv(&ir.Expr{Op: ir.ESelf, Type: ir.I64, Pos: pos}, pe.Type(), pe), true
	case "pthread_equal":
		x, y := b.rv(args[0]), b.rv(args[1])
		y = b.convert(y, nil, nil, x.Type)
		return b.conv(&ir.Expr{Op: ir.EEq, Type: ir.Bool, X: x, Y: y, Pos: pos}, pe.Type(), pe), true
	case "pthread_mutex_init":
		if pl, ok := b.pointed(args[0]); ok {
			pl.typ, pl.irt = nil, ir.MutexCell
			b.store(pl, constant(ir.MutexCell, 0), pe)
		}
	case "pthread_mutex_lock":
		b.emit(&ir.Node{Op: ir.OpLock, Addr: b.mutexAddr(args[0]), Pos: pos})
	case "pthread_mutex_unlock":
		b.emit(&ir.Node{Op: ir.OpUnlock, Addr: b.mutexAddr(args[0]), Pos: pos})
	case "pthread_mutex_trylock":
		r := b.temp(ir.Bool)
		b.emit(&ir.Node{Op: ir.OpTryLock, Addr: b.mutexAddr(args[0]), Result: &ir.LValue{Var: r, Pos: pos}, Pos: pos})
		const ebusy = 16
		taken := &ir.Expr{Op: ir.EVar, Type: ir.Bool, Var: r, Pos: pos}
		return &ir.Expr{Op: ir.ECond, Type: ir.I32, X: taken, Y: constant(ir.I32, 0), Z: constant(ir.I32, ebusy), Pos: pos}, true
	case "pthread_cond_wait", "pthread_cond_timedwait":
		// Release the mutex, then take it again: a wake-up may come at any
		// time, spurious ones included (POSIX allows them).
		m := b.mutexAddr(args[1])
		b.emit(&ir.Node{Op: ir.OpUnlock, Addr: m, Pos: pos})
		b.emit(&ir.Node{Op: ir.OpLock, Addr: m, Pos: pos})
	}
	return zero, true
}

// stripAddr removes & and casts from a function designator.
func stripAddr(e cc.ExpressionNode) cc.ExpressionNode {
	for {
		e = stripParens(e)
		switch x := e.(type) {
		case *cc.UnaryExpression:
			if x.Case == cc.UnaryExpressionAddrof {
				e = x.CastExpression
				continue
			}
			if x.Case == cc.UnaryExpressionPostfix {
				e = x.PostfixExpression
				continue
			}
		case *cc.CastExpression:
			if x.Case == cc.CastExpressionCast {
				e = x.CastExpression
				continue
			}
			e = x.UnaryExpression
			continue
		case *cc.PostfixExpression:
			if x.Case == cc.PostfixExpressionPrimary {
				e = x.PrimaryExpression
				continue
			}
		}
		return e
	}
}
