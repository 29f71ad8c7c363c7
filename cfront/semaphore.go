package cfront

import (
	"modernc.org/cc/v4"

	"kbmc/ir"
)

// semaphore lowers the POSIX semaphore functions: a sem_t is one cell
// holding its count (layout.go), whatever the library's size of the type.
// sem_wait waits until the count is positive and takes one, sem_post gives
// one back, each as one atomic step, so that two threads' operations on one
// semaphore never race (docs/c.md, "Data races"). Named semaphores
// (sem_open) and timed waits are not modelled.
func (b *builder) semaphore(name string, pe *cc.PostfixExpression, args []cc.ExpressionNode) (*ir.Expr, bool) {
	need := map[string]int{"sem_init": 3, "sem_wait": 1, "sem_post": 1, "sem_trywait": 1, "sem_destroy": 1}
	n, known := need[name]
	if !known {
		b.errorf(pe, "%s is not supported (docs/c.md lists the semaphore functions kbmc models)", name)
		return constant(ir.I32, 0), true
	}
	if len(args) != n {
		return b.arity(pe, name, n)
	}
	pos := b.posAt(pe)
	pl, ok := b.pointed(args[0])
	if !ok {
		return constant(ir.I32, 0), true
	}
	pl.typ, pl.irt = nil, semaphoreCell
	count := func() *ir.Expr { return b.loadRaw(pl, semaphoreCell) }
	one := constant(semaphoreCell, 1)
	switch name {
	case "sem_init":
		b.effect(args[1]) // shared between processes or not: threads share it alike
		v := b.stable(b.convert(b.rv(args[2]), args[2].Type(), nil, semaphoreCell))
		b.store(pl, v, pe)
	case "sem_wait":
		b.enterAtomic()
		b.emit(&ir.Node{Op: ir.OpAwait, X: &ir.Expr{Op: ir.EGt, Type: ir.Bool, X: count(), Y: constant(semaphoreCell, 0), Pos: pos}, Pos: pos})
		b.store(pl, b.stable(&ir.Expr{Op: ir.ESub, Type: semaphoreCell, X: count(), Y: one, Pos: pos}), pe)
		b.atomic--
	case "sem_post":
		b.enterAtomic()
		b.store(pl, b.stable(&ir.Expr{Op: ir.EAdd, Type: semaphoreCell, X: count(), Y: one, Pos: pos}), pe)
		b.atomic--
	case "sem_trywait":
		// 0 and one taken when the count is positive, else -1 (EAGAIN).
		b.enterAtomic()
		c := b.stable(count())
		ok := b.stable(&ir.Expr{Op: ir.EGt, Type: ir.Bool, X: c, Y: constant(semaphoreCell, 0), Pos: pos})
		taken := &ir.Expr{Op: ir.ECond, Type: semaphoreCell, X: ok, Y: &ir.Expr{Op: ir.ESub, Type: semaphoreCell, X: c, Y: one, Pos: pos}, Z: c, Pos: pos}
		b.store(pl, b.stable(taken), pe)
		b.atomic--
		return &ir.Expr{Op: ir.ECond, Type: ir.I32, X: ok, Y: constant(ir.I32, 0), Z: constant(ir.I32, -1), Pos: pos}, true
	case "sem_destroy":
	}
	return constant(ir.I32, 0), true
}

// semaphoreCell is the ir type of a semaphore's count.
const semaphoreCell = ir.I32

// ffs lowers ffs(i): the position of i's least significant set bit,
// counting from 1, or 0 when i is 0.
func (b *builder) ffs(pe *cc.PostfixExpression, args []cc.ExpressionNode) (*ir.Expr, bool) {
	if len(args) != 1 {
		return b.arity(pe, "ffs", 1)
	}
	pos := b.posAt(pe)
	x := b.stable(b.convert(b.rv(args[0]), args[0].Type(), nil, ir.U32))
	r := constant(ir.I32, 0)
	for bit := 31; bit >= 0; bit-- {
		set := &ir.Expr{Op: ir.ENe, Type: ir.Bool, Pos: pos, Y: constant(ir.U32, 0),
			X: &ir.Expr{Op: ir.EAnd, Type: ir.U32, X: x, Y: constant(ir.U32, 1<<bit), Pos: pos}}
		r = &ir.Expr{Op: ir.ECond, Type: ir.I32, X: set, Y: constant(ir.I32, int64(bit+1)), Z: r, Pos: pos}
	}
	return b.stable(r), true
}
