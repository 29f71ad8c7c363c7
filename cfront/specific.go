package cfront

import (
	"strconv"

	"modernc.org/cc/v4"

	"kbmc/ir"
)

// Thread-specific data (pthread_key_create, pthread_setspecific,
// pthread_getspecific): a key is a number handed out in creation order, and
// each thread template that uses keys has its own table of values, one
// pointer cell per key, as a thread-local array would be (threadCopy). Keys
// with a destructor are refused: running it at thread exit is not modelled.

// maxKeys is how many keys a program may create; one more stops the run as
// unsupported, never silently.
const maxKeys = 8

// specific lowers the thread-specific data functions.
func (b *builder) specific(name string, pe *cc.PostfixExpression, args []cc.ExpressionNode) *ir.Expr {
	pos := b.posAt(pe)
	zero := constant(ir.I32, 0)
	switch name {
	case "pthread_key_create":
		if v, ok := constValue(args[1]); !ok || v != 0 {
			b.errorf(args[1], "pthread_key_create with a destructor is not supported (running it at thread exit is not modelled)")
			return zero
		}
		pl, ok := b.pointed(args[0])
		if !ok {
			return zero
		}
		count := b.l.keyCounter()
		b.enterAtomic()
		k := b.temp(ir.U32)
		b.assign(&ir.LValue{Var: k, Pos: pos}, varExpr(count, nil, ir.U32, pos))
		kx := &ir.Expr{Op: ir.EVar, Type: ir.U32, Var: k, Pos: pos}
		b.emit(&ir.Node{Op: ir.OpAssert, Kind: ir.Unsupported, Pos: pos,
			X:   &ir.Expr{Op: ir.ELt, Type: ir.Bool, X: kx, Y: constant(ir.U32, maxKeys), Pos: pos},
			Msg: "the program creates more than 8 pthread keys, the most kbmc models"})
		b.assign(b.cellLV(count, nil, ir.U32), &ir.Expr{Op: ir.EAdd, Type: ir.U32, X: kx, Y: constant(ir.U32, 1), Pos: pos})
		b.store(pl, b.convert(kx, nil, nil, b.scalarType(pl, pe)), pe)
		b.atomic--
	case "pthread_setspecific":
		key := b.stable(b.convert(b.rv(args[0]), args[0].Type(), nil, ir.I64))
		v := b.stable(b.convert(b.rv(args[1]), args[1].Type(), nil, ir.Ptr))
		b.assign(b.cellLV(b.l.keyTable(b.t), key, ir.Ptr), v)
	case "pthread_getspecific":
		key := b.stable(b.convert(b.rv(args[0]), args[0].Type(), nil, ir.I64))
		return b.hoist(varExpr(b.l.keyTable(b.t), key, ir.Ptr, pos))
	case "pthread_key_delete":
	}
	return zero
}

// keyCounter is the variable counting the keys created so far.
func (l *lowerer) keyCounter() *ir.Var {
	if l.keys == nil {
		l.keys = &ir.Var{Name: "pthread keys created", Type: ir.U32, Shared: true, Init: []int64{0}}
		l.prog.Shared = append(l.prog.Shared, l.keys)
	}
	return l.keys
}

// keyTable is thread template t's values of the keys.
func (l *lowerer) keyTable(t *ir.Template) *ir.Var {
	if v := l.keyTables[t]; v != nil {
		return v
	}
	v := &ir.Var{Name: "thread-specific data@" + t.Name, Type: ir.Ptr, Len: maxKeys, Shared: true, Init: make([]int64, maxKeys)}
	for k := range maxKeys {
		v.CellNames = append(v.CellNames, "thread-specific data@"+t.Name+"["+strconv.Itoa(k)+"]")
	}
	l.keyTables[t] = v
	l.prog.Shared = append(l.prog.Shared, v)
	return v
}
